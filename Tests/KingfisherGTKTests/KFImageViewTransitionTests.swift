import CGtk
import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

@testable import KingfisherGTK

/// What a transition shows, frame by frame: it starts from what was on screen and nothing in between is empty.
@Suite(.enabled(if: GTKTestLoop.available, "needs a display (run under xvfb-run)"), .serialized)
struct KFImageViewTransitionTests {
    /// On the GTK thread: how many pixels of the view are drawn (not transparent).
    static func drawnPixels(_ view: KFImageView) -> Int {
        guard let shown = ViewProbe.rendered(view) else { return 0 }
        return stride(from: 3, to: shown.pixels.count, by: 4).count { shown.pixels[$0] > 40 }
    }

    @Test func aTurningPictureHasNoSeamsAtAnyAngle() async throws {
        let (view, window) = await ViewProbe.presentedView(width: 200, height: 150)
        view.contentMode = .scaleAspectFill
        let image = try ViewProbe.solid([30, 90, 200, 255], width: 400, height: 300)
        view.image = image
        #expect(await waitOnGTK { view.stage.current != nil && (ViewProbe.renderedCentre(view)?[3] ?? 0) == 255 })
        // A render shows what the last frame painted: each angle is read after a frame painted it.
        let painted = Locked(0)
        await ViewProbe.afterEachPaint(of: window) { painted.withLock { $0 += 1 } }
        var seams: [String] = []
        for axis: Int32 in [0, 1] {
            for step in 1..<60 {
                let progress = Double(step) / 60
                let before = await onGTK { () -> Int in
                    // The same picture on both faces, held at this angle (no transition steps it).
                    view.stage.previous = view.stage.current
                    view.stage.motion = .moving(.flip(axis: axis, sign: 1), progress: progress)
                    gtk_widget_queue_draw(view.canvas.pointer)
                    return painted.withLock { $0 }
                }
                #expect(await waitOnGTK { painted.withLock { $0 } > before })
                let line = await onGTK { () -> [UInt8] in
                    guard let shown = ViewProbe.rendered(view) else { return [] }
                    // The alpha of the line through the middle, across the turn.
                    return (0..<(axis == 0 ? shown.width : shown.height)).map { i in
                        let (x, y) = axis == 0 ? (i, shown.height / 2) : (shown.width / 2, i)
                        return shown.pixels[(y * shown.width + x) * 4 + 3]
                    }
                }
                guard let first = line.firstIndex(where: { $0 > 0 }), let last = line.lastIndex(where: { $0 > 0 })
                else {
                    seams.append("axis \(axis) at \(progress): nothing drawn")
                    continue
                }
                // Inside the turned face every pixel is fully covered: a seam lets the background through.
                let open = (first...last).filter { line[$0] < 255 }
                if !open.isEmpty {
                    seams.append("axis \(axis) at \(progress): \(open.count) open of \(last - first + 1)")
                }
            }
        }
        await onGTK {
            view.stage.motion = .still
            gtk_widget_queue_draw(view.canvas.pointer)
        }
        #expect(seams.isEmpty, "\(seams.count) angles with seams: \(seams.prefix(6))")
    }

    /// A placeholder as a tile shows it: transparent, with a small mark in its middle (a spinner) and a bar near
    /// its foot (a name label), both centred.
    static func centredPlaceholder(width: Int, height: Int) throws -> KFCrossPlatformImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let mark = (x: width / 2 - 8..<width / 2 + 8, y: height / 2 - 8..<height / 2 + 8)
        let bar = (x: width / 2 - 20..<width / 2 + 20, y: height - 14..<height - 6)
        let inside = { (x: Int, y: Int) in
            (mark.x.contains(x) && mark.y.contains(y)) || (bar.x.contains(x) && bar.y.contains(y))
        }
        for y in 0..<height {
            for x in 0..<width where inside(x, y) {
                pixels.replaceSubrange((y * width + x) * 4..<(y * width + x) * 4 + 4, with: [50, 50, 50, 255])
            }
        }
        return try KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
    }

    @Test(arguments: [Int32(0), 1])
    func aFlipFilmedAtIrregularFrameTimesHasNoEmptyFrame(axis: Int32) async throws {
        let (view, window) = await ViewProbe.presentedView(width: 100, height: 75)
        let placeholder = try Self.centredPlaceholder(width: 100, height: 75)
        let image = try ViewProbe.solid([40, 200, 0, 255], width: 100, height: 75)
        view.image = image
        #expect(await waitOnGTK { view.stage.current != nil && (ViewProbe.renderedCentre(view)?[3] ?? 0) == 255 })
        let painted = Locked(0)
        await ViewProbe.afterEachPaint(of: window) { painted.withLock { $0 += 1 } }
        // A 1.5 s flip filmed at frames 5 to 47 ms apart (a busy machine's clock), and a late burst close before the
        // turn, where a face is seen edge-on.
        var times: [Double] = []
        var time = 0.0
        var seed: UInt32 = 7
        while time < 1.5 {
            times.append(time)
            seed = seed &* 1_103_515_245 &+ 12_345
            time += 0.005 + Double((seed >> 16) % 1024) / 1024 * 0.042
        }
        times += [0.7365, 0.7405, 0.7440, 0.7468, 0.7490, 0.7499]
        var empty: [String] = []
        for time in times.sorted() {
            let progress = time / 1.5
            let before = await onGTK { () -> Int in
                view.stage.previous = KFImageView.Stage.Picture(placeholder)
                view.stage.motion = .moving(.flip(axis: axis, sign: 1), progress: progress)
                gtk_widget_queue_draw(view.canvas.pointer)
                return painted.withLock { $0 }
            }
            #expect(await waitOnGTK { painted.withLock { $0 } > before })
            if await onGTK({ Self.drawnPixels(view) }) == 0 { empty.append(String(format: "%.4f", progress)) }
        }
        await onGTK {
            view.stage.motion = .still
            gtk_widget_queue_draw(view.canvas.pointer)
        }
        #expect(empty.isEmpty, "\(empty.count) of \(times.count) frames empty, at progress \(empty.prefix(8))")
    }

    @Test func aFlipTurnsFromTheWidgetPlaceholderAndNoFrameIsEmpty() async throws {
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route(
            "/green.png",
            TestHTTPServer.Route(
                body: try ViewProbe.solidPNG(width: 640, height: 480, rgba: [20, 200, 40, 255]), held: true))
        let (view, window) = await ViewProbe.presentedView(width: 160, height: 120)
        // Filmed: each frame the window paints, as painted (rendered right after it, on the GTK thread).
        let film = Locked<[(progress: Double, drawn: Int, green: Bool)]>([])
        let filming = Locked(false)
        await ViewProbe.afterEachPaint(of: window) {
            guard filming.withLock({ $0 }) else { return }
            let centre = ViewProbe.renderedCentre(view)
            let green = centre.map { $0[1] > 150 && $0[0] < 80 && $0[3] > 200 } ?? false
            let frame = (view.transitionProgress, Self.drawnPixels(view), green)
            film.withLock { $0.append(frame) }
        }
        let label = await ViewProbe.heldLabel("Loading the picture")
        view.kf.indicatorType = .activity
        let finished = Locked<Bool>(false)
        view.kf.setImage(
            with: server.url("/green.png"), placeholder: GTKWidgetPlaceholder(label.pointer),
            options: [
                .targetCache(try ViewProbe.temporaryCache()), .transition(.flipFromLeft(1.0)), .forceTransition,
            ],
            completionHandler: { _ in finished.withLock { $0 = true } })
        await server.waitForRequests("/green.png")
        #expect(await waitOnGTK { Self.drawnPixels(view) > 0 })
        filming.withLock { $0 = true }
        server.release("/green.png")
        #expect(await waitOnGTK { finished.withLock { $0 } })
        filming.withLock { $0 = false }
        let frames = film.withLock { $0 }
        // Every frame from the release to the end shows something: in the first half of the turn the placeholder
        // (label and spinner, not the image), in the second half the image.
        #expect(frames.count > 10, "\(frames.count) frames")
        #expect(frames.allSatisfy { $0.drawn > 0 }, "\(frames.filter { $0.drawn == 0 })")
        let firstHalf = frames.filter { $0.progress > 0.05 && $0.progress < 0.45 }
        #expect(!firstHalf.isEmpty && firstHalf.allSatisfy { !$0.green }, "\(firstHalf)")
        #expect(frames.contains { $0.progress > 0.55 && $0.progress < 1 && $0.green }, "\(frames)")
        #expect(await onGTK { gtk_widget_get_parent(label.pointer) == nil })
        await ViewProbe.release(label)
    }
}
