import CGtk
import Dispatch
import Foundation
import Kingfisher
import KingfisherLocking

extension KFImageView {
    /// How many times an animated image plays, as Kingfisher's `AnimatedImageView.RepeatCount`.
    public enum RepeatCount: Sendable, Equatable {
        case once
        case finite(count: UInt)
        case infinite
    }

    /// Plays an animated image on the frame clock: each frame for its delay, `repeatCount` times; a few frames
    /// ahead are made drawable on a background queue (at most `preloadCount` kept), so the main loop only draws.
    /// The frame clock stops for an unmapped widget, and so do playback and frame preparation.
    // @unchecked: made on any thread; every property is read and changed on the GTK main context only.
    final class Player: @unchecked Sendable {
        let image: KFCrossPlatformImage
        let delays: [TimeInterval]
        let plays: Int?
        let preloadCount: Int
        private(set) var index = 0
        private var frameStart: Int64?
        private var playsDone = 0
        private(set) var finished = false
        /// Drawable frames by index, within the preload window.
        private var ready: [Int: Stage.Picture] = [:]
        private var requested: Set<Int> = []
        /// How many frames were made drawable, for tests and for knowing that preparation stops.
        private(set) var preparedCount = 0
        /// How many frames are being made drawable now (asked for, not yet received).
        var preparingCount: Int { requested.count }
        private let queue = DispatchQueue(label: "com.onevcat.Kingfisher.KFImageView.frames", qos: .userInitiated)

        /// How the view drew last: frames are made drawable at that size.
        private let drawnAs: Locked<Stage.Fitting?>

        init(
            image: KFCrossPlatformImage, repeatCount: RepeatCount, preloadCount: Int, drawnAs: Locked<Stage.Fitting?>
        ) {
            self.image = image
            self.drawnAs = drawnAs
            delays = image.kf.frameDurations.map(FrameDelay.playable)
            switch repeatCount {
            case .once: plays = 1
            case .finite(let count): plays = max(1, Int(min(count, UInt(Int.max))))
            case .infinite: plays = nil
            }
            self.preloadCount = max(1, preloadCount)
        }

        /// The frame to draw now (the last one ready at or before the current index).
        var picture: Stage.Picture? {
            ready[index] ?? ready.filter { $0.key <= index }.max { $0.key < $1.key }?.value
        }

        /// Advances to `frameTime` (µs); asks for the frames ahead; false once the last play has ended.
        func step(at frameTime: Int64, redraw: @escaping @Sendable () -> Void) -> Bool {
            guard !finished, !delays.isEmpty else { return false }
            let start = frameStart ?? frameTime
            frameStart = start
            var elapsed = Double(frameTime - start) / 1_000_000
            var moved = false
            while elapsed >= delays[index] {
                elapsed -= delays[index]
                frameStart = (frameStart ?? frameTime) + Int64(delays[index] * 1_000_000)
                if index + 1 < delays.count {
                    index += 1
                } else {
                    playsDone += 1
                    if let plays, playsDone >= plays {
                        finished = true
                        break
                    }
                    index = 0
                }
                moved = true
            }
            prepareAhead(redraw: redraw)
            if moved { redraw() }
            return !finished
        }

        /// Keeps a frame made drawable, if it is still wanted. On the GTK thread.
        private func receive(_ picture: Stage.Picture?, for frame: Int, redraw: @Sendable () -> Void) {
            guard requested.contains(frame) else { return }
            requested.remove(frame)
            ready[frame] = picture
            preparedCount += 1
            if frame == index { redraw() }
        }

        /// Makes the frames from the current one to `preloadCount` ahead drawable, off the main loop; drops the rest.
        func prepareAhead(redraw: @escaping @Sendable () -> Void) {
            let window = (0..<preloadCount).map { (index + $0) % delays.count }
            let keep = Set(window)
            ready = ready.filter { keep.contains($0.key) || $0.key == index }
            requested = requested.filter { keep.contains($0) }
            for frame in window where ready[frame] == nil && !requested.contains(frame) {
                requested.insert(frame)
                let image = self.image
                let drawnAs = self.drawnAs
                queue.async { [weak self] in
                    let picture = Stage.Picture(image.kf.frame(at: frame), preparedFor: drawnAs.withLock { $0 })
                    let delivery = PictureDelivery(picture)
                    GTKMainContext.perform { [weak self] in
                        self?.receive(delivery.picture, for: frame, redraw: redraw)
                    }
                }
            }
        }
    }
}
