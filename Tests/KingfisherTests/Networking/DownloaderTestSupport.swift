import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs `body` with a fresh loopback server and a fresh downloader, and tears both down afterwards.
func withDownloader<T>(
    configuration: ImageDownloader.Configuration = .init(),
    _ body: (TestHTTPServer, ImageDownloader) async throws -> T
) async throws -> T {
    let server = try await TestHTTPServer.start()
    let downloader = ImageDownloader(name: "test", configuration: configuration)
    do {
        let result = try await body(server, downloader)
        try await downloader.shutdown()
        try await server.shutdown()
        return result
    } catch {
        try? await downloader.shutdown()
        try? await server.shutdown()
        throw error
    }
}

extension ImageDownloader {
    /// The callback API, awaited: returns the result the completion handler got.
    func result(
        _ url: URL, options: KingfisherOptionsInfo? = nil
    ) async -> Result<ImageLoadingResult, KingfisherError> {
        await withSanitizedCheckedContinuation { continuation in
            downloadImage(with: url, options: options, completionHandler: { continuation.resume(returning: $0) })
        }
    }
}

extension Result where Failure == KingfisherError {
    var error: KingfisherError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Collects completion results and lets a test wait for a number of them.
final class ResultCollector: Sendable {
    private let stored = Locked<[Result<ImageLoadingResult, KingfisherError>]>([])
    private let arrivals = ResultlessCounter()

    var handler: @Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void {
        { result in
            self.stored.withLock { $0.append(result) }
            self.arrivals.increment()
        }
    }

    var results: [Result<ImageLoadingResult, KingfisherError>] { stored.withLock { $0 } }

    /// Returns once `count` results have arrived.
    func wait(for count: Int) async {
        await arrivals.wait(for: count)
    }
}

/// A one-shot gate an async test part can wait on.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isOpen = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if isOpen { continuation.resume() }
        }
    }
}

/// Records what an ``ImageDownloaderDelegate`` is told, with switches for its answers.
final class RecordingDelegate: ImageDownloaderDelegate {
    struct Calls {
        var willDownload: [URL] = []
        var didFinish: [(url: URL, status: Int?, failed: Bool)] = []
        /// The `KingfisherError` code of each did-finish call's error (`nil` for none or another error).
        var didFinishErrorCodes: [Int?] = []
        var didDownloadImage = 0
    }

    let calls = Locked(Calls())
    let finished = ResultlessCounter()
    let replacementData: Data??
    let validStatusCodes: Set<Int>?

    init(replacementData: Data?? = .none, validStatusCodes: Set<Int>? = nil) {
        self.replacementData = replacementData
        self.validStatusCodes = validStatusCodes
    }

    func imageDownloader(_ downloader: ImageDownloader, willDownloadImageForURL url: URL, with request: URLRequest?) {
        calls.withLock { $0.willDownload.append(url) }
    }

    func imageDownloader(
        _ downloader: ImageDownloader, didFinishDownloadingImageForURL url: URL, with response: URLResponse?,
        error: (any Error)?
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode
        calls.withLock {
            $0.didFinish.append((url, status, error != nil))
            $0.didFinishErrorCodes.append((error as? KingfisherError)?.errorCode)
        }
        finished.increment()
    }

    func imageDownloader(_ downloader: ImageDownloader, didDownload data: Data, for url: URL) -> Data? {
        switch replacementData {
        case .none: data
        case .some(let replacement): replacement
        }
    }

    func imageDownloader(
        _ downloader: ImageDownloader, didDownload image: KFCrossPlatformImage, for url: URL,
        with response: URLResponse?
    ) {
        calls.withLock { $0.didDownloadImage += 1 }
    }

    func isValidStatusCode(_ code: Int, for downloader: ImageDownloader) -> Bool {
        validStatusCodes.map { $0.contains(code) } ?? (200..<400).contains(code)
    }
}

/// Counts events and lets a test wait for a number of them. A wait ends early when the waiting task is cancelled
/// (a suite's time limit), so a missing event fails the test's later checks instead of hanging the run.
final class ResultlessCounter: Sendable {
    private struct Waiter {
        let id: Int
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var count = 0
        var nextID = 0
        var waiters: [Waiter] = []
    }

    private let state = Locked(State())

    var count: Int { state.withLock { $0.count } }

    func increment() {
        let ready = state.withLock { state -> [Waiter] in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.count <= count }
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    func wait(for count: Int) async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state in
                    // Checked under the lock: a cancel either finds this waiter or is seen here.
                    if state.count >= count || Task.isCancelled { return true }
                    state.waiters.append(Waiter(id: id, count: count, continuation: continuation))
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }
}
