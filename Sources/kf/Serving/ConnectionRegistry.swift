import KfCommandKit
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
        /// Connections in the order they began to wait, oldest first; an entry whose connection has since become
        /// busy, waited again or closed is stale and skipped (its `waitingSince` no longer matches).
        var waitingOrder: [(id: UInt64, since: UInt64)] = []
        var waitingHead = 0
        var counter: UInt64 = 0

        mutating func noteWaiting(_ id: UInt64) {
            counter += 1
            entries[id]?.waitingSince = counter
            waitingOrder.append((id, counter))
            if waitingOrder.count - waitingHead > 2 * entries.count + 1024 {
                // Mostly stale (connections answered many times, or closed): keep the live entries only.
                waitingOrder = waitingOrder[waitingHead...].filter { entries[$0.id]?.waitingSince == $0.since }
                waitingHead = 0
            }
        }

        /// Removes and returns the connection that has waited longest; `nil` when every one is busy.
        mutating func takeOldestWaiting() -> (any Channel)? {
            defer {
                if waitingHead > 1024, waitingHead * 2 > waitingOrder.count {
                    waitingOrder.removeFirst(waitingHead)
                    waitingHead = 0
                }
            }
            while waitingHead < waitingOrder.count {
                let (id, since) = waitingOrder[waitingHead]
                waitingHead += 1
                if let entry = entries[id], entry.waitingSince == since {
                    entries[id] = nil
                    return entry.channel
                }
            }
            return nil
        }
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
                guard let oldest = state.takeOldestWaiting() else { return (.refused, nil) }
                evicted = oldest
            }
            state.counter += 1
            let id = state.counter
            state.entries[id] = Entry(channel: channel, waitingSince: nil)
            state.noteWaiting(id)
            return (.admitted(Ticket(id: id)), evicted)
        }
        evicted?.close(promise: nil)
        return admission
    }

    func markBusy(_ ticket: Ticket) {
        state.withLock { $0.entries[ticket.id]?.waitingSince = nil }
    }

    func markWaiting(_ ticket: Ticket) {
        state.withLock { state in
            guard state.entries[ticket.id] != nil else { return }
            state.noteWaiting(ticket.id)
        }
    }

    func remove(_ ticket: Ticket) {
        _ = state.withLock { $0.entries.removeValue(forKey: ticket.id) }
    }
}
