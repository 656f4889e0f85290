import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// A 2-second video made on the spot by ffmpeg (installed by scripts/bootstrap): red for the first second, blue for
/// the second, 64 x 48 at 10 frames a second, H.264 with its index at the front (so it streams over HTTP).
private func makeRedThenBlueVideo(in directory: URL) throws -> URL {
    let ffmpeg = try #require(
        ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg", "/opt/homebrew/bin/ffmpeg"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }, "ffmpeg is missing: run scripts/bootstrap")
    let output = directory.appendingPathComponent("red-then-blue.mp4")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ffmpeg)
    process.arguments = [
        "-nostdin", "-v", "error", "-y", "-filter_complex",
        "color=c=red:s=64x48:d=1:r=10[a];color=c=blue:s=64x48:d=1:r=10[b];[a][b]concat=n=2:v=1:a=0,format=yuv420p",
        "-movflags", "+faststart", output.path,
    ]
    try process.run()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    return output
}

/// The colour in the middle of a frame, as (r, g, b).
private func centre(of image: KFCrossPlatformImage) -> [Int] {
    let pixels = image.kf.rgbaPixels()
    let index = ((image.pixelHeight / 2) * image.pixelWidth + image.pixelWidth / 2) * 4
    return pixels[index..<index + 3].map(Int.init)
}

private func isClose(_ colour: [Int], to expected: [Int]) -> Bool {
    zip(colour, expected).allSatisfy { abs($0 - $1) <= 12 }
}

@Suite("AVAssetImageDataProvider (ffmpeg)")
struct AVAssetImageDataProviderTests {
    @Test("the frame at a time: its size and its colour (red before 1 s, blue after)")
    func frameAtTime() async throws {
        try await withTemporaryDirectory { directory in
            let video = try makeRedThenBlueVideo(in: directory)
            let early = try KFCrossPlatformImage(
                decoding: await AVAssetImageDataProvider(assetURL: video, seconds: 0.4).data())
            let late = try KFCrossPlatformImage(
                decoding: await AVAssetImageDataProvider(assetURL: video, seconds: 1.6).data())
            #expect(early.pixelWidth == 64 && early.pixelHeight == 48)
            #expect(isClose(centre(of: early), to: [255, 0, 0]), "\(centre(of: early))")
            #expect(isClose(centre(of: late), to: [0, 0, 255]), "\(centre(of: late))")
        }
    }

    @Test("the cache key is Kingfisher's: the URL's cache key, then the time in seconds at a timescale of 600")
    func cacheKeyIsKingfishers() {
        let file = URL(fileURLWithPath: "/videos/clip.mp4")
        #expect(AVAssetImageDataProvider(assetURL: file, seconds: 2).cacheKey == file.cacheKey + "_2.0")
        #expect(file.cacheKey.hasPrefix("kingfisher.local.cacheKey"))
        let remote = URL(string: "https://example.com/v.mp4")!
        #expect(AVAssetImageDataProvider(assetURL: remote, seconds: 1.5).cacheKey == "https://example.com/v.mp4_1.5")
        // CMTime(seconds:preferredTimescale: 600) keeps whole 600ths of a second
        #expect(
            AVAssetImageDataProvider(assetURL: remote, seconds: 0.1234).cacheKey
                == "https://example.com/v.mp4_\(74.0 / 600)")
    }

    @Test("over HTTP through the manager, cached under the URL and the time")
    func throughManagerOverHTTP() async throws {
        try await withManager { f in
            let video = try makeRedThenBlueVideo(in: f.directory)
            f.server.route("/clip.mp4", .ok(try Data(contentsOf: video), contentType: "video/mp4"))
            let provider = AVAssetImageDataProvider(assetURL: f.server.url("/clip.mp4"), seconds: 1.5)
            #expect(provider.cacheKey == f.server.url("/clip.mp4").cacheKey + "_1.5")
            let first = try await f.manager.retrieveImage(with: .provider(provider), options: [.waitForCache])
            #expect(first.cacheType == .none)
            #expect(isClose(centre(of: first.image), to: [0, 0, 255]))
            let hits = f.server.hits("/clip.mp4")
            #expect(hits >= 1)
            f.cache.clearMemoryCache()
            let second = try await f.manager.retrieveImage(with: .provider(provider))
            #expect(second.cacheType == .disk)
            #expect(f.server.hits("/clip.mp4") == hits)
        }
    }

    @Test("a time past the end, a file that is not a video, a missing ffmpeg: a clear error each")
    func badInput() async throws {
        try await withTemporaryDirectory { directory in
            let video = try makeRedThenBlueVideo(in: directory)
            await #expect(throws: AVAssetImageDataProvider.ProviderError.noFrame(seconds: 30)) {
                _ = try await AVAssetImageDataProvider(assetURL: video, seconds: 30).data()
            }
            await #expect(throws: AVAssetImageDataProvider.ProviderError.invalidTime(-1)) {
                _ = try await AVAssetImageDataProvider(assetURL: video, seconds: -1).data()
            }
            let text = directory.appendingPathComponent("notes.mp4")
            try Data("this is not a video".utf8).write(to: text)
            do {
                _ = try await AVAssetImageDataProvider(assetURL: text, seconds: 0).data()
                Issue.record("a text file gave a frame")
            } catch let error as AVAssetImageDataProvider.ProviderError {
                guard case .ffmpegFailed(let status, let message) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(status != 0 && !message.isEmpty)
            }
            var missing = AVAssetImageDataProvider(assetURL: video, seconds: 0)
            missing.ffmpegURL = directory.appendingPathComponent("no-ffmpeg-here")
            await #expect(throws: AVAssetImageDataProvider.ProviderError.ffmpegMissing(missing.ffmpegURL)) {
                _ = try await missing.data()
            }
        }
    }

    @Test("through the manager a failure is a dataProviderError whose description says why")
    func managerError() async throws {
        try await withManager { f in
            let video = try makeRedThenBlueVideo(in: f.directory)
            let provider = AVAssetImageDataProvider(assetURL: video, seconds: 99)
            do {
                _ = try await f.manager.retrieveImage(with: .provider(provider))
                Issue.record("a frame past the end was delivered")
            } catch let error as KingfisherError {
                guard case .imageSettingError(.dataProviderError(_, let underlying)) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(underlying as? AVAssetImageDataProvider.ProviderError == .noFrame(seconds: 99))
                #expect(error.errorDescription?.contains("no frame at 99") == true, "\(error)")
            }
        }
    }

    @Test("cancelling stops ffmpeg: a download the server holds ends at once with Kingfisher's userCancelled")
    func cancel() async throws {
        try await withDownloader { server, _ in
            server.route("/held.mp4", TestHTTPServer.Route(body: Data(repeating: 0, count: 1000), held: true))
            var provider = AVAssetImageDataProvider(assetURL: server.url("/held.mp4"), seconds: 1)
            provider.timeout = 20  // without the cancel ffmpeg would wait this long and end timedOut
            let task = Task { try await provider.data() }
            await server.waitForRequests("/held.mp4")
            task.cancel()
            let result = await task.result
            server.release("/held.mp4")
            guard case .failure(let error) = result else {
                Issue.record("a held download produced a frame")
                return
            }
            guard case .userCancelled = error as? AVAssetImageDataProvider.AVAssetImageDataProviderError else {
                Issue.record("expected userCancelled, got \(error)")
                return
            }
        }
    }
}
