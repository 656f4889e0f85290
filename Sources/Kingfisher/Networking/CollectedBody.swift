import Foundation
import NIOCore
import NIOFoundationCompat

/// A response body gathered into one `Data`, copied only when it arrives in more than one piece.
///
/// A body that fits in one socket read (most images, with the downloader's 1 MB reads) is handed over as the
/// network buffer itself, without a copy; a body in several pieces is copied once into a buffer reserved for the
/// declared `Content-Length`. A declared length of 1 MB or more gets a memory mapping of its own, returned to the
/// system when the `Data` is released: glibc would otherwise serve such buffers from its heap once a few have been
/// freed (its adaptive mmap threshold), where downloads and decodes on many threads fragment it (200 bodies of
/// 5.8 MB decoded 8 at a time: peak RSS 187-205 MB with heap buffers, see BENCHMARKS.md).
// Not copyable: a copy would share the mapping and could hand it over twice.
struct CollectedBody: ~Copyable {
    private var single: ByteBuffer?
    private var joined: Data?
    private var mapped: MappedBuffer?
    private let expectedLength: Int64
    /// Bytes received so far.
    private(set) var count = 0

    init(expectedLength: Int64) {
        self.expectedLength = expectedLength
    }

    mutating func append(_ chunk: ByteBuffer) {
        guard chunk.readableBytes > 0 else { return }
        count += chunk.readableBytes
        if joined == nil, mapped == nil, single == nil {
            single = chunk
            return
        }
        if let single {
            self.single = nil
            if expectedLength >= MappedBuffer.minimumSize, let buffer = MappedBuffer(capacity: Int(expectedLength)) {
                mapped = buffer
            } else {
                joined = Data(capacity: max(count, Int(clamping: expectedLength)))
            }
            append(bytesOf: single)
        }
        append(bytesOf: chunk)
    }

    private mutating func append(bytesOf chunk: ByteBuffer) {
        chunk.withUnsafeReadableBytes { bytes in
            if let mapped, mapped.append(bytes) { return }
            if let mapped {  // more than the declared length: carry on in ordinary memory
                joined = mapped.copiedData()
                self.mapped = nil
            }
            joined?.append(contentsOf: bytes)
        }
    }

    /// A copy of the bytes received so far, for ``SessionDataTask/mutableData`` while the body downloads.
    func snapshot() -> Data {
        if let mapped { return mapped.copiedData() }
        if let single { return Data(buffer: single, byteTransferStrategy: .copy) }
        return joined ?? Data()
    }

    /// The whole body, taken once at the end; empty when nothing arrived. A single piece that fills less than a
    /// quarter of its network buffer (a small image read into a large buffer) is copied, so that a body never
    /// keeps more than four times its size alive.
    consuming func takeData() -> Data {
        if let mapped { return mapped.handOver() }
        guard let single else { return joined ?? Data() }
        if single.readableBytes * 4 >= single.storageCapacity {
            return Data(buffer: single, byteTransferStrategy: .noCopy)
        }
        return Data(buffer: single, byteTransferStrategy: .copy)
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
        guard capacity > 0,
            let pointer = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            pointer != MAP_FAILED
        else { return nil }
        base = pointer
        self.capacity = capacity
    }

    deinit {
        if !handedOver { munmap(base, capacity) }
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
        return Data(bytesNoCopy: base, count: used, deallocator: .custom { _, _ in munmap(base, capacity) })
    }
}
