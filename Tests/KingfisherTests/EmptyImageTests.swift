import Foundation
import Kingfisher
import XCTest

/// `KFCrossPlatformImage()` (as `UIImage()`), identity `==` and `kf.normalized`.
final class EmptyImageTests: XCTestCase {
    func testAnEmptyImageHasNoSizeAndEncodesToNothing() {
        let empty = KFCrossPlatformImage()
        XCTAssertEqual(empty.size, .zero)
        XCTAssertEqual(empty.scale, 1)
        XCTAssertEqual(empty.pixelWidth, 0)
        XCTAssertEqual(empty.kf.cost, 0)
        XCTAssertNil(empty.kf.images)
        XCTAssertNil(empty.kf.imageFrameCount)
        XCTAssertNil(empty.kf.pngRepresentation())
        XCTAssertNil(empty.kf.jpegRepresentation(compressionQuality: 0.8))
        XCTAssertNil(empty.kf.gifRepresentation())
        XCTAssertEqual(empty.kf.rgbaPixels(), [])
        XCTAssertThrowsError(try empty.kf.encoded(as: .PNG)) { error in
            guard case .processorError(reason: .imageEncodingFailed(.PNG, _)) = error as? KingfisherError else {
                return XCTFail("expected imageEncodingFailed, got \(error)")
            }
        }
    }

    func testOperationsOnAnEmptyImageLeaveItOrFail() {
        let empty = KFCrossPlatformImage()
        XCTAssertTrue(empty.kf.resize(to: CGSize(width: 10, height: 10)) === empty)
        XCTAssertTrue(empty.kf.crop(to: CGSize(width: 1, height: 1), anchorOn: .zero) === empty)
        XCTAssertNil(RoundCornerImageProcessor(cornerRadius: 4).run(empty))
        XCTAssertNil(BlurImageProcessor(blurRadius: 2).run(empty))
        XCTAssertThrowsError(try KFCrossPlatformImage(frames: [empty], frameDurations: [0.1]))
    }

    func testEqualityIsIdentityAsForUIImage() throws {
        let png = Fixtures.png()
        let one = try XCTUnwrap(KFCrossPlatformImage(data: png))
        let other = try XCTUnwrap(KFCrossPlatformImage(data: png))
        XCTAssertEqual(one, one)
        XCTAssertNotEqual(one, other, "same pixels, different images")
        XCTAssertNotEqual(KFCrossPlatformImage(), KFCrossPlatformImage())
    }

    func testNormalizedIsTheImageItselfBecausePixelsAreAlwaysUpright() throws {
        // A JPEG whose EXIF orientation turns it a quarter (6): decoded upright, so nothing is left to normalise
        let turned = try XCTUnwrap(KFCrossPlatformImage(data: Fixtures.orientedJPEG(orientation: 6)))
        XCTAssertEqual(turned.kf.size, CGSize(width: 20, height: 40))
        XCTAssertTrue(turned.kf.normalized === turned)
        let gif = try Fixtures.animation(colors: [[255, 0, 0, 255], [0, 0, 255, 255]], durations: [0.1, 0.1])
            .kf.encoded(as: .GIF)
        let animated = try XCTUnwrap(KingfisherWrapper<KFCrossPlatformImage>.animatedImage(data: gif, options: .init()))
        XCTAssertEqual(animated.kf.normalized, animated)
        XCTAssertEqual(animated.kf.normalized.kf.images?.count, 2)
    }
}
