import Foundation
import KingfisherTestSupport
import KingfisherLocking
import XCTest

@testable import Kingfisher

/// `.progressiveJPEG` on an image target: previews shown before the image, as `onImageUpdated`'s strategy says.
final class ImageTargetProgressiveTests: XCTestCase {
    private final class Owner: Sendable {}

    /// 320 x 240, ten scans, sent in 1 KB pieces 10 ms apart.
    private let photo = Fixtures.texturedJPEG(width: 320, height: 240)
    private let placeholder = Fixtures.gradient(width: 8, height: 8)

    private func servePaced(_ server: TestHTTPServer) -> URL {
        server.route(
            "/photo.jpg",
            TestHTTPServer.Route(
                body: photo, chunkSize: 1024, delayBetweenChunks: .milliseconds(10),
                contentLength: Int64(photo.count)))
        return server.url("/photo.jpg")
    }

    /// Loads `url` into `target` through the builder and waits for the result.
    private func load(
        _ url: URL, into target: RecordingTarget, manager: KingfisherManager, progressive: ImageProgressive
    ) async -> Result<RetrieveImageResult, KingfisherError> {
        await withSanitizedCheckedContinuation { continuation in
            KF.url(url)
                .manager(manager)
                .placeholder(placeholder)
                .progressiveJPEG(progressive)
                .onSuccess { continuation.resume(returning: .success($0)) }
                .onFailure { continuation.resume(returning: .failure($0)) }
                .set(to: target)
        }
    }

    /// Counts `onImageUpdated` calls and answers `strategy`.
    private func answering(
        _ strategy: ImageProgressive.UpdatingStrategy, calls: ResultlessCounter, owner: Owner
    ) -> ImageProgressive {
        let progressive = ImageProgressive(isBlur: true, isFastestScan: false, scanInterval: 0)
        progressive.onImageUpdated.delegate(on: owner) { _, _ in
            calls.increment()
            return strategy
        }
        return progressive
    }

    func testDefaultStrategyShowsEachPreviewThenTheImage() async throws {
        try await withManager { f in
            let target = RecordingTarget()
            let result = await load(
                servePaced(f.server), into: target, manager: f.manager,
                progressive: ImageProgressive(isBlur: false, isFastestScan: false, scanInterval: 0))
            XCTAssertNotNil(try? result.get())
            let events = target.log.all
            XCTAssertEqual(events.first, .image("8x8"), "the placeholder first")
            XCTAssertEqual(events.last, .image("320x240"), "the image last")
            let shown = events.filter { $0 == .image("320x240") }.count
            XCTAssertGreaterThanOrEqual(shown, 3, "previews, then the image: \(events)")
        }
    }

    func testKeepCurrentLeavesThePlaceholderUntilTheImage() async throws {
        try await withManager { f in
            let calls = ResultlessCounter()
            let owner = Owner()
            let target = RecordingTarget()
            let result = await load(
                servePaced(f.server), into: target, manager: f.manager,
                progressive: answering(.keepCurrent, calls: calls, owner: owner))
            XCTAssertNotNil(try? result.get())
            XCTAssertGreaterThanOrEqual(calls.count, 1, "previews were offered")
            XCTAssertEqual(target.log.all, [.image("8x8"), .image("320x240")])
        }
    }

    func testReplaceShowsTheGivenImageInsteadOfThePreview() async throws {
        try await withManager { f in
            let calls = ResultlessCounter()
            let owner = Owner()
            let standIn = Fixtures.gradient(width: 5, height: 5)
            let target = RecordingTarget()
            let result = await load(
                servePaced(f.server), into: target, manager: f.manager,
                progressive: answering(.replace(standIn), calls: calls, owner: owner))
            XCTAssertNotNil(try? result.get())
            let events = target.log.all
            let previews = calls.count
            XCTAssertGreaterThanOrEqual(previews, 1)
            XCTAssertEqual(
                events, [.image("8x8")] + Array(repeating: .image("5x5"), count: previews) + [.image("320x240")])
        }
    }

    func testCancellingTheTargetsLoadStopsItsPreviews() async throws {
        try await withManager { f in
            let url = f.server.url("/slow.jpg")
            f.server.route(
                "/slow.jpg",
                TestHTTPServer.Route(
                    body: photo, chunkSize: 256, delayBetweenChunks: .milliseconds(20),
                    contentLength: Int64(photo.count)))
            let owner = Owner()
            let firstPreview = ResultlessCounter()
            let progressive = ImageProgressive(isBlur: false, isFastestScan: false, scanInterval: 0)
            progressive.onImageUpdated.delegate(on: owner) { _, _ in
                firstPreview.increment()
                return .default
            }
            let target = RecordingTarget()
            let done = ResultlessCounter()
            let outcome = Locked<KingfisherError?>(nil)
            let downloads = DownloadEnds()
            f.downloader.delegate = downloads
            KF.url(url).manager(f.manager).progressiveJPEG(progressive)
                .onFailure { error in
                    outcome.withLock { $0 = error }
                    done.increment()
                }
                .set(to: target)
            await firstPreview.wait(for: 1)
            target.kf.cancelDownloadTask()
            await done.wait(for: 1)
            XCTAssertEqual(outcome.withLock { $0?.isTaskCancelled }, true)
            let settled = target.log.all
            // Once the download has ended (its previewer submits nothing more), its preview jobs have ended, and the
            // target's actions queued by them have run, nothing more can be shown.
            await downloads.ended.wait(for: 1)
            await PreviewsSettled.drain(f.manager)
            await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                target.kingfisherState.actions.submit { continuation.resume() }
            }
            XCTAssertEqual(target.log.all, settled, "nothing shown after the cancel")
            XCTAssertLessThanOrEqual(firstPreview.count, 2)
        }
    }
}
