import Foundation
import NIOCore
import Testing

@testable import Kingfisher

@Suite("Response bodies gathered into Data")
struct CollectedBodyTests {
    /// The buffers a downloader keeps for its bodies.
    private let buffers = MappingPool(maximumBytes: 16 << 20)

    private func buffer(_ bytes: [UInt8], capacity: Int? = nil) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: capacity ?? bytes.count)
        buffer.writeBytes(bytes)
        return buffer
    }

    private func bytes(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }
    }

    @Test("one piece comes out as its bytes")
    func onePiece() {
        let body = bytes(300_000, seed: 1)
        var collected = CollectedBody(expectedLength: Int64(body.count), buffers: buffers)
        collected.append(buffer(body))
        #expect(collected.count == body.count)
        let data = collected.takeData()
        #expect(data == Data(body))
    }

    @Test("several pieces come out joined in order, with or without a declared length")
    func severalPieces() {
        let pieces = [bytes(70_000, seed: 2), bytes(1, seed: 3), bytes(250_000, seed: 4)]
        for expected: Int64 in [-1, 320_001, 10] {
            var collected = CollectedBody(expectedLength: expected, buffers: buffers)
            for piece in pieces { collected.append(buffer(piece)) }
            #expect(collected.count == 320_001)
            let data = collected.takeData()
            #expect(data == Data(pieces.joined()))
        }
    }

    @Test("a piece read from the middle of a larger buffer keeps only its own bytes")
    func sliceOfALargerBuffer() {
        var whole = buffer(bytes(1 << 20, seed: 5))
        whole.moveReaderIndex(forwardBy: 1000)
        let small = whole.getSlice(at: 1000, length: 5000)!
        let large = whole.getSlice(at: 1000, length: 600_000)!
        for piece in [small, large] {
            var collected = CollectedBody(expectedLength: -1, buffers: buffers)
            collected.append(piece)
            let data = collected.takeData()
            #expect(data == Data(piece.readableBytesView))
        }
    }

    @Test("nothing or only empty pieces give empty data")
    func empty() {
        #expect(CollectedBody(expectedLength: -1, buffers: buffers).takeData().isEmpty)
        var collected = CollectedBody(expectedLength: -1, buffers: buffers)
        collected.append(ByteBuffer())
        collected.append(ByteBuffer())
        #expect(collected.count == 0)
        let data = collected.takeData()
        #expect(data.isEmpty)
    }

    @Test("a body of 1 MB or more in pieces, with its declared length, longer or shorter than declared")
    func largeBodies() {
        let pieces = (0..<6).map { bytes(400_000 + $0, seed: $0) }
        let total = pieces.map(\.count).reduce(0, +)
        for declared in [total, total - 500_000, total + 10, 2_000_000] {
            var collected = CollectedBody(expectedLength: Int64(declared), buffers: buffers)
            for piece in pieces { collected.append(buffer(piece)) }
            #expect(collected.count == total)
            let data = collected.takeData()
            #expect(data == Data(pieces.joined()), "declared \(declared)")
        }
    }

    @Test("a released mapping is reused for the next body that needs at least half of it, never beyond the bound")
    func mappingsAreReusedWithinTheBound() throws {
        let pool = MappingPool(maximumBytes: 3 << 20)
        // Given a mapping of 1.5 MB taken and given back
        let first = try #require(pool.take(capacity: 1_500_000))
        first.base.storeBytes(of: 0xAB, as: UInt8.self)
        pool.give(base: first.base, capacity: first.capacity)
        #expect(pool.keptBytes == first.capacity)
        // When a body of 1.2 MB needs one, it gets the same pages back
        let second = try #require(pool.take(capacity: 1_200_000))
        #expect(second.base == first.base && second.capacity == first.capacity)
        #expect(pool.keptBytes == 0)
        // and a body of 100 KB (less than half of it) does not
        pool.give(base: second.base, capacity: second.capacity)
        let small = try #require(pool.take(capacity: 100_000))
        #expect(small.base != first.base)
        // Then giving back more than the bound keeps only what fits
        pool.give(base: small.base, capacity: small.capacity)
        let extra = try #require(pool.take(capacity: 2_000_000))
        pool.give(base: extra.base, capacity: extra.capacity)
        #expect(pool.keptBytes <= pool.maximumBytes)
        #expect(pool.keptBytes == first.capacity + small.capacity)
    }

    @Test("a body in a reused mapping holds its own bytes only, not the last body's")
    func reusedMappingsCarryNothingOver() {
        let long = bytes(1_600_000, seed: 7)
        let short = bytes(1_100_000, seed: 8)
        for body in [long, short, long] {
            var collected = CollectedBody(expectedLength: Int64(body.count), buffers: buffers)
            collected.append(buffer(Array(body[..<300_000])))
            collected.append(buffer(Array(body[300_000...])))
            let data = collected.takeData()
            #expect(data == Data(body))
        }
    }
}
