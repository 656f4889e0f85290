public import Foundation

/// A real OTLP/HTTP trace receiver for the tests: a Python server decoding what exporters send with OpenTelemetry's
/// own protobufs (`otlp_receiver.py`, from `.venv-test`), on 127.0.0.1 at a port of its own. Start one per test:
/// its spans are the test's.
public final class OTLPReceiver: Sendable {
    /// A span as the receiver decoded it.
    public struct ReceivedSpan: Sendable, Decodable {
        public let traceId: String
        public let spanId: String
        /// `""` for a root span.
        public let parentSpanId: String
        public let name: String
        /// OTLP's `SpanKind`: 1 internal, 2 server, 3 client.
        public let kind: Int
        public let service: String?
        public let attributes: [String: AttributeValue]
    }

    /// An attribute's value, as OTLP carries it.
    public enum AttributeValue: Sendable, Decodable, Equatable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case other

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else {
                self = .other
            }
        }

        public var string: String? {
            if case .string(let value) = self { return value }
            return nil
        }
    }

    /// `http://127.0.0.1:<port>`: what `OTEL_EXPORTER_OTLP_ENDPOINT` names.
    public let endpoint: URL
    private let peer: PythonPeer

    private init(peer: PythonPeer) throws {
        guard let port = peer.ready["port"].flatMap(Int.init) else {
            throw PythonPeer.Failure(description: "the OTLP receiver's ready line lacks its port")
        }
        self.peer = peer
        endpoint = URL(string: "http://127.0.0.1:\(port)")!
    }

    public static func start() async throws -> OTLPReceiver {
        try OTLPReceiver(peer: try await PythonPeer.start("OTLP/otlp_receiver.py"))
    }

    /// Every span received so far.
    public func spans() async throws -> [ReceivedSpan] {
        let answer = try await peer.command(["op": "spans"])
        let data = try JSONSerialization.data(withJSONObject: answer["spans"] ?? [])
        return try JSONDecoder().decode([ReceivedSpan].self, from: data)
    }
}
