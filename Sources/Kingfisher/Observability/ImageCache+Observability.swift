import Logging

extension ImageCache {
    /// Counts a disk lookup as a hit or a miss; a read that failed (it reads as a miss) goes to the logger at
    /// `warning`, and a hit to the call's logger at `trace`.
    func countDiskLookup<Value>(
        _ result: Result<Value?, KingfisherError>, computedKey: String,
        options: KingfisherParsedOptionsInfo
    ) {
        switch result {
        case .success(.some):
            metrics.countDiskLookup(hit: true)
            options.logger?.trace("Disk cache hit", metadata: ["kf.key": "\(computedKey)", "kf.tier": "disk"])
        case .success(.none):
            metrics.countDiskLookup(hit: false)
        case .failure(let error):
            metrics.countDiskLookup(hit: false)
            (options.logger ?? logger)?.warning(
                "A disk cache read failed; it counts as a miss",
                metadata: [
                    "kf.key": "\(computedKey)", "kf.cache": "\(diskStorage.config.name)",
                    "kf.error": "\(error.errorDescription ?? "\(error)")",
                ])
        }
    }

    /// Tells the logger that a disk file which no longer decodes is being removed.
    func logUndecodableFile(computedKey: String, bytes: Int) {
        logger?.warning(
            "Removing a disk cache file that does not decode",
            metadata: [
                "kf.key": "\(computedKey)", "kf.cache": "\(diskStorage.config.name)", "kf.bytes": "\(bytes)",
            ])
    }
}
