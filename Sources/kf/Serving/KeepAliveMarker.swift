import KfCommandKit
import NIOCore
import NIOHTTP1

/// Marks a request that does not keep its connection (HTTP/1.0 without `Connection: keep-alive`, or
/// `Connection: close`) with `Connection: close`, the header Hummingbird closes on, and says so in the response;
/// tells the connection's ``ConnectionWatch`` when a request's head is complete and when its response has ended.
final class KeepAliveMarker: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let watch: ConnectionWatch
    /// Whether the request being answered ends its connection (requests are answered one at a time).
    private var closing = false

    init(watch: ConnectionWatch) {
        self.watch = watch
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        watch.headReceived()
        closing = !head.isKeepAlive
        if closing { head.headers.replaceOrAdd(name: "connection", value: "close") }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where closing:
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            context.write(data, promise: promise)
            watch.responseEnded()
        default:
            context.write(data, promise: promise)
        }
    }
}
