import Foundation
import Testing

@testable import Kingfisher

@Suite(.timeLimit(.minutes(1)))
struct MemoryStorageTests {
    private func storage(
        costLimit: Int = 0, countLimit: Int = .max, clock: TestClock = TestClock(), cleanInterval: TimeInterval = 0
    ) -> MemoryStorage.Backend<Costly> {
        var config = MemoryStorage.Config(totalCostLimit: costLimit, cleanInterval: cleanInterval)
        config.countLimit = countLimit
        config.now = clock.now
        return MemoryStorage.Backend(config: config)
    }

    @Test func storesAndReadsBack() {
        let memory = storage()
        memory.store(value: Costly(id: 1, cacheCost: 10), forKey: "a")
        #expect(memory.value(forKey: "a") == Costly(id: 1, cacheCost: 10))
        #expect(memory.value(forKey: "b") == nil)
        #expect(memory.isCached(forKey: "a"))
        #expect(!memory.isCached(forKey: "b"))
    }

    @Test func defaultsMatchKingfisher() {
        let config = MemoryStorage.Config(totalCostLimit: 1)
        #expect(config.expiration == .seconds(300))
        #expect(config.countLimit == .max)
        #expect(config.cleanInterval == 120)
    }

    @Test func costLimitEvictsLeastRecentlyUsedFirst() {
        // Given three values of cost 40 under a limit of 100, where "a" was read after "b" was stored
        let memory = storage(costLimit: 100)
        memory.store(value: Costly(id: 1, cacheCost: 40), forKey: "a")
        memory.store(value: Costly(id: 2, cacheCost: 40), forKey: "b")
        _ = memory.value(forKey: "a")
        // When a third takes the total to 120
        memory.store(value: Costly(id: 3, cacheCost: 40), forKey: "c")
        // Then "b", the least recently used, is gone and the cost is back under the limit
        #expect(!memory.isCached(forKey: "b"))
        #expect(memory.isCached(forKey: "a"))
        #expect(memory.isCached(forKey: "c"))
        #expect(memory.totalCacheCost() == 80)
    }

    @Test func countLimitEvictsInRecencyOrder() {
        let memory = storage(countLimit: 3)
        for key in ["a", "b", "c"] { memory.store(value: Costly(id: 0, cacheCost: 1), forKey: key) }
        _ = memory.value(forKey: "a")  // order now: a, c, b
        memory.store(value: Costly(id: 0, cacheCost: 1), forKey: "d")
        memory.store(value: Costly(id: 0, cacheCost: 1), forKey: "e")
        #expect(memory.keysByRecency == ["e", "d", "a"])
        #expect(memory.count == 3)
    }

    @Test func replacingAValueUpdatesTheCost() {
        let memory = storage()
        memory.store(value: Costly(id: 1, cacheCost: 10), forKey: "a")
        memory.store(value: Costly(id: 2, cacheCost: 25), forKey: "a")
        #expect(memory.totalCacheCost() == 25)
        #expect(memory.value(forKey: "a")?.id == 2)
        memory.remove(forKey: "a")
        #expect(memory.totalCacheCost() == 0)
        #expect(memory.count == 0)
    }

    @Test func aValueOverTheWholeLimitIsNotKept() {
        let memory = storage(costLimit: 50)
        memory.store(value: Costly(id: 1, cacheCost: 10), forKey: "small")
        memory.store(value: Costly(id: 2, cacheCost: 80), forKey: "huge")
        #expect(!memory.isCached(forKey: "huge"))
        #expect(memory.totalCacheCost() <= 50)
    }

    @Test func lruStaysConsistentOverManyOperations() {
        // Given a count limit of 50 and a reference model of recency
        let memory = storage(countLimit: 50)
        var model: [String] = []  // most recent first
        var generator = SystemRandomNumberGenerator()
        for step in 0..<5000 {
            let key = "k\(Int.random(in: 0..<120, using: &generator))"
            switch step % 3 {
            case 0, 1:
                memory.store(value: Costly(id: step, cacheCost: 1), forKey: key)
                model.removeAll { $0 == key }
                model.insert(key, at: 0)
                if model.count > 50 { model.removeLast() }
            default:
                let hit = memory.value(forKey: key) != nil
                #expect(hit == model.contains(key))
                if hit {
                    model.removeAll { $0 == key }
                    model.insert(key, at: 0)
                }
            }
        }
        #expect(memory.keysByRecency == model)
    }

    @Test func expiresByInjectedTime() {
        let clock = TestClock()
        let memory = storage(clock: clock)
        memory.store(value: Costly(id: 1, cacheCost: 1), forKey: "short", expiration: .seconds(10))
        memory.store(value: Costly(id: 2, cacheCost: 1), forKey: "default")  // 300 s
        clock.advance(by: 11)
        #expect(memory.value(forKey: "short") == nil)
        #expect(memory.value(forKey: "default") != nil)
        #expect(memory.count == 1)  // the expired value was removed on read
    }

    @Test func readingExtendsExpirationByCacheTime() {
        let clock = TestClock()
        let memory = storage(clock: clock)
        memory.store(value: Costly(id: 1, cacheCost: 1), forKey: "a", expiration: .seconds(10))
        memory.store(value: Costly(id: 2, cacheCost: 1), forKey: "b", expiration: .seconds(10))
        clock.advance(by: 8)
        #expect(memory.value(forKey: "a") != nil)  // extends to t=18
        #expect(memory.value(forKey: "b", extendingExpiration: .none) != nil)  // stays at t=10
        clock.advance(by: 8)  // t=16
        #expect(memory.isCached(forKey: "a"))
        #expect(!memory.isCached(forKey: "b"))
    }

    @Test func readingCanSetANewExpiration() {
        let clock = TestClock()
        let memory = storage(clock: clock)
        memory.store(value: Costly(id: 1, cacheCost: 1), forKey: "a", expiration: .seconds(10))
        _ = memory.value(forKey: "a", extendingExpiration: .expirationTime(.seconds(100)))
        clock.advance(by: 50)
        #expect(memory.isCached(forKey: "a"))
        clock.advance(by: 51)
        #expect(!memory.isCached(forKey: "a"))
    }

    @Test func expiredExpirationStoresNothing() {
        let memory = storage()
        memory.store(value: Costly(id: 1, cacheCost: 1), forKey: "a")
        memory.store(value: Costly(id: 2, cacheCost: 1), forKey: "a", expiration: .expired)
        #expect(memory.value(forKey: "a") == nil)
        memory.store(value: Costly(id: 3, cacheCost: 1), forKey: "n", expiration: .never)
        #expect(memory.isCached(forKey: "n"))
    }

    @Test func removeExpiredDropsOnlyExpiredValues() {
        let clock = TestClock()
        let memory = storage(clock: clock)
        memory.store(value: Costly(id: 1, cacheCost: 5), forKey: "old", expiration: .seconds(1))
        memory.store(value: Costly(id: 2, cacheCost: 7), forKey: "new", expiration: .seconds(100))
        clock.advance(by: 2)
        memory.removeExpired()
        #expect(memory.count == 1)
        #expect(memory.totalCacheCost() == 7)
    }

    @Test func periodicCleanerRunsWithoutARunLoop() async throws {
        // Given a cleaner every 20 ms on the storage's own periodic work (its real runner), and a value that has
        // expired by the injected clock
        let clock = TestClock()
        let memory = storage(clock: clock, cleanInterval: 0.02)
        let log = HookLog<PeriodicWork.Event>()
        memory.periodicWork.observer = log.observer
        let cleaner = try #require(memory.cleanerJob)
        memory.store(value: Costly(id: 1, cacheCost: 1), forKey: "a", expiration: .seconds(1))
        clock.advance(by: 2)
        // When the cleaner has had a turn that began after that
        let expired = log.mark()
        #expect(
            await log.wait { events in
                let later = events.dropFirst(expired)
                guard let turn = later.firstIndex(of: .due(job: cleaner)) else { return false }
                return later[turn...].contains(.ran(job: cleaner, continues: true))
            })
        // Then it removed the value without anyone reading (count includes expired values until removed)
        #expect(memory.count == 0)
    }

    @Test func theCleanerRunsAtItsIntervalAsTheClockMoves() {
        // Given a cleaner every 120 s on a manual clock
        let clock = TestClock()
        let work = PeriodicWork(timing: .manual)
        var config = MemoryStorage.Config(totalCostLimit: 0, cleanInterval: 120)
        config.now = clock.now
        let memory = MemoryStorage.Backend<Costly>(config: config, periodicWork: work)
        memory.store(value: Costly(id: 1, cacheCost: 1), forKey: "a", expiration: .seconds(1))
        clock.advance(by: 2)
        // Then nothing is removed before its turn, and the turn removes it
        work.advance(by: .seconds(119))
        #expect(memory.count == 1)
        work.advance(by: .seconds(1))
        #expect(memory.count == 0)
    }

    @Test func loweringTheLimitEvictsAtOnce() {
        let memory = storage()
        for index in 0..<10 { memory.store(value: Costly(id: index, cacheCost: 10), forKey: "\(index)") }
        var config = memory.config
        config.totalCostLimit = 30
        memory.config = config
        #expect(memory.totalCacheCost() == 30)
        #expect(memory.keysByRecency == ["9", "8", "7"])
    }

    @Test func imageCostIsItsDecodedBytes() {
        let image = Fixtures.gradient(width: 20, height: 10)
        let memory = MemoryStorage.Backend<KFCrossPlatformImage>(config: .init(totalCostLimit: 0, cleanInterval: 0))
        memory.store(value: image, forKey: "i")
        #expect(memory.totalCacheCost() == image.kf.cost)
        #expect(image.kf.cost >= 20 * 10 * 3)
    }
}
