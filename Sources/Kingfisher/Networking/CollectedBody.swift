import Foundation
import KingfisherLocking
import NIOCore
import NIOFoundationCompat

/// A response body gathered into one `Data`, copied out of the network's read buffers as it arrives.
///
/// Copying lets NIO read the next body into the same buffer, whose pages are already in place; keeping the read
/// buffer instead (no copy) made NIO allocate a fresh 1 MB buffer for every read, and the kernel fault in every
/// page of it: copying a megabyte costs less than faulting in one (`perf record` of `kf prefetch --original`,
/// docs/benchmarks-history.md). A declared length of 1 MB or more gets a memory mapping of its own, returned to the
/// system (or kept for the next bodies, see ``MappingPool``) when the `Data` is released: glibc would otherwise serve
/// such buffers from its heap once a few have been freed (its adaptive mmap threshold), where downloads and decodes on
/// many threads fragment it (200 bodies of 5.8 MB decoded 8 at a time: peak RSS 187-205 MB with heap buffers, see
/// docs/benchmarks-history.md).
// Not copyable: a copy would share the mapping and could hand it over twice.
struct CollectedBody: ~Copyable {
    private var joined: Data?
    private var mapped: MappedBuffer?
    private let expectedLength: Int64
    /// Where a large body's mapping comes from and goes back to: its downloader's.
    private let buffers: MappingPool
    /// Bytes received so far.
    private(set) var count = 0

    init(expectedLength: Int64, buffers: MappingPool) {
        self.expectedLength = expectedLength
        self.buffers = buffers
    }

    mutating func append(_ chunk: ByteBuffer) {
        chunk.withUnsafeReadableBytes { append($0) }
    }

    /// Appends bytes that did not come from the network's buffers (the kept start of a resumed body).
    mutating func append(_ data: Data) {
        data.withUnsafeBytes { append($0) }
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        if joined == nil, mapped == nil {
            if expectedLength >= MappedBuffer.minimumSize,
                let buffer = MappedBuffer(capacity: Int(expectedLength), from: buffers)
            {
                mapped = buffer
            } else {
                joined = Data(capacity: max(bytes.count, Int(clamping: max(0, expectedLength))))
            }
        }
        count += bytes.count
        if let mapped, mapped.append(bytes) { return }
        if let mapped {  // more than the declared length: carry on in ordinary memory
            joined = mapped.copiedData()
            self.mapped = nil
        }
        joined?.append(contentsOf: bytes)
    }

    /// A copy of the bytes received so far, for ``SessionDataTask/mutableData`` while the body downloads.
    func snapshot() -> Data {
        if let mapped { return mapped.copiedData() }
        return joined ?? Data()
    }

    /// The whole body, taken once at the end; empty when nothing arrived.
    consuming func takeData() -> Data {
        if let mapped { return mapped.handOver() }
        return joined ?? Data()
    }
}

/// Bytes in an anonymous memory mapping of their own, handed over to a `Data` without a copy.
private final class MappedBuffer {
    /// Mappings start at 1 MB; smaller buffers stay in the C heap.
    static let minimumSize: Int64 = 1 << 20

    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    private let pool: MappingPool
    private var used = 0
    private var handedOver = false

    init?(capacity: Int, from pool: MappingPool) {
        guard capacity > 0, let mapping = pool.take(capacity: capacity) else { return nil }
        base = mapping.base
        self.capacity = mapping.capacity
        self.pool = pool
    }

    deinit {
        if !handedOver { pool.give(base: base, capacity: capacity) }
    }

    /// Appends `bytes` if they fit; `false` (and nothing appended) if they do not.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !handedOver, bytes.count <= capacity - used else { return false }
        if let source = bytes.baseAddress { (base + used).copyMemory(from: source, byteCount: bytes.count) }
        used += bytes.count
        return true
    }

    func copiedData() -> Data {
        Data(bytes: base, count: used)
    }

    /// The bytes as a `Data` that unmaps them when released; called once, by ``CollectedBody/takeData()``.
    func handOver() -> Data {
        precondition(!handedOver, "a mapped body is handed over once")
        handedOver = true
        let (base, capacity, pool) = (self.base, self.capacity, self.pool)
        return Data(
            bytesNoCopy: base, count: used, deallocator: .custom { _, _ in pool.give(base: base, capacity: capacity) })
    }
}
