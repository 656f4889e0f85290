import Foundation
import Kingfisher
import KingfisherTestSupport
import KingfisherLocking
import XCTest

/// What the manager does to a cache hit before handing it out, as Kingfisher does: a memory hit made with other
/// image-creating options is made again from its animated data (Kingfisher #1923), and a disk hit of a serializer
/// that keeps the original data is processed (the disk holds the unprocessed bytes).
final class KingfisherManagerCacheHitPreparationTests: XCTestCase {
    private let gif: Data = {
        let colors: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]]
        let animation = Fixtures.animation(colors: colors, durations: [0.1, 0.1, 0.1])
        return animation.kf.gifRepresentation()!
    }()

    func testAnAnimationInMemoryIsServedAsItsFirstFrameWhenOnlyTheFirstFrameIsAsked() async throws {
        try await withManager { f in
            // Given an animated GIF retrieved with every frame, so memory holds the animation
            f.server.route("/a.gif", .ok(gif, contentType: "image/gif"))
            let url = f.server.url("/a.gif")
            let full = try await f.manager.retrieveImage(with: url)
            XCTAssertEqual(full.image.kf.imageFrameCount, 3)
            // When it is asked for with `onlyLoadFirstFrame`
            let first = try await f.manager.retrieveImage(with: url, options: [.onlyLoadFirstFrame])
            // Then it is a memory hit made again as a still image of the first frame, without a download
            XCTAssertEqual(first.cacheType, .memory)
            XCTAssertNil(first.image.kf.images)
            XCTAssertEqual(first.image.kf.frameDurations, [])
            XCTAssertEqual(first.image.kf.imageFrameCount, 3, "as in Kingfisher, it says how many frames the data has")
            XCTAssertEqual(first.image.kf.size, full.image.kf.size)
            XCTAssertEqual(f.server.hits("/a.gif"), 1)
            // And what memory holds is unchanged: asked again with every frame, the animation comes back as is
            let again = try await f.manager.retrieveImage(with: url)
            XCTAssertEqual(again.cacheType, .memory)
            XCTAssertTrue(again.image === full.image)
        }
    }

    func testAFirstFrameInMemoryIsServedAsTheWholeAnimationWhenEveryFrameIsAsked() async throws {
        try await withManager { f in
            // Given an animated GIF retrieved with `onlyLoadFirstFrame`, so memory holds a still image
            f.server.route("/a.gif", .ok(gif, contentType: "image/gif"))
            let url = f.server.url("/a.gif")
            let first = try await f.manager.retrieveImage(with: url, options: [.onlyLoadFirstFrame])
            XCTAssertNil(first.image.kf.images)
            XCTAssertEqual(first.image.kf.animatedImageData, gif, "the first frame keeps the animation's bytes")
            // When it is asked for without the option, through the callback API as well
            let full = try await f.manager.retrieveImage(with: url)
            let callback = try await f.manager.callbackResult(.network(url)).get()
            // Then it is a memory hit made again from those bytes with all three frames and their timing
            for result in [full, callback] {
                XCTAssertEqual(result.cacheType, .memory)
                XCTAssertEqual(result.image.kf.imageFrameCount, 3)
                XCTAssertEqual(result.image.kf.frameDurations, [0.1, 0.1, 0.1])
            }
            XCTAssertEqual(f.server.hits("/a.gif"), 1)
        }
    }

    func testAMemoryHitWithTheSameOptionsIsTheStoredImageItself() async throws {
        try await withManager { f in
            f.server.route("/a.gif", .ok(gif, contentType: "image/gif"))
            let url = f.server.url("/a.gif")
            let stored = try await f.manager.retrieveImage(with: url, options: [.onlyLoadFirstFrame])
            let hit = try await f.manager.retrieveImage(with: url, options: [.onlyLoadFirstFrame])
            XCTAssertEqual(hit.cacheType, .memory)
            XCTAssertTrue(hit.image === stored.image)
        }
    }

    func testADiskHitOfAnOriginalDataSerializerIsProcessedAgain() async throws {
        try await withManager { f in
            // Given a 64x48 PNG retrieved through a resizing processor with a serializer that keeps original data
            let png = Fixtures.png(width: 64, height: 48)
            f.server.route("/a.png", .ok(png, contentType: "image/png"))
            let url = f.server.url("/a.png")
            var serializer = DefaultCacheSerializer()
            serializer.preferCacheOriginalData = true
            let processor = ResizingImageProcessor(referenceSize: CGSize(width: 16, height: 12))
            let options: KingfisherOptionsInfo = [.processor(processor), .cacheSerializer(serializer), .waitForCache]
            let downloaded = try await f.manager.retrieveImage(with: url, options: options)
            XCTAssertEqual(downloaded.image.kf.size, CGSize(width: 16, height: 12))
            // The disk holds the original bytes under the processed key
            let path = f.cache.cachePath(forKey: url.cacheKey, processorIdentifier: processor.identifier)
            XCTAssertEqual(FileManager.default.contents(atPath: path), png)
            // When memory is emptied and the image is retrieved again
            f.cache.clearMemoryCache()
            let fromDisk = try await f.manager.retrieveImage(with: url, options: options)
            // Then the disk hit is processed: the result is what was asked, not the 64x48 original
            XCTAssertEqual(fromDisk.cacheType, .disk)
            XCTAssertEqual(fromDisk.image.kf.size, CGSize(width: 16, height: 12))
            // And memory now holds the processed image, served as is
            let fromMemory = try await f.manager.retrieveImage(with: url, options: options)
            XCTAssertEqual(fromMemory.cacheType, .memory)
            XCTAssertEqual(fromMemory.image.kf.size, CGSize(width: 16, height: 12))
            XCTAssertEqual(f.server.hits("/a.png"), 1)
        }
    }

    func testADiskHitOfAReencodingSerializerIsNotProcessedAgain() async throws {
        try await withManager { f in
            // Given the default serializer (it stores the processed image) and a processor that counts its runs
            let png = Fixtures.png(width: 64, height: 48)
            f.server.route("/a.png", .ok(png, contentType: "image/png"))
            let url = f.server.url("/a.png")
            let processor = CountingResizer()
            _ = try await f.manager.retrieveImage(with: url, options: [.processor(processor), .waitForCache])
            XCTAssertEqual(processor.runs, 1)
            f.cache.clearMemoryCache()
            // When the disk hit is read, it is the stored processed image, not processed again
            let fromDisk = try await f.manager.retrieveImage(with: url, options: [.processor(processor)])
            XCTAssertEqual(fromDisk.cacheType, .disk)
            XCTAssertEqual(fromDisk.image.kf.size, CGSize(width: 16, height: 12))
            XCTAssertEqual(processor.runs, 1)
        }
    }
}

/// Resizes to 16x12 and counts how often it ran.
private final class CountingResizer: ImageProcessor {
    let identifier = "test.CountingResizer"
    private let count = Locked(0)

    var runs: Int { count.withLock { $0 } }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        count.withLock { $0 += 1 }
        return ResizingImageProcessor(referenceSize: CGSize(width: 16, height: 12)).process(
            item: item, options: options)
    }
}
