#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ThreadSanitizer's happens-before annotations, for hand-offs it cannot see. They are looked up at run time, so
/// they cost a `nil` check and do nothing unless the process runs under `--sanitize=thread`.
package enum ThreadSanitizer {
    private typealias Annotation = @convention(c) (UnsafeRawPointer?) -> Void

    // The TSan runtime is linked into sanitized executables and exports these; elsewhere they are absent.
    private static let acquireAnnotation = annotation(named: "__tsan_acquire")
    private static let releaseAnnotation = annotation(named: "__tsan_release")

    /// Whether the process runs under ThreadSanitizer.
    package static var isActive: Bool { acquireAnnotation != nil }

    private static func annotation(named name: String) -> Annotation? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }  // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: Annotation.self)
    }

    /// What this thread did so far happens before whatever follows an `acquire(address)` on another thread.
    package static func release(_ address: UnsafeRawPointer) {
        releaseAnnotation?(address)
    }

    /// What other threads did before their `release(address)` happens before what this thread does next.
    package static func acquire(_ address: UnsafeRawPointer) {
        acquireAnnotation?(address)
    }

    /// Acquires what the resume of the continuation this task just returned from released.
    ///
    /// The Swift runtime releases on the task in every `resume`, but acquires only when the resumed task runs
    /// again as a job: a continuation resumed before its task reached the `await` (a fast callback, a busy machine)
    /// returns at once, with no edge TSan can see, and everything the resuming thread wrote before `resume` (the
    /// value handed over included) is reported as a race with the awaiting task's reads. Swift 6.3's
    /// `swift_continuation_await` has no `_swift_tsan_acquire` on that path.
    package static func acquireAfterContinuation() {
        guard isActive else { return }
        withUnsafeCurrentTask { task in
            // `UnsafeCurrentTask` is a frozen struct holding the task's object, the address the runtime releases on.
            guard let task else { return }
            acquire(unsafeBitCast(task, to: UnsafeRawPointer.self))
        }
    }
}

/// `withCheckedContinuation`, made visible to ThreadSanitizer (see ``ThreadSanitizer/acquireAfterContinuation()``):
/// use it for continuations resumed from another thread.
package func withSanitizedCheckedContinuation<T>(
    isolation: isolated (any Actor)? = #isolation, function: String = #function,
    _ body: (CheckedContinuation<T, Never>) -> Void
) async -> sending T {
    let value = await withCheckedContinuation(isolation: isolation, function: function, body)
    ThreadSanitizer.acquireAfterContinuation()
    return value
}

/// `withCheckedThrowingContinuation`, made visible to ThreadSanitizer (see
/// ``ThreadSanitizer/acquireAfterContinuation()``): use it for continuations resumed from another thread.
package func withSanitizedCheckedThrowingContinuation<T>(
    isolation: isolated (any Actor)? = #isolation, function: String = #function,
    _ body: (CheckedContinuation<T, any Error>) -> Void
) async throws -> sending T {
    do {
        let value = try await withCheckedThrowingContinuation(isolation: isolation, function: function, body)
        ThreadSanitizer.acquireAfterContinuation()
        return value
    } catch {
        ThreadSanitizer.acquireAfterContinuation()
        throw error
    }
}
