import AsyncHTTPClient
import Foundation
import Kingfisher
import Logging
import NIOCore
import NIOPosix

/// Made results kept in an S3-compatible bucket (``ImageServer/ResultStore``), so that every instance behind a load
/// balancer serves a result any of them made, and an instance that dies takes nothing the others need.
///
/// Each result is an object named as the disk cache names its file (`prefix/<hash of the result key>`), with its
/// media type, and the instant until which its source was fresh (`x-amz-meta-kf-fresh-until`, seconds since 1970;
/// none for a source that does not expire, a file): past it the object is not served, and the instance that makes
/// the result again replaces it. A network source's original, downloaded by one instance, is kept too
/// (`prefix/originals/<its file name>`, with its validators and until when it is fresh), so the instance that
/// takes over a dead one's share makes the sizes nobody made yet without fetching the original again.
///
/// The store is a second level: an instance reads it only when its own caches miss, and a store that fails
/// (unreachable, refusing) is a miss, logged, never a failed request.
final class SharedResultStore: Sendable {
    private let client: HTTPClient
    private let objects: S3ObjectClient
    private let place: ImageServer.ResultStore
    private let logger: Logger?

    init(_ place: ImageServer.ResultStore, storage: S3Configuration, timeout: TimeInterval, logger: Logger?) {
        var configuration = HTTPClient.Configuration(
            timeout: .init(connect: .seconds(5), read: .seconds(Int64(max(1, timeout.rounded(.up))))),
            decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
        objects = S3ObjectClient(storage: storage, client: client, timeout: timeout, maximumBytes: 256 << 20)
        self.place = place
        self.logger = logger
    }

    deinit { client.shutdown { _ in } }

    /// The object a result's file name maps to.
    private func location(_ name: String) -> S3Location? {
        S3Location(bucket: place.bucket, key: place.prefix.isEmpty ? name : "\(place.prefix)/\(name)")
    }

    /// The stored result named `name`, while it is fresh at `now`; `nil` otherwise, or when the store fails.
    func result(named name: String, now: Date) async -> StoredResult? {
        guard let location = location(name) else { return nil }
        do {
            guard let object = try await objects.get(location), !object.data.isEmpty else { return nil }
            let freshUntil = object.metadata["kf-fresh-until"].flatMap(TimeInterval.init).map {
                Date(timeIntervalSince1970: $0)
            }
            if let freshUntil, freshUntil <= now { return nil }
            let image =
                object.contentType.map { ServedImage(data: object.data, contentType: $0) }
                ?? ServedImage(data: object.data)
            return StoredResult(image: image, freshUntil: freshUntil)
        } catch {
            logger?.warning(
                "the result store could not be read", metadata: ["object": "\(location)", "error": "\(error)"])
            return nil
        }
    }

    /// Keeps `image` as `name`, fresh until `freshUntil` (`nil`: for as long as the bucket keeps it).
    func keep(_ image: ServedImage, named name: String, freshUntil: Date?) async {
        guard let location = location(name) else { return }
        var metadata: [String: String] = [:]
        if let freshUntil { metadata["kf-fresh-until"] = String(Int(freshUntil.timeIntervalSince1970)) }
        do {
            try await objects.put(
                Data(image.body.readableBytesView), at: location, contentType: image.contentType, metadata: metadata)
        } catch {
            logger?.warning(
                "the result store could not keep a result", metadata: ["object": "\(location)", "error": "\(error)"])
        }
    }
}

extension SharedResultStore {
    /// An original kept in the store: its bytes, the validators of the response that brought them, and until when
    /// it is fresh.
    struct StoredOriginal: Sendable {
        let data: Data
        let entityTag: String?
        let lastModified: String?
        let freshUntil: Date
    }

    /// The original named `name` (under `originals/`), while it is fresh at `now`; `nil` otherwise, or when the
    /// store fails.
    func original(named name: String, now: Date) async -> StoredOriginal? {
        guard let location = location("originals/\(name)") else { return nil }
        do {
            guard let object = try await objects.get(location), !object.data.isEmpty,
                let until = object.metadata["kf-fresh-until"].flatMap(TimeInterval.init)
            else { return nil }
            let freshUntil = Date(timeIntervalSince1970: until)
            guard freshUntil > now else { return nil }
            return StoredOriginal(
                data: object.data, entityTag: object.metadata["kf-etag"],
                lastModified: object.metadata["kf-last-modified"], freshUntil: freshUntil)
        } catch {
            logger?.warning(
                "the result store could not be read", metadata: ["object": "\(location)", "error": "\(error)"])
            return nil
        }
    }

    /// Keeps an original downloaded here as `originals/<name>`, for the instances that make other results of it.
    func keep(original: StoredOriginal, named name: String) async {
        guard let location = location("originals/\(name)") else { return }
        var metadata = ["kf-fresh-until": String(Int(original.freshUntil.timeIntervalSince1970))]
        if let tag = original.entityTag { metadata["kf-etag"] = tag }
        if let modified = original.lastModified { metadata["kf-last-modified"] = modified }
        do {
            try await objects.put(
                original.data, at: location, contentType: "application/octet-stream", metadata: metadata)
        } catch {
            logger?.warning(
                "the result store could not keep an original", metadata: ["object": "\(location)", "error": "\(error)"])
        }
    }
}

/// A result read from the shared store, and until when it may be served.
struct StoredResult: Sendable {
    let image: ServedImage
    let freshUntil: Date?
}
