public import Foundation
import KingfisherLocking

/// What ``KingfisherManager/retrieveLivePhoto(with:options:progressBlock:referenceTaskIdentifierChecker:)`` hands
/// back: the Live Photo's files in the disk cache.
///
/// - Note: On Apple platforms Kingfisher's view extension turns these files into a `PHLivePhoto`; Photos does not
///   exist on Linux, so the files are the result.
public struct LivePhotoLoadingInfoResult: Sendable {
    /// The cache files, one per resource of ``source``, in its order, each with its type's extension.
    public let fileURLs: [URL]

    /// `.disk` when every file was in the disk cache, `.none` when any was downloaded. Never `.memory`: Live Photo
    /// files are only cached on disk.
    public let cacheType: CacheType

    /// The source the files belong to.
    public let source: LivePhotoSource

    /// The source the retrieval started with (the same as ``source``: Live Photos have no alternative sources).
    public let originalSource: LivePhotoSource

    /// The files' bytes, one per resource in ``source``'s order: downloaded ones from memory, cached ones read
    /// from disk (so it may block; keep the result rather than calling it often).
    ///
    /// - Note: Kingfisher returns only the downloaded files' bytes, in the order the downloads finished.
    public let data: @Sendable () -> [Data]
}

extension KingfisherManager {
    /// Loads a Live Photo's files: each one missing from the disk cache (every one with `.forceRefresh`) is
    /// downloaded, or read from its provider, all at once, then stored on disk under its cache key with its file
    /// type's extension; the result gives the files' URLs.
    ///
    /// ```swift
    /// let source = LivePhotoSource(urls: [heicURL, movURL])
    /// let result = try await KingfisherManager.shared.retrieveLivePhoto(with: source)
    /// ```
    ///
    /// - Parameters:
    ///   - source: the files; a source without any fails with ``KingfisherError/ImageSettingErrorReason/emptySource``.
    ///   - options: added after ``defaultOptions``. `targetCache`, `downloader`, `forceRefresh`,
    ///     `diskCacheExpiration`, `callbackQueue` (for progress) and the downloader's options apply. A processor
    ///     is replaced by the internal Live Photo one, as in Kingfisher (whose debug builds stop on an assertion).
    ///   - progressBlock: bytes received and expected, summed over the downloads that have reported so far
    ///     (expected is `-1` when a server did not say), on the options' callback queue (`.untouch` by default).
    ///     Kingfisher 8.11 never calls it.
    ///   - referenceTaskIdentifierChecker: asked before each progress report; `false` drops it (Kingfisher's view
    ///     extension passes a check that the view still shows this source). `@Sendable` here: it is called from the
    ///     downloads.
    /// - Throws: the download's or provider's ``KingfisherError``; a disk write's cache error;
    ///   ``KingfisherError/CacheErrorReason/missingLivePhotoResourceOnDisk(_:)`` when a stored file cannot be found
    ///   under a Live Photo extension (bytes of an unknown type from a URL without an extension);
    ///   ``KingfisherError/RequestErrorReason/livePhotoTaskCancelled(source:)`` when the calling task is cancelled.
    public func retrieveLivePhoto(
        with source: LivePhotoSource,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        referenceTaskIdentifierChecker: (@Sendable () -> Bool)? = nil
    ) async throws -> LivePhotoLoadingInfoResult {
        guard !source.resources.isEmpty else { throw KingfisherError.imageSettingError(reason: .emptySource) }
        let options = LivePhotoImageProcessor.options(parsedOptions(options))
        let cache = options.targetCache ?? self.cache
        let identifier = options.processor.identifier
        let missing = source.resources.enumerated().filter { _, resource in
            options.forceRefresh
                || cache.livePhotoFileURLIfOnDisk(for: resource, processorIdentifier: identifier) == nil
        }
        let progress = progressBlock.map { LivePhotoProgress(report: $0, checker: referenceTaskIdentifierChecker) }
        let downloaded: [Int: Data]
        do {
            downloaded = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
                for (index, resource) in missing {
                    group.addTask {
                        let data = try await self.livePhotoData(
                            of: resource, options: options,
                            progressBlock: progress?.reporter(for: index))
                        try await cache.storeToDisk(
                            data, forKey: resource.cacheKey, processorIdentifier: identifier,
                            forcedExtension: resource.referenceFileType.determinedFileExtension(data),
                            expiration: options.diskCacheExpiration)
                        return (index, data)
                    }
                }
                var collected: [Int: Data] = [:]
                for try await (index, data) in group { collected[index] = data }
                return collected
            }
        } catch {
            if Task.isCancelled { throw KingfisherError.requestError(reason: .livePhotoTaskCancelled(source: source)) }
            throw error
        }
        var fileURLs: [URL] = []
        for resource in source.resources {
            guard let url = cache.livePhotoFileURLIfOnDisk(for: resource, processorIdentifier: identifier) else {
                throw KingfisherError.cacheError(reason: .missingLivePhotoResourceOnDisk(resource))
            }
            fileURLs.append(url)
        }
        let urls = fileURLs
        return LivePhotoLoadingInfoResult(
            fileURLs: urls, cacheType: missing.isEmpty ? .disk : .none, source: source, originalSource: source,
            data: {
                urls.indices.map { downloaded[$0] ?? FileManager.default.contents(atPath: urls[$0].path) ?? Data() }
            })
    }

    /// One file's bytes: downloaded (a network source) or from its provider.
    private func livePhotoData(
        of resource: LivePhotoResource, options: KingfisherParsedOptionsInfo, progressBlock: DownloadProgressBlock?
    ) async throws -> Data {
        switch resource.dataSource {
        case .network(let network):
            let downloader = options.downloader ?? self.downloader
            return try await downloader.downloadLivePhotoResource(
                with: network.downloadURL, options: options, progressBlock: progressBlock
            ).originalData
        case .provider(let provider):
            do {
                return try await provider.data()
            } catch let error as KingfisherError {
                throw error
            } catch {
                throw KingfisherError.imageSettingError(reason: .dataProviderError(provider: provider, error: error))
            }
        }
    }
}

/// Sums the progress of a Live Photo's downloads into one report.
private final class LivePhotoProgress: Sendable {
    private let report: DownloadProgressBlock
    private let checker: (@Sendable () -> Bool)?
    private let parts = Locked<[Int: (received: Int64, expected: Int64)]>([:])

    init(report: @escaping DownloadProgressBlock, checker: (@Sendable () -> Bool)?) {
        self.report = report
        self.checker = checker
    }

    /// The progress block of the download of resource `index` (the downloader runs it on the callback queue).
    func reporter(for index: Int) -> DownloadProgressBlock {
        { received, expected in
            let total = self.parts.withLock { parts in
                parts[index] = (received, expected)
                let received = parts.values.reduce(Int64(0)) { $0 + $1.received }
                let expected =
                    parts.values.contains { $0.expected < 0 } ? -1 : parts.values.reduce(0) { $0 + $1.expected }
                return (received, expected)
            }
            guard self.checker?() ?? true else { return }
            self.report(total.0, total.1)
        }
    }
}
