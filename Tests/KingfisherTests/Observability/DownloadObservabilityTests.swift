import Foundation
import Kingfisher
import KingfisherTestSupport
import Logging
import MetricsTestKit
import Testing

/// What the downloader tells its logger and the metrics: each HTTP task's end with its URL, status, bytes and
/// duration, counted by status; callers that joined a running task, counted.
@Suite(.timeLimit(.minutes(1)))
struct DownloadObservabilityTests {
    @Test func aDownloadIsLoggedWithItsURLStatusAndBytesAndCountedByStatus() async throws {
        try await withTestMetrics { metrics in
            try await withDownloader { server, downloader in
                let png = Fixtures.png()
                server.route("/a.png", .ok(png, contentType: "image/png"))
                let log = RecordingLog()
                downloader.logger = log.logger
                let url = server.url("/a.png")
                _ = try await downloader.downloadImage(with: url)

                let entry = try #require(log.entries("Downloaded an image").first)
                #expect(entry.level == .debug)
                #expect(entry.metadata["kf.url"] == url.absoluteString)
                #expect(entry.metadata["kf.status"] == "200")
                #expect(entry.metadata["kf.bytes"] == "\(png.count)")
                #expect(entry.metadata["kf.downloader"] == downloader.name)
                #expect(Double(entry.metadata["kf.duration_ms"] ?? "") != nil)
                let name = ("downloader", downloader.name)
                #expect(metrics.total("kingfisher_downloads_total", [name, ("status", "200")]) == 1)
                #expect(metrics.total("kingfisher_download_bytes_total", [name]) == Int64(png.count))
                #expect(metrics.recordedCount("kingfisher_download_duration_seconds", [name]) == 1)
                #expect(metrics.recordedCount("kingfisher_processing_duration_seconds", [("stage", "download")]) == 1)
            }
        }
    }

    @Test func theHTTPRequestLogsThroughTheCallersLoggerNotTheDownloaders() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .ok(Fixtures.png(), contentType: "image/png"))
            let own = RecordingLog()
            downloader.logger = own.logger
            let call = RecordingLog()
            var logger = call.logger
            logger[metadataKey: "request"] = "r-1"
            // A call with a logger of its own (a server request's, say)
            _ = try await downloader.downloadImage(with: server.url("/a.png"), options: [.logger(logger)])
            // has AsyncHTTPClient log the request there (its entries name the connection), with the call's metadata
            let requests = call.entries.filter { $0.metadata["ahc-connection-id"] != nil }
            #expect(requests.contains { $0.message == "Request was scheduled on connection" })
            #expect(requests.allSatisfy { $0.metadata["request"] == "r-1" })
            // and nothing of AsyncHTTPClient's goes to the downloader's own logger
            #expect(own.entries.allSatisfy { $0.metadata["ahc-connection-id"] == nil })
        }
    }

    @Test func aRefusedStatusIsCountedUnderItsCodeAndLoggedAsAFailure() async throws {
        try await withTestMetrics { metrics in
            try await withDownloader { server, downloader in
                server.route("/missing.png", .status(404))
                let log = RecordingLog()
                downloader.logger = log.logger
                await #expect(throws: KingfisherError.self) {
                    _ = try await downloader.downloadImage(with: server.url("/missing.png"))
                }
                let entry = try #require(log.entries("A download failed").first)
                #expect(entry.metadata["kf.status"] == "404")
                #expect(entry.metadata["kf.error"] != nil)
                let name = ("downloader", downloader.name)
                #expect(metrics.total("kingfisher_downloads_total", [name, ("status", "404")]) == 1)
                #expect(metrics.total("kingfisher_downloads_total", [name, ("status", "200")]) == 0)
            }
        }
    }

    @Test func aCallersOwnLoggerGetsItsDownloadAndTheDownloadersDoesNot() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .ok(Fixtures.png(), contentType: "image/png"))
            let background = RecordingLog()
            let own = RecordingLog()
            downloader.logger = background.logger
            var logger = own.logger
            logger[metadataKey: "request-id"] = "r-1"
            _ = try await downloader.downloadImage(with: server.url("/a.png"), options: [.logger(logger)])
            #expect(own.entries("Downloaded an image").count == 1)
            #expect(background.entries.isEmpty)
        }
    }

    @Test func callersJoiningARunningDownloadAreCountedAsCoalesced() async throws {
        try await withTestMetrics { metrics in
            try await withDownloader { server, downloader in
                server.route(
                    "/held.png", TestHTTPServer.Route(body: Fixtures.png(), held: true))
                let url = server.url("/held.png")
                async let first = downloader.downloadImage(with: url)
                await server.waitForRequests("/held.png")
                async let second = downloader.downloadImage(with: url)
                async let third = downloader.downloadImage(with: url)
                let name = ("downloader", downloader.name)
                #expect(
                    await eventually {
                        metrics.total("kingfisher_download_waiters_coalesced_total", [name]) == 2
                    })
                server.release("/held.png")
                _ = try await (first, second, third)
                #expect(server.hits("/held.png") == 1)
                #expect(metrics.total("kingfisher_downloads_total", [name, ("status", "200")]) == 1)
                #expect(try metrics.expectGauge("kingfisher_downloads_running", [name]).lastValue == 0)
            }
        }
    }
}
