import Foundation
import Kingfisher
import KingfisherLocking
import Logging
import Tracing

/// A result made (or found) in the request queue's turn, and the writes to the shared result store that follow it
/// once the turn is over.
private struct MadeResult: Sendable {
    let image: ServedImage
    var share: (@Sendable () async -> Void)?
}

/// A result ready to send, and how it was found.
struct ServedResult: Sendable {
    let image: ServedImage
    let variesByAccept: Bool
    /// Seconds for `Cache-Control: max-age` (0: `no-cache`).
    let maxAge: Int
}

extension ImageServer {
    /// The result for a thumbor path (no query, as received) and the client's `Accept` header.
    /// - Throws: `ThumborURLError`, ``ImageServerError`` or `KingfisherError`; ``ErrorResponse`` maps them.
    func result(forPath path: String, accept: String?, logger: Logger? = nil, span: (any Span)? = nil) async throws
        -> ServedResult
    {
        let url = try ThumborURL(path: path)
        if let span { RequestSpan.describe(url, on: span) }
        try authorise(url)
        // `meta/` has the image URL's plan (it is not part of the processing) and makes its result too.
        let plan = try ResultPlan(url: url, accept: accept, configuration: configuration)
        let source = try locator.source(for: url.image)
        let served = try await result(plan: plan, source: source, logger: logger)
        guard url.meta else { return served }
        return try await meta(for: url, plan: plan, source: source, maxAge: served.maxAge)
    }

    /// `meta/`: thumbor's JSON description of the URL's operations on the source, once the result was made (and
    /// cached), which kept the source's bytes: their header gives its size.
    /// (A result another instance made came from the shared store without its original: the store's copy is read.)
    private func meta(for url: ThumborURL, plan: ResultPlan, source: Source, maxAge: Int) async throws -> ServedResult {
        var original = await manager.cache.diskData(forComputedKey: source.cacheKey)
        if original == nil, let resultStore {
            original = await resultStore.original(named: storedOriginalName(of: source), now: Date())?.data
        }
        guard let original, let header = try? ImageDecoder.headerFrames(of: original) else {
            throw ImageServerError.metaSourceUnavailable
        }
        let json = plan.processor.metaJSON(
            sourceURL: url.image, width: header.width, height: header.height, frames: header.frames)
        return ServedResult(
            image: ServedImage(data: json, contentType: "application/json"), variesByAccept: false, maxAge: maxAge)
    }

    /// The encoded result of an image URL's plan, for its source.
    private func result(plan: ResultPlan, source: Source, logger: Logger?) async throws -> ServedResult {
        let key = ImageCache.computedKey(forKey: source.cacheKey, processorIdentifier: plan.processor.identifier)
        if let recent = await recentResult(forKey: key, source: source, plan: plan) {
            return ServedResult(image: recent, variesByAccept: plan.variesByAccept, maxAge: plan.maxAge)
        }
        // The making of a result takes a turn in the queue; requests for the same result join it and add no work.
        let started = Locked(false)
        let outcome = await production.value(for: key) {
            started.withLock { $0 = true }
            return await Result(awaiting: {
                do {
                    let made = try await self.gate.withPermit {
                        try await self.make(source: source, plan: plan, key: key, logger: logger)
                    }
                    // The shared store's writes wait for no turn of the CPU-bound work: the permit is free.
                    await made.share?()
                    return made.image
                } catch is Limiter.QueueFull, is CancellationError {
                    throw ImageServerError.overloaded
                }
            })
        }
        guard let outcome else { throw CancellationError() }
        let image = try outcome.get()
        if !started.withLock({ $0 }) { metrics.countResult(from: .joined) }
        return ServedResult(image: image, variesByAccept: plan.variesByAccept, maxAge: plan.maxAge)
    }

    /// Signed URLs need the key and a matching signature; `unsafe/` URLs need the server to allow them.
    private func authorise(_ url: ThumborURL) throws(ImageServerError) {
        switch url.authorisation {
        case .unsafe:
            guard configuration.allowsUnsafeURLs else { throw .unsafeURLsDisabled }
        case .signed:
            guard let key = configuration.securityKey else { throw .signatureRequired }
            guard ThumborSignature.isValid(url, key: key) else { throw .badSignature }
        }
    }

    /// A result kept in memory, while its source's cache entry is current.
    private func recentResult(forKey key: String, source: Source, plan: ResultPlan) async -> ServedImage? {
        guard let recent = recentResults.value(forKey: key) else { return nil }
        if let until = recent.storedUntil, until > Date() {
            metrics.countResult(from: .memory)
            return recent
        }
        guard recent.storedUntil == nil, await isCurrent(source, plan: plan) else {
            recentResults.remove(forKey: key)
            return nil
        }
        metrics.countResult(from: .memory)
        return recent
    }

    /// Whether a cached result of `source` may be served without asking the origin: fresh by its HTTP record for a
    /// network source; always for files (their entries live as long as the cache keeps them).
    private func isCurrent(_ source: Source, plan: ResultPlan) async -> Bool {
        guard case .network = source else { return true }
        return await manager.cache.isFreshByHTTP(
            forKey: source.cacheKey, processorIdentifier: plan.processor.identifier)
    }

    /// An image a filter draws (a watermark), fetched as a source is (the guard, the redirect check, the cache)
    /// and decoded whole.
    private func overlay(_ url: String, logger: Logger?) async throws -> KFCrossPlatformImage {
        let source = try locator.source(for: url)
        if case .network(let resource) = source, S3Location(url: resource.downloadURL) == nil {
            try await sourceGuard.check(resource.downloadURL)
        }
        var options: KingfisherOptionsInfo = [.redirectHandler(sourceGuard)]
        if let logger { options.append(.logger(logger)) }
        return try await manager.retrieveImage(with: source, options: options).image
    }

    /// Makes (or finds) the encoded result. While the source is current: in memory (made by work that ended while
    /// this one waited for its turn), or in the disk cache. Otherwise in the shared result store when there is one
    /// and it has the result while its source is fresh; else made here (and then kept in the store).
    private func make(source: Source, plan: ResultPlan, key: String, logger: Logger?) async throws -> MadeResult {
        let cache = manager.cache
        if await isCurrent(source, plan: plan) {
            if let recent = recentResults.value(forKey: key) {
                metrics.countResult(from: .memory)
                return MadeResult(image: recent)
            }
            if let data = await cache.diskData(forComputedKey: key), !data.isEmpty {
                return MadeResult(image: remember(ServedImage(data: data), forKey: key, from: .disk))
            }
        }
        guard let resultStore else {
            let (made, _) = try await makeHere(source: source, plan: plan, key: key, logger: logger)
            return MadeResult(image: remember(made, forKey: key, from: .made))
        }
        // Made by another instance (or by this one before it restarted), while its source was fresh.
        let name = cache.hash(forKey: source.cacheKey, processorIdentifier: plan.processor.identifier)
        if let stored = await resultStore.result(named: name, now: Date()) {
            var image = stored.image
            image.storedUntil = stored.freshUntil ?? .distantFuture
            return MadeResult(image: remember(image, forKey: key, from: .store))
        }
        let originalName = storedOriginalName(of: source)
        if case .network = source, !(await cache.isFreshByHTTP(forKey: source.cacheKey)),
            let stored = await resultStore.original(named: originalName, now: Date())
        {
            // Another instance downloaded the original while it is fresh: made from it here, as if downloaded.
            _ = await cache.keepOriginal(
                stored.data, forKey: source.cacheKey, entityTag: stored.entityTag, lastModified: stored.lastModified,
                freshUntil: stored.freshUntil)
        }
        let (made, downloaded) = try await makeHere(source: source, plan: plan, key: key, logger: logger)
        let processorIdentifier = plan.processor.identifier
        // Shared while its source is fresh: a network source's until its record says, a file's for good; and the
        // original it was downloaded for, for the other sizes.
        let share: @Sendable () async -> Void = {
            if let downloaded,
                let freshUntil = await cache.freshByHTTPUntil(forKey: source.cacheKey, processorIdentifier: "")
            {
                let validators = await cache.httpValidators(forKey: source.cacheKey)
                await resultStore.keep(
                    original: .init(
                        data: downloaded, entityTag: validators?.entityTag, lastModified: validators?.lastModified,
                        freshUntil: freshUntil),
                    named: originalName)
            }
            switch source {
            case .network:
                if let freshUntil = await cache.freshByHTTPUntil(
                    forKey: source.cacheKey, processorIdentifier: processorIdentifier)
                {
                    await resultStore.keep(made, named: name, freshUntil: freshUntil)
                }
            case .provider:
                await resultStore.keep(made, named: name, freshUntil: nil)
            }
        }
        return MadeResult(image: remember(made, forKey: key, from: .made), share: share)
    }

    /// The name `source`'s original has in the shared result store: the disk cache's name of its file.
    private func storedOriginalName(of source: Source) -> String {
        manager.cache.hash(forKey: source.cacheKey, processorIdentifier: "")
    }

    /// Makes the encoded result here: the library's retrieval revalidates or downloads the original (guarded),
    /// processes it and stores the encoded result. Also the original's bytes when they were downloaded for it.
    private func makeHere(source: Source, plan: ResultPlan, key: String, logger: Logger?) async throws -> (
        ServedImage, downloaded: Data?
    ) {
        let cache = manager.cache
        // (An `s3://` source is checked when its request connects: the guard vets the endpoint as any origin.)
        if case .network(let resource) = source, S3Location(url: resource.downloadURL) == nil {
            try await sourceGuard.check(resource.downloadURL)
        }
        // A result in the source's format made from an original held in memory gets no original bytes from the
        // pipeline (Kingfisher's rule; one read from disk comes with its bytes): that image knows the format it was
        // decoded from, and the serializer asks it, reading no file.
        var serializer = plan.serializer
        let memory = cache.memoryStorage
        let originalKey = source.cacheKey
        serializer.sourceFormat = { memory.value(forKey: originalKey, extendingExpiration: .none)?.decodedFormat }
        // The images the filters draw (watermarks), fetched as sources are: guarded, cached.
        var processor = plan.processor
        for url in Set(processor.filters.overlayURLs) {
            processor.overlays[url] = try await overlay(url, logger: logger)
        }
        var options: KingfisherOptionsInfo = [
            .processor(processor), .cacheSerializer(serializer), .cacheOriginalImage, .waitForCache,
            .redirectHandler(sourceGuard),
        ]
        // The request's logger, for the retrieval and its download (the first request's, for joined ones).
        if let logger { options.append(.logger(logger)) }
        let retrieved = try await manager.retrieveImage(with: source, options: options)
        let downloaded = [.fetched, .refetched].contains(retrieved.validation) ? retrieved.data() : nil
        // The bytes the retrieval encoded and wrote; the disk entry when it found the result made already.
        if let data = retrieved.encodedData, !data.isEmpty { return (ServedImage(data: data), downloaded) }
        if let data = await cache.diskData(forComputedKey: key), !data.isEmpty {
            return (ServedImage(data: data), downloaded)
        }
        // The disk cache could not keep it (full, read-only): encode here and serve it all the same.
        guard let data = serializer.data(with: retrieved.image, original: retrieved.data()) else {
            throw KingfisherError.cacheError(
                reason: .cannotSerializeImage(image: retrieved.image, original: nil, serializer: serializer))
        }
        return (ServedImage(data: data), downloaded)
    }

    private func remember(_ image: ServedImage, forKey key: String, from origin: ServerMetrics.ResultOrigin)
        -> ServedImage
    {
        recentResults.store(value: image, forKey: key)
        metrics.countResult(from: origin)
        return image
    }
}

extension Result where Failure == any Error {
    fileprivate init(awaiting body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
