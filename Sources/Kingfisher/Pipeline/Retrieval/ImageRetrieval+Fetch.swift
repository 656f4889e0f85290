import Foundation
import KingfisherLocking

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
        let loaded = await downloader.download(
            resource.downloadURL, options: fetchOptions,
            context: downloadContext(conditionalHeaders: conditionalHeaders),
            progressBlock: progress, handle: handle)
        let clock = targetCache.diskStorage.config.now
        return loaded.map {
            FetchedImage(
                image: $0.image, originalData: $0.originalData, metrics: $0.metrics,
                response: $0.response?.measured(by: clock), isNotModified: $0.isNotModified)
        }
    }

    /// Step 4 for a provider: its data, decoded and processed on the decode stage. Concurrent retrievals of one
    /// provider key with the same processing share one load (see ``ImagePipeline/providerLoads``); the load is
    /// cancelled when every retrieval waiting for it was, so a provider that honours task cancellation (a
    /// ``ThumbnailImageDataProvider`` downloading) stops early. A cancel from here until the commit reports
    /// ``KingfisherError/RequestErrorReason/dataProviderCancelled(provider:)`` at once (as Kingfisher 8.11 does,
    /// except that Kingfisher waits for a provider that ignores cancellation to return).
    func provide(_ provider: any ImageDataProvider) async -> Result<FetchedImage, KingfisherError> {
        handle.enter(.providing(provider))
        let cancelled = DownloadTask.Step.providing(provider).cancellationError
        guard !isCancelled else { return .failure(cancelled) }
        let processingOptions = fetchOptions
        let key = ProviderLoadKey(
            cacheKey: provider.cacheKey, processing: ProcessingKey(processingOptions, engine: engine))
        let (metrics, decoder, engine) = (self.metrics, self.decoder, self.engine)
        let loaded = await pipeline.providerLoads.value(for: key) {
            await Self.load(provider, options: processingOptions, on: decoder, engine: engine, metrics: metrics)
        }
        // Cancelled while the provider worked: the caller was told.
        guard let loaded, !isCancelled else { return .failure(cancelled) }
        return loaded
    }

    /// A provider's data, decoded and processed.
    private static func load(
        _ provider: any ImageDataProvider, options: KingfisherParsedOptionsInfo, on decoder: DecodeStage,
        engine: ImageEngine.Configuration, metrics: ManagerMetrics
    ) async -> Result<FetchedImage, KingfisherError> {
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
            let result = await decoder.runUnlessCancelled(
                on: options.processingQueue, decoding: headerOnly ? nil : data, engine: engine,
                { metrics.timeProvider(headerOnly: headerOnly) { ProcessingStage.image(from: data, options: options) } }
            )
        else { return .failure(.requestError(reason: .dataProviderCancelled(provider: provider))) }
        return result.map { FetchedImage(image: $0, originalData: data, metrics: nil) }
    }
}
