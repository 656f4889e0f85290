#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value that is only read and changed under a lock: the one lock of this package.
///
/// It is a pthread mutex rather than `Synchronization.Mutex` so that ThreadSanitizer sees it. TSan intercepts
/// `pthread_mutex_lock`/`unlock`; `Mutex` synchronises inside the Swift runtime, which is not instrumented, so under
/// `swift test --sanitize=thread` every access made while holding a `Mutex` looked like a race, and real races were
/// lost among them. Uncontended, both are one atomic instruction on Linux (glibc's fast path); the price is one
/// allocation per lock.
///
/// ```swift
/// let hits = Locked(0)
/// hits.withLock { $0 += 1 }
/// ```
// @unchecked: `value` is only touched inside `withLock`, between pthread_mutex_lock and pthread_mutex_unlock.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: consuming sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock; the lock is released when `body` returns or throws.
    /// Never call `withLock` on the same lock from inside `body` (it is not recursive).
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

// A lock shows nothing of its value when reflected (a failed test expectation prints the objects around it):
// reading the value there would skip the lock, and a non-copyable value cannot be copied out at all.
extension Locked: CustomReflectable {
    package var customMirror: Mirror { Mirror(self, children: [:]) }
}
