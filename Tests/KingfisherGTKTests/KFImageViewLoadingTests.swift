import CGtk
import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import KingfisherGTK

/// What the view shows while an image loads and when it fails: indicators, previews, kept and failure images.
@Suite(.enabled(if: GTKTestLoop.available, "needs a display (run under xvfb-run)"), .serialized)
struct KFImageViewLoadingTests {
    /// A widget indicator: a label it shows and hides itself, as Kingfisher's custom indicators do.
    final class LabelIndicator: GTKIndicator {
        let widget: GTKObject<GtkWidget>
        let centerOffset: CGPoint
        init(offset: CGPoint) async {
            widget = await onGTK {
                let label = gtk_label_new("…")!
                _ = cgtk_object_ref_sink(label)
                return GTKObject(label)
            }
            centerOffset = offset
        }
        func startAnimatingView() {
            let widget = self.widget
            GTKMainContext.perform { gtk_widget_set_visible(widget.pointer, 1) }
        }
        func stopAnimatingView() {
            let widget = self.widget
            GTKMainContext.perform { gtk_widget_set_visible(widget.pointer, 0) }
        }
    }

    /// Loads `path` into `view` with `options`, and a box that receives the result.
    private static func load(
        _ view: KFImageView, _ url: URL, placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo = []
    ) throws -> Locked<Result<RetrieveImageResult, KingfisherError>?> {
        let finished = Locked<Result<RetrieveImageResult, KingfisherError>?>(nil)
        view.kf.setImage(
            with: url, placeholder: placeholder, options: [.targetCache(try ViewProbe.temporaryCache())] + options,
            completionHandler: { result in finished.withLock { $0 = result } })
        return finished
    }

    /// The colour of an RGBA pixel: 0 red, 1 green, 2 blue; nil when not clearly one of them or not opaque.
    private static func colour(_ pixel: [UInt8]?) -> Int? {
        guard let pixel, pixel[3] > 200 else { return nil }
        if pixel[0] > 150 && pixel[1] < 90 && pixel[2] < 90 { return 0 }
        if pixel[1] > 150 && pixel[0] < 90 && pixel[2] < 90 { return 1 }
        if pixel[2] > 150 && pixel[0] < 90 && pixel[1] < 90 { return 2 }
        return nil
    }

    @Test(arguments: [[30, 30, 30, 255] as [UInt8], [235, 235, 235, 255]])
    func theSpinnerStandsOutOnADarkPlaceholderAsOnALightOne(placeholder shade: [UInt8]) async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("/held.png", TestHTTPServer.Route(status: 404, body: Data("no".utf8), held: true))
        let (view, _) = await ViewProbe.presentedView(width: 120, height: 90)
        view.kf.indicatorType = .activity
        let spinner = view.spinner
        let finished = try Self.load(
            view, server.url("/held.png"), placeholder: try ViewProbe.solid(shade, width: 120, height: 90))
        await server.waitForRequests("/held.png")
        // Drawn: the placeholder in the corner, the spinner over the middle.
        #expect(
            await waitOnGTK {
                gtk_widget_get_mapped(spinner.pointer) != 0
                    && ViewProbe.rendered(view).map {
                        Array($0.pixels[(5 * $0.width + 5) * 4..<(5 * $0.width + 5) * 4 + 4])
                    }
                        == shade
            })
        // Pixels of the spinner's square (32 points in the middle) far from the placeholder's shade, and far from
        // each other: a dark stroke on a light disc shows on either.
        let (light, dark) = await onGTK { () -> (Int, Int) in
            guard let shown = ViewProbe.rendered(view) else { return (0, 0) }
            var light = 0
            var dark = 0
            for y in 29..<61 {
                for x in 44..<76 {
                    let offset = (y * shown.width + x) * 4
                    let level = (0..<3).map { Int(shown.pixels[offset + $0]) }.reduce(0, +) / 3
                    if level > 180 && abs(level - Int(shade[0])) > 100 { light += 1 }
                    if level < 90 && abs(level - Int(shade[0])) > 100 { dark += 1 }
                }
            }
            return (light, dark)
        }
        #expect(light + dark > 40, "light \(light), dark \(dark) on \(shade)")
        server.release("/held.png")
        #expect(await waitOnGTK { finished.withLock { $0 } != nil })
    }

    @Test func anAnimatedGIFIndicatorPlaysWhileLoadingAndGoesWhenTheImageArrives() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route(
            "/green.png",
            TestHTTPServer.Route(
                body: try ViewProbe.solidPNG(width: 100, height: 100, rgba: [20, 220, 20, 255]), held: true))
        let frames = try [[220, 20, 20, 255], [20, 20, 220, 255]].map { try ViewProbe.solid($0, width: 30, height: 30) }
        let gif = try #require(KFCrossPlatformImage.animatedImage(with: frames, duration: 0.6)?.kf.gifRepresentation())
        let (view, _) = await ViewProbe.presentedView(width: 100, height: 100)
        view.kf.indicatorType = .image(imageData: gif)
        let finished = try Self.load(view, server.url("/green.png"))
        await server.waitForRequests("/green.png")
        // While the response is held the GIF plays in the middle: red, then blue, then red again. The response stays
        // held however long that takes; the 30 s are only a safety net (a loaded machine once showed two frames in
        // the 3 s this used to allow).
        var seen: [Int] = []
        let start = Date()
        while Date().timeIntervalSince(start) < 30, seen.count < 3 {
            if let colour = Self.colour(await ViewProbe.pixel(of: view, x: 50, y: 50)), seen.last != colour {
                seen.append(colour)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(seen.count >= 3 && Set(seen) == [0, 2], "\(seen)")
        // Only the middle: the GIF is shown at its own 30 x 30 points.
        #expect(await ViewProbe.pixel(of: view, x: 10, y: 10)?[3] ?? 255 < 20)
        server.release("/green.png")
        #expect(await waitOnGTK { finished.withLock { $0 } != nil })
        #expect(
            await waitOnGTK {
                view.indicatorSlot.imageView.map { gtk_widget_get_visible($0.widget.pointer) == 0 } ?? true
            })
        // The image everywhere, the middle included.
        #expect(await waitOnGTK { Self.colour(ViewProbe.renderedCentre(view)) == 1 })
        #expect(Self.colour(await ViewProbe.pixel(of: view, x: 10, y: 10)) == 1)
    }

    @Test func aWidgetIndicatorIsLaidOverTheViewAtItsOffsetAndShownWhileLoading() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route(
            "/red.png",
            TestHTTPServer.Route(
                body: try ViewProbe.solidPNG(width: 100, height: 100, rgba: [220, 20, 20, 255]), held: true))
        let (view, _) = await ViewProbe.presentedView(width: 100, height: 100)
        let indicator = await LabelIndicator(offset: CGPoint(x: 20, y: -10))
        view.kf.indicatorType = .custom(indicator: indicator)
        let label = indicator.widget
        let overlay = view.widget
        #expect(await waitOnGTK { gtk_widget_get_parent(label.pointer) == overlay.pointer })
        let finished = try Self.load(view, server.url("/red.png"))
        await server.waitForRequests("/red.png")
        #expect(
            await waitOnGTK { gtk_widget_get_visible(label.pointer) != 0 && gtk_widget_get_mapped(label.pointer) != 0 })
        // Its centre is the view's centre moved by the offset (once laid out).
        let centre = { @Sendable () -> (Double, Double) in
            var box = GtkAllocation()
            gtk_widget_get_allocation(label.pointer, &box)
            return (Double(box.x) + Double(box.width) / 2, Double(box.y) + Double(box.height) / 2)
        }
        let placed = await waitOnGTK {
            let (x, y) = centre()
            return abs(x - 70) <= 1 && abs(y - 40) <= 1
        }
        let laidAt = await onGTK(centre)
        #expect(placed, "centre at \(laidAt)")
        server.release("/red.png")
        #expect(await waitOnGTK { finished.withLock { $0 } != nil && gtk_widget_get_visible(label.pointer) == 0 })
        // Replaced, it leaves the view.
        view.kf.indicatorType = .none
        #expect(await waitOnGTK { gtk_widget_get_parent(label.pointer) == nil })
    }

    @Test func progressiveJPEGPreviewsAreShownBeforeTheRestArrives() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        let photo = TestImages.progressiveJPEG(width: 160, height: 120)
        // The first half of the file (its first scans), then nothing until released.
        server.route(
            "/photo.jpg",
            TestHTTPServer.Route(
                body: photo, chunkSize: 1024, contentLength: Int64(photo.count), holdAfterBodyBytes: photo.count / 2))
        let (view, _) = await ViewProbe.presentedView(width: 160, height: 120)
        let finished = try Self.load(
            view, server.url("/photo.jpg"),
            options: [.progressiveJPEG(ImageProgressive(isBlur: false, isFastestScan: true, scanInterval: 0))])
        // A preview of the whole picture is drawn while half the file is still to come.
        #expect(await waitOnGTK { view.image?.pixelWidth == 160 })
        #expect(await waitOnGTK { (ViewProbe.renderedCentre(view)?[3] ?? 0) > 200 })
        #expect(finished.withLock { $0 } == nil)
        let preview = try #require(view.image)
        server.release("/photo.jpg")
        #expect(await waitOnGTK { finished.withLock { $0 } != nil })
        let final = try #require(try finished.withLock { $0 }?.get().image)
        #expect(view.image === final)
        #expect(preview !== final)
    }

    @Test func keepCurrentImageWhileLoadingKeepsItAndOnFailureImageReplacesIt() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("/missing.png", TestHTTPServer.Route(status: 404, body: Data("no".utf8), held: true))
        let (view, _) = await ViewProbe.presentedView(width: 80, height: 80)
        view.image = try ViewProbe.solid([20, 20, 220, 255], width: 80, height: 80)
        #expect(await waitOnGTK { Self.colour(ViewProbe.renderedCentre(view)) == 2 })
        let failure = try ViewProbe.solid([220, 20, 20, 255], width: 80, height: 80)
        let finished = try Self.load(
            view, server.url("/missing.png"), options: [.keepCurrentImageWhileLoading, .onFailureImage(failure)])
        await server.waitForRequests("/missing.png")
        // While loading: the old image stays on screen, frames after the request went out.
        await ViewProbe.framesPass(seconds: 0.1)
        #expect(Self.colour(await onGTK { ViewProbe.renderedCentre(view) }) == 2)
        server.release("/missing.png")
        #expect(await waitOnGTK { finished.withLock { $0 } != nil })
        #expect(throws: KingfisherError.self) { try finished.withLock { $0 }?.get() }
        #expect(await waitOnGTK { Self.colour(ViewProbe.renderedCentre(view)) == 0 })
    }

    @Test func withoutKeepingTheViewIsClearedWhenALoadStarts() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("/slow.png", TestHTTPServer.Route(status: 404, body: Data("no".utf8), held: true))
        let (view, _) = await ViewProbe.presentedView(width: 80, height: 80)
        view.image = try ViewProbe.solid([20, 20, 220, 255], width: 80, height: 80)
        #expect(await waitOnGTK { Self.colour(ViewProbe.renderedCentre(view)) == 2 })
        let finished = try Self.load(view, server.url("/slow.png"))
        await server.waitForRequests("/slow.png")
        #expect(await waitOnGTK { (ViewProbe.renderedCentre(view)?[3] ?? 255) < 20 })
        server.release("/slow.png")
        #expect(await waitOnGTK { finished.withLock { $0 } != nil })
    }

    @Test func aViewTakenOffTheScreenCancelsItsLoad() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route(
            "/held.png",
            TestHTTPServer.Route(
                body: try ViewProbe.solidPNG(width: 40, height: 40, rgba: [220, 20, 20, 255]), held: true))
        let (view, window) = await ViewProbe.presentedView(width: 40, height: 40)
        let finished = try Self.load(view, server.url("/held.png"))
        await server.waitForRequests("/held.png")
        // The window hides: the view is unmapped, its download is cancelled and its connection dropped.
        await onGTK { gtk_widget_set_visible(window.pointer, 0) }
        #expect(await waitOnGTK { finished.withLock { $0 } != nil })
        #expect(finished.withLock { $0.map { (try? $0.get()) == nil } } == true)
        #expect(await waitOnGTK { server.abandoned("/held.png") == 1 })
        #expect(view.image == nil)
    }
}
