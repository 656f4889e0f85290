// swift-format-ignore-file: OnlyOneTrailingClosureArgument
// (Kingfisher's tests pass a progress block and a trailing completion handler; kept so.)

import Foundation
import XCTest

@testable import Kingfisher
@testable import KingfisherGTK

// Kingfisher 8.11's `NSButtonExtensionTests` on `KFButton` (a GTK 4 toggle button with an image and an alternate
// image, as `NSButton`), written from Kingfisher's tests and documented behaviour, with the changes Linux forces
// that `ImageViewExtensionTests.swift` lists. (`UIButton`'s tests ask for images per `UIControl.State`, which GTK
// buttons do not have.)

// @unchecked: XCTest runs each test and its handlers' checks on the main thread, where `button` is set.
final class ButtonExtensionTests: KingfisherViewTestCase, @unchecked Sendable {
    var button: KFButton!

    override func setUpWithError() throws {
        try super.setUpWithError()
        button = KFButton()
    }

    override func tearDownWithError() throws {
        button = nil
        try super.tearDownWithError()
    }

    func testDownloadAndSetImage() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData, length: 123)

        let progressBlockIsCalled = Flag()

        button.kf.setImage(with: url, progressBlock: { _, _ in progressBlockIsCalled.set() }) { result in
            XCTAssertTrue(progressBlockIsCalled.isSet)

            let image = result.value?.image
            XCTAssertNotNil(image)
            XCTAssertTrue(image!.renderEqual(to: testImage))
            XCTAssertTrue(self.button.image!.renderEqual(to: testImage))
            XCTAssertEqual(result.value!.cacheType, .none)

            exp.fulfill()
        }
        waitForExpectations(timeout: timeout)
    }

    func testDownloadAndSetAlternateImage() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData, length: 123)

        let progressBlockIsCalled = Flag()
        button.kf.setAlternateImage(with: url, progressBlock: { _, _ in progressBlockIsCalled.set() }) { result in
            XCTAssertTrue(progressBlockIsCalled.isSet)

            let image = result.value?.image
            XCTAssertNotNil(image)
            XCTAssertTrue(image!.renderEqual(to: testImage))
            XCTAssertTrue(self.button.alternateImage!.renderEqual(to: testImage))
            XCTAssertEqual(result.value!.cacheType, .none)

            exp.fulfill()
        }
        waitForExpectations(timeout: timeout)
    }

    func testCacnelImageTask() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        let stub = delayedStub(url, data: testImageData)

        button.kf.setImage(with: url) { result in
            XCTAssertNotNil(result.error)
            XCTAssertTrue(result.error!.isTaskCancelled)
            delay(0.1) { exp.fulfill() }
        }

        self.button.kf.cancelImageDownloadTask()
        _ = stub.go()

        waitForExpectations(timeout: timeout)
    }

    func testCacnelAlternateImageTask() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        let stub = delayedStub(url, data: testImageData)

        button.kf.setAlternateImage(with: url) { result in
            XCTAssertNotNil(result.error)
            XCTAssertTrue(result.error!.isTaskCancelled)
            delay(0.1) { exp.fulfill() }
        }

        self.button.kf.cancelAlternateImageDownloadTask()
        _ = stub.go()

        waitForExpectations(timeout: timeout)
    }

    func testSettingNilURL() {
        let exp = expectation(description: #function)
        let url: URL? = nil
        button.kf.setAlternateImage(with: url, progressBlock: { _, _ in XCTFail() }) { result in
            XCTAssertNil(result.value)
            XCTAssertNotNil(result.error)

            guard case .imageSettingError(reason: .emptySource) = result.error! else {
                XCTFail()
                return
            }
            exp.fulfill()
        }

        waitForExpectations(timeout: timeout)
    }

    func testSettingNonWorkingImageWithFailureImage() {
        let expectation = self.expectation(description: "wait for downloading image")
        let url = testURLs[0]
        stub(url, errorCode: 404)

        button.kf.setImage(with: url, options: [.onFailureImage(testImage)]) { (result) -> Void in
            XCTAssertNil(result.value)
            expectation.fulfill()
        }

        XCTAssertNil(button.image)
        waitForExpectations(timeout: timeout)
        XCTAssertEqual(testImage, button.image)
    }

    func testSettingNonWorkingAlternateImageWithFailureImage() {
        let expectation = self.expectation(description: "wait for downloading image")
        let url = testURLs[0]
        stub(url, errorCode: 404)

        button.kf.setAlternateImage(with: url, options: [.onFailureImage(testImage)]) { (result) -> Void in
            XCTAssertNil(result.value)
            expectation.fulfill()
        }

        XCTAssertNil(button.alternateImage)
        waitForExpectations(timeout: timeout)
        XCTAssertEqual(testImage, button.alternateImage)
    }

    func testCancelImageTaskCancelsDiskCacheRetrieval() throws {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        let cache = KingfisherManager.shared.cache
        // On disk only: the load is a disk hit, read, decoded and promoted to memory unless it is cancelled.
        try blocking { try await cache.store(testImage, original: testImageData, forKey: url.cacheKey) }
        cache.clearMemoryCache()
        XCTAssertEqual(cache.imageCachedType(forKey: url.cacheKey), .disk)

        // Linux: the cache's disk executor is held until the cancel, so that it comes before the disk read on any
        // machine.
        let diskHeld = DispatchSemaphore(value: 0)
        cache.diskStorage.io.submit(.exclusive) { diskHeld.wait() }
        button.kf.setImage(with: url) { result in
            XCTAssertNotNil(result.error)
            XCTAssertTrue(result.error!.isTaskCancelled)
            exp.fulfill()
        }
        button.kf.cancelImageDownloadTask()
        diskHeld.signal()

        waitForExpectations(timeout: timeout)
        XCTAssertNil(button.image)
        // The cancelled retrieval put nothing in memory.
        XCTAssertEqual(cache.imageCachedType(forKey: url.cacheKey), .disk)
    }

    func testSupersededDiskCachedAlternateImageDoesNotPromoteToMemory() throws {
        let exp = expectation(description: #function)
        let staleURL = testURLs[0]
        let currentURL = testURLs[1]
        let cache = KingfisherManager.shared.cache
        try blocking { try await cache.store(testImage, original: testImageData, forKey: staleURL.cacheKey) }
        cache.clearMemoryCache()
        stub(currentURL, data: testImageJEPGData)

        // Linux: the cache's disk executor is held until both loads are asked for, so that the first is superseded
        // before its disk read comes back on any machine (on a busy one the read once came back between the calls).
        let diskHeld = DispatchSemaphore(value: 0)
        cache.diskStorage.io.submit(.exclusive) { diskHeld.wait() }
        let group = DispatchGroup()
        group.enter()
        button.kf.setAlternateImage(with: staleURL) { result in
            // Superseded by the next load before its disk read came back.
            XCTAssertNotNil(result.error)
            XCTAssertTrue(result.error!.isNotCurrentTask)
            group.leave()
        }
        group.enter()
        button.kf.setAlternateImage(with: currentURL) { result in
            XCTAssertNotNil(result.value)
            group.leave()
        }
        diskHeld.signal()
        group.notify(queue: .main) { exp.fulfill() }
        waitForExpectations(timeout: timeout)

        let current = try XCTUnwrap(KFCrossPlatformImage(data: testImageJEPGData))
        XCTAssertTrue(button.alternateImage!.renderEqual(to: current))
        // The superseded image stays on disk only.
        XCTAssertEqual(cache.imageCachedType(forKey: staleURL.cacheKey), .disk)
    }

    /// Ours: the button shows its alternate image while it is on, its image while it is off.
    func testTheAlternateImageShowsWhileTheButtonIsOn() throws {
        let other = try XCTUnwrap(KFCrossPlatformImage(data: testImageJEPGData))
        button.image = testImage
        button.alternateImage = other
        XCTAssertTrue(button.face.image === testImage)
        button.isOn = true
        XCTAssertTrue(button.face.image === other)
        button.isOn = false
        XCTAssertTrue(button.face.image === testImage)
    }
}
