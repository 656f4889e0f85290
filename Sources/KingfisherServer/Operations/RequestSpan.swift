import Foundation
import HTTPTypes
import Hummingbird
import Tracing

/// The server span of one thumbor request, the parent of the retrieval's spans: its trace continues the caller's
/// when the request carries one (W3C `traceparent`, or what the bootstrapped instrument extracts), and it carries
/// OpenTelemetry's HTTP server attributes and thumbor's operation (`thumbor.*`: the image, the size, the fit, the
/// alignment, `smart`, the filters). Without a bootstrapped tracer it is the no-op tracer's.
enum RequestSpan {
    static func run(_ request: Request, _ respond: (any Span) async -> Response) async -> Response {
        // No tracer bootstrapped: no span at all (a request costs what it cost before traces).
        let tracer = InstrumentationSystem.tracer
        guard !(tracer is NoOpTracer) else { return await respond(NoOpTracer.NoOpSpan(context: .topLevel)) }
        var context = ServiceContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &context, using: FieldsExtractor())
        let method = request.method.rawValue
        return await tracer.withSpan(method, context: context, ofKind: .server) { span in
            if span.isRecording {
                span.attributes["http.request.method"] = method
                span.attributes["url.path"] = request.uri.path
                span.attributes["url.scheme"] = "http"
            }
            let response = await respond(span)
            span.attributes["http.response.status_code"] = Int(response.status.code)
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            return response
        }
    }

    /// The operation a thumbor URL asks for, as attributes of `span`.
    static func describe(_ url: ThumborURL, on span: any Span) {
        guard span.isRecording else { return }
        span.attributes["thumbor.image"] = url.image
        span.attributes["thumbor.fit"] = url.fit.rawValue
        if case .pixels(let width) = url.width { span.attributes["thumbor.width"] = width }
        if case .pixels(let height) = url.height { span.attributes["thumbor.height"] = height }
        if url.smart { span.attributes["thumbor.smart"] = true }
        if url.meta { span.attributes["thumbor.meta"] = true }
        if url.trim != nil { span.attributes["thumbor.trim"] = true }
        if let crop = url.crop {
            span.attributes["thumbor.crop"] = "\(crop.left)x\(crop.top):\(crop.right)x\(crop.bottom)"
        }
        if let alignment = url.horizontalAlignment { span.attributes["thumbor.halign"] = alignment.rawValue }
        if let alignment = url.verticalAlignment { span.attributes["thumbor.valign"] = alignment.rawValue }
        if !url.filters.isEmpty {
            span.attributes["thumbor.filters"] = url.filters.map {
                "\($0.name)(\($0.arguments.joined(separator: ",")))"
            }
            .joined(separator: ":")
        }
    }

    private struct FieldsExtractor: Extractor {
        func extract(key: String, from carrier: HTTPFields) -> String? {
            guard let name = HTTPField.Name(key) else { return nil }
            return carrier[name]
        }
    }
}
