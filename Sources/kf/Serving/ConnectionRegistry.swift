import KingfisherLocking
import NIOCore

/// The server's open connections, bounded: at the limit, a new connection closes the one that has waited longest
/// for a request (an idle keep-alive, or one that never sent anything), as nginx reuses its idle connections; only
/// when every open connection is in the middle of a request is the new one refused. So a flood of idle
/// connections cannot take the descriptors a real request needs, and `/healthz` keeps answering through it.
final class ConnectionRegistry: Sendable {
    /// A registered connection.
    struct Ticket: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    enum Admission {
        case admitted(Ticket)
        case refused
    }

    private struct Entry {
        let channel: any Channel
        /// When it began to wait for a request (an increasing count); `nil` while it is in one.
        var waitingSince: UInt64?
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var counter: UInt64 = 0
        var evicted = 0
        var refused = 0
    }

    /// The most connections open at once.
    let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Registers `channel`, closing the longest-waiting connection first when the limit is reached.
    func admit(_ channel: any Channel) -> Admission {
        let (admission, evicted) = state.withLock { state -> (Admission, (any Channel)?) in
            var evicted: (any Channel)?
            if state.entries.count >= limit {
                let oldest = state.entries.compactMap { id, entry in entry.waitingSince.map { (id, $0) } }
                    .min { $0.1 < $1.1 }
                guard let oldest else {
                    state.refused += 1
                    return (.refused, nil)
                }
                evicted = state.entries.removeValue(forKey: oldest.0)?.channel
                state.evicted += 1
            }
            state.counter += 1
            state.entries[state.counter] = Entry(channel: channel, waitingSince: state.counter)
            return (.admitted(Ticket(id: state.counter)), evicted)
        }
        evicted?.close(promise: nil)
        return admission
    }

    func markBusy(_ ticket: Ticket) {
        state.withLock { $0.entries[ticket.id]?.waitingSince = nil }
    }

    func markWaiting(_ ticket: Ticket) {
        state.withLock { state in
            state.counter += 1
            state.entries[ticket.id]?.waitingSince = state.counter
        }
    }

    func remove(_ ticket: Ticket) {
        _ = state.withLock { $0.entries.removeValue(forKey: ticket.id) }
    }

    /// Connections open now, closed to make room so far, and refused so far.
    var counts: (open: Int, evicted: Int, refused: Int) {
        state.withLock { ($0.entries.count, $0.evicted, $0.refused) }
    }
}
