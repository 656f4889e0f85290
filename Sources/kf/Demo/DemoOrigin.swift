import Foundation
import HTTPTypes
import Hummingbird
import KfCommandKit
import KingfisherLocking
import Logging
import NIOCore
import ServiceLifecycle

/// The loopback HTTP server `kf demo` serves its sample images from: a fixed answer per path on 127.0.0.1 (an
/// ephemeral port, this process only), a `304` to a request that names the answer's `ETag`, and a count of the
/// requests it answered.
final class DemoOrigin: Sendable {
    /// What one path answers.
    struct Answer: Sendable {
        let headers: [(name: String, value: String)]
        let body: Data
    }

    let port: Int
    private let requests: Locked<Int>
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(port: Int, requests: Locked<Int>, group: ServiceGroup, running: Task<Void, any Error>) {
        self.port = port
        self.requests = requests
        self.group = group
        self.running = running
    }

    /// Starts serving `answers` (by path); returns once the server listens.
    static func start(serving answers: [String: Answer]) async throws -> DemoOrigin {
        let requests = Locked(0)
        let router = Router()
        for (path, answer) in answers {
            var fields = HTTPFields()
            for header in answer.headers {
                if let name = HTTPField.Name(header.name) { fields[name] = header.value }
            }
            let headers = fields
            let body = ByteBuffer(bytes: answer.body)
            let tag = fields[.eTag]
            router.get(RouterPath(path)) { request, _ -> Response in
                requests.withLock { $0 += 1 }
                if let tag, request.headers[.ifNoneMatch] == tag {
                    return Response(status: .notModified, headers: headers)
                }
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
            }
        }
        let quiet = Logger(label: "kf.demo-origin", factory: { _ in SwiftLogNoOpLogHandler() })
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: quiet)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [.init(service: app)], logger: quiet))
        let running = Task { try await group.run() }
        var port = 0
        for await value in ports { port = value }
        guard port > 0 else {
            running.cancel()
            throw CommandFailure("the demo's loopback server did not start")
        }
        return DemoOrigin(port: port, requests: requests, group: group, running: running)
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Requests answered so far.
    var totalHits: Int { requests.withLock { $0 } }

    /// Stops listening, once the requests under way are answered.
    func shutdown() async {
        await group.triggerGracefulShutdown()
        _ = try? await running.value
    }
}
