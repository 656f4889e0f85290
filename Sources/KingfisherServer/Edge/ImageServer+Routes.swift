import Foundation
public import Hummingbird
public import Prometheus
import HTTPTypes
import Kingfisher
public import Logging
import NIOCore
import Tracing

extension ImageServer {
    /// Adds the server's routes to `router` (`HEAD` answers as `GET` without a body):
    /// - `GET /healthz` (and thumbor's `/healthcheck`): `200 ok` while the server runs;
    /// - `GET /metrics`: the registry in Prometheus' text format, when one is given (bootstrap swift-metrics with a
    ///   `PrometheusMetricsFactory` over the same registry to see the library's and the server's metrics there);
    /// - every other `GET`: a thumbor URL, answered with the image or an error status and a one-line reason.
    ///
    /// A request's work stops (between strips of rows) when its handler's task is cancelled and no other request
    /// waits for the same result. Hummingbird lets a handler whose client has gone run on; `kf serve` cancels it
    /// from its connection's channel (the end of the client's input, or the connection's close).
    public func addRoutes<Context: RequestContext>(
        to router: Router<Context>, metricsRegistry: PrometheusCollectorRegistry? = nil
    ) {
        // thumbor's name for the health check too, so existing checks keep working.
        for path in ["healthz", "healthcheck"] {
            router.get(RouterPath(path)) { _, _ in Self.text(.ok, "ok\n") }
            router.head(RouterPath(path)) { _, _ in Self.headOnly(Self.text(.ok, "ok\n")) }
        }
        if let metricsRegistry {
            let metrics: @Sendable () -> Response = {
                var headers = HTTPFields()
                headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
                headers[.cacheControl] = "no-store"
                let body = ByteBuffer(bytes: metricsRegistry.emitToBuffer())
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
            }
            router.get("metrics") { _, _ in metrics() }
            router.head("metrics") { _, _ in Self.headOnly(metrics()) }
        }
        router.get("**") { request, context in
            await self.respond(to: request, logger: context.logger)
        }
        router.head("**") { request, context in
            Self.headOnly(await self.respond(to: request, logger: context.logger))
        }
    }

    /// The response to a thumbor URL request: the image, a `304` when `If-None-Match` names its tag, or an error.
    /// - Parameter logger: the request's logger (Hummingbird's `context.logger`): the retrieval and its download
    ///   log there, with the request's metadata. `nil` by default: the manager's and the downloader's loggers.
    public func respond(to request: Request, logger requestLogger: Logger? = nil) async -> Response {
        await RequestSpan.run(request) { span in await respond(to: request, logger: requestLogger, span: span) }
    }

    private func respond(to request: Request, logger requestLogger: Logger?, span: any Span) async -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let response: Response
        do {
            let result = try await result(
                forPath: request.uri.path, accept: request.headers[.accept], logger: requestLogger, span: span)
            response = success(result, ifNoneMatch: request.headers[values: .ifNoneMatch])
        } catch {
            let failure = ErrorResponse(error, retryAfter: configuration.retryAfter)
            let level: Logger.Level = failure.status.code >= 500 ? .error : .info
            logger?.log(
                level: level, "refused",
                metadata: [
                    "path": "\(request.uri.path)", "status": "\(failure.status.code)", "error": "\(error)",
                ])
            response = Self.failure(failure)
        }
        metrics.countResponse(
            status: response.status.code, nanoseconds: Int64(DispatchTime.now().uptimeNanoseconds - start))
        metrics.recordQueue(gate.waitingCount)
        return response
    }

    private func success(_ result: ServedResult, ifNoneMatch: [String]) -> Response {
        var headers = HTTPFields()
        headers[.eTag] = result.image.etag
        headers[.cacheControl] = result.maxAge > 0 ? "public, max-age=\(result.maxAge)" : "no-cache"
        if result.variesByAccept { headers[.vary] = "Accept" }
        if Self.matches(ifNoneMatch, etag: result.image.etag) {
            // No Content-Length: a 304's would have to be the full response's (RFC 9110, 8.6).
            var notModified = Response(status: .notModified, headers: headers)
            notModified.headers[.contentLength] = nil
            return notModified
        }
        headers[.contentType] = result.image.contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: result.image.body))
    }

    /// The answer to `HEAD`: the `GET` response's status and headers (its body's length included), no body.
    private static func headOnly(_ response: Response) -> Response {
        var headers = response.headers
        if let length = response.body.contentLength, response.status != .notModified {
            headers[.contentLength] = String(length)
        }
        var head = Response(status: response.status, headers: headers, body: ResponseBody())
        if response.status == .notModified { head.headers[.contentLength] = nil }
        return head
    }

    /// `If-None-Match` against a strong tag, with the weak comparison RFC 9110 asks for (`W/"x"` matches `"x"`).
    static func matches(_ fields: [String], etag: String) -> Bool {
        fields.flatMap { $0.split(separator: ",") }.contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }

    private static func failure(_ failure: ErrorResponse) -> Response {
        var response = text(failure.status, failure.message + "\n")
        if let seconds = failure.retryAfter { response.headers[.retryAfter] = String(seconds) }
        return response
    }

    private static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
