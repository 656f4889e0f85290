package import Foundation
import Tracing

extension ImageRetrieval {
    /// Stage 2, disk: unless `fromMemoryCacheOrRefresh` or cancelled, the entry of `key@processor` read from
    /// `cache`'s disk on its disk executor and decoded on this pipeline's workers, with the retrieval's limits;
    /// `nil` on a miss, a failed read, or a cancel. Nothing is written (the hit goes to memory once the retrieval
    /// commits).
    func lookUpOnDisk(
        _ key: String, in cache: ImageCache, options: KingfisherParsedOptionsInfo
    ) async -> KFCrossPlatformImage? {
        guard !options.fromMemoryCacheOrRefresh, !isCancelled else { return nil }
        return await StageSpan.disk.run { span in
            guard
                case .success(let image?)? = await cache.imageFromDisk(
                    forKey: key, options: options, on: workers, engine: engine)
            else {
                span.attributes["kingfisher.hit"] = false
                return nil
            }
            span.attributes["kingfisher.hit"] = true
            return image
        }
    }
}

extension ImageCache {
    /// The disk hit of `key@<processor>`: its bytes read on ``io``, then decoded with the options' serializer on
    /// `workers` with `engine`'s limits (the cache's own by default); a file that no longer decodes is removed and
    /// counts as a miss. Concurrent lookups of one entry (with the same image options) share one read and one
    /// decode. `nil` when the calling task was cancelled first. Each caller's lookup counts as a disk hit or miss.
    func imageFromDisk(
        forKey key: String, options: KingfisherParsedOptionsInfo, on workers: ImageWorkers? = nil,
        engine: ImageEngine.Configuration? = nil
    ) async -> Result<KFCrossPlatformImage?, KingfisherError>? {
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        let engine = engine ?? self.engine
        let found = await diskReads.value(for: DiskReadKey(computed, options, engine: engine)) { [self] in
            let read = await readFromDisk(
                computedKey: computed, options.forcedExtension, options.diskCacheAccessExtendingExpiration)
            guard case .success(let data?) = read else { return read.map { _ in nil } }
            let serializer = options.cacheSerializer
            let metrics = self.metrics
            // Every lookup waiting for this one left while its decode waited: the decode never runs.
            guard
                let decoded = await (workers ?? self.workers).runUnlessCancelled(
                    on: nil, decoding: data, engine: engine,
                    { metrics.timeDecode { serializer.image(with: data, options: options) } })
            else { return .success(nil) }
            guard let image = decoded else {
                // Garbage where an image was (a bad write by another tool, a damaged disk): drop it.
                logUndecodableFile(computedKey: computed, bytes: data.count)
                // Removed before the miss is reported, so a caller that checks the cache next sees it gone.
                let forcedExtension = options.forcedExtension
                _ = await io.perform(.exclusive) {
                    self.removeFromDisk(computedKey: computed, forcedExtension: forcedExtension)
                }
                return .success(nil)
            }
            return .success(image)
        }
        if let found { countDiskLookup(found, computedKey: computed, options: options) }
        return found
    }

    /// The bytes of the disk entry of `key` for the options' processor, read on ``io``, not decoded;
    /// `.success(nil)` on a miss. Counted as a disk lookup.
    func dataFromDisk(forKey key: String, options: KingfisherParsedOptionsInfo) async -> Result<Data?, KingfisherError>
    {
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        let read = await readFromDisk(
            computedKey: computed, options.forcedExtension, options.diskCacheAccessExtendingExpiration)
        countDiskLookup(read, computedKey: computed, options: options)
        return read
    }

    /// Removes the disk entry of `key` for the options' processor (bytes that turned out not to be an image).
    func removeUndecodable(forKey key: String, bytes: Int, options: KingfisherParsedOptionsInfo) async {
        let computed = Self.computedKey(forKey: key, processorIdentifier: options.processor.identifier)
        logUndecodableFile(computedKey: computed, bytes: bytes)
        let forcedExtension = options.forcedExtension
        _ = await io.perform(.exclusive) {
            self.removeFromDisk(computedKey: computed, forcedExtension: forcedExtension)
        }
    }

    /// The bytes of the disk entry under `computedKey` (a key with its processor's identifier already), read on
    /// ``io``, not decoded and not counted as a lookup; `nil` on a miss or a failed read. For `kf serve` and `kf`.
    package func diskData(
        forComputedKey computedKey: String, forcedExtension: String? = nil,
        extendingExpiration extending: ExpirationExtending = .cacheTime
    ) async -> Data? {
        try? await readFromDisk(computedKey: computedKey, forcedExtension, extending).get()
    }

    /// The bytes of a disk entry, read on ``io``; `.success(nil)` on a miss.
    private func readFromDisk(
        computedKey: String, _ forcedExtension: String?, _ extending: ExpirationExtending
    ) async -> Result<Data?, KingfisherError> {
        await io.perform {
            Result { () throws(KingfisherError) -> Data? in
                try self.diskStorage.value(
                    forKey: computedKey, forcedExtension: forcedExtension, extendingExpiration: extending)
            }
        }
    }
}

/// What makes two disk lookups the same read and decode: the entry and the image options.
struct DiskReadKey: Hashable, Sendable {
    let computedKey: String
    let forcedExtension: String?
    let serializer: String
    let scale: Double
    let onlyFirstFrame: Bool
    let engine: ImageEngine.Configuration?

    init(_ computedKey: String, _ options: KingfisherParsedOptionsInfo, engine: ImageEngine.Configuration?) {
        self.computedKey = computedKey
        forcedExtension = options.forcedExtension
        serializer = String(describing: type(of: options.cacheSerializer))
        scale = Double(options.scaleFactor)
        onlyFirstFrame = options.onlyLoadFirstFrame
        self.engine = engine
    }
}
