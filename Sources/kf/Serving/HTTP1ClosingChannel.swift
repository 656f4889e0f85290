import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel, which closes a connection after its response when the request did not ask to keep
/// it (HTTP/1.0 without `Connection: keep-alive`, or `Connection: close`): Hummingbird closes only on the latter,
/// and an HTTP/1.0 client that waits for the end of the connection would wait for the idle timeout.
struct HTTP1ClosingChannel: HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel

    var responder: Responder { inner.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Right after the request decoder, where the request's HTTP version is still known.
            let decoder = try channel.pipeline.syncOperations.handler(
                type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(KeepAliveMarker(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// ``HTTP1ClosingChannel`` over Hummingbird's HTTP/1 channel with `configuration`.
    static func http1ClosingWhenAsked(configuration: HTTP1Channel.Configuration) -> HTTPServerBuilder {
        .init { responder in
            HTTP1ClosingChannel(inner: HTTP1Channel(responder: responder, configuration: configuration))
        }
    }
}

/// Marks a request that does not keep its connection with `Connection: close`, the header Hummingbird closes on,
/// and says so in the response too.
private final class KeepAliveMarker: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Whether the request being answered ends its connection (requests are answered one at a time).
    private var closing = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        closing = !head.isKeepAlive
        if closing { head.headers.replaceOrAdd(name: "connection", value: "close") }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard closing, case .head(var head) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
