// A small Hummingbird service that answers `GET /thumbnail?url=URL&size=PIXELS` with a JPEG thumbnail, made through
// `KingfisherManager`: the original is downloaded once (requests for the same URL share one download), decoded at a
// reduced size by libvips on the library's own decoding threads (never on the server's event loops), and cached in
// memory and on disk, so the next request for it is a cache hit.
//
//     swift run ThumbnailService --allow-host images.example.com --port 8080
//     curl -o thumb.jpg 'http://127.0.0.1:8080/thumbnail?url=https://images.example.com/a.jpg&size=256'
//
// Only hosts given with --allow-host are fetched: a service that downloads any URL it is handed lets its callers
// reach the machines behind it. (`kf serve` is the full server, with signed URLs and an SSRF guard.)

import Foundation
import HTTPTypes
import Hummingbird
import Kingfisher
import NIOCore

struct Settings {
    var host = "127.0.0.1"
    var port = 8080
    var allowedHosts: Set<String> = []
    var cacheDirectory: URL?

    init(arguments: [String]) throws {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { throw UsageError("\(flag) needs a value") }
            switch flag {
            case "--host": host = value
            case "--port": port = try Self.number(value, for: flag)
            case "--allow-host": allowedHosts.insert(value.lowercased())
            case "--cache-dir": cacheDirectory = URL(fileURLWithPath: value)
            default: throw UsageError("unknown option \(flag)")
            }
        }
        if allowedHosts.isEmpty { throw UsageError("give at least one --allow-host") }
    }

    private static func number(_ text: String, for flag: String) throws -> Int {
        guard let value = Int(text), value >= 0 else { throw UsageError("\(flag) takes a number, not \(text)") }
        return value
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The thumbnail route.
struct ThumbnailRoute: Sendable {
    let manager: KingfisherManager
    let allowedHosts: Set<String>

    func respond(to request: Request) async -> Response {
        guard let text = request.uri.queryParameters["url"].map(String.init), let url = URL(string: text),
            url.scheme == "http" || url.scheme == "https", let host = url.host?.lowercased()
        else { return Self.plain(.badRequest, "give ?url= an http or https URL\n") }
        guard allowedHosts.contains(host) else { return Self.plain(.forbidden, "\(host) is not an allowed host\n") }
        let size = request.uri.queryParameters["size"].flatMap { Int(String($0)) } ?? 256
        guard (16...2048).contains(size) else { return Self.plain(.badRequest, "size must be 16 to 2048\n") }
        let processor = DownsamplingImageProcessor(size: CGSize(width: size, height: size))
        do {
            let result = try await manager.retrieveImage(
                with: url, options: [.processor(processor), .cacheSerializer(FormatIndicatedCacheSerializer.jpeg)])
            // A thumbnail encodes in about a millisecond; a service making large results would encode on a queue of
            // its own, as the library decodes on its own threads.
            guard let jpeg = result.image.kf.jpegRepresentation(compressionQuality: 0.8) else {
                return Self.plain(.internalServerError, "the thumbnail could not be encoded\n")
            }
            var headers = HTTPFields()
            headers[.contentType] = "image/jpeg"
            headers[.cacheControl] = "public, max-age=86400"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: jpeg)))
        } catch {
            let (status, message) = Self.answer(for: error)
            return Self.plain(status, message + "\n")
        }
    }

    /// A failure as a status and a few plain words for the caller. The full error (with the library's details) is
    /// for the service's own log, never for the response: it can name files, addresses and internals.
    static func answer(for error: any Error) -> (HTTPResponse.Status, String) {
        guard let error = error as? KingfisherError else { return (.internalServerError, "internal error") }
        switch error {
        case .responseError(.invalidHTTPStatusCode(let response)) where [404, 410].contains(response.statusCode):
            return (.notFound, "the origin has no such image (\(response.statusCode))")
        case .responseError(.invalidHTTPStatusCode(let response)):
            return (.badGateway, "the origin answered \(response.statusCode)")
        case .responseError(.requestTimedOut), .responseError(.downloadDurationExceeded):
            return (.gatewayTimeout, "the origin did not answer in time")
        case .responseError(.responseTooLarge(_, let limit, _)):
            return (.contentTooLarge, "the image is larger than \(limit) bytes")
        case .responseError:
            return (.badGateway, "the origin could not be reached")
        case .processorError(.pixelLimitExceeded), .processorError(.frameLimitExceeded):
            return (.contentTooLarge, "the image is larger than this service makes thumbnails of")
        case .processorError(.timeLimitExceeded):
            return (.unprocessableContent, "the image takes too long to decode")
        case .processorError:
            // Empty, not an image, or damaged (see KingfisherError.underlyingReason for which).
            return (.unprocessableContent, "the URL is not an image this service can read")
        case .requestError, .cacheError, .imageSettingError:
            return (.internalServerError, "internal error")
        }
    }

    private static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

do {
    let settings = try Settings(arguments: Array(CommandLine.arguments.dropFirst()))
    let cache = try ImageCache(name: "thumbnails", cacheDirectoryURL: settings.cacheDirectory)
    let manager = KingfisherManager(downloader: ImageDownloader(name: "thumbnails"), cache: cache)
    let route = ThumbnailRoute(manager: manager, allowedHosts: settings.allowedHosts)
    let router = Router()
    router.get("thumbnail") { request, _ in await route.respond(to: request) }
    router.get("healthz") { _, _ in "ok\n" }
    let app = Application(
        router: router,
        configuration: .init(address: .hostname(settings.host, port: settings.port)),
        onServerRunning: { channel in
            let port = channel.localAddress?.port ?? settings.port
            FileHandle.standardOutput.write(Data("listening on http://\(settings.host):\(port)\n".utf8))
        })
    try await app.runService()
} catch let error as UsageError {
    FileHandle.standardError.write(Data("ThumbnailService: \(error)\n".utf8))
    exit(2)
}
