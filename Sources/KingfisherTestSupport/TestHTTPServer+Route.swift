public import Foundation

extension TestHTTPServer {
    /// What the server does for one request to a path. Every switch defaults to an ordinary `200` with the body.
    public struct Route: Sendable {
        /// The status code. `200` by default.
        public var status: Int
        /// Extra response headers, in order.
        public var headers: [(String, String)]
        /// The body bytes.
        public var body: Data
        /// How long to wait before sending the response head. `nil` (no wait) by default.
        public var delayBeforeHead: Duration?
        /// Send the body in pieces of this many bytes with `Transfer-Encoding: chunked` (unless `contentLength`
        /// is set). `nil` sends it in one piece with `Content-Length`.
        public var chunkSize: Int?
        /// Pause between body pieces. `nil` by default.
        public var delayBetweenChunks: Duration?
        /// The `Content-Length` to claim instead of the real one (a lying or huge header). `nil` tells the truth.
        public var contentLength: Int64?
        /// Close the connection after this many body bytes, without finishing the response.
        public var closeAfterBodyBytes: Int?
        /// Never answer: the request is read and the connection held open.
        public var neverRespond: Bool
        /// Never answer: the request is read and the connection closed at once, before any response byte.
        public var dropConnection: Bool
        /// Hold the response until ``TestHTTPServer/release(_:)`` is called for this path.
        public var held: Bool
        /// Close the connection right after the whole response is sent, without a `Connection: close` header, as a
        /// server dropping idle keep-alive connections does: a client that reuses it finds it closed.
        public var closeAfterResponse: Bool
        /// Send this many body bytes, then hold the rest until ``TestHTTPServer/release(_:)`` is called for this
        /// path (a body cut at a known point, for as long as a test needs). `nil` by default.
        public var holdAfterBodyBytes: Int?

        public init(
            status: Int = 200,
            headers: [(String, String)] = [],
            body: Data = Data(),
            delayBeforeHead: Duration? = nil,
            chunkSize: Int? = nil,
            delayBetweenChunks: Duration? = nil,
            contentLength: Int64? = nil,
            closeAfterBodyBytes: Int? = nil,
            neverRespond: Bool = false,
            dropConnection: Bool = false,
            held: Bool = false,
            closeAfterResponse: Bool = false,
            holdAfterBodyBytes: Int? = nil
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delayBeforeHead = delayBeforeHead
            self.chunkSize = chunkSize
            self.delayBetweenChunks = delayBetweenChunks
            self.contentLength = contentLength
            self.closeAfterBodyBytes = closeAfterBodyBytes
            self.neverRespond = neverRespond
            self.dropConnection = dropConnection
            self.held = held
            self.closeAfterResponse = closeAfterResponse
            self.holdAfterBodyBytes = holdAfterBodyBytes
        }

        /// `200` with `body`, typed as `contentType`.
        public static func ok(_ body: Data, contentType: String = "application/octet-stream") -> Route {
            Route(headers: [("Content-Type", contentType)], body: body)
        }

        /// A redirect (`302` by default) to `location`, absolute or relative.
        public static func redirect(to location: String, status: Int = 302) -> Route {
            Route(status: status, headers: [("Location", location)])
        }

        /// `200` with `body` sent one byte at a time, `interval` apart, with `Content-Length`.
        public static func trickle(_ body: Data, every interval: Duration) -> Route {
            Route(body: body, chunkSize: 1, delayBetweenChunks: interval, contentLength: Int64(body.count))
        }

        /// A status with a short text body.
        public static func status(_ code: Int, body: String = "") -> Route {
            Route(status: code, headers: [("Content-Type", "text/plain")], body: Data(body.utf8))
        }
    }
}
