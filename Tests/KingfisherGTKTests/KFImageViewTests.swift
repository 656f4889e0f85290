import CGtk
import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import KingfisherGTK

/// The view in a real GTK window (Xvfb in CI), loading from a loopback server.
@Suite(.enabled(if: GTKTestLoop.available, "needs a display (run under xvfb-run)"), .serialized)
struct KFImageViewTests {
    @Test func aLabelPlaceholderAndASpinnerWhileLoadingThenTheImage() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route(
            "/red.png",
            TestHTTPServer.Route(
                body: try ViewProbe.solidPNG(width: 120, height: 80, rgba: [220, 20, 20, 255]), held: true))
        let (view, _) = await ViewProbe.presentedView(width: 120, height: 80)
        let label = await ViewProbe.heldLabel("Loading")
        view.kf.indicatorType = .activity
        let finished = Locked<Result<RetrieveImageResult, KingfisherError>?>(nil)
        view.kf.setImage(
            with: server.url("/red.png"), placeholder: GTKWidgetPlaceholder(label.pointer),
            options: [.targetCache(try ViewProbe.temporaryCache()), .transition(.fade(0.2)), .forceTransition],
            completionHandler: { result in finished.withLock { $0 = result } })
        await server.waitForRequests("/red.png")
        // While the response is held: the label lies over the view and the spinner turns.
        let overlay = view.widget
        let spinner = view.spinner
        #expect(await waitOnGTK { gtk_widget_get_parent(label.pointer) == overlay.pointer })
        #expect(
            await waitOnGTK {
                gtk_widget_get_visible(spinner.pointer) != 0
                    && gtk_spinner_get_spinning(cgtk_spinner(spinner.pointer)) != 0
            })
        server.release("/red.png")
        #expect(await waitOnGTK { finished.withLock { $0 } != nil })
        #expect(try finished.withLock { $0 }?.get().image.pixelWidth == 120)
        // After the fade: the image, without the label or the spinner.
        #expect(await waitOnGTK { view.transitionProgress >= 1 })
        #expect(
            await waitOnGTK {
                gtk_widget_get_parent(label.pointer) == nil && gtk_widget_get_visible(spinner.pointer) == 0
            })
        let centre = try #require(await ViewProbe.pixel(of: view, x: 60, y: 40))
        #expect(centre[0] > 200 && centre[1] < 60 && centre[2] < 60, "\(centre)")
        await ViewProbe.release(label)
    }

    @Test func theFadeIsACrossFadeFromTheOldImageToTheNewOne() async throws {
        let (view, _) = await ViewProbe.presentedView(width: 80, height: 80)
        // A dark placeholder and a photo: mid-fade a wash of the (transparent) background would show as a light,
        // see-through mix.
        let (from, to): ([UInt8], [UInt8]) = ([60, 60, 60, 255], [40, 200, 0, 255])
        let old = try ViewProbe.solid(from, width: 80, height: 80)
        let new = try ViewProbe.solid(to, width: 80, height: 80)
        view.image = old
        #expect(await waitOnGTK { ViewProbe.renderedCentre(view) == from })
        let done = Locked<Bool?>(nil)
        view.transition(.fade(4.0), from: old, to: new) { finished in done.withLock { $0 = finished } }
        // Read right after a frame is painted, with the progress it was painted at (a render shows the last painted
        // frame; a loaded machine paints seldom). At the end it is the new image.
        let midFade = Locked<(progress: Double, pixel: [UInt8])?>(nil)
        await ViewProbe.afterEachPaint(of: view.widget) {
            let progress = Double(view.transitionProgress)
            guard midFade.withLock({ $0 }) == nil, progress > 0.25, progress < 0.75,
                let pixel = ViewProbe.renderedCentre(view)
            else { return }
            midFade.withLock { $0 = (progress, pixel) }
        }
        _ = await waitOnGTK { midFade.withLock { $0 } != nil || done.withLock { $0 } != nil }
        let sampled = try #require(midFade.withLock { $0 }, "no frame drawn mid-fade")
        // The straight blend, (1 − p) · old + p · new, opaque throughout: within a few levels (rounding).
        let blend = (0..<4).map { (1 - sampled.progress) * Double(from[$0]) + sampled.progress * Double(to[$0]) }
        let off = zip(sampled.pixel, blend).map { abs(Double($0) - $1) }
        #expect(off.allSatisfy { $0 <= 3 }, "\(sampled) against \(blend)")
        #expect(await waitOnGTK { done.withLock { $0 } == true })
        let end = try #require(await ViewProbe.pixel(of: view, x: 40, y: 40))
        #expect(end == to, "\(end)")
    }

    @Test(arguments: [
        (ImageTransition.flipFromLeft(1.2), true), (.flipFromRight(1.2), true), (.flipFromTop(1.2), false),
        (.flipFromBottom(1.2), false),
    ])
    func midFlipTheImageIsNarrowerAndGrowsBack(transition: ImageTransition, horizontal: Bool) async throws {
        let (view, _) = await ViewProbe.presentedView(width: 80, height: 80)
        let blue = try ViewProbe.solid([20, 20, 220, 255], width: 80, height: 80)
        let green = try ViewProbe.solid([20, 220, 20, 255], width: 80, height: 80)
        view.image = blue
        #expect(await waitOnGTK { ViewProbe.extent(view, horizontal: horizontal).count >= 78 })
        // Filmed from before it starts: the first frame painted a quarter of the way and the first three quarters of
        // the way, each read right after it was painted, with the progress it was painted at.
        let samples = await Self.extentsDuring([0.15..<0.35, 0.65..<0.85], of: view, horizontal: horizontal)
        let done = Locked<Bool?>(nil)
        view.transition(transition, from: blue, to: green) { finished in done.withLock { $0 = finished } }
        #expect(await waitOnGTK { samples.withLock { $0.allSatisfy { $0 != nil } } || done.withLock { $0 } != nil })
        let (early, late) = samples.withLock { ($0[0] ?? (0, false), $0[1] ?? (0, false)) }
        // A quarter of the way: the old (blue) face, turned, so narrower across the turn.
        #expect(early.count > 5 && early.count < 76, "\(early.count)")
        #expect(early.blue, "the old image on the front face")
        // Three quarters: the new (green) face turning in, still narrower.
        #expect(late.count > 5 && late.count < 76, "\(late.count)")
        #expect(!late.blue, "the new image on the back face")
        // The end: full size again, green.
        #expect(await waitOnGTK { done.withLock { $0 } == true })
        let end = await onGTK { ViewProbe.extent(view, horizontal: horizontal) }
        #expect(end.count >= 78 && !end.blue)
    }

    @Test func aTransitionOffScreenCompletesWithoutFrames() async throws {
        // Never shown: no frame clock steps it, so it is over at once, on the new image.
        let hidden = await onGTK { KFImageView(width: 40, height: 40) }
        let green = try ViewProbe.solid([20, 220, 20, 255], width: 40, height: 40)
        let done = Locked<Bool?>(nil)
        hidden.transition(.flipFromLeft(5), from: nil, to: green) { finished in done.withLock { $0 = finished } }
        #expect(await waitOnGTK(seconds: 2) { done.withLock { $0 } == true })
        #expect(hidden.image === green)
        // Shown, then hidden mid-transition: it completes when the view leaves the screen.
        let (view, window) = await ViewProbe.presentedView(width: 40, height: 40)
        let blue = try ViewProbe.solid([20, 20, 220, 255], width: 40, height: 40)
        view.image = blue
        let second = Locked<Bool?>(nil)
        view.transition(.fade(5), from: blue, to: green) { finished in second.withLock { $0 = finished } }
        #expect(await waitOnGTK { view.transitionProgress > 0 && view.transitionProgress < 1 })
        await onGTK { gtk_widget_set_visible(window.pointer, 0) }
        #expect(await waitOnGTK(seconds: 2) { second.withLock { $0 } == true })
        #expect(await onGTK { view.transitionProgress } == 1)
    }

    @Test func twoViewsMakeTheirPicturesOnQueuesOfTheirOwn() async throws {
        // No queue is shared by the process: one view's pictures never wait behind another's.
        let (first, second) = await onGTK { (KFImageView(width: 20, height: 20), KFImageView(width: 20, height: 20)) }
        #expect(first.pictureQueue !== second.pictureQueue)
        // and each still shows what it was given
        let red = try ViewProbe.solid([220, 20, 20, 255], width: 20, height: 20)
        let blue = try ViewProbe.solid([20, 20, 220, 255], width: 20, height: 20)
        first.image = red
        second.image = blue
        #expect(first.image === red && second.image === blue)
    }

    @Test func contentModesFitFillOrCentreTheImage() async throws {
        let (view, _) = await ViewProbe.presentedView(width: 100, height: 100)
        // 50 x 25 pixels at scale 1.
        view.image = try ViewProbe.solid([20, 20, 220, 255], width: 50, height: 25)
        // Fit: 100 x 50 across the middle.
        // (Edge pixels blend with the transparent outside: sizes are within a pixel or two.)
        #expect(
            await waitOnGTK {
                ViewProbe.extent(view, horizontal: true).count >= 96
                    && (47...51).contains(ViewProbe.extent(view, horizontal: false).count)
            })
        view.contentMode = .scaleAspectFill
        #expect(await waitOnGTK { ViewProbe.extent(view, horizontal: false).count >= 98 })
        view.contentMode = .center
        #expect(
            await waitOnGTK {
                (47...51).contains(ViewProbe.extent(view, horizontal: true).count)
                    && (23...26).contains(ViewProbe.extent(view, horizontal: false).count)
            })
        let sizes = await onGTK {
            (ViewProbe.extent(view, horizontal: true).count, ViewProbe.extent(view, horizontal: false).count)
        }
        #expect(sizes.0 < 60 && sizes.1 < 30, "\(sizes)")
    }

    @Test func theKFBuilderSetsTheViewAsOnIOS() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route(
            "/green.png",
            .ok(try ViewProbe.solidPNG(width: 60, height: 60, rgba: [20, 220, 20, 255]), contentType: "image/png"))
        let (view, _) = await ViewProbe.presentedView(width: 60, height: 60)
        let finished = Locked(false)
        KF.url(server.url("/green.png")).targetCache(try ViewProbe.temporaryCache()).fade(duration: 0.1)
            .onSuccess { _ in finished.withLock { $0 = true } }
            .set(to: view)
        #expect(await waitOnGTK { finished.withLock { $0 } && view.transitionProgress >= 1 })
        let centre = try #require(await ViewProbe.pixel(of: view, x: 30, y: 30))
        #expect(centre[1] > 200 && centre[0] < 60, "\(centre)")
    }

    @Test func anAnimationPlaysItsFramesAtTheirDelaysAndStopsWhenUnmapped() async throws {
        let (view, window) = await ViewProbe.presentedView(width: 60, height: 60)
        let frames = try [[220, 20, 20, 255], [20, 220, 20, 255], [20, 20, 220, 255]].map {
            try ViewProbe.solid($0, width: 60, height: 60)
        }
        let animation = try #require(KFCrossPlatformImage.animatedImage(with: frames, duration: 0.9))  // 0.3 s each
        view.framePreloadCount = 2
        view.image = animation
        // The centre's colour (0 red, 1 green, 2 blue) each time it changes, with the time.
        var changes: [(seconds: Double, colour: Int)] = []
        let start = Date()
        while Date().timeIntervalSince(start) < 1.5 {
            if let centre = await onGTK({ ViewProbe.renderedCentre(view) }), centre[3] > 200 {
                let colour = centre[0] > 150 ? 0 : centre[1] > 150 ? 1 : 2
                if changes.last?.colour != colour { changes.append((Date().timeIntervalSince(start), colour)) }
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let colours = changes.map(\.colour)
        #expect(colours.count >= 4 && colours.starts(with: [0, 1, 2, 0]), "\(changes)")
        // Each frame stays about its 0.3 s delay (between changes after the first; loose for a loaded machine).
        let gaps = zip(changes.dropFirst(), changes.dropFirst(2)).map { $1.seconds - $0.seconds }
        #expect(gaps.allSatisfy { (0.15...0.7).contains($0) }, "\(gaps)")
        // Unmapped, it stops: no frame is made drawable any more.
        let canvas = view.canvas
        await onGTK { gtk_widget_set_visible(window.pointer, 0) }
        #expect(await waitOnGTK { gtk_widget_get_mapped(canvas.pointer) == 0 })
        // A frame asked for by the last step before the unmap may still arrive: count from when none is pending.
        #expect(await waitOnGTK { (view.stage.player?.preparingCount ?? 0) == 0 })
        let before = await onGTK { view.stage.player?.preparedCount ?? -1 }
        // Three frame delays of frame-clock time on the main loop (another window's frames): a player still
        // stepping would have moved on and asked for frames meanwhile.
        await ViewProbe.framesPass(seconds: 0.9)
        let after = await onGTK { view.stage.player?.preparedCount ?? -1 }
        #expect(before > 0 && before == after, "\(before) then \(after)")
        // Shown again, it plays on.
        await onGTK { gtk_widget_set_visible(window.pointer, 1) }
        #expect(await waitOnGTK { (view.stage.player?.preparedCount ?? 0) > after })
        // Its window goes, so that an endless animation does not keep drawing for the tests that follow.
        await onGTK { gtk_window_destroy(cgtk_window(window.pointer)) }
    }

    @Test func aFiniteRepeatCountStopsOnTheLastFrame() async throws {
        let (view, _) = await ViewProbe.presentedView(width: 40, height: 40)
        let frames = try [[220, 20, 20, 255], [20, 20, 220, 255]].map { try ViewProbe.solid($0, width: 40, height: 40) }
        view.repeatCount = .once
        view.image = KFCrossPlatformImage.animatedImage(with: frames, duration: 0.2)
        #expect(await waitOnGTK { view.stage.player?.finished == true })
        #expect(await onGTK { !view.isAnimating })
        let centre = try #require(await onGTK { ViewProbe.renderedCentre(view) })
        #expect(centre[2] > 200, "the last frame stays: \(centre)")
    }

    /// The view's extent across the turn, read when the transition's progress is in `window` (zero when it never
    /// was, within the time allowed).
    /// For each of `windows` of progress, the extent of the first frame painted in it (read right after it was
    /// painted: a render shows the last painted frame, and between two frames the progress moves on).
    private static func extentsDuring(
        _ windows: [Range<Double>], of view: KFImageView, horizontal: Bool
    ) async -> Locked<[(count: Int, blue: Bool)?]> {
        let seen = Locked<[(count: Int, blue: Bool)?]>(Array(repeating: nil, count: windows.count))
        await ViewProbe.afterEachPaint(of: view.widget) {
            let progress = view.transitionProgress
            guard let index = windows.firstIndex(where: { $0.contains(progress) }),
                seen.withLock({ $0[index] }) == nil
            else { return }
            let extent = ViewProbe.extent(view, horizontal: horizontal)
            seen.withLock { $0[index] = extent }
        }
        return seen
    }
}
