import Foundation
import Kingfisher
import XCTest

/// Kingfisher's geometry helpers on `CGSize.kf`.
final class CGSizeKingfisherTests: XCTestCase {
    func testResizeByContentMode() {
        let photo = CGSize(width: 400, height: 300)
        let box = CGSize(width: 100, height: 100)
        XCTAssertEqual(photo.kf.resize(to: box, for: .none), box)
        XCTAssertEqual(photo.kf.resize(to: box, for: .aspectFit), CGSize(width: 100, height: 75))
        XCTAssertEqual(photo.kf.resize(to: box, for: .aspectFill), CGSize(width: 133, height: 100))
        XCTAssertEqual(photo.kf.constrained(CGSize(width: 50, height: 200)), CGSize(width: 50, height: 38))
        XCTAssertEqual(photo.kf.filling(CGSize(width: 50, height: 200)), CGSize(width: 267, height: 200))
        XCTAssertEqual(CGSize(width: 10, height: 0).kf.constrained(box), box, "a zero height counts as square")
    }

    func testConstrainedRectPlacesTheSizeAtTheAnchorAndClipsIt() {
        let canvas = CGSize(width: 200, height: 100).kf
        let small = CGSize(width: 50, height: 20)
        XCTAssertEqual(canvas.constrainedRect(for: small, anchor: .zero), CGRect(x: 0, y: 0, width: 50, height: 20))
        XCTAssertEqual(
            canvas.constrainedRect(for: small, anchor: CGPoint(x: 0.5, y: 0.5)),
            CGRect(x: 75, y: 40, width: 50, height: 20))
        XCTAssertEqual(
            canvas.constrainedRect(for: small, anchor: CGPoint(x: 1, y: 1)),
            CGRect(x: 150, y: 80, width: 50, height: 20))
        // Larger than the canvas on one axis: clipped to it
        XCTAssertEqual(
            canvas.constrainedRect(for: CGSize(width: 300, height: 20), anchor: CGPoint(x: 0.5, y: 1)),
            CGRect(x: 0, y: 80, width: 200, height: 20))
        // Anchors outside 0...1 are clamped
        XCTAssertEqual(
            canvas.constrainedRect(for: small, anchor: CGPoint(x: -3, y: 7)),
            CGRect(x: 0, y: 80, width: 50, height: 20))
    }
}
