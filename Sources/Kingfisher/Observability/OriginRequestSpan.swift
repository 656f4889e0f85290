import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Tracing

/// The client span of one request to an origin (each hop of a download: a redirect is a request of its own),
/// named by its method as OpenTelemetry's HTTP conventions name client spans, with their attributes
/// (`http.request.method`, `url.full`, `server.address`, `server.port`, `http.response.status_code`). The span's
/// context goes out in the request's headers (W3C `traceparent`, or what the bootstrapped instrument propagates),
/// so the origin's own spans join the trace.
enum OriginRequestSpan {
    static func run(
        _ request: inout HTTPClientRequest, url: URL,
        _ send: (HTTPClientRequest) async throws -> HTTPClientResponse
    ) async throws -> HTTPClientResponse {
        let tracer = InstrumentationSystem.tracer
        guard !(tracer is NoOpTracer) else { return try await send(request) }
        let method = request.method.rawValue
        return try await tracer.withSpan(method, ofKind: .client) { span in
            span.attributes["http.request.method"] = method
            span.attributes["url.full"] = url.absoluteString
            if let host = url.host { span.attributes["server.address"] = host }
            span.attributes["server.port"] = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
            InstrumentationSystem.instrument.inject(span.context, into: &request.headers, using: HeadersInjector())
            do {
                let response = try await send(request)
                span.attributes["http.response.status_code"] = Int(response.status.code)
                if response.status.code >= 400 { span.setStatus(SpanStatus(code: .error)) }
                return response
            } catch {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
                throw error
            }
        }
    }

    /// Puts each propagated field in the request's headers, replacing one of the same name.
    private struct HeadersInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
            carrier.replaceOrAdd(name: key, value: value)
        }
    }
}
