import Foundation
import Kingfisher
import Testing

@testable import KingfisherServer

@Suite struct SourceGuardTests {
    private func refusal(_ url: String, allowing allowed: [ImageServer.AllowedSource] = []) async -> ImageServerError? {
        do {
            try await SourceGuard(allowedSources: allowed).check(URL(string: url)!)
            return nil
        } catch {
            return error
        }
    }

    @Test func addressesOtherThanPublicOnesAreRefusedAfterResolution() async {
        #expect(await refusal("http://127.0.0.1/a.jpg") == .forbiddenAddress(.loopback))
        #expect(await refusal("http://localhost:8080/a.jpg") == .forbiddenAddress(.loopback))
        #expect(await refusal("http://[::1]/a.jpg") == .forbiddenAddress(.loopback))
        #expect(await refusal("http://10.1.2.3/a.jpg") == .forbiddenAddress(.private))
        #expect(await refusal("http://172.20.0.1/a.jpg") == .forbiddenAddress(.private))
        #expect(await refusal("http://192.168.1.1/a.jpg") == .forbiddenAddress(.private))
        #expect(await refusal("http://100.64.0.1/a.jpg") == .forbiddenAddress(.private))
        #expect(await refusal("http://169.254.169.254/latest/meta-data") == .forbiddenAddress(.linkLocal))
        #expect(await refusal("http://224.0.0.1/a.jpg") == .forbiddenAddress(.multicast))
        #expect(await refusal("http://0.0.0.0/a.jpg") == .forbiddenAddress(.unspecified))
        #expect(await refusal("http://[::ffff:127.0.0.1]/a.jpg") == .forbiddenAddress(.loopback))
        #expect(await refusal("http://[fe80::1]/a.jpg") == .forbiddenAddress(.linkLocal))
        #expect(await refusal("http://[fd00::1]/a.jpg") == .forbiddenAddress(.private))
        #expect(await refusal("http://2130706433/a.jpg") == .forbiddenAddress(.loopback))  // 127.0.0.1 as a number
        #expect(await refusal("http://[2002:7f00:1::1]/a.jpg") == .forbiddenAddress(.loopback))  // 6to4 of 127.0.0.1
        #expect(await refusal("http://[64:ff9b::a00:1]/a.jpg") == .forbiddenAddress(.private))  // NAT64 of 10.0.0.1
        #expect(await refusal("http://[64:ff9b:1::1]/a.jpg") == .forbiddenAddress(.private))
        #expect(await refusal("http://[::ffff:0:a9fe:a9fe]/a.jpg") == .forbiddenAddress(.linkLocal))
        #expect(await refusal("http://[2001::1]/a.jpg") == .forbiddenAddress(.private))  // Teredo
        #expect(await refusal("ftp://example.com/a.jpg") == .unsupportedScheme)
        #expect(await refusal("http://name.invalid/a.jpg") == .unresolvableHost)
        // Public addresses pass (literals: no DNS needed).
        #expect(await refusal("http://93.184.215.14/a.jpg") == nil)
        #expect(await refusal("http://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/a.jpg") == nil)
    }

    @Test func anAllowListIsTheOnlyWayInAndShutsOutEverythingElse() async {
        let allowed = [ImageServer.AllowedSource("127.0.0.1:8080")!, ImageServer.AllowedSource("images.example")!]
        #expect(await refusal("http://127.0.0.1:8080/a.jpg", allowing: allowed) == nil)
        #expect(await refusal("http://127.0.0.1:8081/a.jpg", allowing: allowed) == .sourceNotAllowed)
        #expect(await refusal("https://IMAGES.example/a.jpg", allowing: allowed) == nil)
        #expect(await refusal("http://93.184.215.14/a.jpg", allowing: allowed) == .sourceNotAllowed)
        #expect(ImageServer.AllowedSource("[::1]:80") == ImageServer.AllowedSource(host: "::1", port: 80))
        #expect(ImageServer.AllowedSource("host:99999") == nil)
        #expect(ImageServer.AllowedSource("a/b") == nil)
    }
}
