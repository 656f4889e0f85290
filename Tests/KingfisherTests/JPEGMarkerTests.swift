import Foundation
import Kingfisher
import XCTest

/// `ImageFormat.JPEGMarker` and `Data.kf.contains(jpeg:)`.
final class JPEGMarkerTests: XCTestCase {
    /// `jpeg` with `segment` inserted right after its SOI marker.
    private func inserting(_ segment: [UInt8], into jpeg: Data) -> Data {
        var bytes = [UInt8](jpeg)
        bytes.insert(contentsOf: segment, at: 2)
        return Data(bytes)
    }

    /// A segment with `marker` and `payload` (its length field counts itself).
    private func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    func testABaselineJPEGHasItsSegmentsAndNoProgressiveFrame() {
        let jpeg = Fixtures.jpeg()
        for marker: ImageFormat.JPEGMarker in [.SOF0, .DHT, .DQT, .SOS, .EOI] {
            XCTAssertTrue(jpeg.kf.contains(jpeg: marker), "\(marker)")
        }
        for marker: ImageFormat.JPEGMarker in [.SOF2, .DRI, .COM, .RSTn(0)] {
            XCTAssertFalse(jpeg.kf.contains(jpeg: marker), "\(marker)")
        }
    }

    func testAProgressiveJPEGHasSOF2() {
        let progressive = Fixtures.progressiveJPEG()
        XCTAssertTrue(progressive.kf.contains(jpeg: .SOF2))
        XCTAssertFalse(progressive.kf.contains(jpeg: .SOF0))
    }

    func testMarkerBytesInsideASegmentDoNotCount() {
        // An APP1 segment (as an EXIF thumbnail would) holding the bytes of SOF2 and of a comment marker
        let jpeg = inserting(segment(0xE1, [0xFF, 0xC2, 0x00, 0x11, 0xFF, 0xFE]), into: Fixtures.jpeg())
        XCTAssertFalse(jpeg.kf.contains(jpeg: .SOF2))
        XCTAssertFalse(jpeg.kf.contains(jpeg: .COM))
        XCTAssertTrue(jpeg.kf.contains(jpeg: .APPn))
        XCTAssertNotNil(KFCrossPlatformImage(data: jpeg), "the file is still a valid JPEG")
    }

    func testACommentSegmentIsFoundAndOtherFormatsHaveNoMarkers() {
        let commented = inserting(segment(0xFE, Array("hello".utf8)), into: Fixtures.jpeg())
        XCTAssertTrue(commented.kf.contains(jpeg: .COM))
        XCTAssertFalse(Fixtures.png().kf.contains(jpeg: .SOF0))
        XCTAssertFalse(Data([0xFF, 0xD8]).kf.contains(jpeg: .EOI), "a cut-off header has nothing")
        XCTAssertEqual(ImageFormat.JPEGMarker.SOF2.bytes, [0xFF, 0xC2])
        XCTAssertEqual(ImageFormat.JPEGMarker.RSTn(3).bytes, [0xFF, 0xD3])
    }
}
