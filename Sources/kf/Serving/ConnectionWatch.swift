import KfCommandKit
import NIOCore

/// The first handler of a connection: registers it with the ``ConnectionRegistry`` (which may refuse it, or close
/// idle ones to make room), marks it busy from a request's first byte to the end of its response, and closes it
/// when a request's head has not arrived whole within the header timeout, however steadily its bytes trickle in
/// (an idle timeout never fires on a client that sends a byte a second); tells the connection's
/// ``ClientDeparture`` when its client has gone.
final class ConnectionWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let registry: ConnectionRegistry
    private let headerTimeout: TimeAmount
    private let departure: ClientDeparture
    private var ticket: ConnectionRegistry.Ticket?
    /// Between a request's first byte and the end of its response.
    private var busy = false
    /// Between a request's first byte and its whole head.
    private var headPending = false
    /// Whether the registry refused this connection: it gets a 503 and nothing it sends is read.
    private var refused = false
    /// How long a refused connection's late bytes are read and dropped before it is closed.
    private static let refusalDrain: TimeAmount = .seconds(2)
    private var headDeadline: Scheduled<Void>?

    init(registry: ConnectionRegistry, headerTimeout: TimeAmount, departure: ClientDeparture) {
        self.registry = registry
        self.headerTimeout = headerTimeout
        self.departure = departure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if ticket == nil { admit(context) }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection's request is read and dropped while its 503 goes out (see `admit`).
        if refused { return }
        let starts = !busy
        if starts {
            busy = true
            headPending = true
            if let ticket { registry.markBusy(ticket) }
        }
        // The decoder behind reads the bytes now: a head that came whole in them is received before this returns.
        context.fireChannelRead(data)
        if starts, headPending, headDeadline == nil {
            // Only a head split over reads needs its deadline (the usual request never schedules one).
            let channel = context.channel
            headDeadline = context.eventLoop.scheduleTask(in: headerTimeout) { channel.close(promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        leave()
        departure.depart()
        context.fireChannelInactive()
    }

    /// The client closed its side: it has given up on whatever it asked (a request still being answered is
    /// cancelled), as nginx takes a client's end of input.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { departure.depart() }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leave()
    }

    /// The request's head arrived whole: its deadline no longer applies (the idle timeout covers the body). A
    /// pipelined request's bytes came while the previous one was answered: it is busy from here.
    func headReceived() {
        headPending = false
        headDeadline?.cancel()
        headDeadline = nil
        if !busy {
            busy = true
            if let ticket { registry.markBusy(ticket) }
        }
    }

    /// The response ended: the connection waits for its next request, and may be closed to make room.
    func responseEnded() {
        headPending = false
        headDeadline?.cancel()
        headDeadline = nil
        busy = false
        if let ticket { registry.markWaiting(ticket) }
    }

    private func admit(_ context: ChannelHandlerContext) {
        switch registry.admit(context.channel) {
        case .admitted(let ticket):
            self.ticket = ticket
        case .refused:
            // Every open connection is busy: say so plainly, then close. Closing at once while the client's request
            // is unread would reset the connection, and the client could lose the answer before reading it: the
            // write side is shut after the answer, what the client still sends is dropped, and the connection
            // closes when the client closes its side, or after a short drain.
            refused = true
            let answer =
                "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n"
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: answer))).whenComplete {
                _ in
                let shut = channel.eventLoop.makePromise(of: Void.self)
                shut.futureResult.whenFailure { _ in channel.close(promise: nil) }
                channel.close(mode: .output, promise: shut)
                channel.eventLoop.scheduleTask(in: Self.refusalDrain) { channel.close(promise: nil) }
            }
        }
    }

    private func leave() {
        headDeadline?.cancel()
        headDeadline = nil
        if let ticket { registry.remove(ticket) }
        ticket = nil
    }
}
