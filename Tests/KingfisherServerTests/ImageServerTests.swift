import AsyncHTTPClient
import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import NIOHTTP1
import Testing

@testable import KingfisherServer

/// The server end to end: a real Hummingbird server, a real loopback origin, real libvips.
@Suite struct ImageServerTests {
    private static let photo = ServerFixtures.jpeg(width: 640, height: 320)

    /// The photo as an origin that allows caching for an hour sends it.
    private static let cacheable = TestHTTPServer.Route(
        headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=3600"), ("ETag", "\"v1\"")], body: photo)

    /// A change to the server's configuration, named so the test body can follow as the trailing closure.
    private static func settings(
        _ change: @escaping (inout ImageServer.Configuration) -> Void
    ) -> (inout ImageServer.Configuration) -> Void {
        change
    }

    @Test func aSignedURLGivesTheImageWithItsHeaders() async throws {
        try await withHarness { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            let answer = try await harness.request(harness.signed("fit-in/160x160/" + harness.originImage("/a.jpg")))
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "image/jpeg")
            #expect(answer.header("Content-Length") == String(answer.body.count))
            #expect(answer.header("Cache-Control") == "public, max-age=86400")
            #expect(answer.header("Vary") == nil)
            let etag = try #require(answer.header("ETag"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
            let image = try KFCrossPlatformImage(decoding: answer.body)
            #expect(image.pixelWidth == 160 && image.pixelHeight == 80)
        }
    }

    @Test func tamperedMissingAndUnsafeSignaturesAre403() async throws {
        try await withHarness(Self.settings { $0.allowsUnsafeURLs = false }) { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            let good = harness.signed("300x200/" + harness.originImage("/a.jpg"))
            #expect(try await harness.request(good).status == 200)
            let tampered = good.replacingOccurrences(of: "300x200", with: "300x201")
            let answer = try await harness.request(tampered)
            #expect(answer.status == 403)
            #expect(answer.text.contains("signature"))
            #expect(try await harness.request("/300x200/" + harness.originImage("/a.jpg")).status == 403)
            #expect(try await harness.request(harness.unsafe("300x200", "/a.jpg")).status == 403)
            #expect(harness.origin.hits("/a.jpg") == 1)
        }
    }

    @Test func malformedURLsAndFiltersAre400WithTheReason() async throws {
        try await withHarness { harness in
            let unknown = try await harness.request(harness.unsafe("filters:sepia(50)", "/a.jpg"))
            #expect(unknown.status == 400)
            #expect(unknown.text == "bad URL: unknown filter \"sepia\"\n")
            let badArgument = try await harness.request(harness.unsafe("filters:quality(900)", "/a.jpg"))
            #expect(badArgument.status == 400 && badArgument.text.contains("quality"))
            #expect(try await harness.request("/unsafe/").status == 400)
            #expect(try await harness.request(harness.unsafe("filters:quality(80", "/a.jpg")).status == 400)
            #expect(harness.origin.totalHits == 0)
        }
    }

    @Test func anETagIsAnsweredWith304AndHEADHasNoBody() async throws {
        try await withHarness(Self.settings { $0.maxAge = 600 }) { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            let path = harness.unsafe("200x100", "/a.jpg")
            let first = try await harness.request(path)
            let etag = try #require(first.header("ETag"))
            #expect(first.header("Cache-Control") == "public, max-age=600")
            let again = try await harness.request(path, headers: [("If-None-Match", etag)])
            #expect(again.status == 304 && again.body.isEmpty)
            #expect(again.header("ETag") == etag && again.header("Cache-Control") == "public, max-age=600")
            #expect(again.header("Content-Length") == nil)
            let other = try await harness.request(path, headers: [("If-None-Match", "\"something-else\"")])
            #expect(other.status == 200 && other.body == first.body)
            let head = try await harness.request(path, method: .HEAD)
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Length") == String(first.body.count))
            #expect(head.header("Content-Type") == "image/jpeg" && head.header("ETag") == etag)
            #expect(harness.origin.hits("/a.jpg") == 1)
        }
    }

    @Test func formatsAreNegotiatedOnlyWhenAskedAndThenVaryByAccept() async throws {
        try await withHarness(Self.settings { $0.autoWebP = true }) { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            let path = harness.unsafe("200x100", "/a.jpg")
            let webp = try await harness.request(path, headers: [("Accept", "image/webp,image/*;q=0.8")])
            #expect(webp.header("Content-Type") == "image/webp" && webp.header("Vary") == "Accept")
            #expect(ImageFormat(sniffing: webp.body) == .WebP)
            let plain = try await harness.request(path, headers: [("Accept", "image/*")])
            #expect(plain.header("Content-Type") == "image/jpeg" && plain.header("Vary") == "Accept")
            #expect(plain.header("ETag") != webp.header("ETag"))
            let refused = try await harness.request(path, headers: [("Accept", "image/webp;q=0")])
            #expect(refused.header("Content-Type") == "image/jpeg")
            // A URL that names its format does not depend on Accept.
            let png = try await harness.request(
                harness.unsafe("200x100/filters:format(png)", "/a.jpg"), headers: [("Accept", "image/webp")])
            #expect(png.header("Content-Type") == "image/png" && png.header("Vary") == nil)
            #expect(harness.origin.hits("/a.jpg") == 1)
        }
    }

    @Test func formatHeifWritesHEIFWhereLibheifCanAndIsRefusedWhereItCannot() async throws {
        try await withHarness { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            let heif = try await harness.request(harness.unsafe("200x100/filters:format(heif)", "/a.jpg"))
            if ImageEngine.canEncode(.HEIF) {
                #expect(heif.status == 200 && heif.header("Content-Type") == "image/heif")
                #expect(ImageFormat(sniffing: heif.body) == .HEIF)
                let decoded = try #require(KFCrossPlatformImage(data: heif.body))
                #expect(decoded.pixelWidth == 200 && decoded.pixelHeight == 100)
            } else {
                #expect(heif.status == 400)
            }
        }
    }

    @Test func metaDescribesTheOperationsAsThumborsJSON() async throws {
        try await withHarness { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            let answer = try await harness.request(harness.unsafe("meta/300x200/filters:quality(80)", "/a.jpg"))
            #expect(answer.status == 200 && answer.header("Content-Type") == "application/json")
            let json = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
            let thumbor = try #require(json["thumbor"] as? [String: Any])
            let source = try #require(thumbor["source"] as? [String: Any])
            #expect(source["width"] as? Int == 640 && source["height"] as? Int == 320)
            #expect(source["frameCount"] as? Int == 1)
            // 640 × 320 to 300 × 200: cropped to 480 × 320 around the middle, then resized.
            let operations = try #require(thumbor["operations"] as? [[String: Any]])
            #expect(operations.map { $0["type"] as? String } == ["crop", "resize"])
            #expect(operations[0]["left"] as? Int == 80 && operations[0]["right"] as? Int == 560)
            let target = try #require(thumbor["target"] as? [String: Any])
            #expect(target["width"] as? Int == 300 && target["height"] as? Int == 200)
            // The image URL itself was made along the way: one origin fetch for both.
            let image = try await harness.request(harness.unsafe("300x200/filters:quality(80)", "/a.jpg"))
            #expect(image.status == 200 && image.header("Content-Type") == "image/jpeg")
            #expect(harness.origin.hits("/a.jpg") == 1)
        }
    }

    @Test func aWatermarkIsFetchedAsASourceIsAndCachedForTheNextResult() async throws {
        try await withHarness { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            let mark = ServerFixtures.png(width: 40, height: 20)
            harness.origin.route(
                "/mark.png",
                TestHTTPServer.Route(
                    headers: [("Content-Type", "image/png"), ("Cache-Control", "max-age=3600")], body: mark))
            let markURL = harness.originImage("/mark.png")
            let first = try await harness.request(
                harness.unsafe("200x100/filters:watermark(\(markURL),10,10,0)", "/a.jpg"))
            #expect(first.status == 200 && first.header("Content-Type") == "image/jpeg")
            let second = try await harness.request(
                harness.unsafe("200x100/filters:watermark(\(markURL),-10,-10,50)", "/a.jpg"))
            #expect(second.status == 200 && second.body != first.body)
            #expect(harness.origin.hits("/mark.png") == 1 && harness.origin.hits("/a.jpg") == 1)
            // A watermark the guard refuses refuses the result.
            let refused = try await harness.request(
                harness.unsafe("200x100/filters:watermark(10.0.0.1/m.png,0,0,0)", "/a.jpg"))
            #expect(refused.status == 403)
        }
    }

    @Test func aResultOfAnOriginalHeldOnlyInMemoryKeepsItsFormatWithoutReadingAFile() async throws {
        try await withHarness { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            harness.origin.route("/mark.jpg", Self.cacheable)
            let markURL = harness.originImage("/mark.jpg")
            // Given a JPEG fetched as a watermark: its original is in memory under its plain key
            let watermarked = try await harness.request(
                harness.unsafe("200x100/filters:watermark(\(markURL),10,10,0)", "/a.jpg"))
            #expect(watermarked.status == 200)
            // and no file of it left on disk
            let files = try FileManager.default.contentsOfDirectory(
                at: harness.cacheDirectory, includingPropertiesForKeys: nil)
            for file in files { try FileManager.default.removeItem(at: file) }
            // When a result of that JPEG itself is asked for, made from the original in memory
            let result = try await harness.request(harness.unsafe("20x10", "/mark.jpg"))
            // Then it is a JPEG, as its source, and the origin was not asked again
            #expect(result.status == 200)
            #expect(result.header("Content-Type") == "image/jpeg")
            #expect(result.body.prefix(3) == Data([0xFF, 0xD8, 0xFF]))
            #expect(harness.origin.hits("/mark.jpg") == 1)
        }
    }

    @Test func staleResultsAreRevalidatedWithTheOrigin() async throws {
        try await withHarness { harness in
            let conditional = Locked(0)
            harness.origin.route("/a.jpg") { headers in
                let tag = headers.first { $0.0.lowercased() == "if-none-match" }?.1
                if tag == "\"v1\"" {
                    conditional.withLock { $0 += 1 }
                    return TestHTTPServer.Route(
                        status: 304, headers: [("Cache-Control", "max-age=0"), ("ETag", "\"v1\"")])
                }
                return TestHTTPServer.Route(
                    headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=0"), ("ETag", "\"v1\"")],
                    body: Self.photo)
            }
            let path = harness.unsafe("200x100", "/a.jpg")
            let first = try await harness.request(path)
            let second = try await harness.request(path)
            let third = try await harness.request(path)
            #expect(first.status == 200 && second.status == 200 && third.status == 200)
            #expect(second.body == first.body && third.header("ETag") == first.header("ETag"))
            // Stale at once (max-age=0): every later request asks the origin, which answers 304.
            #expect(harness.origin.hits("/a.jpg") == 3)
            #expect(conditional.withLock { $0 } == 2)
            #expect(harness.server.resultsMade == 3)
        }
    }

    @Test func avifIsPreferredWhenBothAreNegotiatedAndAccepted() async throws {
        try await withHarness(
            Self.settings {
                $0.autoWebP = true
                $0.autoAVIF = true
            }
        ) { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            let path = harness.unsafe("200x100", "/a.jpg")
            let both = try await harness.request(path, headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(both.header("Content-Type") == "image/avif" && both.header("Vary") == "Accept")
            #expect(ImageFormat(sniffing: both.body) == .AVIF)
            let webp = try await harness.request(path, headers: [("Accept", "image/webp")])
            #expect(webp.header("Content-Type") == "image/webp")
        }
    }

    @Test func anOrigin404IsA404AndOtherFailuresAre502() async throws {
        try await withHarness { harness in
            harness.origin.route("/gone.jpg", .status(404))
            harness.origin.route("/broken.jpg", .status(500))
            harness.origin.route("/text.jpg", .ok(Data("not an image".utf8), contentType: "image/jpeg"))
            #expect(try await harness.request(harness.unsafe("100x100", "/gone.jpg")).status == 404)
            #expect(try await harness.request(harness.unsafe("100x100", "/broken.jpg")).status == 502)
            let text = try await harness.request(harness.unsafe("100x100", "/text.jpg"))
            #expect(text.status == 400 && text.text.contains("not an image"))
        }
    }

    @Test func aResultAboveThePixelLimitIs400() async throws {
        try await withHarness(Self.settings { $0.maximumResultPixels = 4_000_000 }) { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            // A box that is the result's size: refused before anything is fetched.
            let box = try await harness.request(harness.unsafe("3000x3000", "/a.jpg"))
            #expect(box.status == 400 && box.text.contains("3000 x 3000"))
            #expect(harness.origin.totalHits == 0)
            // One side, enlarged in crop mode: refused once the source's shape is known, before any pixel of it.
            let side = try await harness.request(harness.unsafe("8000x0", "/a.jpg"))
            #expect(side.status == 400 && side.text.contains("8000 x 4000 pixels"))
        }
    }

    @Test func aSourceKeptAtASizeAboveTheResultLimitIsRefusedFromItsHeader() async throws {
        try await withHarness { harness in
            // A header declaring 10,000 x 10,000 (within the 100-megapixel decode limit) over a few bytes of data:
            // decoding it would fail, so only a refusal from the header answers with the result's size.
            harness.origin.route(
                "/large.png",
                .ok(ServerFixtures.pngDeclaring(width: 10_000, height: 10_000), contentType: "image/png"))
            // fit-in never enlarges: the result would be the source's 100 megapixels, over the 50 allowed
            let answer = try await harness.request(harness.unsafe("fit-in/20000x20000", "/large.png"))
            #expect(answer.status == 400)
            #expect(answer.text.contains("10000 x 10000") && answer.text.contains("50000000"), "\(answer.text)")
            #expect(harness.origin.hits("/large.png") == 1)
        }
    }

    @Test func anOversizedSourceIs413() async throws {
        try await withHarness(Self.settings { $0.maximumSourceBytes = 2_000 }) { harness in
            harness.origin.route("/big.jpg", .ok(Self.photo, contentType: "image/jpeg"))
            let answer = try await harness.request(harness.unsafe("100x100", "/big.jpg"))
            #expect(answer.status == 413)
            #expect(answer.text.contains("2000 bytes"))
        }
    }

    @Test func aPixelBombIs400FromItsHeader() async throws {
        try await withHarness { harness in
            harness.origin.route(
                "/bomb.png", .ok(ServerFixtures.pngDeclaring(width: 60_000, height: 60_000), contentType: "image/png"))
            let answer = try await harness.request(harness.unsafe("100x100", "/bomb.png"))
            #expect(answer.status == 400)
            #expect(answer.text.contains("60000 x 60000 pixels"))
        }
    }

    @Test func aSlowOriginIs504WithinTheTimeout() async throws {
        try await withHarness(Self.settings { $0.originTimeout = 1 }) { harness in
            harness.origin.route("/slow.jpg", TestHTTPServer.Route(body: Self.photo, neverRespond: true))
            let start = Date()
            let answer = try await harness.request(harness.unsafe("100x100", "/slow.jpg"))
            #expect(answer.status == 504)
            // The configured second ended it (not the 10 s default); the time is only a safety net (a loaded
            // machine once took 8.7 s to answer).
            #expect(answer.text.contains("within 1 s"), "\(answer.text)")
            #expect(Date().timeIntervalSince(start) < 30)
        }
    }

    @Test func aLoopbackSourceIsRefusedWithoutAnAllowListEntry() async throws {
        try await withHarness(allowOrigin: false) { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            let answer = try await harness.request(harness.unsafe("100x100", "/a.jpg"))
            #expect(answer.status == 403)
            #expect(answer.text == "the image's source is not allowed\n")
            let named = try await harness.request("/unsafe/100x100/localhost:\(harness.origin.port)/a.jpg")
            #expect(named.status == 403)
            #expect(harness.origin.totalHits == 0)
        }
    }

    @Test func aRedirectOutsideTheAllowedSourcesIsRefused() async throws {
        try await withHarness { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            harness.origin.route("/to-private", .redirect(to: "http://10.20.30.40/a.jpg"))
            harness.origin.route("/to-other-port", .redirect(to: "http://127.0.0.1:1/a.jpg"))
            harness.origin.route("/to-same", .redirect(to: "/a.jpg"))
            let privateAnswer = try await harness.request(harness.unsafe("100x100", "/to-private"))
            #expect(privateAnswer.status == 403 && privateAnswer.text.contains("redirected"))
            #expect(try await harness.request(harness.unsafe("100x100", "/to-other-port")).status == 403)
            #expect(try await harness.request(harness.unsafe("100x100", "/to-same")).status == 200)
        }
    }

    /// An origin that redirects to another scheme, or answers `304` to a request that asked nothing conditional, is
    /// the origin's fault: `502`, saying what it did; nothing is fetched from the other scheme.
    @Test func anOriginsRedirectToAnotherSchemeOrUnaskedNotModifiedIs502() async throws {
        try await withHarness { harness in
            harness.origin.route("/to-file", .redirect(to: "file:///etc/passwd"))
            harness.origin.route("/to-gopher", .redirect(to: "gopher://127.0.0.1:70/a.jpg"))
            harness.origin.route("/unasked-304", .status(304))
            for path in ["/to-file", "/to-gopher"] {
                let answer = try await harness.request(harness.unsafe("100x100", path))
                #expect(answer.status == 502, "\(path): \(answer.text)")
                #expect(answer.text == "the origin redirected to a URL that is not http or https\n", "\(path)")
            }
            let notModified = try await harness.request(harness.unsafe("100x100", "/unasked-304"))
            #expect(notModified.status == 502, "\(notModified.text)")
            #expect(notModified.text == "the origin answered 304 Not Modified to a request that was not conditional\n")
        }
    }

    /// A JPEG whose header claims 65500 x 1500 pixels over a few bytes of scan is cut off: `400`, as thumbor answers,
    /// never a grey thumbnail of what was not sent.
    @Test func aJPEGCutOffAfterItsHeaderIs400() async throws {
        let claims = TestImages.jpegCutAfterItsHeader(Self.photo, claiming: 65500, 1500, ended: false)
        // Ended by an EOI: libjpeg only warns ("premature end of data segment") and fills the rest with grey.
        let ended = TestImages.jpegCutAfterItsHeader(Self.photo, claiming: 65500, 1500, ended: true)
        try await withHarness { harness in
            harness.origin.route("/claims.jpg", .ok(claims, contentType: "image/jpeg"))
            harness.origin.route("/ended.jpg", .ok(ended, contentType: "image/jpeg"))
            for path in ["/claims.jpg", "/ended.jpg"] {
                for options in ["fit-in/64x64", "64x64", ""] {
                    let answer = try await harness.request(harness.unsafe(options, path))
                    #expect(answer.status == 400, "\(path) \(options): \(answer.status) \(answer.text)")
                }
            }
        }
    }

    /// A long argument is quoted cut short in the answer, never echoed whole.
    @Test func errorAnswersQuoteArgumentsCutShort() async throws {
        try await withHarness { harness in
            let long = String(repeating: "z", count: 70_000)
            let answer = try await harness.request("/unsafe/100x100/filters:fill(\(long))/a.jpg")
            #expect(answer.status == 400)
            #expect(answer.text.count < 300, "\(answer.text.prefix(300))")
            #expect(answer.text.contains("\"" + String(repeating: "z", count: 37) + "...\""))
        }
    }

    @Test func twoHundredConcurrentIdenticalRequestsFetchTheOriginOnce() async throws {
        // One turn, no queue: the 199 requests that join the first one's work take no turn of their own.
        try await withHarness(
            Self.settings {
                $0.maximumActiveRequests = 1
                $0.maximumQueuedRequests = 0
            }
        ) { harness in
            harness.origin.route("/a.jpg", TestHTTPServer.Route(body: Self.photo, held: true))
            let path = harness.unsafe("fit-in/120x120", "/a.jpg")
            try await withThrowingTaskGroup(of: ServerHarness.Answer.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await harness.request(path) }
                }
                await harness.origin.waitForRequests("/a.jpg")
                // Every request has joined the one result being made before the origin answers.
                let deadline = Date().addingTimeInterval(30)
                while harness.server.production.waitingCount < 200, Date() < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(harness.server.production.waitingCount == 200)
                harness.origin.release("/a.jpg")
                var tags = Set<String>()
                for try await answer in group {
                    #expect(answer.status == 200)
                    tags.insert(answer.header("ETag") ?? "")
                }
                #expect(tags.count == 1)
            }
            #expect(harness.origin.hits("/a.jpg") == 1)
            #expect(harness.server.resultsMade == 1)
        }
    }

    @Test func aFullQueueIs503WithRetryAfter() async throws {
        try await withHarness(
            Self.settings {
                $0.maximumActiveRequests = 1
                $0.maximumQueuedRequests = 0
                $0.retryAfter = 3
            }
        ) { harness in
            harness.origin.route("/held.jpg", TestHTTPServer.Route(body: Self.photo, held: true))
            harness.origin.route("/b.jpg", Self.cacheable)
            async let first = harness.request(harness.unsafe("100x100", "/held.jpg"))
            await harness.origin.waitForRequests("/held.jpg")
            let refused = try await harness.request(harness.unsafe("100x100", "/b.jpg"))
            #expect(refused.status == 503 && refused.header("Retry-After") == "3")
            harness.origin.release("/held.jpg")
            #expect(try await first.status == 200)
            #expect(try await harness.request(harness.unsafe("100x100", "/b.jpg")).status == 200)
        }
    }

    @Test func filesComeFromTheRootAndNeverFromOutsideIt() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("kf-root-\(UUID().uuidString)")
        let root = base.appendingPathComponent("root")
        let outside = base.appendingPathComponent("outside")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        try Self.photo.write(to: root.appendingPathComponent("sub/a.jpg"))
        try Self.photo.write(to: outside.appendingPathComponent("secret.jpg"))
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("link.jpg"),
            withDestinationURL: outside.appendingPathComponent("secret.jpg"))
        try await withHarness(Self.settings { $0.rootDirectory = root }) { harness in
            let paths = [
                "sub/a.jpg", "sub/missing.jpg", "link.jpg", "sub/../../outside/secret.jpg",
                "sub/%2E%2E/%2E%2E/outside/secret.jpg", outside.path + "/secret.jpg",
            ]
            var statuses: [Int] = []
            for path in paths {
                statuses.append(try await harness.request("/unsafe/100x50/" + path).status)
            }
            #expect(statuses == [200, 404, 403, 403, 403, 403])
        }
    }

    @Test func healthAndMetricsAnswerOnTheSamePort() async throws {
        try await withHarness { harness in
            harness.origin.route("/a.jpg", Self.cacheable)
            #expect(try await harness.request("/healthz").text == "ok\n")
            #expect(try await harness.request("/healthcheck").text == "ok\n")
            let head = try await harness.request("/healthz", method: .HEAD)
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == "3")
            _ = try await harness.request(harness.unsafe("100x100", "/a.jpg"))
            _ = try await harness.request(harness.unsafe("100x100", "/a.jpg"))
            _ = try await harness.request(harness.unsafe("filters:nope()", "/a.jpg"))
            let metrics = try await harness.request("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("kf_serve_responses_total{status=\"200\"} 2"))
            #expect(metrics.text.contains("kf_serve_responses_total{status=\"400\"} 1"))
            #expect(metrics.text.contains("kf_serve_results_total{from=\"memory\"} 1"))
            #expect(metrics.text.contains("kf_serve_results_total{from=\"made\"} 1"))
        }
    }
}
