import Dispatch
import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

/// Opens the gate installed for a round when the disk storage reads its clock, which it does first thing in every
/// read, so a test can cancel while the file is being read and decoded.
final class DiskReadSignal: Sendable {
    private let gate = Locked<Gate?>(nil)

    var now: @Sendable () -> Date {
        { [self] in
            gate.withLock { $0 }?.open()
            return Date()
        }
    }

    func arm(_ gate: Gate?) { self.gate.withLock { $0 = gate } }
}

@Suite(.timeLimit(.minutes(2)))
struct KingfisherManagerDiskReadCancelTests {
    @Test func aCancelDuringADiskReadCallsBackExactlyOnce() async throws {
        try await withTemporaryDirectory { directory in
            try await withDownloader { server, downloader in
                // Given a large image on disk under many keys (nothing in memory), read off the caller's thread
                let signal = DiskReadSignal()
                var config = diskConfig(directory)
                config.now = signal.now
                let cache = ImageCache(
                    memoryStorage: MemoryStorage.Backend(config: .init(totalCostLimit: 0, cleanInterval: 0)),
                    diskStorage: try DiskStorage.Backend<Data>(config: config))
                let manager = KingfisherManager(downloader: downloader, cache: cache)
                let rounds = 300
                let jpeg = Fixtures.jpeg(width: 1600, height: 1200)
                for round in 0..<rounds {
                    await withCheckedContinuation { continuation in
                        cache.storeToDisk(jpeg, forKey: "disk-\(round)") { _ in continuation.resume() }
                    }
                }
                server.route("/unused.jpg", .status(404))
                // Only what the checks need is kept, so the decoded images can go
                let results = Locked<[Int: [Result<(CacheType, CGSize), KingfisherError>]]>([:])
                var inMemory: [Int: Bool] = [:]
                let counter = ResultlessCounter()
                for round in 0..<rounds {
                    let resource = KF.ImageResource(downloadURL: server.url("/unused.jpg"), cacheKey: "disk-\(round)")
                    let readStarted = Gate()
                    signal.arm(round % 4 >= 2 ? readStarted : nil)
                    let task = manager.retrieveImage(with: resource, options: []) { result in
                        let kept = result.map { ($0.cacheType, $0.image.kf.size) }
                        results.withLock { $0[round, default: []].append(kept) }
                        counter.increment()
                    }
                    let returned = try #require(task, "round \(round) was served from memory")
                    // When it is cancelled at once, from another thread at whatever point it has reached, once the disk
                    // read has begun, or once it has begun and up to 20 ms later (so some reads finish first)
                    switch round % 4 {
                    case 0:
                        returned.cancel()
                    case 1:
                        DispatchQueue.global().async { returned.cancel() }
                    case 2:
                        await readStarted.wait()
                        returned.cancel()
                    default:
                        await readStarted.wait()
                        let delay = DispatchTimeInterval.milliseconds(round % 21)
                        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { returned.cancel() }
                    }
                    // A lost callback ends in the suite's time limit and fails below
                    await counter.wait(for: round + 1)
                    // Before the next round the read has ended (a disk removal waits for reads in flight)
                    try? await cache.removeImage(forKey: "nothing", fromMemory: false)
                    inMemory[round] = cache.memoryStorage.isCached(forKey: "disk-\(round)")
                    cache.clearMemoryCache()
                }
                // Then every round called back once: cancelled (nothing put in memory) or an image read from disk
                let byRound = results.withLock { $0 }
                var outcomes = (cancelled: 0, succeeded: 0)
                for round in 0..<rounds {
                    guard let delivered = byRound[round], delivered.count == 1 else {
                        Issue.record("round \(round) called back \(byRound[round]?.count ?? 0) times")
                        continue
                    }
                    let inMemory = inMemory[round] ?? false
                    switch delivered[0] {
                    case .success(let (cacheType, size)):
                        outcomes.succeeded += 1
                        #expect(cacheType == .disk)
                        #expect(size == CGSize(width: 1600, height: 1200))
                        #expect(inMemory, "round \(round) succeeded but its disk hit is not in memory")
                    case .failure(let error):
                        outcomes.cancelled += 1
                        #expect(error.isTaskCancelled, "round \(round) failed with \(error)")
                        #expect(!inMemory, "round \(round) was cancelled but wrote to the memory cache")
                    }
                }
                #expect(outcomes.cancelled + outcomes.succeeded == rounds)
                #expect(server.hits("/unused.jpg") == 0)
            }
        }
    }
}
