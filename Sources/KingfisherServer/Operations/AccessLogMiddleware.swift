public import Hummingbird
import Foundation
public import Logging

/// Logs one line per request through swift-log at `info`: method, path, status, bytes and milliseconds (the
/// access log). Failed requests also get the server's own line with the reason (the error log).
public struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let response = try await next(request, context)
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
        logger.info(
            "\(request.method) \(request.uri.path) \(response.status.code)",
            metadata: [
                "bytes": "\(response.body.contentLength ?? 0)",
                "ms": "\((milliseconds * 10).rounded() / 10)",
            ])
        return response
    }
}
