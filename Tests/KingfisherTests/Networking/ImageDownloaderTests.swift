import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(1)))
struct ImageDownloaderTests {
    @Test func downloadsAndDecodesAnImage() async throws {
        try await withDownloader { server, downloader in
            // Given a PNG served over loopback
            let png = Fixtures.png(width: 64, height: 48)
            server.route("/a.png", .ok(png, contentType: "image/png"))
            // When it is downloaded
            let result = try await downloader.downloadImage(with: server.url("/a.png"))
            // Then the image, the bytes and the metrics are the server's
            #expect(result.image.kf.size == CGSize(width: 64, height: 48))
            #expect(result.originalData == png)
            #expect(result.url == server.url("/a.png"))
            #expect(result.metrics?.httpStatusCode == 200)
            #expect(result.metrics?.receivedBytes == png.count)
            #expect(server.hits("/a.png") == 1)
        }
    }

    @Test func callbackAPIReturnsAnAttachedTask() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .ok(Fixtures.png()))
            let collector = ResultCollector()
            let task = downloader.downloadImage(with: server.url("/a.png"), completionHandler: collector.handler)
            // Without a request modifier the caller is attached before downloadImage returns.
            #expect(task.sessionTask?.originalURL == server.url("/a.png"))
            #expect(task.cancelToken != nil)
            await collector.wait(for: 1)
            #expect((try? collector.results[0].get()) != nil)
            #expect(task.sessionTask?.isTaskCancelled == false)
        }
    }

    @Test func reportsProgressWhileStreaming() async throws {
        try await withDownloader { server, downloader in
            // Given a body whose first 16 KB come at once and the rest only after the client reported them (the
            // downloader reads up to 1 MB at once, so pieces sent a few milliseconds apart can arrive together on
            // a loaded machine), with its Content-Length
            let png = Fixtures.png(width: 256, height: 256)
            #expect(png.count > 16 * 1024)
            server.route(
                "/big.png", .init(body: png, contentLength: Int64(png.count), holdAfterBodyBytes: 16 * 1024))
            let progress = ProgressRecorder()
            let collector = ResultCollector()
            // When downloading with a progress block
            downloader.downloadImage(
                with: server.url("/big.png"), progressBlock: progress.block, completionHandler: collector.handler)
            await progress.count.wait(for: 1)
            server.release("/big.png")
            await collector.wait(for: 1)
            // Then progress rose to the full size, with the expected size known
            let reports = progress.reports
            #expect(reports.count > 1)
            #expect(reports.map(\.0) == reports.map(\.0).sorted())
            #expect(reports.last?.0 == Int64(png.count))
            #expect(reports.allSatisfy { $0.1 == Int64(png.count) })
        }
    }

    @Test func reportsUnknownTotalForChunkedBodies() async throws {
        try await withDownloader { server, downloader in
            let png = Fixtures.png(width: 128, height: 128)
            server.route("/chunked.png", .init(body: png, chunkSize: 1000))
            let progress = ProgressRecorder()
            let collector = ResultCollector()
            downloader.downloadImage(
                with: server.url("/chunked.png"), progressBlock: progress.block, completionHandler: collector.handler)
            await collector.wait(for: 1)
            #expect((try? collector.results[0].get())?.originalData == png)
            #expect(progress.reports.allSatisfy { $0.1 == -1 })
            #expect(progress.reports.last?.0 == Int64(png.count))
        }
    }

    @Test func rejectsInvalidStatusCodes() async throws {
        try await withDownloader { server, downloader in
            server.route("/missing.png", .status(404, body: "not here"))
            let error = await downloader.result(server.url("/missing.png")).error
            #expect(error?.isInvalidResponseStatusCode == true)
            #expect(error?.isInvalidResponseStatusCode(404) == true)
            #expect(error?.isInvalidResponseStatusCode(500) == false)
            #expect(error?.errorCode == 2002)
        }
    }

    @Test func emptyBodyIsAnError() async throws {
        try await withDownloader { server, downloader in
            server.route("/empty.png", .ok(Data()))
            let error = await downloader.result(server.url("/empty.png")).error
            // As in Kingfisher: a processing failure; the precise reason underneath
            guard case .processorError(reason: .processingFailed(let processor, _)) = error,
                let failed = processor as? DecodingFailedProcessor, case .emptyImageData = failed.reason
            else {
                Issue.record("expected processingFailed over emptyImageData, got \(String(describing: error))")
                return
            }
            #expect(failed.identifier == DefaultImageProcessor.default.identifier)
            #expect(error?.errorCode == 4001)
            #expect(error?.errorDescription?.contains("empty") == true)
        }
    }

    @Test func nonImageBodyIsAProcessorError() async throws {
        try await withDownloader { server, downloader in
            server.route("/page.png", .ok(Data("<html>hello</html>".utf8), contentType: "text/html"))
            let error = await downloader.result(server.url("/page.png")).error
            guard case .processorError(reason: .processingFailed) = error,
                case .unsupportedImageFormat(.unknown)? = error?.underlyingReason
            else {
                Issue.record("expected processingFailed over unsupportedImageFormat, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func anImageOverThePixelLimitKeepsItsOwnReason() async throws {
        try await withDownloader { server, downloader in
            // A PNG header declaring 400 megapixels: an image, refused by our safety limit, not "not an image"
            server.route("/huge.png", .ok(Fixtures.pngHeaderOnly(width: 20000, height: 20000)))
            let error = await downloader.result(server.url("/huge.png")).error
            guard case .processorError(reason: .pixelLimitExceeded(20000, 20000, _)) = error else {
                Issue.record("expected pixelLimitExceeded, got \(String(describing: error))")
                return
            }
            #expect(error?.underlyingReason == nil)
        }
    }

    @Test func customProcessorFailureIsProcessingFailed() async throws {
        try await withDownloader { server, downloader in
            server.route("/a.png", .ok(Fixtures.png()))
            let error = await downloader.result(server.url("/a.png"), options: [.processor(FailingProcessor())]).error
            #expect(error?.errorCode == 4001)
        }
    }

    @Test func invalidURLsFailWithoutARequest() async throws {
        try await withDownloader { server, downloader in
            for url in [URL(string: "ftp://127.0.0.1/a.png")!, URL(fileURLWithPath: "/tmp/a.png")] {
                let error = await downloader.result(url).error
                guard case .requestError(reason: .invalidURL(let request)) = error else {
                    Issue.record("expected invalidURL for \(url), got \(String(describing: error))")
                    continue
                }
                #expect(request.url == url)
                #expect(error?.errorCode == 1002)
            }
            #expect(server.totalHits == 0)
        }
    }

    @Test func asyncTwinThrowsKingfisherErrors() async throws {
        try await withDownloader { server, downloader in
            server.route("/boom.png", .status(500))
            await #expect(throws: KingfisherError.self) {
                _ = try await downloader.downloadImage(with: server.url("/boom.png"))
            }
        }
    }

    @Test func namedDownloaderShutsDownAndRefusesLaterDownloads() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/a.png", .ok(Fixtures.png()))
        let downloader = ImageDownloader(name: "short-lived")
        _ = try await downloader.downloadImage(with: server.url("/a.png"))
        try await downloader.shutdown()
        let error = await downloader.result(server.url("/a.png")).error
        #expect(error?.errorCode == 2003)
        #expect(server.hits("/a.png") == 1)
        try await server.shutdown()
    }
}

struct FailingProcessor: ImageProcessor {
    let identifier = "com.example.failing"
    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? { nil }
}

final class ProgressRecorder: Sendable {
    private let recorded = Locked<[(Int64, Int64)]>([])
    /// Counts the reports, for waiting on them.
    let count = ResultlessCounter()
    var reports: [(Int64, Int64)] { recorded.withLock { $0 } }
    var block: DownloadProgressBlock {
        { received, total in
            self.recorded.withLock { $0.append((received, total)) }
            self.count.increment()
        }
    }
}
