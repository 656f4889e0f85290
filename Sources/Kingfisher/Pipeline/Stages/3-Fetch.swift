import Foundation
import KingfisherLocking
import Tracing

/// What makes two provider loads the same: the provider's key and the processing.
struct ProviderLoadKey: Hashable, Sendable {
    let cacheKey: String
    let processing: ProcessingKey
}

/// What step 4 of a retrieval produced: an image and the bytes it came from.
struct FetchedImage: Sendable {
    let image: KFCrossPlatformImage
    let originalData: Data
    let metrics: NetworkMetrics?
    /// The response's header fields and times, for a download.
    var response: ResponseHeaders?
    /// A `304` to a revalidation: no image, the cached entry stands.
    var isNotModified = false
}

extension ImageRetrieval {
    /// Step 4 for a network source: the downloader fetches, decodes and processes (a download shared with every
    /// concurrent caller of the same request). Cancelling the retrieval's task cancels this caller's part of it.
    /// With `conditionalHeaders`, the download is a revalidation of the cached entry (a 304 comes back as
    /// ``FetchedImage/isNotModified``).
    func download(
        _ resource: any Resource, conditionalHeaders: [String: String]? = nil
    ) async -> Result<FetchedImage, KingfisherError> {
        let progress: DownloadProgressBlock? = progressBlock.map { block in
            let queue = options.callbackQueue
            return { received, total in queue.execute { block(received, total) } }
        }
        let loaded = await StageSpan.fetch.run { span in
            span.attributes["url.full"] = resource.downloadURL.absoluteString
            span.attributes["kingfisher.revalidation"] = conditionalHeaders != nil
            let loaded = await downloader.download(
                resource.downloadURL, options: fetchOptions,
                context: downloadContext(conditionalHeaders: conditionalHeaders),
                progressBlock: progress, handle: handle)
            if case .failure(let error) = loaded {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
            }
            return loaded
        }
        let clock = targetCache.diskStorage.config.now
        return loaded.map {
            FetchedImage(
                image: $0.image, originalData: $0.originalData, metrics: $0.metrics,
                response: $0.response?.measured(by: clock), isNotModified: $0.isNotModified)
        }
    }

    /// How long a cancelled provider retrieval waits for its provider to return before it reports the cancel:
    /// one second. A provider that honours cancellation (its `data()` throws once its task is cancelled, as
    /// ``ThumbnailImageDataProvider``, ``AVAssetImageDataProvider`` and the file and bytes providers do) returns
    /// well within it even on a loaded machine, so it has stopped when the caller hears, as in Kingfisher 8.11. One
    /// that ignores cancellation (a `data(handler:)` provider that calls back when it is done) is waited for this
    /// long at most, where Kingfisher waits until it returns: a caller waiting for a cancelled retrieval (a task
    /// group of gallery tiles, a prefetcher's `stop()`) never hangs on a provider that never returns. What such a
    /// provider hands over later is dropped.
    static let providerCancellationGrace: Duration = .seconds(1)

    /// Step 4 for a provider: its data, decoded and processed on the workers. Concurrent retrievals of one
    /// provider key with the same processing share one load (see ``ImagePipeline/providerLoads``); the load is
    /// cancelled when every retrieval waiting for it was, so a provider that honours task cancellation (a
    /// ``ThumbnailImageDataProvider`` downloading) stops early. A cancel from here until the commit reports
    /// ``KingfisherError/RequestErrorReason/dataProviderCancelled(provider:)`` once the provider has returned, as
    /// Kingfisher 8.11 does, or after ``providerCancellationGrace`` when it has not: the retrieval whose cancel
    /// stopped the load waits for it, one that leaves a load others still wait for reports at once.
    func provide(_ provider: any ImageDataProvider) async -> Result<FetchedImage, KingfisherError> {
        handle.enter(.providing(provider))
        let cancelled = DownloadTask.Step.providing(provider).cancellationError
        guard !isCancelled else { return .failure(cancelled) }
        let processingOptions = fetchOptions
        let key = ProviderLoadKey(
            cacheKey: provider.cacheKey, processing: ProcessingKey(processingOptions, engine: engine))
        let (metrics, workers, engine) = (self.metrics, self.workers, self.engine)
        let loaded = await StageSpan.fetch.run { span in
            span.attributes["kingfisher.provider"] = String(describing: type(of: provider))
            return await pipeline.providerLoads.value(for: key) {
                await Self.load(provider, options: processingOptions, on: workers, engine: engine, metrics: metrics)
            }
        }
        // Cancelled while the provider worked: its load has ended, or the grace ran out.
        guard let loaded, !isCancelled else { return .failure(cancelled) }
        return loaded
    }

    /// A provider's data, decoded and processed.
    private static func load(
        _ provider: any ImageDataProvider, options: KingfisherParsedOptionsInfo, on workers: ImageWorkers,
        engine: ImageEngine.Configuration, metrics: ManagerMetrics
    ) async -> Result<FetchedImage, KingfisherError> {
        // Every retrieval left before the load began: the provider is not called.
        guard !Task.isCancelled else {
            return .failure(.requestError(reason: .dataProviderCancelled(provider: provider)))
        }
        let data: Data
        do {
            data = try await provider.data()
        } catch let error as KingfisherError {
            return .failure(error)
        } catch {
            return .failure(.imageSettingError(reason: .dataProviderError(provider: provider, error: error)))
        }
        guard !Task.isCancelled else {
            return .failure(.requestError(reason: .dataProviderCancelled(provider: provider)))
        }
        // A header check decodes nothing: it never waits for the admission of large decodes.
        let headerOnly = options.processor is ImageHeaderCheck.Processor
        guard
            let result = await StageSpan.decode.run({ _ in
                await workers.runUnlessCancelled(
                    on: options.processingQueue, decoding: headerOnly ? nil : data,
                    shrunkToFit: ImageWorkers.shrinkOnLoadSide(of: options.processor, for: data, options: options),
                    engine: engine,
                    {
                        metrics.timeProvider(headerOnly: headerOnly) {
                            ImageProcessing.image(from: data, options: options)
                        }
                    }
                )
            })
        else { return .failure(.requestError(reason: .dataProviderCancelled(provider: provider))) }
        return result.map { FetchedImage(image: $0, originalData: data, metrics: nil) }
    }
}
