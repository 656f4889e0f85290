import Foundation
import Logging

extension ImageRetrieval {
    /// `completion`, telling the retrieval's logger first how the retrieval ended (at `debug`): the source's key,
    /// where the image came from (`kf.tier`: `memory`, `disk`, `none` for fetched) or the error, and how long it
    /// took. `completion` itself when there is no logger.
    func logging(
        _ completion: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    ) -> (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)? {
        guard let logger else { return completion }
        let started = ContinuousClock.now
        let key = originalSource.cacheKey
        return { result in
            let elapsed = (ContinuousClock.now - started).loggedMilliseconds
            switch result {
            case .success(let value):
                logger.debug(
                    "Retrieved an image",
                    metadata: [
                        "kf.key": "\(key)", "kf.tier": "\(value.cacheType.tierName)", "kf.duration_ms": "\(elapsed)",
                    ])
            case .failure(let error):
                logger.debug(
                    error.isTaskCancelled ? "A retrieval was cancelled" : "A retrieval failed",
                    metadata: [
                        "kf.key": "\(key)", "kf.error": "\(error.errorDescription ?? "\(error)")",
                        "kf.duration_ms": "\(elapsed)",
                    ])
            }
            completion?(result)
        }
    }
}

extension CacheType {
    /// The tier's name in logs: `memory`, `disk`, `none`.
    var tierName: String {
        switch self {
        case .memory: "memory"
        case .disk: "disk"
        case .none: "none"
        }
    }
}
