import Foundation
import KingfisherLocking
import Testing

@testable import Kingfisher

@Suite("JPEG frame headers and the large-decode gate")
struct JPEGFrameHeaderTests {
    @Test("baseline and progressive JPEGs are told apart, with their size and components")
    func readsFrameHeader() throws {
        let baseline = try #require(JPEGFrameHeader(Fixtures.jpeg(width: 64, height: 48)))
        #expect(baseline.width == 64 && baseline.height == 48 && baseline.components == 3)
        #expect(!baseline.isProgressive)
        let progressive = try #require(JPEGFrameHeader(Fixtures.progressiveJPEG(width: 33, height: 70)))
        #expect(progressive.width == 33 && progressive.height == 70 && progressive.components == 3)
        #expect(progressive.isProgressive)
    }

    @Test("other formats, truncated headers and garbage give nil")
    func rejectsNonJPEG() {
        let jpeg = Fixtures.progressiveJPEG()
        for data in [Data(), Fixtures.png(), jpeg.prefix(3), jpeg.prefix(40), Data([0xFF, 0xD8, 0xFF, 0xFF, 0xFF])] {
            #expect(JPEGFrameHeader(data) == nil)
        }
    }

    /// `jpeg` with its frame header rewritten to declare 5120 x 2880 (the gate reads only the header).
    private func declaringLargeSize(_ jpeg: Data) throws -> Data {
        var bytes = [UInt8](jpeg)
        let sof = try #require(
            (0..<bytes.count - 1).first { bytes[$0] == 0xFF && [0xC0, 0xC2].contains(bytes[$0 + 1]) })
        bytes[sof + 5] = 0x0B  // height 2880
        bytes[sof + 6] = 0x40
        bytes[sof + 7] = 0x14  // width 5120
        bytes[sof + 8] = 0x00
        return Data(bytes)
    }

    @Test("large progressive JPEGs and other large images are gated; large baseline JPEGs and small images not")
    func whatIsLarge() throws {
        let pixels = 5120 * 2880
        let progressive = try declaringLargeSize(Fixtures.progressiveJPEG())
        let baseline = try declaringLargeSize(Fixtures.jpeg())
        #expect(LargeDecodeGate.isLarge(progressive, format: .JPEG, pixels: pixels))
        #expect(!LargeDecodeGate.isLarge(baseline, format: .JPEG, pixels: pixels))
        #expect(LargeDecodeGate.isLarge(Fixtures.png(), format: .PNG, pixels: pixels))
        #expect(!LargeDecodeGate.isLarge(progressive, format: .JPEG, pixels: 1_000_000))
    }

    @Test("large decodes run one at a time")
    func oneLargeDecodeAtATime() throws {
        let large = try declaringLargeSize(Fixtures.progressiveJPEG())
        let small = Fixtures.progressiveJPEG()
        let running = Counter()
        let maximum = Counter()
        // Each on its own thread, as decodes run on the processing pool's threads.
        let group = DispatchGroup()
        for index in 0..<6 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    let isLarge = index.isMultiple(of: 2)
                    let gate = LargeDecodeGate.enter(
                        isLarge ? large : small, format: .JPEG, pixels: isLarge ? 5120 * 2880 : 64 * 48)
                    defer { gate.leave() }
                    if isLarge {
                        maximum.raise(to: running.add(1))
                        Thread.sleep(forTimeInterval: 0.03)
                        _ = running.add(-1)
                    } else {
                        Thread.sleep(forTimeInterval: 0.01)
                    }
                }
            }.start()
        }
        group.wait()
        #expect(maximum.value == 1)
    }

    @Test(
        "work admitted before the pool: large progressive JPEGs one at a time, and the decode inside passes",
        .timeLimit(.minutes(1)))
    func admittedWork() async throws {
        let large = try declaringLargeSize(Fixtures.progressiveJPEG())
        let running = Counter()
        let maximum = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    await DecodeExecutor.run(on: nil, decoding: large) {
                        // The decoder's own gate: it must let admitted work through, or this deadlocks.
                        let gate = LargeDecodeGate.enter(large, format: .JPEG, pixels: 5120 * 2880)
                        defer { gate.leave() }
                        maximum.raise(to: running.add(1))
                        Thread.sleep(forTimeInterval: 0.03)
                        _ = running.add(-1)
                    }
                }
            }
        }
        #expect(maximum.value == 1)
    }
}

/// A thread-safe integer for the gate test.
private final class Counter: Sendable {
    private let storage = Locked(0)
    var value: Int { storage.withLock { $0 } }
    func add(_ delta: Int) -> Int {
        storage.withLock {
            $0 += delta
            return $0
        }
    }
    func raise(to candidate: Int) { storage.withLock { $0 = max($0, candidate) } }
}
