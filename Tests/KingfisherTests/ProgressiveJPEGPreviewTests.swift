import Foundation
import KingfisherTestSupport
import KingfisherLocking
import XCTest

@testable import Kingfisher

/// `.progressiveJPEG`: previews of a progressive JPEG while it downloads, from the loopback server sending the file
/// in paced pieces so that its scans arrive one after another.
final class ProgressiveJPEGPreviewTests: XCTestCase {
    /// An object for `Delegate.delegate(on:)` to hold weakly.
    private final class Owner: Sendable {}

    /// Previews seen by `onImageUpdated`, with when they came, and the final result's arrival.
    private final class Timeline: Sendable {
        enum Event: Equatable {
            case preview(width: Int)
            case final
        }
        private let state = Locked<[(Event, ContinuousClock.Instant)]>([])
        func record(_ event: Event) { state.withLock { $0.append((event, .now)) } }
        var events: [Event] { state.withLock { $0.map(\.0) } }
        var previewTimes: [ContinuousClock.Instant] {
            state.withLock { $0.filter { $0.0 != .final }.map(\.1) }
        }
        var previewCount: Int { state.withLock { $0.filter { $0.0 != .final }.count } }
    }

    /// The textured photo-like progressive JPEG of the tests (10 scans, about 40 KB).
    private let photo = Fixtures.texturedJPEG(width: 320, height: 240)

    /// `data` in pieces of `piece` bytes, `pause` apart, with a true `Content-Length`.
    private func paced(_ data: Data, piece: Int = 1024, pause: Duration = .milliseconds(10)) -> TestHTTPServer.Route {
        TestHTTPServer.Route(
            body: data, chunkSize: piece, delayBetweenChunks: pause, contentLength: Int64(data.count))
    }

    private func delegateRecording(
        _ progressive: ImageProgressive, into timeline: Timeline, owner: Owner,
        answer: ImageProgressive.UpdatingStrategy = .default
    ) {
        progressive.onImageUpdated.delegate(on: owner) { _, preview in
            timeline.record(.preview(width: preview.pixelWidth))
            return answer
        }
    }

    /// Mean absolute difference of two images' RGBA bytes (0...255), which must have the same pixel size.
    private func meanDifference(_ a: KFCrossPlatformImage, _ b: KFCrossPlatformImage) -> Double {
        let (left, right) = (a.kf.rgbaPixels(), b.kf.rgbaPixels())
        XCTAssertEqual(left.count, right.count)
        let total = zip(left, right).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        return Double(total) / Double(max(1, left.count))
    }

    func testPreviewsArriveBeforeTheImageWithMoreDetailEachTime() async throws {
        try await withManager { fixture in
            fixture.server.route("/photo.jpg", paced(photo))
            let progressive = ImageProgressive(isBlur: false, isFastestScan: false, scanInterval: 0)
            let task = fixture.manager.retrievalTask(
                with: fixture.server.url("/photo.jpg"), options: [.progressiveJPEG(progressive)])
            var previews: [KFCrossPlatformImage] = []
            for await preview in task.previews { previews.append(preview) }
            let result = try await task.result

            XCTAssertEqual(result.cacheType, .none)
            XCTAssertGreaterThanOrEqual(previews.count, 3, "one preview per scan, bar those that came together")
            for preview in previews {
                XCTAssertEqual(preview.size, result.image.size)
            }
            let differences = previews.map { meanDifference($0, result.image) }
            XCTAssertGreaterThan(differences[0], 2 * differences[differences.count - 1], "\(differences)")
            for (earlier, later) in zip(differences, differences.dropFirst()) {
                XCTAssertLessThanOrEqual(later, earlier + 0.5, "a later scan adds detail: \(differences)")
            }
        }
    }

    func testOnImageUpdatedSeesEveryPreviewBeforeTheCompletionHandler() async throws {
        try await withManager { fixture in
            fixture.server.route("/photo.jpg", paced(photo))
            let progressive = ImageProgressive()
            let timeline = Timeline()
            let owner = Owner()
            delegateRecording(progressive, into: timeline, owner: owner)
            let result = await withSanitizedCheckedContinuation { continuation in
                fixture.manager.retrieveImage(
                    with: fixture.server.url("/photo.jpg"), options: [.progressiveJPEG(progressive)]
                ) { result in
                    timeline.record(.final)
                    continuation.resume(returning: result)
                }
            }
            XCTAssertNotNil(try? result.get())
            // Nothing may follow the result: once the preview jobs queued before now have ended (the download's
            // body is done, so no more are submitted), none can come.
            await PreviewsSettled.drain(fixture.manager)
            let events = timeline.events
            XCTAssertGreaterThanOrEqual(events.count, 2, "\(events)")
            XCTAssertEqual(events.last, .final, "\(events)")
            XCTAssertEqual(events.filter { $0 == .final }.count, 1)
            withExtendedLifetime(owner) {}
        }
    }

    func testTheDownloaderAloneCallsOnImageUpdated() async throws {
        try await withDownloader { server, downloader in
            server.route("/photo.jpg", paced(photo))
            let progressive = ImageProgressive(isBlur: true, isFastestScan: true, scanInterval: 0)
            let timeline = Timeline()
            let owner = Owner()
            delegateRecording(progressive, into: timeline, owner: owner)
            let result = await downloader.result(server.url("/photo.jpg"), options: [.progressiveJPEG(progressive)])
            timeline.record(.final)
            XCTAssertNotNil(try? result.get())
            XCTAssertGreaterThanOrEqual(timeline.previewCount, 1)
            XCTAssertEqual(timeline.events.last, .final)
            withExtendedLifetime(owner) {}
        }
    }

    func testScanIntervalSpacesThePreviews() async throws {
        try await withManager { fixture in
            // About 1.2 s of download, its scans arriving every few tens of milliseconds.
            fixture.server.route("/photo.jpg", paced(photo, piece: 512, pause: .milliseconds(15)))
            let interval = 0.25
            let progressive = ImageProgressive(isBlur: false, isFastestScan: true, scanInterval: interval)
            let timeline = Timeline()
            let owner = Owner()
            delegateRecording(progressive, into: timeline, owner: owner)
            let start = ContinuousClock.now
            let task = fixture.manager.retrievalTask(
                with: fixture.server.url("/photo.jpg"), options: [.progressiveJPEG(progressive)])
            _ = try await task.result
            let elapsed = (ContinuousClock.now - start) / .seconds(1)

            let times = timeline.previewTimes
            XCTAssertGreaterThanOrEqual(times.count, 2, "the download is long enough for several previews")
            XCTAssertLessThanOrEqual(Double(times.count), elapsed / interval + 1)
            for (earlier, later) in zip(times, times.dropFirst()) {
                XCTAssertGreaterThanOrEqual((later - earlier) / .seconds(1), interval - 0.005)
            }
            withExtendedLifetime(owner) {}
        }
    }

    func testCancellingStopsThePreviews() async throws {
        try await withManager { fixture in
            // About 3 s of download: plenty of scans left when the first preview arrives.
            fixture.server.route("/photo.jpg", paced(photo, piece: 256, pause: .milliseconds(20)))
            let progressive = ImageProgressive(isBlur: false, isFastestScan: false, scanInterval: 0)
            let timeline = Timeline()
            let owner = Owner()
            delegateRecording(progressive, into: timeline, owner: owner)
            let downloads = DownloadEnds()
            fixture.downloader.delegate = downloads
            let task = fixture.manager.retrievalTask(
                with: fixture.server.url("/photo.jpg"), options: [.progressiveJPEG(progressive)])
            var iterator = task.previews.makeAsyncIterator()
            let first = await iterator.next()
            XCTAssertNotNil(first)
            task.cancel()
            let seenAtCancel = timeline.previewCount
            let afterCancel = await iterator.next()
            XCTAssertNil(afterCancel, "the stream ends with the cancel")
            do {
                _ = try await task.result
                XCTFail("a cancelled retrieval has no result")
            } catch let error as KingfisherError {
                XCTAssertTrue(error.isTaskCancelled, "\(error)")
            }
            // Once the download has ended (its previewer submits nothing more once its body has ended) and the
            // preview jobs it queued have ended, no preview can come: none showed after the cancel.
            await downloads.ended.wait(for: 1)
            await PreviewsSettled.drain(fixture.manager)
            XCTAssertEqual(timeline.previewCount, seenAtCancel)
            withExtendedLifetime(owner) {}
        }
    }

    func testBaselineJPEGsAndOtherFormatsGetNoPreviews() async throws {
        try await withManager { fixture in
            let files = [
                "baseline.jpg": Fixtures.texturedJPEG(width: 320, height: 240, progressive: false),
                "image.png": Fixtures.png(width: 200, height: 150),
            ]
            for (name, data) in files {
                fixture.server.route("/\(name)", paced(data))
                let timeline = Timeline()
                let owner = Owner()
                let progressive = ImageProgressive(isBlur: false, isFastestScan: false, scanInterval: 0)
                delegateRecording(progressive, into: timeline, owner: owner)
                let task = fixture.manager.retrievalTask(
                    with: fixture.server.url("/\(name)"), options: [.progressiveJPEG(progressive)])
                var previews = 0
                for await _ in task.previews { previews += 1 }
                let result = try await task.result
                XCTAssertGreaterThan(result.image.pixelWidth, 0)
                XCTAssertEqual(previews, 0, name)
                XCTAssertEqual(timeline.previewCount, 0, name)
                withExtendedLifetime(owner) {}
            }
        }
    }

    func testADownsamplingProcessorShapesThePreviews() async throws {
        try await withManager { fixture in
            fixture.server.route("/photo.jpg", paced(photo))
            let processor = DownsamplingImageProcessor(size: CGSize(width: 80, height: 80))
            let task = fixture.manager.retrievalTask(
                with: fixture.server.url("/photo.jpg"),
                options: [
                    .processor(processor),
                    .progressiveJPEG(ImageProgressive(isBlur: true, isFastestScan: false, scanInterval: 0)),
                ])
            var sizes: [String] = []
            for await preview in task.previews { sizes.append("\(preview.pixelWidth)x\(preview.pixelHeight)") }
            let result = try await task.result
            XCTAssertEqual(result.image.pixelWidth, 80)
            XCTAssertFalse(sizes.isEmpty)
            XCTAssertEqual(Set(sizes), ["80x60"])
        }
    }

    func testALargePhotoPreviewIsDecodedSmallWithTheFinalSizeInPoints() async throws {
        try await withManager { fixture in
            let large = Fixtures.texturedJPEG(width: 1600, height: 1200)
            fixture.server.route("/large.jpg", paced(large, piece: 16 * 1024, pause: .milliseconds(10)))
            let task = fixture.manager.retrievalTask(
                with: fixture.server.url("/large.jpg"),
                options: [
                    .scaleFactor(2),
                    .progressiveJPEG(ImageProgressive(isBlur: false, isFastestScan: true, scanInterval: 0)),
                ])
            var previews: [KFCrossPlatformImage] = []
            for await preview in task.previews { previews.append(preview) }
            let result = try await task.result
            XCTAssertEqual(result.image.size, CGSize(width: 800, height: 600))
            XCTAssertFalse(previews.isEmpty)
            for preview in previews {
                XCTAssertEqual(max(preview.pixelWidth, preview.pixelHeight), ImageProgressive.previewPixelSize)
                XCTAssertEqual(preview.size.width, 800, accuracy: 1)
                XCTAssertEqual(preview.size.height, 600, accuracy: 1)
            }
        }
    }
}
