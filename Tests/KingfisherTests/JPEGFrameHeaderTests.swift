import Foundation
import Synchronization
import Testing

@testable import Kingfisher

@Suite("JPEG frame headers and large-decode admission")
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

    @Test("large progressive JPEGs decode one at a time; small ones and other formats are not held back")
    func admission() async throws {
        // A header alone is enough: admission reads only the frame header.
        var large = [UInt8](Fixtures.progressiveJPEG())
        let sof = try #require((0..<large.count - 1).first { large[$0] == 0xFF && large[$0 + 1] == 0xC2 })
        large[sof + 5] = 0x0B  // height 2880
        large[sof + 6] = 0x40
        large[sof + 7] = 0x14  // width 5120
        large[sof + 8] = 0x00
        let largeData = Data(large)
        let running = Counter()
        let maximum = Counter()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                group.addTask {
                    // Half large progressive, half small: only the large ones are serialised.
                    let data = index.isMultiple(of: 2) ? largeData : Fixtures.progressiveJPEG()
                    DecodeAdmission.admitting(data, format: .JPEG) {
                        let now = running.add(index.isMultiple(of: 2) ? 1 : 0)
                        maximum.raise(to: now)
                        Thread.sleep(forTimeInterval: 0.02)
                        _ = running.add(index.isMultiple(of: 2) ? -1 : 0)
                    }
                }
            }
        }
        #expect(maximum.value == 1)
    }
}

/// A thread-safe integer for the admission test.
private final class Counter: Sendable {
    private let storage = Mutex(0)
    var value: Int { storage.withLock { $0 } }
    func add(_ delta: Int) -> Int {
        storage.withLock {
            $0 += delta
            return $0
        }
    }
    func raise(to candidate: Int) { storage.withLock { $0 = max($0, candidate) } }
}
