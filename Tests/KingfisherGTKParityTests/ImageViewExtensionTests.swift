// swift-format-ignore-file: OnlyOneTrailingClosureArgument
// (Kingfisher's tests pass a progress block and a trailing completion handler; kept so.)

import CGtk
import Foundation
import KingfisherLocking
import KingfisherTestSupport
import XCTest

@testable import Kingfisher
@testable import KingfisherGTK

// Kingfisher 8.11's `ImageViewExtensionTests` on `KFImageView` (a GTK 4 widget), written from Kingfisher's tests and
// documented behaviour. What Linux forces, and only that, differs from Kingfisher's: the view type (GTK widgets for
// `UIView` placeholders and indicator views), GTK on the main thread run by XCTest's waits, stubs as routes on a
// loopback server, pixel reads for `renderEqual`, `Flag` for captured `var`s (Swift 6 `@Sendable` handlers), and
// caches in temporary directories instead of the app's. Waits are generous (a busy machine is slow); no wait
// measures anything. Where this package differs by design, a test says so and names the row of
// docs/kingfisher-parity.md.

// @unchecked: XCTest runs each test and its handlers' checks on the main thread, where `imageView` is set.
final class ImageViewExtensionTests: KingfisherViewTestCase, @unchecked Sendable {
    var imageView: KFCrossPlatformImageView!

    override func setUpWithError() throws {
        try super.setUpWithError()
        imageView = KFCrossPlatformImageView()
    }

    override func tearDownWithError() throws {
        imageView = nil
        try super.tearDownWithError()
    }

    func testImageDownloadForImageView() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData, length: 123)

        let progressBlockIsCalled = Flag()

        imageView.kf.setImage(
            with: url,
            progressBlock: { _, _ in
                progressBlockIsCalled.set()
                XCTAssertTrue(Thread.isMainThread)
            }
        ) { result in
            XCTAssertTrue(progressBlockIsCalled.isSet)
            XCTAssertNotNil(result.value)

            let value = result.value!
            XCTAssertTrue(value.image.renderEqual(to: testImage))
            XCTAssertTrue(self.imageView.image!.renderEqual(to: testImage))

            XCTAssertEqual(value.cacheType, .none)
            XCTAssertTrue(Thread.isMainThread)
            exp.fulfill()
        }

        waitForExpectations(timeout: timeout)
    }

    func testImageDownloadCompletionHandlerRunningOnMainQueue() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData)

        let customQueue = DispatchQueue(label: "com.kingfisher.testQueue")
        imageView.kf.setImage(
            with: url,
            options: [.callbackQueue(.dispatch(customQueue))],
            progressBlock: { _, _ in XCTAssertTrue(Thread.isMainThread) }
        ) { result in
            XCTAssertTrue(Thread.isMainThread)
            exp.fulfill()
        }
        waitForExpectations(timeout: timeout)
    }

    func testImageDownloadWithResourceForImageView() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData, length: 123)

        let progressBlockIsCalled = Flag()

        let resource = KF.ImageResource(downloadURL: url)
        imageView.kf.setImage(
            with: resource,
            progressBlock: { _, _ in progressBlockIsCalled.set() }
        ) { result in
            XCTAssertTrue(progressBlockIsCalled.isSet)
            XCTAssertNotNil(result.value)

            let value = result.value!
            XCTAssertTrue(value.image.renderEqual(to: testImage))
            XCTAssertTrue(self.imageView.image!.renderEqual(to: testImage))

            XCTAssertEqual(value.cacheType, .none)
            XCTAssertTrue(Thread.isMainThread)

            exp.fulfill()
        }

        waitForExpectations(timeout: timeout)
    }

    func testImageDownloadCancelForImageView() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        let stub = delayedStub(url, data: testImageData)

        let task = imageView.kf.setImage(
            with: url,
            progressBlock: { _, _ in XCTFail() }
        ) { result in
            XCTAssertNotNil(result.error)
            delay(0.1) { exp.fulfill() }
        }

        XCTAssertNotNil(task)
        task?.cancel()
        _ = stub.go()
        waitForExpectations(timeout: timeout)
    }

    func testImageDownloadCancelPartialTaskBeforeRequest() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        let stub = delayedStub(url, data: testImageData)

        let group = DispatchGroup()

        group.enter()
        let task1 = KF.url(url)
            .onFailure { _ in group.leave() }
            .set(to: imageView)

        group.enter()
        KF.url(url)
            .onSuccess { _ in group.leave() }
            .set(to: imageView)

        group.enter()
        let anotherImageView = KFCrossPlatformImageView()
        KF.url(url)
            .onSuccess { _ in group.leave() }
            .set(to: anotherImageView)

        task1?.cancel()
        _ = stub.go()

        group.notify(queue: .main) {
            delay(0.1) { exp.fulfill() }
        }
        waitForExpectations(timeout: timeout)
        withExtendedLifetime(anotherImageView) {}
    }

    func testImageDownloadCancelAllTasksAfterRequestStarted() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        let stub = delayedStub(url, data: testImageData)

        let group = DispatchGroup()

        group.enter()
        let task1 = imageView.kf.setImage(with: url) { result in
            XCTAssertNotNil(result.error)
            group.leave()
        }

        group.enter()
        let task2 = imageView.kf.setImage(with: url) { result in
            XCTAssertNotNil(result.error)
            group.leave()
        }

        group.enter()
        let task3 = imageView.kf.setImage(with: url) { result in
            XCTAssertNotNil(result.error)
            group.leave()
        }

        task1?.cancel()
        task2?.cancel()
        task3?.cancel()
        _ = stub.go()

        group.notify(queue: .main) {
            delay(0.1) { exp.fulfill() }
        }
        waitForExpectations(timeout: timeout)
    }

    func testImageDownloadMultipleCaches() throws {
        let cache1 = try temporaryCache("cache1")
        let cache2 = try temporaryCache("cache2")

        clearCaches([cache1, cache2])
        cleanDefaultCache()

        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData)

        let key = url.cacheKey

        imageView.kf.setImage(with: url, options: [.targetCache(cache1)]) { result in

            XCTAssertTrue(cache1.imageCachedType(forKey: key).cached)
            XCTAssertFalse(cache2.imageCachedType(forKey: key).cached)
            XCTAssertFalse(KingfisherManager.shared.cache.imageCachedType(forKey: key).cached)

            self.imageView.kf.setImage(with: url, options: [.targetCache(cache2), .waitForCache]) { result in
                XCTAssertTrue(cache1.imageCachedType(forKey: key).cached)
                XCTAssertTrue(cache2.imageCachedType(forKey: key).cached)
                XCTAssertFalse(KingfisherManager.shared.cache.imageCachedType(forKey: key).cached)
                exp.fulfill()
            }
        }

        waitForExpectations(timeout: timeout)
        clearCaches([cache1, cache2])
    }

    func testIndicatorViewExisting() {
        imageView.kf.indicatorType = .activity
        XCTAssertNotNil(imageView.kf.indicator)
        XCTAssertTrue(imageView.kf.indicator is ActivityIndicator)

        imageView.kf.indicatorType = .none
        XCTAssertNil(imageView.kf.indicator)
    }

    func testCustomizeStructIndicatorExisting() {
        // A struct indicator with a view of its own: a GTK widget here.
        struct StructIndicator: GTKIndicator {
            let widget = GTKObject(gtk_label_new("loading")!)
            func startAnimatingView() {}
            func stopAnimatingView() {}
        }

        imageView.kf.indicatorType = .custom(indicator: StructIndicator())
        XCTAssertNotNil(imageView.kf.indicator)
        XCTAssertTrue(imageView.kf.indicator is StructIndicator)

        imageView.kf.indicatorType = .none
        XCTAssertNil(imageView.kf.indicator)
    }

    func testActivityIndicatorViewAnimating() {
        imageView.kf.indicatorType = .activity

        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData)

        imageView.kf.setImage(
            with: url,
            progressBlock: { receivedSize, totalSize in
                let indicator = self.imageView.kf.indicator
                XCTAssertNotNil(indicator)
                XCTAssertEqual(indicatorIsHidden(self.imageView), false)
            }
        ) { result in
            XCTAssertEqual(indicatorIsHidden(self.imageView), true)
            exp.fulfill()
        }

        waitForExpectations(timeout: timeout)
    }

    func testCanUseImageIndicatorViewAnimating() {
        imageView.kf.indicatorType = .image(imageData: testImageData)
        XCTAssertTrue(imageView.kf.indicator is ImageIndicator)
        // The image the indicator's view shows (Kingfisher's `(indicator.view as? UIImageView)?.image`): the small
        // image view whose widget is the one laid over the view.
        let indicatorView = imageView.indicatorSlot.imageView
        XCTAssertNotNil(indicatorView)
        XCTAssertEqual(imageView.indicatorWidget?.pointer, indicatorView?.widget.pointer)
        let image = indicatorView?.image
        XCTAssertNotNil(image)
        XCTAssertTrue(image!.renderEqual(to: testImage))

        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData)

        imageView.kf.setImage(
            with: url,
            progressBlock: { receivedSize, totalSize in
                let indicator = self.imageView.kf.indicator
                XCTAssertNotNil(indicator)
                XCTAssertEqual(indicatorIsHidden(self.imageView), false)
            }
        ) { result in
            XCTAssertEqual(indicatorIsHidden(self.imageView), true)
            exp.fulfill()
        }
        waitForExpectations(timeout: timeout)
    }

    func testCancelImageTask() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        let stub = delayedStub(url, data: testImageData)

        imageView.kf.setImage(with: url, progressBlock: { _, _ in XCTFail() }) { result in
            XCTAssertNotNil(result.error)
            XCTAssertTrue(result.error!.isTaskCancelled)
            delay(0.1) { exp.fulfill() }
        }

        self.imageView.kf.cancelDownloadTask()
        _ = stub.go()

        waitForExpectations(timeout: timeout)
    }

    func testDownloadForMutipleURLs() {
        let exp = expectation(description: #function)

        stub(testURLs[0], data: testImageData)
        stub(testURLs[1], data: testImageData)

        let group = DispatchGroup()

        group.enter()
        imageView.kf.setImage(with: testURLs[0]) { result in
            XCTAssertNotNil(result.error)
            if case .imageSettingError(reason: .notCurrentSourceTask(let result, let error, let source)) = result.error!
            {
                XCTAssertEqual(source.url, testURLs[0])
                // Kingfisher lets the replaced download finish and hands its image here; this package cancels it
                // (docs/kingfisher-parity.md, "A newer `setImage` on the same view"), so the error comes instead.
                XCTAssertNil(result)
                XCTAssertTrue((error as? KingfisherError)?.isTaskCancelled == true)
            } else {
                XCTFail()
            }
            group.leave()
        }

        group.enter()
        self.imageView.kf.setImage(with: testURLs[1]) { result in
            XCTAssertNotNil(result.value?.image)
            XCTAssertEqual(result.value?.source.url, testURLs[1])
            XCTAssertEqual(result.value!.image, self.imageView.image)
            group.leave()
        }

        group.notify(queue: .main) { exp.fulfill() }
        waitForExpectations(timeout: timeout)
    }

    func testSettingNilURL() {
        let exp = expectation(description: #function)
        let url: URL? = nil
        imageView.kf.setImage(with: url, progressBlock: { _, _ in XCTFail() }) { result in
            XCTAssertNotNil(result.error)
            guard case .imageSettingError(reason: .emptySource) = result.error! else {
                XCTFail()
                return
            }
            exp.fulfill()
        }

        waitForExpectations(timeout: timeout)
    }

    func testSettingImageWhileKeepingCurrentOne() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        // Held until the checks below ran (see testSettingImageKeepingRespectingPlaceholder).
        let stub = delayedStub(url, data: testImageData)

        imageView.image = testImage
        imageView.kf.setImage(with: url) { result in }
        XCTAssertNil(imageView.image)

        imageView.image = testImage
        imageView.kf.setImage(with: url, options: [.keepCurrentImageWhileLoading]) { result in
            XCTAssertEqual(self.imageView.image, result.value!.image)
            XCTAssertNotEqual(self.imageView.image, testImage)
            exp.fulfill()
        }
        XCTAssertEqual(testImage, imageView.image)
        stub.go()

        waitForExpectations(timeout: timeout)
    }

    func testSettingImageKeepingRespectingPlaceholder() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        // Held until the checks below ran: a loopback download can otherwise end, and its image reach the memory
        // cache, before the second `setImage` (which would then find it there and set it at once).
        let stub = delayedStub(url, data: testImageData)

        // While current image is nil, set placeholder
        imageView.kf.setImage(with: url, placeholder: testImage, options: [.keepCurrentImageWhileLoading]) {
            result in
        }
        XCTAssertNotNil(imageView.image)
        XCTAssertEqual(testImage, imageView.image)

        // While current image is not nil, keep it
        let anotherImage = KFCrossPlatformImage(data: testImageJEPGData)
        imageView.image = anotherImage
        imageView.kf.setImage(with: url, placeholder: testImage, options: [.keepCurrentImageWhileLoading]) {
            result in
            XCTAssertNotEqual(self.imageView.image, anotherImage)
            exp.fulfill()
        }
        XCTAssertNotNil(imageView.image)
        XCTAssertEqual(anotherImage, imageView.image)
        stub.go()

        waitForExpectations(timeout: timeout)
    }

    func testSetGIFImageOnlyFirstFrameThenFullFrames() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageGIFData, length: 123)

        @Sendable func loadFullGIFImage() {
            KingfisherManager.shared.cache.clearMemoryCache()

            imageView.kf.setImage(with: url, progressBlock: { _, _ in XCTFail() }) { result in
                let image = result.value?.image
                XCTAssertNotNil(image)
                XCTAssertNotNil(image!.kf.images)
                XCTAssertEqual(image!.kf.images?.count, 8)

                XCTAssertEqual(result.value!.cacheType, .disk)
                XCTAssertTrue(Thread.isMainThread)

                exp.fulfill()
            }
        }

        let progressBlockIsCalled = Flag()
        imageView.kf.setImage(
            with: url, options: [.onlyLoadFirstFrame, .waitForCache],
            progressBlock: { _, _ in
                progressBlockIsCalled.set()
                XCTAssertTrue(Thread.isMainThread)
            }
        ) { result in
            XCTAssertTrue(progressBlockIsCalled.isSet)
            let image = result.value?.image
            XCTAssertNotNil(image)
            XCTAssertNil(image!.kf.images)

            XCTAssert(result.value!.cacheType == .none)

            let memory = KingfisherManager.shared.cache.memoryStorage.value(forKey: url.cacheKey)
            XCTAssertNotNil(memory)

            let disk = try! KingfisherManager.shared.cache.diskStorage.value(forKey: url.cacheKey)
            XCTAssertNotNil(disk)

            XCTAssertTrue(Thread.isMainThread)
            loadFullGIFImage()
        }

        waitForExpectations(timeout: timeout)
    }

    // Kingfisher issue 1923: a full GIF in the cache, then its first frame alone.
    func testLoadGIFImageWithDifferentOptions() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageGIFData)

        imageView.kf.setImage(with: url) { result in
            let fullImage = result.value?.image
            XCTAssertNotNil(fullImage)
            XCTAssertEqual(fullImage!.kf.images?.count, 8)

            self.imageView.kf.setImage(with: url, options: [.onlyLoadFirstFrame]) { result in
                let firstFrameImage = result.value?.image
                XCTAssertNotNil(firstFrameImage)
                XCTAssertNil(firstFrameImage!.kf.images)
                exp.fulfill()
            }
        }
        waitForExpectations(timeout: timeout)
    }

    // Kingfisher issue 665: the completion handler is called even when the view's URL changed meanwhile.
    func testIssue665() {
        let exp = expectation(description: #function)

        stub(testURLs[0], data: testImageData)
        stub(testURLs[1], data: testImageData)

        let group = DispatchGroup()

        group.enter()
        imageView.kf.setImage(with: testURLs[0]) { _ in
            group.leave()
        }

        group.enter()
        imageView.kf.setImage(with: testURLs[1]) { _ in
            group.leave()
        }

        group.notify(queue: .main) { exp.fulfill() }
        waitForExpectations(timeout: timeout)
    }

    func testImageSettingWithPlaceholder() {
        let exp = expectation(description: #function)
        let url = testURLs[0]

        stub(url, data: testImageData, length: 123)

        let emptyImage = KFCrossPlatformImage()
        let processBlockCalled = Flag()

        imageView.kf.setImage(
            with: url,
            placeholder: emptyImage,
            progressBlock: { _, _ in
                processBlockCalled.set()
                XCTAssertEqual(self.imageView.image, emptyImage)
            }
        ) { result in
            XCTAssertTrue(processBlockCalled.isSet)
            XCTAssertTrue(self.imageView.image!.renderEqual(to: testImage))
            exp.fulfill()
        }

        waitForExpectations(timeout: timeout)
    }

    func testImageSettingWithCustomizePlaceholder() {
        let exp = expectation(description: #function)
        let url = testURLs[0]

        stub(url, data: testImageData, length: 123)

        // Kingfisher's placeholder is a `UIView`; here any GTK widget.
        let placeholder = GTKWidgetPlaceholder(gtk_label_new("placeholder")!)
        let view = placeholder.widget
        let processBlockCalled = Flag()

        imageView.kf.setImage(
            with: url,
            placeholder: placeholder,
            progressBlock: { _, _ in
                processBlockCalled.set()
                XCTAssertNil(self.imageView.image)
                XCTAssertTrue(isLaid(view, over: self.imageView))
            }
        ) { result in
            XCTAssertTrue(processBlockCalled.isSet)
            XCTAssertTrue(self.imageView.image!.renderEqual(to: testImage))
            XCTAssertFalse(isLaid(view, over: self.imageView))
            exp.fulfill()
        }

        waitForExpectations(timeout: timeout)
    }

    func testSettingNonWorkingImageWithCustomizePlaceholderAndFailureImage() {
        let exp = expectation(description: #function)
        let url = testURLs[0]

        stub(url, errorCode: 404)

        let placeholder = GTKWidgetPlaceholder(gtk_label_new("placeholder")!)
        let view = placeholder.widget

        imageView.kf.setImage(
            with: url,
            placeholder: placeholder,
            options: [.onFailureImage(testImage)]
        ) { result in
            XCTAssertEqual(self.imageView.image, testImage)
            XCTAssertFalse(isLaid(view, over: self.imageView))
            exp.fulfill()
        }

        waitForExpectations(timeout: timeout)
    }

    func testSettingNonWorkingImageWithFailureImage() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, errorCode: 404)

        imageView.kf.setImage(with: url, options: [.onFailureImage(testImage)]) { result in
            XCTAssertNil(result.value)

            // Kingfisher's stub fails the request with an error of code 404; a real server answers 404.
            if case KingfisherError.responseError(let reason) = result.error!,
                case .invalidHTTPStatusCode(let response) = reason
            {
                XCTAssertTrue(result.error!.isInvalidResponseStatusCode(404), "\(response)")
            } else {
                XCTFail()
            }
            XCTAssertEqual(self.imageView.image, testImage)
            exp.fulfill()
        }
        XCTAssertNil(imageView.image)
        waitForExpectations(timeout: timeout)
    }

    func testSettingNonWorkingImageWithEmptyFailureImage() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, errorCode: 404)

        imageView.kf.setImage(with: url, placeholder: testImage, options: [.onFailureImage(nil)]) { result in
            XCTAssertNil(result.value)
            XCTAssertNil(self.imageView.image)
            exp.fulfill()
        }
        XCTAssertEqual(testImage, imageView.image)
        waitForExpectations(timeout: timeout)
    }

    func testSettingNonWorkingImageWithoutFailureImage() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, errorCode: 404)

        imageView.kf.setImage(with: url, placeholder: testImage) { result in
            XCTAssertNil(result.value)
            XCTAssertEqual(testImage, self.imageView.image)
            exp.fulfill()
        }
        XCTAssertEqual(testImage, imageView.image)
        waitForExpectations(timeout: timeout)
    }

    // Kingfisher issue 1053, in 8.11's form: one URL, two processors one after the other on the same view, the
    // original on disk as its own bytes (a serializer that keeps original data holds it). Both start from it: no
    // download, and the original is not promoted to memory. (8.11's text is not in our reference corpus: written
    // from its description, onevcat/Kingfisher#2573.)
    func testSetSameURLWithDifferentProcessors() throws {
        let exp = expectation(description: #function)
        let url = testURLs[0]

        stub(url, data: testImageData)

        var keepsOriginal = DefaultCacheSerializer()
        keepsOriginal.preferCacheOriginalData = true
        let serializer = keepsOriginal
        let cache = KingfisherManager.shared.cache
        try blocking {
            try await cache.store(testImage, original: testImageData, forKey: url.cacheKey, cacheSerializer: serializer)
        }
        cache.clearMemoryCache()

        let size1 = CGSize(width: 10, height: 10)
        let p1 = ResizingImageProcessor(referenceSize: size1)

        let size2 = CGSize(width: 20, height: 20)
        let p2 = ResizingImageProcessor(referenceSize: size2)

        let group = DispatchGroup()

        group.enter()
        imageView.kf.setImage(with: url, options: [.processor(p1), .cacheSerializer(serializer)]) { result in
            XCTAssertNotNil(result.error)
            XCTAssertTrue(result.error!.isNotCurrentTask)
            group.leave()
        }

        group.enter()
        imageView.kf.setImage(with: url, options: [.processor(p2), .cacheSerializer(serializer)]) { result in
            XCTAssertNotNil(result.value)
            XCTAssertEqual(result.value!.image.size, size2)
            group.leave()
        }

        group.notify(queue: .main) { exp.fulfill() }
        waitForExpectations(timeout: timeout)
        XCTAssertEqual(imageView.image?.size, size2)
        XCTAssertEqual(currentServer.withLock { $0 }?.hits(url.path), 0)
        XCTAssertEqual(cache.imageCachedType(forKey: url.cacheKey), .disk)
    }

    func testMemoryImageCacheExtendingExpirationTask() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData)

        let options: KingfisherOptionsInfo = [
            .cacheMemoryOnly, .memoryCacheExpiration(.seconds(1)),
            .memoryCacheAccessExtendingExpiration(.expirationTime(.seconds(100))),
        ]

        imageView.kf.setImage(with: url, options: options) { result in
            XCTAssertNotNil(result.value?.image)
            XCTAssertTrue(result.value!.cacheType == .none)

            // Kingfisher reads its NSCache entry's `estimatedExpiration`; here the storage says it.
            let cacheKey = result.value!.source.cacheKey
            let memory = KingfisherManager.shared.cache.memoryStorage
            let expirationTime1 = memory.estimatedExpiration(forKey: cacheKey)
            XCTAssertNotNil(expirationTime1)

            delay(0.1) {
                self.imageView.kf.setImage(with: url, options: options) { result in
                    XCTAssertNotNil(result.value?.image)
                    XCTAssertTrue(result.value!.cacheType == .memory)

                    let expirationTime2 = memory.estimatedExpiration(forKey: cacheKey)

                    XCTAssertNotNil(expirationTime2)
                    XCTAssertNotEqual(expirationTime1, expirationTime2)
                    XCTAssert(expirationTime1! < expirationTime2!)
                    XCTAssertGreaterThan(expirationTime2!.timeIntervalSince(expirationTime1!), 10)

                    exp.fulfill()
                }
            }
        }

        waitForExpectations(timeout: timeout)
    }

    func testMemoryImageCacheNotExtendingExpirationTask() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData)

        let options: KingfisherOptionsInfo = [
            .cacheMemoryOnly, .memoryCacheExpiration(.seconds(1)), .memoryCacheAccessExtendingExpiration(.none),
        ]

        imageView.kf.setImage(with: url, options: options) { result in
            XCTAssertNotNil(result.value?.image)
            XCTAssertTrue(result.value!.cacheType == .none)

            let cacheKey = result.value!.source.cacheKey
            let memory = KingfisherManager.shared.cache.memoryStorage
            let expirationTime1 = memory.estimatedExpiration(forKey: cacheKey)
            XCTAssertNotNil(expirationTime1)

            delay(0.1) {
                self.imageView.kf.setImage(with: url, options: options) { result in
                    XCTAssertNotNil(result.value?.image)
                    XCTAssertTrue(result.value!.cacheType == .memory)

                    let expirationTime2 = memory.estimatedExpiration(forKey: cacheKey)

                    XCTAssertNotNil(expirationTime2)
                    XCTAssertEqual(expirationTime1, expirationTime2)

                    exp.fulfill()
                }
            }
        }

        waitForExpectations(timeout: timeout)
    }

    func testDiskImageCacheExtendingExpirationTask() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData)

        let options: KingfisherOptionsInfo = [
            .memoryCacheExpiration(.expired),
            .diskCacheExpiration(.seconds(2)),
            .diskCacheAccessExtendingExpiration(.expirationTime(.seconds(100))),
        ]

        imageView.kf.setImage(with: url, options: options) { result in
            XCTAssertNotNil(result.value?.image)
            XCTAssertTrue(result.value!.cacheType == .none)

            delay(1) {
                self.imageView.kf.setImage(with: url, options: options) { result in
                    XCTAssertNotNil(result.value?.image)
                    XCTAssertTrue(result.value!.cacheType == .disk)
                    delay(2) {
                        self.imageView.kf.setImage(with: url, options: options) { result in
                            XCTAssertNotNil(result.value?.image)
                            XCTAssertTrue(result.value!.cacheType == .disk)

                            exp.fulfill()
                        }
                    }
                }
            }
        }

        waitForExpectations(timeout: timeout)
    }

    func testDiskImageCacheNotExtendingExpirationTask() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData)

        let options: KingfisherOptionsInfo = [
            .memoryCacheExpiration(.expired),
            .diskCacheExpiration(.seconds(2)),
            .diskCacheAccessExtendingExpiration(.none),
        ]

        imageView.kf.setImage(with: url, options: options) { result in
            XCTAssertNotNil(result.value?.image)
            XCTAssertTrue(result.value!.cacheType == .none)

            delay(1) {
                self.imageView.kf.setImage(with: url, options: options) { result in
                    XCTAssertNotNil(result.value?.image)
                    XCTAssertTrue(result.value!.cacheType == .disk)

                    delay(2) {
                        self.imageView.kf.setImage(with: url, options: options) { result in
                            XCTAssertNotNil(result.value?.image)
                            XCTAssertTrue(result.value!.cacheType == .none)

                            exp.fulfill()
                        }
                    }
                }
            }
        }

        waitForExpectations(timeout: timeout)
    }

    func testImageSettingWithAlternativeSource() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        stub(url, data: testImageData)

        // Kingfisher stubs "brokenurl" (no host); here a URL on the server with an empty body.
        let brokenURL = testURLs[9]
        stub(brokenURL, data: Data())

        imageView.kf.setImage(
            with: .network(brokenURL),
            options: [.alternativeSources([.network(url)])]
        ) { result in
            XCTAssertNotNil(result.value)
            XCTAssertEqual(result.value!.source.url, url)
            XCTAssertEqual(result.value!.originalSource.url, brokenURL)
            exp.fulfill()
        }
        waitForExpectations(timeout: timeout)
    }

    func testImageSettingCanCancelAlternativeSource() {
        let exp = expectation(description: #function)
        let url = testURLs[0]
        let dataStub = delayedStub(url, data: testImageData)

        let brokenURL = testURLs[1]
        let brokenStub = delayedStub(brokenURL, data: Data())

        let finishCalled = Flag()
        let finished = expectation(description: "the completion, before the image's data comes")

        // Kingfisher releases the broken source at 0.1 s, cancels at 0.3 s, and at 0.5 s releases the image's data
        // and checks that the completion came already (from the cancellation alone). Here each step waits for the
        // one before it (the alternative's request reached the server; the completion came, generously), so a slow
        // machine runs the same order and checks the same thing.
        let server = currentServer.withLock { $0 }!
        delay(0.1) {
            _ = brokenStub.go()
            Task {
                await server.waitForRequests(url.path)
                DispatchQueue.main.async { self.imageView.kf.cancelDownloadTask() }
            }
        }

        imageView.kf.setImage(
            with: .network(brokenURL),
            options: [.alternativeSources([.network(url)])]
        ) { result in
            finishCalled.set()
            XCTAssertNotNil(result.error)
            guard case .requestError(reason: .taskCancelled(let task, _)) = result.error! else {
                XCTFail("The error should be a task cancelled.")
                return
            }
            XCTAssertEqual(task.originalURL, url, "Should be the alternatived url cancelled.")
            finished.fulfill()
        }

        waitFor([finished], timeout: timeout)
        _ = dataStub.go()
        XCTAssertTrue(finishCalled.isSet)
        exp.fulfill()
        waitForExpectations(timeout: timeout)
    }

    func testLowDataModeSource() {
        let exp = expectation(description: #function)

        let url = testURLs[0]
        stub(url, data: testImageData)

        // Kingfisher stubs a failure with the `.constrained` reason of Low Data Mode; Linux has no such signal, and
        // the downloader is told the network is constrained instead (docs/kingfisher-parity.md).
        let brokenURL = testURLs[1]
        KingfisherManager.shared.downloader.isNetworkConstrained = true

        imageView.kf.setImage(with: .network(brokenURL), options: [.lowDataMode(.network(url))]) { result in
            XCTAssertNotNil(result.value)
            XCTAssertEqual(result.value?.source.url, url)
            XCTAssertEqual(result.value?.originalSource.url, brokenURL)
            exp.fulfill()
        }
        waitForExpectations(timeout: timeout)
    }
}
