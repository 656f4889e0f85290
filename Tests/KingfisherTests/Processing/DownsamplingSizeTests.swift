import Foundation
import Kingfisher
import XCTest

/// `DownsamplingImageProcessor` sizes by Kingfisher's rule, the longer side of its size, for data and images
/// alike; `.zero` keeps the full image.
final class DownsamplingSizeTests: XCTestCase {
    private func sizes(
        _ processor: DownsamplingImageProcessor, data: Data, scale: CGFloat = 1
    ) throws -> (fromData: CGSize, fromImage: CGSize) {
        let options = processingOptions(scale: scale)
        let fromData = try XCTUnwrap(processor.process(item: .data(data), options: options))
        let image = try XCTUnwrap(KFCrossPlatformImage(data: data))
        let fromImage = try XCTUnwrap(processor.process(item: .image(image), options: options))
        XCTAssertEqual(fromData.scale, scale)
        XCTAssertEqual(fromImage.scale, scale)
        return (fromData.kf.size, fromImage.kf.size)
    }

    func testDataAndImagesGiveTheSameSizeFromTheLongerSide() throws {
        let cases: [(Data, CGSize, CGSize)] = [
            (Fixtures.png(width: 64, height: 48), CGSize(width: 20, height: 10), CGSize(width: 20, height: 15)),
            (Fixtures.png(width: 64, height: 48), CGSize(width: 10, height: 20), CGSize(width: 20, height: 15)),
            (Fixtures.jpeg(width: 48, height: 64), CGSize(width: 30, height: 30), CGSize(width: 23, height: 30)),
            (Fixtures.jpeg(width: 100, height: 30), CGSize(width: 7, height: 1), CGSize(width: 7, height: 2)),
        ]
        for (data, target, expected) in cases {
            let (fromData, fromImage) = try sizes(DownsamplingImageProcessor(size: target), data: data)
            XCTAssertEqual(fromData, expected, "data to \(target)")
            XCTAssertEqual(fromImage, expected, "image to \(target)")
        }
    }

    func testTheScaleFactorCountsAndNothingIsEnlarged() throws {
        let data = Fixtures.png(width: 64, height: 48)
        let (fromData, fromImage) = try sizes(
            DownsamplingImageProcessor(size: CGSize(width: 10, height: 10)), data: data, scale: 2)
        XCTAssertEqual(fromData, CGSize(width: 10, height: 7.5))
        XCTAssertEqual(fromImage, fromData)
        let larger = try sizes(DownsamplingImageProcessor(size: CGSize(width: 500, height: 500)), data: data)
        XCTAssertEqual(larger.fromData, CGSize(width: 64, height: 48))
        XCTAssertEqual(larger.fromImage, CGSize(width: 64, height: 48))
    }

    func testAZeroSizeKeepsTheFullImage() throws {
        let (fromData, fromImage) = try sizes(
            DownsamplingImageProcessor(size: .zero), data: Fixtures.jpeg(width: 64, height: 48))
        XCTAssertEqual(fromData, CGSize(width: 64, height: 48))
        XCTAssertEqual(fromImage, CGSize(width: 64, height: 48))
    }
}
