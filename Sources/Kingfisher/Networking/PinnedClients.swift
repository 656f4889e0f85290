import AsyncHTTPClient
import Foundation
import KingfisherLocking
import NIOPosix

/// HTTP clients that connect one host name to one given address (AsyncHTTPClient pins an address per client, with
/// `dnsOverride`), each kept while a download holds it and a while after, so that downloads from one origin share
/// its connections. Beyond ``idleLimit`` clients, the least recently used ones nobody holds are shut down.
final class PinnedClients: Sendable {
    struct Key: Hashable {
        let host: String
        let address: String
        /// Whether the client's connections carry one request each (the resend after a closed connection).
        let freshConnections: Bool
    }

    /// A client handed out, to give back with ``release(_:)`` once its response has been read.
    struct Lease: Sendable {
        let key: Key
        let client: HTTPClient
    }

    private struct Entry {
        let client: HTTPClient
        var holders = 0
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var uses: UInt64 = 0
        var isShutDown = false
    }

    private let configuration: HTTPClient.Configuration
    private let idleLimit: Int
    private let state = Locked(State())

    init(configuration: HTTPClient.Configuration, idleLimit: Int = 16) {
        self.configuration = configuration
        self.idleLimit = idleLimit
    }

    /// The client for `key`, made on first use. Throws AsyncHTTPClient's `alreadyShutdown` after ``shutdown()``.
    func lease(_ key: Key) throws -> Lease {
        let client = try state.withLock { state -> HTTPClient in
            guard !state.isShutDown else { throw HTTPClientError.alreadyShutdown }
            state.uses += 1
            if var entry = state.entries[key] {
                entry.holders += 1
                entry.lastUse = state.uses
                state.entries[key] = entry
                return entry.client
            }
            var configuration = configuration
            configuration.dnsOverride = [key.host: key.address]
            if key.freshConnections { configuration.maximumUsesPerConnection = 1 }
            let client = HTTPClient(
                eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
            state.entries[key] = Entry(client: client, holders: 1, lastUse: state.uses)
            return client
        }
        return Lease(key: key, client: client)
    }

    /// Gives `lease` back; shuts down the least recently used clients nobody holds beyond ``idleLimit``.
    func release(_ lease: Lease) {
        let retired = state.withLock { state -> [HTTPClient] in
            state.entries[lease.key]?.holders -= 1
            guard state.entries.count > idleLimit else { return [] }
            let idle = state.entries.filter { $0.value.holders == 0 }.sorted { $0.value.lastUse < $1.value.lastUse }
            return idle.prefix(state.entries.count - idleLimit).map { key, entry in
                state.entries[key] = nil
                return entry.client
            }
        }
        for client in retired { client.shutdown { _ in } }
    }

    /// Shuts every client down; later leases fail.
    func shutdown() async {
        for client in takeAll() { try? await client.shutdown() }
    }

    /// Shuts every client down without waiting, for a downloader being released.
    func shutdownWithoutWaiting() {
        for client in takeAll() { client.shutdown { _ in } }
    }

    /// Every client, forgotten; later leases fail.
    private func takeAll() -> [HTTPClient] {
        state.withLock { state in
            state.isShutDown = true
            defer { state.entries = [:] }
            return state.entries.values.map(\.client)
        }
    }
}
