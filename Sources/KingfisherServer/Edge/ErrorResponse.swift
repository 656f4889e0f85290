import AsyncHTTPClient
import Foundation
import HTTPTypes
import Kingfisher
import NIOCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one place where a failure becomes an HTTP status and a message. Messages say what went wrong in terms of
/// the request; they never carry internals (paths, addresses, library errors), which go to the error log instead.
struct ErrorResponse: Sendable, Equatable {
    let status: HTTPResponse.Status
    let message: String
    /// Seconds for `Retry-After`, on `503`.
    var retryAfter: Int?

    init(status: HTTPResponse.Status, message: String, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }

    init(_ error: any Error, retryAfter: Int) {
        switch error {
        case ThumborURLError.missingSignature:
            self.init(status: .forbidden, message: "the URL has no signature")
        case let error as ThumborURLError:
            self.init(status: .badRequest, message: "bad URL: \(error)")
        case let error as ImageServerError:
            self.init(error, retryAfter: retryAfter)
        case let error as KingfisherError:
            self.init(error)
        case is CancellationError:
            self.init(status: .serviceUnavailable, message: "the request was cancelled")
        default:
            self.init(status: .internalServerError, message: "internal error")
        }
    }

    private init(_ error: ImageServerError, retryAfter: Int) {
        switch error {
        case .signatureRequired:
            self.init(status: .forbidden, message: "signed URLs need a security key, and this server has none")
        case .badSignature: self.init(status: .forbidden, message: "the URL's signature does not match")
        case .unsafeURLsDisabled: self.init(status: .forbidden, message: "unsafe URLs are disabled: sign the URL")
        case .metaSourceUnavailable:
            self.init(status: .badGateway, message: "meta/: the source's bytes could not be kept to read its size")
        case .unsupportedScheme: self.init(status: .badRequest, message: "the image URL is not http or https")
        // One answer for every refused source: which addresses a name resolves to (or whether it resolves at all)
        // is for the log, not for whoever sent the URL.
        case .sourceNotAllowed, .forbiddenAddress, .unresolvableHost:
            self.init(status: .forbidden, message: "the image's source is not allowed")
        case .pathOutsideRoot: self.init(status: .forbidden, message: "the image path leaves the root directory")
        case .fileNotFound: self.init(status: .notFound, message: "no such image")
        case .overloaded:
            self.init(status: .serviceUnavailable, message: "too many requests; try again", retryAfter: retryAfter)
        }
    }

    private init(_ error: KingfisherError) {
        switch error {
        case .responseError(let reason):
            switch reason {
            case .invalidHTTPStatusCode(let response) where [404, 410].contains(response.statusCode):
                self.init(status: .notFound, message: "the origin has no such image (\(response.statusCode))")
            case .invalidHTTPStatusCode(let response) where response.statusCode == 304:
                // The server's requests to origins are conditional only inside the library, which handles the 304.
                self.init(status: .badGateway, message: Self.unaskedNotModified)
            case .URLSessionError(let error as URLError) where error.code == .badServerResponse:
                self.init(status: .badGateway, message: Self.unaskedNotModified)
            case .invalidHTTPStatusCode(let response) where (300..<400).contains(response.statusCode):
                self.init(status: .forbidden, message: "the origin redirected to a source this server does not fetch")
            case .invalidHTTPStatusCode(let response):
                self.init(status: .badGateway, message: "the origin answered \(response.statusCode)")
            case .responseTooLarge(_, let limit, _):
                self.init(status: .contentTooLarge, message: "the source is larger than \(limit) bytes")
            case .requestTimedOut(_, let seconds), .downloadDurationExceeded(_, let seconds):
                let limit = seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
                self.init(status: .gatewayTimeout, message: "the origin did not answer within \(limit) s")
            case .URLSessionError(let refusal as ImageServerError):
                // The source guard refused a hop when the download connected (its answer had changed).
                self.init(refusal, retryAfter: 0)
            case .URLSessionError(let underlying) where Self.isTimeout(underlying):
                self.init(status: .gatewayTimeout, message: "the origin did not answer in time")
            case .tooManyRedirects:
                self.init(status: .badGateway, message: "the origin redirected too many times")
            case .objectStorageError(_, let status, let code, _):
                self.init(objectStorage: code, status: status)
            default:
                self.init(status: .badGateway, message: "the origin could not be reached")
            }
        case .processorError(let reason):
            switch reason {
            case .pixelLimitExceeded(let width, let height, let limit):
                self.init(
                    status: .badRequest,
                    message: "the image is \(width) x \(height) pixels, more than the limit of \(limit)")
            case .frameLimitExceeded(let frames, let limit):
                self.init(status: .badRequest, message: "the source has \(frames) frames, more than \(limit)")
            case .timeLimitExceeded:
                self.init(status: .unprocessableContent, message: "the image took too long to process")
            case .imageEncodingFailed:
                self.init(status: .internalServerError, message: "the result could not be encoded")
            default:
                self.init(status: .badRequest, message: "the source is not an image this server can read")
            }
        case .imageSettingError(.dataProviderError):
            self.init(status: .notFound, message: "no such image")
        case .requestError(.invalidURL(let request)):
            // The server checked the URL it was given: an invalid one here is where an origin redirected.
            let scheme = request.url?.scheme?.lowercased() ?? ""
            self.init(
                status: .badGateway,
                message: ["http", "https"].contains(scheme)
                    ? "the origin redirected to a URL that cannot be fetched"
                    : "the origin redirected to a URL that is not http or https")
        case .requestError(.objectStorageUnconfigured):
            self.init(status: .badGateway, message: "the object store's settings could not be read")
        case .requestError(.asyncTaskContextCancelled), .requestError(.taskCancelled):
            self.init(status: .serviceUnavailable, message: "the request was cancelled")
        default:
            self.init(status: .internalServerError, message: "internal error")
        }
    }

    /// An S3-compatible store's refusal: a missing object is a 404, a refused key or signature a 403 (the
    /// server's credentials; the message names the code, never the store's XML), the store asking for fewer
    /// requests a 503 to retry after a second, anything else a 502.
    private init(objectStorage code: String, status: Int) {
        switch code {
        case "NoSuchKey", "NoSuchBucket":
            self.init(status: .notFound, message: "the object store has no such image (\(code))")
        case "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId", "ExpiredToken", "InvalidToken":
            self.init(status: .forbidden, message: "the object store refused this server's request (\(code))")
        case "SlowDown", "ServiceUnavailable", "RequestLimitExceeded":
            self.init(status: .serviceUnavailable, message: "the object store is busy (\(code))", retryAfter: 1)
        default:
            self.init(status: .badGateway, message: "the object store answered \(status) (\(code))")
        }
    }

    private static let unaskedNotModified = "the origin answered 304 Not Modified to a request that was not conditional"

    /// AsyncHTTPClient's connect, read and deadline timeouts, and NIO's connect timeout.
    private static func isTimeout(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError {
            return [.readTimeout, .connectTimeout, .deadlineExceeded].contains(error)
        }
        if let error = error as? ChannelError, case .connectTimeout = error { return true }
        return false
    }
}
