import Foundation
import KingfisherLocking

/// The in-memory half of ``ImageCache``: a namespace for ``Backend`` and ``Config``.
public enum MemoryStorage {
    /// A thread-safe, cost- and count-limited LRU store with expiration per value.
    ///
    /// Every operation is O(1) under one lock (except ``removeExpired()``, which walks all values).
    /// When a store takes the storage over ``Config/totalCostLimit`` or ``Config/countLimit``, the least
    /// recently used values are evicted until it fits. Expired values are dropped every ``Config/cleanInterval``
    /// seconds by the backend's periodic upkeep (a task of its own while it has a clean interval, shared with the
    /// disk sweeps of the ``ImageCache`` it is given to); it needs no run loop and stops when the backend is
    /// released.
    ///
    /// ```swift
    /// let memory = MemoryStorage.Backend<KFCrossPlatformImage>(config: .init(totalCostLimit: 100 << 20))
    /// memory.store(value: image, forKey: "avatar")
    /// let hit = memory.value(forKey: "avatar")
    /// ```
    ///
    /// - Note: Kingfisher builds this on `NSCache`, which evicts in no defined order; here eviction is strictly
    ///   least recently used first.
    public final class Backend<T: CacheCostCalculable & Sendable>: Sendable {
        typealias Entry = MemoryStorageEntry

        typealias State = MemoryStorageState

        private let state: Locked<State>
        private let cleaner = Locked<Int?>(nil)
        /// The periodic upkeep its expiry cleaner is a job of: the backend's own, which an ``ImageCache`` given
        /// the backend runs its disk sweeps on too.
        let periodicWork: PeriodicWork

        /// Creates a storage and starts its expiry cleaner (a job of its own periodic upkeep).
        public convenience init(config: Config) {
            self.init(config: config, periodicWork: PeriodicWork())
        }

        /// Creates a storage whose expiry cleaner is a job of `periodicWork` (a test's manual clock).
        init(config: Config, periodicWork: PeriodicWork) {
            self.state = Locked(State(config: config))
            self.periodicWork = periodicWork
            let job = periodicWork.every(config.cleanInterval) { [weak self] in
                guard let self else { return false }
                self.removeExpired()
                return true
            }
            cleaner.withLock { $0 = job }
        }

        deinit {
            periodicWork.cancel(cleaner.withLock { $0 })
        }

        /// The expiry cleaner's job in ``periodicWork``; `nil` without a clean interval.
        var cleanerJob: Int? { cleaner.withLock { $0 } }

        /// The limits and clock. Lowering a limit evicts at once.
        public var config: Config {
            get { state.withLock { $0.config } }
            set {
                let evicted = state.withLock { state in
                    state.config = newValue
                    return Self.evictOverLimits(&state)
                }
                _ = evicted  // released here, outside the lock
            }
        }

        /// Stores `value` under `key`, replacing any value there.
        /// - Parameter expiration: how long it lives; ``Config/expiration`` when `nil`. An already expired
        ///   expiration stores nothing and removes any value under `key`.
        public func store(value: T, forKey key: String, expiration: StorageExpiration? = nil) {
            let cost = max(0, value.cacheCost)
            let released: [Entry] = state.withLock { state in
                let now = state.config.now()
                let expiration = expiration ?? state.config.expiration
                let expiresAt = expiration.estimatedExpirationSince(now)
                guard expiresAt > now else {
                    return Self.remove(key, from: &state).map { [$0] } ?? []
                }
                let entry = Entry(
                    box: MemoryStorageBox(value), cost: cost, expiration: expiration, expiresAt: expiresAt)
                var released: [Entry] = []
                if let old = state.index.set(key, entry) {
                    state.totalCost -= old.cost
                    released.append(old)
                }
                state.totalCost += cost
                released += Self.evictOverLimits(&state)
                return released
            }
            _ = released  // values are released outside the lock
        }

        /// The value under `key`, or `nil` when there is none or it has expired (an expired value is removed).
        /// A hit makes the value the most recently used.
        /// - Parameter extendingExpiration: what the read does to the expiration. `.cacheTime` by default.
        public func value(forKey key: String, extendingExpiration: ExpirationExtending = .cacheTime) -> T? {
            // The lookup under the lock is not generic (see `MemoryStorageState.hit`); only the cast is.
            let hit = state.withLock { $0.hit(forKey: key, extending: extendingExpiration) }
            guard let box = hit.box else { return nil }  // an expired entry is released here, outside the lock
            return unsafeDowncast(box, to: MemoryStorageBox<T>.self).value
        }

        /// When the value under `key` expires, without reading it (so without extending it); `nil` when there is
        /// none. For tests.
        func estimatedExpiration(forKey key: String) -> Date? {
            state.withLock { $0.index.peek(key)?.expiresAt }
        }

        /// Whether an unexpired value is stored under `key`. Does not extend its expiration or its recency.
        public func isCached(forKey key: String) -> Bool {
            state.withLock { state in
                guard let entry = state.index.peek(key) else { return false }
                return entry.expiresAt > state.config.now()
            }
        }

        /// Removes the value under `key`, if any.
        public func remove(forKey key: String) {
            let removed = state.withLock { Self.remove(key, from: &$0) }
            _ = removed
        }

        /// Removes every value.
        public func removeAll() {
            let old = state.withLock { state in
                let old = state.index
                state.index.removeAll()
                state.totalCost = 0
                return old
            }
            _ = old
        }

        /// Removes every expired value. Runs by itself every ``Config/cleanInterval`` seconds.
        public func removeExpired() {
            let removed: [Entry] = state.withLock { state in
                let now = state.config.now()
                let expiredKeys = state.index.entries.filter { $0.value.expiresAt <= now }.map(\.key)
                return expiredKeys.compactMap { Self.remove($0, from: &state) }
            }
            _ = removed
        }

        /// The sum of the stored values' costs.
        public func totalCacheCost() -> Int {
            state.withLock { $0.totalCost }
        }

        /// The number of values stored, expired ones included until they are removed. Ours.
        public var count: Int {
            state.withLock { $0.index.count }
        }

        /// Keys from most to least recently used. Ours, for inspection and tests.
        public var keysByRecency: [String] {
            state.withLock { $0.index.entries.map(\.key) }
        }

        private static func remove(_ key: String, from state: inout State) -> Entry? {
            guard let entry = state.index.remove(key) else { return nil }
            state.totalCost -= entry.cost
            return entry
        }

        private static func evictOverLimits(_ state: inout State) -> [Entry] {
            var evicted: [Entry] = []
            let costLimit = state.config.totalCostLimit
            while state.index.count > max(0, state.config.countLimit)
                || (costLimit > 0 && state.totalCost > costLimit)
            {
                guard let (_, entry) = state.index.removeOldest() else { break }
                state.totalCost -= entry.cost
                evicted.append(entry)
            }
            return evicted
        }
    }
}

/// One value's bookkeeping. Not generic, so the LRU index is compiled for it once, inside this module; a
/// client module using ``MemoryStorage/Backend`` with its own type would otherwise run the whole index as
/// unspecialised generic code (about 3.5 times slower per hit, measured in Benchmarks/Caching).
struct MemoryStorageEntry {
    /// A ``MemoryStorageBox`` of the backend's value type.
    var box: AnyObject
    var cost: Int
    /// The expiration the value was stored with, re-applied by `.cacheTime` extension.
    var expiration: StorageExpiration
    var expiresAt: Date
}

/// Everything a ``MemoryStorage/Backend`` guards with its lock; not generic, for the same reason.
struct MemoryStorageState {
    var config: MemoryStorage.Config
    var index = LRUIndex<MemoryStorageEntry>()
    var totalCost = 0
}

extension MemoryStorageState {
    /// The boxed value under `key` made the most recently used with its expiration extended, or `nil`; an
    /// expired entry is removed and returned as `expired`, so the caller releases it outside the lock.
    mutating func hit(
        forKey key: String, extending: ExpirationExtending
    ) -> (box: AnyObject?, expired: MemoryStorageEntry?) {
        let now = config.now()
        let found = index.withValue(forKey: key) { entry -> AnyObject? in
            guard entry.expiresAt > now else { return nil }
            switch extending {
            case .none:
                break
            case .cacheTime:
                entry.expiresAt = entry.expiration.estimatedExpirationSince(now)
            case .expirationTime(let expiration):
                entry.expiration = expiration
                entry.expiresAt = expiration.estimatedExpirationSince(now)
            }
            return entry.box
        }
        switch found {
        case .none:
            return (nil, nil)
        case .some(.none):
            guard let entry = index.remove(key) else { return (nil, nil) }
            totalCost -= entry.cost
            return (nil, entry)
        case .some(.some(let box)):
            return (box, nil)
        }
    }
}

/// Holds a stored value behind a class reference, so entries need not be generic.
final class MemoryStorageBox<T: Sendable>: Sendable {
    let value: T

    init(_ value: T) {
        self.value = value
    }
}
