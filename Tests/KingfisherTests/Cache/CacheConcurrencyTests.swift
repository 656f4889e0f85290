import Foundation
import Kingfisher
import Testing

/// 64 tasks at once on one cache: no lost write, no torn read. Run under `--sanitize=thread` as well.
@Suite(.timeLimit(.minutes(2)))
struct CacheConcurrencyTests {
    /// 128 KB whose every byte is `writer`: a torn read would mix two writers or come up short.
    private static func payload(_ writer: Int) -> Data {
        Data(repeating: UInt8(writer), count: 128 * 1024)
    }

    private static func isWhole(_ data: Data) -> Bool {
        guard data.count == 128 * 1024, let first = data.first else { return false }
        return data.allSatisfy { $0 == first }
    }

    @Test func sixtyFourWritersOnOneKeyNeverTearAReads() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            let torn = await withTaskGroup(of: Int.self) { group in
                for writer in 0..<64 {
                    group.addTask {
                        var torn = 0
                        for round in 0..<4 {
                            try? disk.store(value: Self.payload(writer), forKey: "shared")
                            if let read = try? disk.value(
                                forKey: "shared", extendingExpiration: round % 2 == 0 ? .cacheTime : .none),
                                !Self.isWhole(read)
                            {
                                torn += 1
                            }
                        }
                        return torn
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(torn == 0)
            let final = try #require(try disk.value(forKey: "shared"))
            #expect(Self.isWhole(final))
            #expect(allEntries(in: disk.directoryURL).count == 1)  // no temporaries left behind
        }
    }

    @Test func sixtyFourWritersOnDifferentKeysLoseNothing() async throws {
        try await withTemporaryDirectory { directory in
            let disk = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            let failures = await withTaskGroup(of: Int.self) { group in
                for writer in 0..<64 {
                    group.addTask {
                        do {
                            try disk.store(value: Self.payload(writer), forKey: "key-\(writer)")
                            return try disk.value(forKey: "key-\(writer)") == Self.payload(writer) ? 0 : 1
                        } catch {
                            return 1
                        }
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(failures == 0)
            for writer in 0..<64 {
                #expect(try disk.value(forKey: "key-\(writer)") == Self.payload(writer))
            }
            #expect(try disk.totalSize() == 64 * 128 * 1024)
        }
    }

    @Test func imageCacheUnderSixtyFourTasks() async throws {
        try await withTemporaryDirectory { directory in
            // Given a cache with a small memory limit, so memory evicts while disk is read concurrently
            let images = (0..<8).map { Fixtures.solid([UInt8($0 * 30), 10, 200, 255], width: 16, height: 16) }
            let cache = try makeCache(in: directory, costLimit: 4 * images[0].kf.cost)
            // When 64 tasks each store one own key and one shared key, then read both back
            let results = await withTaskGroup(of: Bool.self) { group in
                for task in 0..<64 {
                    group.addTask {
                        let mine = images[task % 8]
                        do {
                            try await cache.store(mine, forKey: "own-\(task)")
                            try await cache.store(mine, forKey: "shared")
                            let own = try await cache.retrieveImage(forKey: "own-\(task)")
                            let shared = try await cache.retrieveImage(forKey: "shared")
                            let ownPixel = own.image?.pixel(0, 0)
                            let sharedPixel = shared.image?.pixel(0, 0)
                            // Own key: exactly what this task stored; shared: one of the stored images, whole
                            return ownPixel == mine.pixel(0, 0)
                                && images.contains { $0.pixel(0, 0) == sharedPixel }
                                && shared.image?.pixelWidth == 16
                        } catch {
                            return false
                        }
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.count == 64)
            #expect(results.allSatisfy { $0 })
            #expect(cache.memoryStorageCacheCost <= 4 * images[0].kf.cost)
            cache.clearMemoryCache()
            for task in 0..<64 {
                let found = try await cache.retrieveImage(forKey: "own-\(task)")
                #expect(found.cacheType == .disk)
                #expect(found.image?.pixel(0, 0) == images[task % 8].pixel(0, 0))
            }
        }
    }

    @Test func memoryStorageUnderManyThreads() {
        let memory = MemoryStorage.Backend<Costly>(config: .init(totalCostLimit: 1000, cleanInterval: 0))
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            for round in 0..<500 {
                let key = "k\((index * 7 + round) % 97)"
                memory.store(value: Costly(id: index, cacheCost: 10), forKey: key)
                _ = memory.value(forKey: key)
                if round % 50 == 0 { memory.remove(forKey: key) }
            }
        }
        // Cost bookkeeping survives the contention
        #expect(memory.totalCacheCost() == memory.count * 10)
        #expect(memory.totalCacheCost() <= 1000)
    }

    @Test func twoStoragesOnOneDirectoryActLikeTwoProcesses() async throws {
        try await withTemporaryDirectory { directory in
            // Two backends share a directory, as two processes would; one evicts while the other writes
            let writer = try DiskStorage.Backend<Data>(config: diskConfig(directory))
            let sweeper = try DiskStorage.Backend<Data>(config: diskConfig(directory, sizeLimit: 64 * 1024))
            async let writes: Void = {
                for index in 0..<64 { try? writer.store(value: Self.payload(index), forKey: "f\(index)") }
            }()
            async let sweeps: Void = {
                for _ in 0..<20 { _ = try? sweeper.removeSizeExceededValues() }
            }()
            _ = await (writes, sweeps)
            // Whatever survived is whole
            for index in 0..<64 {
                if let data = try writer.value(forKey: "f\(index)") { #expect(Self.isWhole(data)) }
            }
        }
    }
}
