import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherServer
import KingfisherTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `kf serve` as a process: started on a free port, asked over HTTP, stopped by a signal.
@Suite struct ServeCommandTests {
    /// A running `kf serve` and where it listens.
    private struct Serving {
        let process: Process
        let baseURL: String
        let stderrURL: URL

        /// The port it listens on, from its address.
        var port: Int? { baseURL.split(separator: ":").last.flatMap { Int($0) } }
    }

    /// Starts `kf serve arguments...` (with `environment` added) and waits for its "listening on" line.
    private func startServe(
        _ arguments: [String], environment extra: [String: String] = [:], in dir: TempDir
    ) async throws -> Serving {
        let outURL = dir.url.appendingPathComponent("serve.out")
        let errURL = dir.url.appendingPathComponent("serve.err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = Kf.executable
        process.arguments = ["serve"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = dir.path("xdg")
        environment.merge(extra) { $1 }
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(90)  // a safety net: sanitizer builds on a loaded machine start slowly
        while Date() < deadline {
            let text = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on ") {
                let address = text[range.upperBound...].prefix { !$0.isNewline }
                return Serving(process: process, baseURL: String(address), stderrURL: errURL)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.terminate()
        let errors = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        throw ServeFailure(message: "kf serve did not start: \(errors)")
    }

    private struct ServeFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// A GET on a session of its own: a shared session's per-host connection limit (6) would queue a request
    /// behind held ones.
    private func get(_ url: String) async throws -> (status: Int, headers: [AnyHashable: Any], body: Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = 60
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        return (http.statusCode, http.allHeaderFields, data)
    }

    private func waitForExit(_ process: Process) async -> Int32 {
        await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }

    private static func originRoute(_ body: Data, held: Bool = false) -> TestHTTPServer.Route {
        TestHTTPServer.Route(
            headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=3600")], body: body, held: held)
    }

    @Test func refusesToStartWithoutAKeyOrUnsafe() async throws {
        let run = try await Kf.run(["serve", "--port", "0"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--security-key"))
        let badSource = try await Kf.run(["serve", "--unsafe", "--allow-source", "host:port"])
        #expect(badSource.status != 0 && badSource.stderr.contains("HOST:PORT"))
    }

    @Test func servesSignedURLsWithFlagsAndUnsafeOnesWithEnvironmentVariables() async throws {
        let dir = try TempDir()
        let origin = try await TestHTTPServer.start()
        let photo = try Samples.jpeg(width: 400, height: 200)
        origin.route("/a.jpg", Self.originRoute(photo))
        let serving = try await startServe(
            [
                "--port", "0", "--security-key", "k3y", "--allow-source", "127.0.0.1:\(origin.port)", "--cache-dir",
                dir.path("cache"), "--log-level", "warning",
            ], in: dir)
        let signedPart = "fit-in/100x100/127.0.0.1:\(origin.port)/a.jpg"
        // ThumborURLTests checks the signatures against Python's hmac.
        let signature = ThumborSignature.sign(signedPart, key: "k3y")
        let answer = try await get(serving.baseURL + "/\(signature)/\(signedPart)")
        #expect(answer.status == 200)
        #expect(try KFCrossPlatformImage(decoding: answer.body).pixelWidth == 100)
        #expect(try await get(serving.baseURL + "/unsafe/\(signedPart)").status == 403)
        #expect(try await get(serving.baseURL + "/healthz").status == 200)
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)

        let viaEnvironment = try await startServe(
            ["--cache-dir", dir.path("cache2")],
            environment: [
                "KF_SERVE_PORT": "0", "KF_SERVE_UNSAFE": "1", "KF_SERVE_ALLOW_SOURCE": "127.0.0.1:\(origin.port)",
                "KF_SERVE_MAX_AGE": "60", "KF_SERVE_LOG_LEVEL": "info",
            ], in: dir)
        let unsafe = try await get(viaEnvironment.baseURL + "/unsafe/\(signedPart)")
        #expect(unsafe.status == 200)
        #expect(unsafe.headers["Cache-Control"] as? String == "public, max-age=60")
        viaEnvironment.process.terminate()
        #expect(await waitForExit(viaEnvironment.process) == 0)
        // The access log went to stderr through swift-log.
        let log = try String(contentsOf: viaEnvironment.stderrURL, encoding: .utf8)
        #expect(log.contains("GET /unsafe/\(signedPart) 200"))
        try await origin.shutdown()
    }

    /// With `OTEL_EXPORTER_OTLP_ENDPOINT` set, one request's trace reaches a real OTLP receiver (OpenTelemetry's
    /// protobufs decode it): the server span continues the caller's `traceparent` and carries thumbor's operation,
    /// every stage of the retrieval is its descendant, and the origin request's span context went to the origin.
    @Test func aRequestsTraceShowsEveryStageAndCrossesToTheOrigin() async throws {
        let receiver = try await OTLPReceiver.start()
        let origin = try await TestHTTPServer.start()
        let photo = try Samples.jpeg(width: 600, height: 400)
        let seenParents = Locked<[String]>([])
        origin.route("/photo.jpg") { headers in
            let parent = headers.first { $0.0.lowercased() == "traceparent" }?.1
            seenParents.withLock { $0.append(parent ?? "") }
            return Self.originRoute(photo)
        }
        let dir = try TempDir()
        let serving = try await startServe(
            [
                "--port", "0", "--unsafe", "--allow-source", "127.0.0.1:\(origin.port)", "--cache-dir",
                dir.path("cache"),
                "--log-level", "warning",
            ],
            environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint.absoluteString,
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_SERVICE_NAME": "kf-serve-test",
                "OTEL_BSP_SCHEDULE_DELAY": "100",
            ], in: dir)
        defer { if serving.process.isRunning { serving.process.terminate() } }
        let (traceID, callerSpan) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7")
        var request = URLRequest(
            url: URL(
                string: serving.baseURL
                    + "/unsafe/fit-in/300x200/smart/filters:grayscale()/127.0.0.1:\(origin.port)/photo.jpg")!)
        request.setValue("00-\(traceID)-\(callerSpan)-01", forHTTPHeaderField: "traceparent")
        let (body, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(!body.isEmpty)
        // SIGTERM: the server stops, then the exporter sends what it holds
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)
        let spans = try await receiver.spans().filter { $0.traceId == traceID }
        #expect(spans.allSatisfy { $0.service == "kf-serve-test" })
        // The request's span: a server span under the caller's, with thumbor's operation
        let server = try #require(spans.first { $0.kind == 2 })
        #expect(server.parentSpanId == callerSpan)
        #expect(server.attributes["http.response.status_code"] == .number(200))
        #expect(server.attributes["thumbor.fit"]?.string == "fit-in")
        #expect(server.attributes["thumbor.width"] == .number(300) && server.attributes["thumbor.smart"] == .bool(true))
        #expect(server.attributes["thumbor.filters"]?.string == "grayscale()")
        // Every stage a made result takes, each a descendant of the request's span
        let byID = Dictionary(spans.map { ($0.spanId, $0) }, uniquingKeysWith: { first, _ in first })
        func descends(_ span: OTLPReceiver.ReceivedSpan) -> Bool {
            var current = span
            while let parent = byID[current.parentSpanId] {
                if parent.spanId == server.spanId { return true }
                current = parent
            }
            return false
        }
        let names = Set(spans.filter(descends).map(\.name))
        for stage in [
            "kingfisher.retrieve", "kingfisher.memory", "kingfisher.disk", "kingfisher.fetch", "kingfisher.decode",
            "kingfisher.encode", "kingfisher.store",
        ] {
            #expect(names.contains(stage), "no \(stage) span under the request's: \(names.sorted())")
        }
        // The origin request: a client span under the fetch, whose context went to the origin
        let client = try #require(spans.first { $0.kind == 3 })
        #expect(byID[client.parentSpanId]?.name == "kingfisher.fetch")
        #expect(client.attributes["url.full"]?.string?.hasSuffix("/photo.jpg") == true)
        #expect(seenParents.withLock { $0 } == ["00-\(traceID)-\(client.spanId)-01"])
        try await origin.shutdown()
    }

    /// An endpoint with `OTEL_SDK_DISABLED=true`, or with `OTEL_TRACES_EXPORTER=none`, exports nothing.
    @Test(arguments: [["OTEL_SDK_DISABLED": "true"], ["OTEL_TRACES_EXPORTER": "none"]])
    func tracesStayOffWhenTheSettingsSaySo(off: [String: String]) async throws {
        let receiver = try await OTLPReceiver.start()
        let dir = try TempDir()
        let root = dir.url.appendingPathComponent("imgs")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Samples.jpeg(width: 60, height: 40).write(to: root.appendingPathComponent("a.jpg"))
        let serving = try await startServe(
            [
                "--port", "0", "--unsafe", "--root", root.path, "--cache-dir", dir.path("cache"), "--log-level",
                "warning",
            ],
            environment: off.merging(
                ["OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint.absoluteString, "OTEL_BSP_SCHEDULE_DELAY": "100"]
            ) { first, _ in first }, in: dir)
        defer { if serving.process.isRunning { serving.process.terminate() } }
        #expect(try await get(serving.baseURL + "/unsafe/30x20/a.jpg").status == 200)
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)
        #expect(try await receiver.spans().isEmpty)
    }

    /// `--s3-bucket` and `--result-store` with the AWS settings in the environment, as an operator starts it: a path
    /// is a key in the bucket, and the result lands in the store.
    @Test func anS3BucketAsTheSourceAndAnotherAsTheResultStore() async throws {
        let store = try await S3TestServer.shared()
        let (images, results) = (
            "kf-cli-src-\(UUID().uuidString.prefix(6).lowercased())",
            "kf-cli-res-\(UUID().uuidString.prefix(6).lowercased())"
        )
        try await store.createBucket(images)
        try await store.createBucket(results)
        try await store.put(
            try Samples.jpeg(width: 600, height: 400), bucket: images, key: "cats/tom.jpg", contentType: "image/jpeg",
            cacheControl: "max-age=600")
        let dir = try TempDir()
        let environment = [
            "HOME": dir.url.path, "AWS_PROFILE": "", "AWS_ACCESS_KEY_ID": store.credentials.accessKeyID,
            "AWS_SECRET_ACCESS_KEY": store.credentials.secretAccessKey, "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": store.endpoint.absoluteString,
        ]
        let serving = try await startServe(
            [
                "--port", "0", "--unsafe", "--allow-source", "127.0.0.1:\(store.endpoint.port ?? 0)", "--s3-bucket",
                images, "--result-store", "s3://\(results)/thumbs", "--cache-dir", dir.path("cache"), "--log-level",
                "warning",
            ], environment: environment, in: dir)
        defer { if serving.process.isRunning { serving.process.terminate() } }
        let answer = try await get(serving.baseURL + "/unsafe/300x200/cats/tom.jpg")
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let made = try KFCrossPlatformImage(decoding: answer.body)
        #expect(made.pixelWidth == 300 && made.pixelHeight == 200)
        let stored = try await store.requests().filter {
            $0.method == "PUT" && $0.path.hasPrefix("/\(results)/thumbs/")
        }
        // The result, and the original it was made from (for the instances that make other sizes of it)
        #expect(stored.count == 2)
        #expect(stored.filter { $0.path.hasPrefix("/\(results)/thumbs/originals/") }.count == 1)
        #expect(try await get(serving.baseURL + "/unsafe/300x200/cats/none.jpg").status == 404)
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)
        // A result store that is no s3:// URL stops the start with one line
        let refused = try await Kf.run(
            ["serve", "--unsafe", "--result-store", "/tmp/results"], environment: environment)
        #expect(refused.status != 0 && refused.stderr.contains("expected s3://BUCKET"))
    }

    /// The README's example: `--root` and an `--allow-source` origin together, as thumbor's
    /// `file_loader_http_fallback` reads them: a file under the root when there is one, else the origin a path
    /// starting with a host names; a plain path that is no file stays a 404, and `--root-only` fetches nothing.
    @Test func rootFilesAndOriginPathsTogetherAsTheReadmeShows() async throws {
        let dir = try TempDir()
        let origin = try await TestHTTPServer.start()
        origin.route("/photo.jpg", Self.originRoute(try Samples.jpeg(width: 600, height: 400)))
        let root = dir.url.appendingPathComponent("imgs")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Samples.jpeg(width: 300, height: 300).write(to: root.appendingPathComponent("local.jpg"))
        let serving = try await startServe(
            [
                "--port", "0", "--unsafe", "--allow-source", "127.0.0.1:\(origin.port)", "--root", root.path,
                "--cache-dir", dir.path("cache"), "--log-level", "warning",
            ], in: dir)
        defer { if serving.process.isRunning { serving.process.terminate() } }  // also when a step throws
        let fromOrigin = try await get(
            serving.baseURL
                + "/unsafe/300x200/smart/filters:grayscale():format(webp)/127.0.0.1:\(origin.port)/photo.jpg")
        #expect(fromOrigin.status == 200, "\(String(decoding: fromOrigin.body, as: UTF8.self))")
        #expect(fromOrigin.body.kf.imageFormat == .WebP)
        let made = try KFCrossPlatformImage(decoding: fromOrigin.body)
        #expect(made.pixelWidth == 300 && made.pixelHeight == 200)
        #expect(origin.hits("/photo.jpg") == 1)
        let fromRoot = try await get(serving.baseURL + "/unsafe/100x100/local.jpg")
        #expect(fromRoot.status == 200)
        #expect(try await get(serving.baseURL + "/unsafe/100x100/missing.jpg").status == 404)
        #expect(try await get(serving.baseURL + "/unsafe/100x100/photos/missing.jpg").status == 404)
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)

        let rootOnly = try await startServe(
            [
                "--port", "0", "--unsafe", "--allow-source", "127.0.0.1:\(origin.port)", "--root", root.path,
                "--root-only", "--cache-dir", dir.path("cache2"), "--log-level", "warning",
            ], in: dir)
        defer { if rootOnly.process.isRunning { rootOnly.process.terminate() } }
        #expect(try await get(rootOnly.baseURL + "/unsafe/300x200/127.0.0.1:\(origin.port)/photo.jpg").status == 404)
        #expect(try await get(rootOnly.baseURL + "/unsafe/100x100/local.jpg").status == 200)
        #expect(origin.hits("/photo.jpg") == 1)
        rootOnly.process.terminate()
        #expect(await waitForExit(rootOnly.process) == 0)
        try await origin.shutdown()
    }

    @Test func theDefaultCachesOfServeAndFetchLiveApartAndWorkInEitherOrder() async throws {
        let dir = try TempDir()
        let origin = try await TestHTTPServer.start()
        origin.route("/a.jpg", Self.originRoute(try Samples.jpeg(width: 200, height: 100)))
        let home = ["XDG_CACHE_HOME": dir.path("xdg")]
        // kf fetch first, with the default cache (no --cache-dir)
        let url = origin.url("/a.jpg").absoluteString
        let fetched = try await Kf.run(["fetch", url, "--downsample", "50x50"], environment: home)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        // then kf serve with its default cache
        let serving = try await startServe(
            ["--port", "0", "--unsafe", "--allow-source", "127.0.0.1:\(origin.port)", "--log-level", "warning"],
            in: dir)
        let answer = try await get(serving.baseURL + "/unsafe/fit-in/60x60/127.0.0.1:\(origin.port)/a.jpg")
        #expect(answer.status == 200)
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)
        // then every cache command works with the defaults, and each cache is in its own folder
        for arguments in [["fetch", url, "--downsample", "50x50"], ["cache", "info"], ["cache", "clear"]] {
            let run = try await Kf.run(arguments, environment: home)
            #expect(run.status == 0, "kf \(arguments.joined(separator: " ")): \(run.stderr)")
        }
        let kfHome = dir.url.appendingPathComponent("xdg/kf")
        #expect(try FileManager.default.contentsOfDirectory(atPath: kfHome.path).sorted() == ["images", "serve"])
        // kf cache clear emptied the images folder only: serve's results are still there
        #expect(
            try !FileManager.default.contentsOfDirectory(atPath: kfHome.appendingPathComponent("serve").path).isEmpty)
        try await origin.shutdown()
    }

    @Test func filesOfTheOldSharedHomeMoveIntoTheImagesFolder() async throws {
        let dir = try TempDir()
        let photo = dir.url.appendingPathComponent("a.png")
        try Samples.coordinatePNG(width: 40, height: 30).write(to: photo)
        let home = ["XDG_CACHE_HOME": dir.path("xdg")]
        // An older kf cached straight in kf's home; kf serve then added its folder there.
        let old = try await Kf.run(["fetch", photo.path, "--cache-dir", dir.path("xdg/kf")])
        #expect(old.status == 0, "\(old.stderr)")
        let kfHome = dir.url.appendingPathComponent("xdg/kf")
        let oldFiles = try FileManager.default.contentsOfDirectory(atPath: kfHome.path)
        #expect(!oldFiles.isEmpty)
        try FileManager.default.createDirectory(
            at: kfHome.appendingPathComponent("serve"), withIntermediateDirectories: true)
        // The next run with the default cache finds the image there, moved into the images folder.
        let again = try await Kf.run(["fetch", photo.path, "--json"], environment: home)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.jsonObjects.first?["cacheType"] as? String == "disk")
        #expect(try FileManager.default.contentsOfDirectory(atPath: kfHome.path).sorted() == ["images", "serve"])
        let moved = try FileManager.default.contentsOfDirectory(atPath: kfHome.appendingPathComponent("images").path)
        #expect(Set(oldFiles).isSubset(of: Set(moved)))
    }

    @Test func aBusyPortIsNamedWithWhatToDo() async throws {
        let dir = try TempDir()
        let first = try await startServe(["--port", "0", "--unsafe", "--log-level", "warning"], in: dir)
        let port = try #require(first.port)
        let second = try await Kf.run(
            ["serve", "--port", "\(port)", "--unsafe"], environment: ["XDG_CACHE_HOME": dir.path("x")])
        first.process.terminate()
        #expect(await waitForExit(first.process) == 0)
        #expect(second.status != 0)
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port)"), "\(second.stderr)")
        #expect(second.stderr.contains("in use") && second.stderr.contains("--port"), "\(second.stderr)")
        #expect(!second.stderr.contains("errno") && !second.stderr.contains("bind("), "\(second.stderr)")
    }

    @Test func connectionsThatSendNothingAreClosedAfterTheIdleTimeout() async throws {
        let dir = try TempDir()
        let serving = try await startServe(
            ["--port", "0", "--unsafe", "--idle-timeout", "1", "--log-level", "warning"], in: dir)
        let port = try #require(serving.port)
        // Half a request head, sent and never finished (a slow client, or one that hangs)
        let halfHead = try RawConnection(port: port)
        try halfHead.send("GET /healthz HTTP/1.1\r\nHost: kf\r\nX-Slow: ")
        // A whole request answered, then nothing more on the kept-alive connection
        let idle = try RawConnection(port: port)
        try idle.send("GET /healthz HTTP/1.1\r\nHost: kf\r\n\r\n")
        // A body that stops after 10 of its 100 bytes
        let stalledBody = try RawConnection(port: port)
        try stalledBody.send("GET /healthz HTTP/1.1\r\nHost: kf\r\nContent-Length: 100\r\n\r\n0123456789")
        // Each is closed by the server (end of stream); the 30 s are only a safety net.
        let idleText = await idle.readUntilClosed(within: .seconds(30))
        #expect(idleText?.hasPrefix("HTTP/1.1 200") == true, "\(idleText ?? "not closed")")
        #expect(await halfHead.readUntilClosed(within: .seconds(30)) != nil)
        #expect(await stalledBody.readUntilClosed(within: .seconds(30)) != nil)
        // The server still answers others.
        #expect(try await get(serving.baseURL + "/healthz").status == 200)
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)
    }

    @Test func aRequestHeadTricklingInIsClosedAtTheHeaderTimeout() async throws {
        let dir = try TempDir()
        // An idle timeout far longer than the test: a byte every 100 ms never lets it fire.
        let serving = try await startServe(
            ["--port", "0", "--unsafe", "--idle-timeout", "600", "--header-timeout", "1", "--log-level", "warning"],
            in: dir)
        let port = try #require(serving.port)
        let slow = try RawConnection(port: port)
        let head = Array(
            "GET /healthz HTTP/1.1\r\nHost: kf\r\nX-Slow: " + String(repeating: "a", count: 600) + "\r\n\r\n")
        var sent = 0
        var closed = false
        // 600 bytes at 10 a second would take 60 s: the server must close well before the head is complete.
        while sent < head.count, !closed {
            closed = !slow.trySend(String(head[sent])) || slow.isClosedByPeer()
            if !closed {
                sent += 1
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(closed, "the whole head went out, \(sent) bytes, without the server closing")
        #expect(sent < head.count)
        #expect(try await get(serving.baseURL + "/healthz").status == 200)
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)
    }

    @Test func atTheConnectionLimitTheLongestIdleConnectionMakesRoom() async throws {
        let dir = try TempDir()
        let serving = try await startServe(
            ["--port", "0", "--unsafe", "--idle-timeout", "600", "--max-connections", "3", "--log-level", "warning"],
            in: dir)
        let port = try #require(serving.port)
        // Three kept-alive connections, each answered once and then idle, oldest first.
        var idle: [RawConnection] = []
        for _ in 0..<3 {
            let connection = try RawConnection(port: port)
            try connection.send("GET /healthz HTTP/1.1\r\nHost: kf\r\n\r\n")
            let answer = await connection.readHead(within: .seconds(30))
            #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(answer ?? "no answer")")
            idle.append(connection)
        }
        // A fourth is answered: the oldest idle one was closed to make room, the others stay open.
        let fourth = try RawConnection(port: port)
        try fourth.send("GET /healthz HTTP/1.1\r\nHost: kf\r\n\r\n")
        let answer = await fourth.readHead(within: .seconds(30))
        #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(answer ?? "no answer")")
        #expect(await idle[0].readUntilClosed(within: .seconds(30)) != nil)
        #expect(await idle[1].readUntilClosed(within: .seconds(1)) == nil)
        #expect(await idle[2].readUntilClosed(within: .seconds(1)) == nil)
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)
    }

    @Test func atTheConnectionLimitWithEveryConnectionBusyANewOneIs503() async throws {
        let dir = try TempDir()
        let origin = try await TestHTTPServer.start()
        let photo = try Samples.jpeg(width: 120, height: 80)
        for index in 0..<2 { origin.route("/\(index).jpg", Self.originRoute(photo, held: true)) }
        let serving = try await startServe(
            [
                "--port", "0", "--unsafe", "--allow-source", "127.0.0.1:\(origin.port)", "--cache-dir",
                dir.path("cache"), "--idle-timeout", "600", "--max-connections", "2", "--log-level", "warning",
                // The origin holds the two requests for as long as the test takes (minutes under ThreadSanitizer):
                // longer than the default 10 s origin deadline must not turn them into 504s.
                "--origin-timeout", "600",
            ], in: dir)
        let port = try #require(serving.port)
        // Two requests in the middle of being answered (their origin holds them): every connection is busy.
        var busy: [RawConnection] = []
        for index in 0..<2 {
            let connection = try RawConnection(port: port)
            let path = "/unsafe/40x40/127.0.0.1:\(origin.port)/\(index).jpg"
            try connection.send("GET \(path) HTTP/1.1\r\nHost: kf\r\n\r\n")
            busy.append(connection)
        }
        await origin.waitForRequests(count: 2)
        let third = try RawConnection(port: port)
        let refusal = await third.readUntilClosed(within: .seconds(30))
        #expect(refusal?.hasPrefix("HTTP/1.1 503") == true, "\(refusal ?? "not closed")")
        #expect(refusal?.contains("Retry-After: 1") == true)
        // Clients that send their whole request before reading (as most HTTP libraries do), a 2 MB body here, get
        // the 503 too: the server reads and drops what they send instead of resetting the connection under them.
        let body = [UInt8](repeating: 0x78, count: 2_000_000)
        let head = "POST /healthz HTTP/1.1\r\nHost: kf\r\nContent-Length: \(body.count)\r\n\r\n"
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<11 {
                group.addTask {
                    let client = try RawConnection(port: port)
                    guard await client.sendWhole(Array(head.utf8) + body, within: .seconds(30)) else {
                        return "reset while sending"
                    }
                    return await client.readUntilClosed(within: .seconds(30)) ?? "not closed"
                }
            }
            for try await answer in group {
                #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer.prefix(100))")
            }
        }
        // The busy ones were left alone and are answered.
        for index in 0..<2 { origin.release("/\(index).jpg") }
        for connection in busy {
            let answer = await connection.readHead(within: .seconds(30))
            #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(answer ?? "no answer")")
        }
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)
        try await origin.shutdown()
    }

    @Test func requestsThatDoNotKeepTheirConnectionHaveItClosedAfterTheResponse() async throws {
        let dir = try TempDir()
        // An idle timeout far longer than the test: only the request's own wish can close these connections.
        let serving = try await startServe(
            ["--port", "0", "--unsafe", "--idle-timeout", "600", "--log-level", "warning"], in: dir)
        let port = try #require(serving.port)
        let http10 = try RawConnection(port: port)
        try http10.send("GET /healthz HTTP/1.0\r\n\r\n")
        let close11 = try RawConnection(port: port)
        try close11.send("GET /healthz HTTP/1.1\r\nHost: kf\r\nConnection: close\r\n\r\n")
        let kept10 = try RawConnection(port: port)
        try kept10.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        for connection in [http10, close11] {
            let answer = await connection.readUntilClosed(within: .seconds(30))  // a safety net, not a measure
            #expect(answer?.contains(" 200 ") == true, "\(answer ?? "not closed")")
            #expect(answer?.lowercased().contains("connection: close") == true, "\(answer ?? "")")
        }
        // A request that asked to keep its connection keeps it: it is still open after its answer.
        #expect(await kept10.readUntilClosed(within: .seconds(2)) == nil)
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)
    }

    @Test func sigtermLetsRequestsInFlightFinishAndStopsAcceptingNewOnes() async throws {
        let dir = try TempDir()
        let origin = try await TestHTTPServer.start()
        let photo = try Samples.jpeg(width: 300, height: 200)
        for index in 0..<6 { origin.route("/\(index).jpg", Self.originRoute(photo, held: true)) }
        let serving = try await startServe(
            [
                "--port", "0", "--unsafe", "--allow-source", "127.0.0.1:\(origin.port)", "--cache-dir",
                dir.path("cache"), "--log-level", "warning", "--shutdown-timeout", "30", "--max-active", "8",
            ], in: dir)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<6 {
                group.addTask {
                    try await self.get(serving.baseURL + "/unsafe/80x80/127.0.0.1:\(origin.port)/\(index).jpg").status
                }
            }
            await origin.waitForRequests(count: 6)
            kill(serving.process.processIdentifier, SIGTERM)
            // It stops accepting: a new connection is refused while the six are still held.
            var refused = false
            for _ in 0..<100 where !refused {
                refused = (try? await self.get(serving.baseURL + "/healthz")) == nil
                if !refused { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(refused)
            #expect(serving.process.isRunning)
            for index in 0..<6 { origin.release("/\(index).jpg") }
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            #expect(statuses == Array(repeating: 200, count: 6))
        }
        #expect(await waitForExit(serving.process) == 0)
        try await origin.shutdown()
    }

    @Test func aRequestWhoseClientLeftStopsItsWorkAtOnce() async throws {
        let dir = try TempDir()
        let root = dir.url.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Samples.coordinatePNG(width: 200, height: 150).write(to: root.appendingPathComponent("a.png"))
        let serving = try await startServe(
            ["--port", "0", "--unsafe", "--root", root.path, "--cache-dir", dir.path("cache"), "--log-level", "info"],
            in: dir)
        let port = try #require(serving.port)
        let pid = serving.process.processIdentifier
        // A blur of 150 over 4 megapixels: about ten seconds of work, up to the request's time limit.
        let path = "/unsafe/2000x2000/filters:upscale():blur(150)/a.png"
        let idle = try #require(Self.cpuSeconds(of: pid))
        let client = try RawConnection(port: port)
        try client.send("GET \(path) HTTP/1.1\r\nHost: kf\r\n\r\n")
        // The work is under way once the server has computed for half a second.
        let working = ContinuousClock.now + .seconds(60)  // a safety net
        while let used = Self.cpuSeconds(of: pid), used - idle < 0.5, ContinuousClock.now < working {
            try await Task.sleep(for: .milliseconds(10))
        }
        client.disconnect()
        let left = try #require(Self.cpuSeconds(of: pid))
        // The request ends with the client's leaving: its access line says it was cancelled, not made.
        let line = try #require(await Self.accessLine(for: path, in: serving.stderrURL, within: .seconds(120)))
        let after = try #require(Self.cpuSeconds(of: pid))
        #expect(line.contains("\(path) 503"), "\(line)")
        #expect(after - left < 3, "the server computed \(after - left) s of CPU after its client left")
        serving.process.terminate()
        #expect(await waitForExit(serving.process) == 0)
    }

    /// The CPU seconds (user and system) process `pid` has used, from `/proc/PID/stat`.
    private static func cpuSeconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // After the command's closing parenthesis: state is field 3, utime and stime fields 14 and 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The access line `kf serve` logged for `path`, once there is one.
    private static func accessLine(for path: String, in log: URL, within limit: Duration) async -> String? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("GET \(path) ") }) {
                return String(line)
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

/// A client on a plain TCP socket to 127.0.0.1, for requests no HTTP client would send (half a head, a stalled body).
private final class RawConnection: Sendable {
    private let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw CocoaError(.fileReadUnknown)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(descriptor) }

    /// Leaves as a client that gave up does: both directions shut (the server reads the end of its input).
    func disconnect() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    func send(_ text: String) throws {
        guard trySend(text) else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Sends `text` whole; `false` when the connection would not take it (closed or reset by the server).
    func trySend(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count
    }

    /// Sends `bytes` whole, waiting while the connection's buffer is full; `false` when the server closed or reset
    /// it first (or the deadline passed).
    func sendWhole(_ bytes: [UInt8], within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        var sent = 0
        while sent < bytes.count, ContinuousClock.now < deadline {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                sent += count
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                try? await Task.sleep(for: .milliseconds(2))
            } else {
                return false
            }
        }
        return sent == bytes.count
    }

    /// Whether the server has closed the connection (end of stream or reset), without waiting.
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK))
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    /// What the server sent up to the end of a response head; `nil` when none came by the deadline.
    func readHead(within limit: Duration) async -> String? {
        let deadline = ContinuousClock.now + limit
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                received += buffer[..<count]
                let text = String(decoding: received, as: UTF8.self)
                if text.contains("\r\n\r\n") { return text }
            } else if count == 0 {
                return nil
            } else {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        return nil
    }

    /// Everything the server sent once it closed the connection; `nil` when it was still open at the deadline.
    func readUntilClosed(within limit: Duration) async -> String? {
        let deadline = ContinuousClock.now + limit
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 {
                received += buffer[..<count]
            } else if count == 0 || errno == ECONNRESET {
                return String(decoding: received, as: UTF8.self)
            } else {
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        return nil
    }
}
