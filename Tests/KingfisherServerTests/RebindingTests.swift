import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import KingfisherServer

/// DNS rebinding against the source guard. A real DNS server that changes its answer cannot run on loopback
/// alone, so these tests replace the guard's resolver (the fake: answers per name, one after another) and let
/// `127.0.0.2` count as a public address; the origins, the server and the downloads are real. `localhost` is the
/// name: the system resolver (which the HTTP client would use on its own) answers it with loopback.
@Suite struct RebindingTests {
    /// A resolver whose answer for a name changes from one call to the next (the last one repeats).
    private final class ChangingResolver: Sendable {
        private let answers: [String: [[ResolvedAddress]]]
        private let calls = Locked([String: Int]())

        init(_ answers: [String: [[UInt8]]]) {
            self.answers = answers.mapValues { $0.map { [ResolvedAddress(bytes: $0)] } }
        }

        func callCount(_ name: String) -> Int { calls.withLock { $0[name, default: 0] } }

        func resolve(_ name: String) -> [ResolvedAddress] {
            if let literal = Self.literal(name) { return [literal] }
            let index = calls.withLock { calls in
                defer { calls[name, default: 0] += 1 }
                return calls[name, default: 0]
            }
            guard let list = answers[name], !list.isEmpty else { return [] }
            return list[min(index, list.count - 1)]
        }

        private static func literal(_ name: String) -> ResolvedAddress? {
            let parts = name.split(separator: ".").compactMap { UInt8($0) }
            return parts.count == 4 ? ResolvedAddress(bytes: parts) : nil
        }
    }

    private static let publicForTheTest: [UInt8] = [127, 0, 0, 2]
    private static let loopback: [UInt8] = [127, 0, 0, 1]
    private static let photo = ServerFixtures.jpeg(width: 320, height: 160)

    /// The harness (its origin on 127.0.0.1 plays the internal service) with a guard over `resolver`, and an
    /// origin on 127.0.0.2 at the same port playing the public host.
    private func withOrigins(
        _ resolver: ChangingResolver, vettedLifetime: TimeInterval,
        _ body: (ServerHarness, TestHTTPServer) async throws -> Void
    ) async throws {
        let harness = try await ServerHarness.start(
            allowOrigin: false,
            sourceGuard: { configuration in
                SourceGuard(
                    allowedSources: configuration.allowedSources, vettedLifetime: vettedLifetime,
                    resolver: { name, _ in resolver.resolve(name) },
                    classify: { $0.bytes == Self.publicForTheTest ? .public : $0.addressClass })
            })
        let publicOrigin = try await TestHTTPServer.start(host: "127.0.0.2", port: harness.origin.port)
        for origin in [harness.origin, publicOrigin] {
            origin.route("/a.jpg", .ok(Self.photo, contentType: "image/jpeg"))
            origin.route("/hop", .redirect(to: "http://localhost:\(harness.origin.port)/a.jpg"))
        }
        do {
            try await body(harness, publicOrigin)
        } catch {
            try? await publicOrigin.shutdown()
            await harness.stop()
            throw error
        }
        try await publicOrigin.shutdown()
        await harness.stop()
    }

    @Test func aNameThatTurnsToLoopbackAfterTheCheckIsFetchedFromTheAddressChecked() async throws {
        let resolver = ChangingResolver(["localhost": [Self.publicForTheTest, Self.loopback]])
        // Vetted for far longer than the check and the connection can be apart, even on a busy machine (with 10 s,
        // the vetted answer once expired between them beside two busy processes).
        try await withOrigins(resolver, vettedLifetime: 600) { harness, publicOrigin in
            let answer = try await harness.request("/unsafe/100x50/localhost:\(harness.origin.port)/a.jpg")
            #expect(answer.status == 200)
            #expect(publicOrigin.hits("/a.jpg") == 1)
            #expect(harness.origin.totalHits == 0)
            let host = publicOrigin.lastRequestHeaders("/a.jpg")?.first { $0.0.lowercased() == "host" }?.1
            #expect(host == "localhost:\(harness.origin.port)")
        }
    }

    @Test func aSecondAnswerThatIsLoopbackRefusesTheConnection() async throws {
        // Nothing vetted is reused: the check and the connection each ask, and get different answers.
        let resolver = ChangingResolver(["localhost": [Self.publicForTheTest, Self.loopback]])
        try await withOrigins(resolver, vettedLifetime: 0) { harness, publicOrigin in
            let answer = try await harness.request("/unsafe/100x50/localhost:\(harness.origin.port)/a.jpg")
            #expect(answer.status == 403)
            #expect(answer.text == "the image's source is not allowed\n")
            #expect(resolver.callCount("localhost") == 2)
            #expect(harness.origin.totalHits == 0)
            #expect(publicOrigin.totalHits == 0)
        }
    }

    @Test func aRedirectHopIsConnectedWhereItWasChecked() async throws {
        let resolver = ChangingResolver(["localhost": [Self.publicForTheTest, Self.loopback]])
        try await withOrigins(resolver, vettedLifetime: 0) { harness, publicOrigin in
            // 127.0.0.2/hop redirects to localhost: checked public by the redirect handler, loopback at connect.
            let answer = try await harness.request("/unsafe/100x50/127.0.0.2:\(harness.origin.port)/hop")
            #expect(answer.status == 403)
            #expect(publicOrigin.hits("/hop") == 1 && publicOrigin.hits("/a.jpg") == 0)
            #expect(harness.origin.totalHits == 0)
        }
        let steady = ChangingResolver(["localhost": [Self.publicForTheTest]])
        try await withOrigins(steady, vettedLifetime: 0) { harness, publicOrigin in
            let answer = try await harness.request("/unsafe/100x50/127.0.0.2:\(harness.origin.port)/hop")
            #expect(answer.status == 200)
            #expect(publicOrigin.hits("/hop") == 1 && publicOrigin.hits("/a.jpg") == 1)
            #expect(harness.origin.totalHits == 0)
        }
    }
}
