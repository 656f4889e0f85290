import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sees the task's body when the delegate is asked to modify the data.
private final class BodyWatchingDelegate: ImageDownloaderDelegate {
    let seen = Locked<(data: Data, mutableData: Data)?>(nil)

    func imageDownloader(_ downloader: ImageDownloader, didDownload data: Data, with dataTask: SessionDataTask)
        -> Data?
    {
        seen.withLock { $0 = (data, dataTask.mutableData) }
        return data
    }
}

@Suite(.timeLimit(.minutes(1)))
struct SessionDataTaskTests {
    @Test func originalURLIsTheURLOfTheRequestAsFirstSent() async throws {
        try await withDownloader { server, downloader in
            server.route("/moved.png", .ok(Fixtures.png()))
            let modifier = AnyModifier { request in
                var request = request
                request.url = server.url("/moved.png")
                return request
            }
            let collector = ResultCollector()
            let task = downloader.downloadImage(
                with: server.url("/asked.png"), options: [.requestModifier(modifier)],
                completionHandler: collector.handler)
            await collector.wait(for: 1)
            #expect((try? collector.results[0].get()) != nil)
            // As Kingfisher's: the original request's URL, after the modifier
            let originalURL: URL? = task.sessionTask?.originalURL
            #expect(originalURL == server.url("/moved.png"))
        }
    }

    @Test func mutableDataIsTheBytesReceivedSoFar() async throws {
        try await withDownloader { server, downloader in
            let png = Fixtures.png(width: 256, height: 256)
            // The first half, then the rest once the client has reported the first: at least two reads, however
            // loaded the machine is (pieces sent a few milliseconds apart can arrive together).
            server.route(
                "/big.png",
                .init(body: png, contentLength: Int64(png.count), holdAfterBodyBytes: png.count / 2))
            let delegate = BodyWatchingDelegate()
            downloader.delegate = delegate
            let handle = Locked<DownloadTask?>(nil)
            let samples = Locked<[(received: Int64, held: Data)]>([])
            let sampled = ResultlessCounter()
            let collector = ResultCollector()
            let task = downloader.downloadImage(
                with: server.url("/big.png"),
                progressBlock: { received, _ in
                    // Called on the thread that read the bytes, right after they were added
                    guard let session = handle.withLock({ $0 })?.sessionTask else { return }
                    samples.withLock { $0.append((received, session.mutableData)) }
                    sampled.increment()
                }, completionHandler: collector.handler)
            handle.withLock { $0 = task }
            await sampled.wait(for: 1)
            server.release("/big.png")
            await collector.wait(for: 1)
            let recorded = samples.withLock { $0 }
            // While downloading: exactly the prefix received so far
            #expect(recorded.count > 1)
            for sample in recorded {
                #expect(sample.held == png.prefix(Int(sample.received)))
            }
            // While the delegate modifies it: the whole body
            let seen = try #require(delegate.seen.withLock { $0 })
            #expect(seen.mutableData == png && seen.data == png)
            // Once processed, the task no longer holds the body
            #expect(task.sessionTask?.mutableData.isEmpty == true)
        }
    }
}
