package import AsyncHTTPClient
package import Foundation
import NIOCore
import NIOHTTP1

/// Reads and writes whole objects of an S3-compatible store with signed `GET`s and `PUT`s: what a store of made
/// results needs (image sources go through the downloader instead, which also resumes, revalidates and shares).
package struct S3ObjectClient: Sendable {
    /// An object's bytes, media type and user metadata (`x-amz-meta-*`, names without the prefix, lowercased).
    package struct Object: Sendable, Equatable {
        package var data: Data
        package var contentType: String?
        package var metadata: [String: String]

        package init(data: Data, contentType: String?, metadata: [String: String]) {
            self.data = data
            self.contentType = contentType
            self.metadata = metadata
        }
    }

    package let storage: S3Configuration
    private let client: HTTPClient
    private let timeout: TimeAmount
    private let maximumBytes: Int

    /// - Parameters: the store's settings, the client the requests go through (the caller shuts it down), the
    ///   longest a request may take, and the largest object read.
    package init(storage: S3Configuration, client: HTTPClient, timeout: TimeInterval, maximumBytes: Int) {
        self.storage = storage
        self.client = client
        self.timeout = .milliseconds(Int64(max(0.001, min(timeout, 86_400)) * 1000))
        self.maximumBytes = maximumBytes
    }

    /// The object at `location`; `nil` when the store has none there (`NoSuchKey`).
    package func get(_ location: S3Location) async throws(KingfisherError) -> Object? {
        let request = signed("GET", location, body: nil, headers: [])
        do {
            let response = try await client.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: maximumBytes)
            guard response.status == .ok else {
                if response.status == .notFound, Self.refusal(body)?.code ?? "NoSuchKey" == "NoSuchKey" { return nil }
                throw failure(response, body: body, location: location)
            }
            var metadata: [String: String] = [:]
            for header in response.headers where header.name.lowercased().hasPrefix("x-amz-meta-") {
                metadata[String(header.name.lowercased().dropFirst("x-amz-meta-".count))] = header.value
            }
            return Object(
                data: Data(body.readableBytesView), contentType: response.headers.first(name: "Content-Type"),
                metadata: metadata)
        } catch let error as KingfisherError {
            throw error
        } catch {
            throw .responseError(reason: .URLSessionError(error: error))
        }
    }

    /// Writes `data` at `location` with its media type and user metadata (names without `x-amz-meta-`).
    package func put(_ data: Data, at location: S3Location, contentType: String, metadata: [String: String] = [:])
        async throws(KingfisherError)
    {
        var headers = [AWSSignatureV4.Header("content-type", contentType)]
        for (name, value) in metadata.sorted(by: { $0.key < $1.key }) {
            headers.append(.init("x-amz-meta-\(name.lowercased())", value))
        }
        let request = signed("PUT", location, body: data, headers: headers)
        do {
            let response = try await client.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 64 * 1024)
            guard response.status == .ok else { throw failure(response, body: body, location: location) }
        } catch let error as KingfisherError {
            throw error
        } catch {
            throw .responseError(reason: .URLSessionError(error: error))
        }
    }

    private func signed(_ method: String, _ location: S3Location, body: Data?, headers: [AWSSignatureV4.Header])
        -> HTTPClientRequest
    {
        let url = storage.objectURL(for: location)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        let payload = body.map(AWSSignatureV4.payloadHash(of:)) ?? AWSSignatureV4.emptyPayloadHash
        for header in storage.signedHeaders(method: method, url: url, headers: headers, payloadHash: payload) {
            request.headers.add(name: header.name, value: header.value)
        }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        return request
    }

    private static func refusal(_ body: ByteBuffer) -> S3ErrorResponse? {
        S3ErrorResponse(body: Data(body.readableBytesView))
    }

    private func failure(_ response: HTTPClientResponse, body: ByteBuffer, location: S3Location) -> KingfisherError {
        let refusal = Self.refusal(body) ?? S3ErrorResponse(code: "HTTP\(response.status.code)", message: "")
        return .responseError(
            reason: .objectStorageError(
                url: location.url, statusCode: Int(response.status.code), code: refusal.code,
                message: refusal.message))
    }
}
