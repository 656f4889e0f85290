import Foundation
import KingfisherLocking
import NIOCore
import NIOFoundationCompat

/// A response body gathered into one `Data`, copied out of the network's read buffers as it arrives.
///
/// Copying lets NIO read the next body into the same buffer, whose pages are already in place; keeping the read
/// buffer instead (no copy) made NIO allocate a fresh 1 MB buffer for every read, and the kernel fault in every
/// page of it: copying a megabyte costs less than faulting in one (`perf record` of `kf prefetch --original`,
/// BENCHMARKS.md). A declared length of 1 MB or more gets a memory mapping of its own, returned to the system (or
/// kept for the next bodies, see ``MappingPool``) when the `Data` is released: glibc would otherwise serve such
/// buffers from its heap once a few have been freed (its adaptive mmap threshold), where downloads and decodes on
/// many threads fragment it (200 bodies of 5.8 MB decoded 8 at a time: peak RSS 187-205 MB with heap buffers, see
/// BENCHMARKS.md).
// Not copyable: a copy would share the mapping and could hand it over twice.
struct CollectedBody: ~Copyable {
    private var joined: Data?
    private var mapped: MappedBuffer?
    private let expectedLength: Int64
    /// Bytes received so far.
    private(set) var count = 0

    init(expectedLength: Int64) {
        self.expectedLength = expectedLength
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
            if expectedLength >= MappedBuffer.minimumSize, let buffer = MappedBuffer(capacity: Int(expectedLength)) {
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
    private var used = 0
    private var handedOver = false

    init?(capacity: Int) {
        guard capacity > 0, let mapping = MappingPool.shared.take(capacity: capacity) else { return nil }
        base = mapping.base
        self.capacity = mapping.capacity
    }

    deinit {
        if !handedOver { MappingPool.shared.give(base: base, capacity: capacity) }
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
        let (base, capacity) = (self.base, self.capacity)
        return Data(
            bytesNoCopy: base, count: used,
            deallocator: .custom { _, _ in MappingPool.shared.give(base: base, capacity: capacity) })
    }
}

/// Released body mappings kept for reuse, at most ``maximumBytes`` in all.
///
/// A fresh anonymous mapping costs a page fault and a zeroed page for every 4 KB written into it, and an unmapping
/// that walks them again: 120 photos of ~1 MB spent about a sixth of the downloader's CPU time there (`perf record`
/// of `kf prefetch --original`, BENCHMARKS.md). A kept mapping's pages are already in place. A mapping is reused
/// for a body that needs at least half of it, so no body holds more than twice its size.
final class MappingPool: Sendable {
    static let shared = MappingPool(maximumBytes: 16 << 20)

    /// The most bytes kept in released mappings; what does not fit is unmapped.
    let maximumBytes: Int
    private let kept = Locked<[(address: UInt, capacity: Int)]>([])

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// Bytes kept now.
    var keptBytes: Int { kept.withLock { $0.reduce(0) { $0 + $1.capacity } } }

    /// A mapping of at least `capacity` bytes (rounded up to whole pages): a kept one when one fits, else a new
    /// one; `nil` when the system refuses.
    func take(capacity: Int) -> (base: UnsafeMutableRawPointer, capacity: Int)? {
        let size = Self.pageRounded(capacity)
        let reused = kept.withLock { kept -> (address: UInt, capacity: Int)? in
            // The smallest kept mapping that fits, if it is not more than twice the size asked for.
            guard
                let index = kept.indices.filter({ kept[$0].capacity >= size && kept[$0].capacity <= 2 * size })
                    .min(by: { kept[$0].capacity < kept[$1].capacity })
            else { return nil }
            return kept.remove(at: index)
        }
        if let reused, let base = UnsafeMutableRawPointer(bitPattern: reused.address) {
            return (base, reused.capacity)
        }
        guard let pointer = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            pointer != MAP_FAILED
        else { return nil }
        return (pointer, size)
    }

    /// Takes back a mapping from ``take(capacity:)``: kept while there is room, else unmapped.
    func give(base: UnsafeMutableRawPointer, capacity: Int) {
        let keep = kept.withLock { kept -> Bool in
            let total = kept.reduce(0) { $0 + $1.capacity }
            guard total + capacity <= maximumBytes else { return false }
            kept.append((UInt(bitPattern: base), capacity))
            return true
        }
        if !keep { munmap(base, capacity) }
    }

    private static func pageRounded(_ bytes: Int) -> Int {
        let page = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
        return (bytes + page - 1) / page * page
    }
}
