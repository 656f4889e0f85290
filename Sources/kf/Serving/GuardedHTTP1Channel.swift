import HummingbirdCore
import KfCommandKit
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 channel with the guards a server facing any client needs, on top of its idle timeout:
/// a bound on open connections (``ConnectionRegistry``), a deadline for a request's head however slowly its bytes
/// come (``ConnectionWatch``), and a connection closed after the response when its request did not keep it
/// (``KeepAliveMarker``); a request whose client has gone (``ClientDeparture``) is cancelled.
struct GuardedHTTP1Channel: HTTPChannelHandler {
    /// Hummingbird's connection, and how its client's leaving is told.
    struct Value: ServerChildChannelValue {
        let inner: HTTP1Channel.Value
        let departure: ClientDeparture

        var channel: any Channel { inner.channel }
    }

    let inner: HTTP1Channel
    let registry: ConnectionRegistry
    let headerTimeout: TimeAmount

    var responder: Responder { inner.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let departure = ClientDeparture()
            let watch = ConnectionWatch(registry: registry, headerTimeout: headerTimeout, departure: departure)
            try channel.pipeline.syncOperations.addHandler(watch, position: .first)
            // Right after the request decoder, where the request's HTTP version is still known.
            let decoder = try channel.pipeline.syncOperations.handler(
                type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(KeepAliveMarker(watch: watch), position: .after(decoder))
            return Value(inner: value, departure: departure)
        }
    }

    /// Hummingbird's handling of the connection, cancelled when its client goes: Hummingbird itself lets a request
    /// run to its end after its client closed the connection, and the work for it with it.
    func handle(value: Value, logger: Logger) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await inner.handle(value: value.inner, logger: logger) }
            group.addTask { await value.departure.wait() }
            // Either the connection's handling ended (the waiter is then cancelled) or its client went first.
            _ = await group.next()
            group.cancelAll()
        }
    }
}

extension HTTPServerBuilder {
    /// ``GuardedHTTP1Channel`` over Hummingbird's HTTP/1 channel with `configuration`.
    static func guardedHTTP1(
        configuration: HTTP1Channel.Configuration, registry: ConnectionRegistry, headerTimeout: TimeAmount
    ) -> HTTPServerBuilder {
        .init { responder in
            GuardedHTTP1Channel(
                inner: HTTP1Channel(responder: responder, configuration: configuration), registry: registry,
                headerTimeout: headerTimeout)
        }
    }
}
