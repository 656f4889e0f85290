import Foundation
import NIOCore
import NIOHTTP1

extension TestHTTPServer {
    /// Answers the requests of one connection, one at a time, as the request's route says.
    final class RequestHandler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let server: TestHTTPServer
        private var path = "/"
        private var keepAlive = true
        private var headers: [(String, String)] = []
        /// A response is under way (counted in the server's in-flight number until it ends or the connection closes).
        private var responding = false

        init(server: TestHTTPServer) {
            self.server = server
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "/")
                keepAlive = head.isKeepAlive
                headers = head.headers.map { ($0.name, $0.value) }
            case .body:
                break
            case .end:
                let (route, hold) = server.requestArrived(path: path, headers: headers)
                responding = true
                guard let route else {
                    respond(context: context, route: .status(404, body: "no route for \(path)"))
                    return
                }
                if route.neverRespond { return }
                if route.dropConnection {
                    finishResponse()
                    context.close(promise: nil)
                    return
                }
                if hold {
                    let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                    let loop = context.eventLoop
                    server.hold(path: path) {
                        loop.execute {
                            let (handler, context) = bound.value
                            handler.respondAfterDelay(context: context, route: route)
                        }
                    }
                } else {
                    respondAfterDelay(context: context, route: route)
                }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            if responding { server.responseAbandoned(path: path) }
            finishResponse()
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }

        private func finishResponse() {
            guard responding else { return }
            responding = false
            server.responseEnded()
        }

        private func respondAfterDelay(context: ChannelHandlerContext, route: Route) {
            guard let delay = route.delayBeforeHead else {
                respond(context: context, route: route)
                return
            }
            context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
                self.respond(context: context, route: route)
            }
        }

        private func respond(context: ChannelHandlerContext, route: Route) {
            guard context.channel.isActive else { return }
            var headers = HTTPHeaders(route.headers)
            let chunked = route.chunkSize != nil && route.contentLength == nil
            if chunked {
                headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            } else {
                headers.replaceOrAdd(name: "Content-Length", value: "\(route.contentLength ?? Int64(route.body.count))")
            }
            if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
            let head = HTTPResponseHead(
                version: .http1_1, status: HTTPResponseStatus(statusCode: route.status), headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)

            var body = context.channel.allocator.buffer(capacity: route.body.count)
            body.writeBytes(route.body)
            var closeAfter = route.closeAfterBodyBytes
            if let declared = route.contentLength, declared != Int64(route.body.count) {
                // A lying Content-Length: send what we have, then hang up as a dying server would.
                closeAfter = min(closeAfter ?? route.body.count, route.body.count)
            }
            if let closeAfter {
                body = body.getSlice(at: body.readerIndex, length: min(closeAfter, body.readableBytes)) ?? body
            }
            writeBody(
                context: context, body: body, pieceSize: route.chunkSize, pause: route.delayBetweenChunks,
                holdAfter: route.holdAfterBodyBytes, closeAtEnd: closeAfter != nil,
                closeAfterEnd: route.closeAfterResponse)
        }

        /// Writes `body` piece by piece; `holdAfter` is how many more bytes go out before the rest waits for
        /// ``TestHTTPServer/release(_:)``.
        private func writeBody(
            context: ChannelHandlerContext, body: ByteBuffer, pieceSize: Int?, pause: Duration?, holdAfter: Int?,
            closeAtEnd: Bool, closeAfterEnd: Bool
        ) {
            guard context.channel.isActive else { return }
            var body = body
            var size = max(1, pieceSize ?? body.readableBytes)
            if let holdAfter { size = min(size, max(0, holdAfter)) }
            if size > 0, body.readableBytes > 0, let piece = body.readSlice(length: min(size, body.readableBytes)) {
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(piece))), promise: nil)
            }
            guard body.readableBytes == 0 else {
                let left = holdAfter.map { $0 - size }
                let next = {
                    self.writeBody(
                        context: context, body: body, pieceSize: pieceSize, pause: pause,
                        holdAfter: left.flatMap { $0 > 0 ? $0 : nil }, closeAtEnd: closeAtEnd,
                        closeAfterEnd: closeAfterEnd)
                }
                if let left, left <= 0 {
                    let bound = NIOLoopBound(next, eventLoop: context.eventLoop)
                    let loop = context.eventLoop
                    server.hold(path: path) { loop.execute { bound.value() } }
                } else if let pause {
                    context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(pause)) { next() }
                } else {
                    context.eventLoop.assumeIsolated().execute { next() }
                }
                return
            }
            if closeAtEnd {
                context.flush()
                finishResponse()
                context.close(promise: nil)
                return
            }
            let close = !self.keepAlive || closeAfterEnd
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                self.finishResponse()
                if close { context.close(promise: nil) }
            }
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
