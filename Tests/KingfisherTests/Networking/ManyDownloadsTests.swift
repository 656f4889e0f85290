import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// Many concurrent `async` downloads through few connections all finish (a regression: they once stopped).
@Suite(.timeLimit(.minutes(2)))
struct ManyDownloadsTests {
    struct SkipDecoding: ImageProcessor {
        let identifier = "test.skip-decoding"
        func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
            try? KFCrossPlatformImage(rgbaPixels: [0, 0, 0, 255], width: 1, height: 1)
        }
    }

    @Test(arguments: [false, true])
    func twoHundredDownloadsThroughEightConnectionsAllFinish(decoding: Bool) async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        let body = Fixtures.png(width: 300, height: 300)
        for index in 0..<200 { server.route("/\(index).png", .ok(body, contentType: "image/png")) }
        let downloader = ImageDownloader(name: "many", configuration: .init(maxConcurrentDownloads: 8))
        let options: KingfisherOptionsInfo = decoding ? [] : [.processor(SkipDecoding())]
        for _ in 0..<3 {
            let total = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<200 {
                    let url = server.url("/\(index).png")
                    group.addTask { try await downloader.downloadImage(with: url, options: options).originalData.count }
                }
                return try await group.reduce(0, +)
            }
            #expect(total == 200 * body.count)
        }
    }
}
