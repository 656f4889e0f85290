import Foundation
import KingfisherLocking
import NIOCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `s3://bucket/key` URLs: fetched as HTTP(S) downloads of the object from the configured S3-compatible endpoint,
/// each request signed (AWS Signature Version 4) just before it is sent.
extension ImageDownloader {
    /// The settings `s3://` URLs are fetched with: the configuration's, else the standard AWS settings, read once.
    func objectStorage() -> Result<S3Configuration, S3Configuration.EnvironmentError> {
        if let configured = configuration.objectStorage { return .success(configured) }
        if let known = settings.withLock({ $0.objectStorage }) { return known }
        let read = Result { () throws(S3Configuration.EnvironmentError) in try S3Configuration.fromEnvironment() }
        return settings.withLock { settings in
            if let known = settings.objectStorage { return known }
            settings.objectStorage = read
            return read
        }
    }

    /// The URL a request for `url` is sent to: the object's at its endpoint for an `s3://` URL, `url` otherwise.
    func requestURL(for url: URL) -> Result<URL, KingfisherError> {
        guard url.scheme?.lowercased() == "s3" else { return .success(url) }
        guard let location = S3Location(url: url) else {
            return .failure(.requestError(reason: .invalidURL(request: URLRequest(url: url))))
        }
        switch objectStorage() {
        case .success(let storage): return .success(storage.objectURL(for: location))
        case .failure(let error):
            return .failure(.requestError(reason: .objectStorageUnconfigured(url: url, reason: error.description)))
        }
    }

    /// `request` as sent for `task`: signed when the task fetches an `s3://` URL, the settings have credentials,
    /// and the request goes to the object's own host (a redirect elsewhere gets no credentials).
    func signedForObjectStorage(_ request: URLRequest, of task: SessionDataTask, at date: Date = Date()) -> URLRequest {
        guard task.url.scheme?.lowercased() == "s3", let location = S3Location(url: task.url),
            case .success(let storage) = objectStorage(), storage.credentials != nil, let url = request.url,
            url.host == storage.objectURL(for: location).host
        else { return request }
        var signed = request
        for header in storage.signedHeaders(method: request.httpMethod ?? "GET", url: url, at: date) {
            signed.setValue(header.value, forHTTPHeaderField: header.name)
        }
        return signed
    }

    /// The object store's refusal of `task`'s request, from the error body it sent; `nil` for a task that fetches
    /// no `s3://` URL, or a body that is no S3 error.
    static func objectStorageError(_ body: ByteBuffer?, status: Int, of task: SessionDataTask) -> KingfisherError? {
        guard task.url.scheme?.lowercased() == "s3", let body,
            let refusal = S3ErrorResponse(body: Data(body.readableBytesView))
        else { return nil }
        return .responseError(
            reason: .objectStorageError(url: task.url, statusCode: status, code: refusal.code, message: refusal.message)
        )
    }
}
