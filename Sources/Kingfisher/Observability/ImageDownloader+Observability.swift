import CoreMetrics
import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ImageDownloader {
    /// Counts and logs the end of one HTTP task's fetch (before its body is processed): `kingfisher_downloads_total`
    /// by status, the bytes and the duration; a line at `debug` (`trace` when cancelled) to the downloader's logger
    /// when a caller gave none of its own, and to each caller's own logger.
    func report(
        _ task: SessionDataTask, fetched: Result<Fetched, KingfisherError>, response: HTTPURLResponse?,
        callers: [DownloadWaiter], elapsed: Duration
    ) {
        let url = task.request.url ?? task.url
        var metadata: Logger.Metadata = [
            "kf.url": "\(url.absoluteString)", "kf.downloader": "\(name)",
            "kf.duration_ms": "\(elapsed.loggedMilliseconds)", "kf.waiters": "\(callers.count)",
        ]
        let level: Logger.Level
        let message: Logger.Message
        switch fetched {
        case .success(let body):
            let status = "\(body.metrics.httpStatusCode)"
            metrics.countDownload(status: status)
            metrics.bytes.increment(by: body.data.count)
            metrics.duration.record(elapsed)
            metadata["kf.status"] = "\(status)"
            metadata["kf.bytes"] = "\(body.data.count)"
            (level, message) = (.debug, "Downloaded an image")
        case .failure(let error) where error.isTaskCancelled || callers.isEmpty:
            metrics.countDownload(status: "cancelled")
            metadata["kf.error"] = "\(error.errorDescription ?? "\(error)")"
            (level, message) = (.trace, "A download was cancelled")
        case .failure(let error):
            let status = Self.loggedStatus(of: error)
            metrics.countDownload(status: status)
            metrics.duration.record(elapsed)
            // The log names the response's status when there was one (a body too large still came with a 200).
            metadata["kf.status"] = "\(response.map { "\($0.statusCode)" } ?? status)"
            metadata["kf.error"] = "\(error.errorDescription ?? "\(error)")"
            (level, message) = (.debug, "A download failed")
        }
        let own = callers.compactMap(\.options.logger)
        if own.count < callers.count || callers.isEmpty {
            logger?.log(level: level, message, metadata: metadata)
        }
        for logger in own { logger.log(level: level, message, metadata: metadata) }
    }

    /// The `status` of a failed download: the HTTP status the downloader refused, else `error`.
    private static func loggedStatus(of error: KingfisherError) -> String {
        if case .responseError(reason: .invalidHTTPStatusCode(let response)) = error { return "\(response.statusCode)" }
        return "error"
    }
}
