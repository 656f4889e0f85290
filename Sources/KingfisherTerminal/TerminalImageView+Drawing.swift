import Foundation
import KingfisherLocking
import Kingfisher

/// The drawing side of ``TerminalImageView``: everything here runs on the view's queue, one block at a time.
extension TerminalImageView {
    /// What the drawing queue keeps between blocks.
    struct DrawingState {
        /// The animated image playing, if any.
        var animation: Animation?
        /// Whether a fade is running.
        var isFading = false
        /// The indicator's state while it animates.
        var indicator: IndicatorState?
        var spinnerTick = 0
        var isSpinnerScheduled = false
        /// Callers of ``TerminalImageView/waitUntilIdle()`` waiting.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The frames of an animated image being played.
    struct Animation {
        let generation: Int
        let frames: [TerminalPicture]
        let delays: [TimeInterval]
        var index = 0
        /// Plays left, counting the one under way; `nil` for forever.
        var playsLeft: Int?
    }

    func isCurrent(_ generation: Int) -> Bool {
        shown.withLock { $0.generation == generation }
    }

    /// Draws `image` (its first frame), then plays it when it is animated.
    func show(_ image: KFCrossPlatformImage?, generation: Int) {
        guard isCurrent(generation) else { return }
        drawing.withLock { $0.animation = nil }
        guard let image else {
            draw(nil)
            resumeWaitersIfIdle()
            return
        }
        let frames = renderer.renderFrames(image, fitting: pictureSize)
        guard isCurrent(generation), let first = frames.first else { return }
        draw(first)
        if frames.count > 1 {
            let plays = loopCount ?? image.kf.loopCount
            let animation = Animation(
                generation: generation, frames: frames, delays: image.kf.frameDurations,
                playsLeft: plays > 0 ? plays : nil)
            drawing.withLock { $0.animation = animation }
            scheduleNextFrame(of: animation)
        }
        resumeWaitersIfIdle()
    }

    private func scheduleNextFrame(of animation: Animation) {
        let delay = animation.delays.indices.contains(animation.index) ? animation.delays[animation.index] : 0
        queue.asyncAfter(deadline: .now() + FrameDelay.playable(delay)) { [weak self] in
            self?.advanceFrame(generation: animation.generation)
        }
    }

    /// Shows the next frame; after the last play, the animation stops on its last frame.
    private func advanceFrame(generation: Int) {
        guard isCurrent(generation) else { return }
        let next = drawing.withLock { state -> Animation? in
            guard var animation = state.animation, animation.generation == generation else { return nil }
            animation.index += 1
            if animation.index == animation.frames.count {
                if let playsLeft = animation.playsLeft {
                    guard playsLeft > 1 else {
                        state.animation = nil
                        return nil
                    }
                    animation.playsLeft = playsLeft - 1
                }
                animation.index = 0
            }
            state.animation = animation
            return animation
        }
        guard let next else {
            resumeWaitersIfIdle()
            return
        }
        draw(next.frames[next.index])
        scheduleNextFrame(of: next)
    }

    /// Writes `picture` (`nil`: blank) over the picture area, centred across it, in one piece.
    func draw(_ picture: TerminalPicture?) {
        let area = pictureSize
        let offset = max(0, (area.columns - (picture?.size.columns ?? 0)) / 2)
        var text = ""
        if renderer.mode == .kitty {
            // Kitty images are placements over the cells, not cell text: erasing the cells leaves them. Delete
            // (and free) whatever this view placed before — its pictures start on the area's first row — by
            // deleting the placements under each cell of that row.
            for column in 0..<area.columns {
                text += TerminalScreen.moveToRegion(column: region.column + column, row: region.row)
                text += Self.kittyDeleteAtCursor
            }
        }
        for row in 0..<area.rows {
            text += TerminalScreen.moveToRegion(column: region.column, row: region.row + row)
            text += "\u{1B}[0m" + Self.erase(area.columns)
            if let picture, !picture.isGraphics, row < picture.lines.count {
                text += Self.forward(offset) + picture.lines[row] + "\u{1B}[0m"
            }
        }
        if let picture, picture.isGraphics, let sequence = picture.lines.first {
            text += TerminalScreen.moveToRegion(column: region.column + offset, row: region.row) + sequence
        }
        screen.write(text)
    }

    /// Writes the status line: the indicator's spinner while it animates, else the message.
    func drawStatus() {
        guard let statusRow else { return }
        let (indicator, tick) = drawing.withLock { ($0.indicator, $0.spinnerTick) }
        let text = indicator.map { StatusLine.loading($0, tick: tick) } ?? message ?? ""
        screen.write(
            TerminalScreen.moveToRegion(column: region.column, row: region.row + statusRow) + "\u{1B}[0m"
                + Self.erase(region.size.columns) + StatusLine.fitted(text, width: region.size.columns))
    }

    /// Resumes the ``TerminalImageView/waitUntilIdle()`` callers when nothing plays or fades.
    func resumeWaitersIfIdle() {
        let waiters = drawing.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.animation == nil, !state.isFading else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Erases `count` cells from the cursor on, leaving the cursor where it is.
    /// Kitty graphics: delete the placements intersecting the cursor's cell and free their images (`a=d,d=C`).
    static let kittyDeleteAtCursor = "\u{1B}_Ga=d,d=C\u{1B}\\"

    static func erase(_ count: Int) -> String { count > 0 ? "\u{1B}[\(count)X" : "" }

    static func forward(_ count: Int) -> String { count > 0 ? "\u{1B}[\(count)C" : "" }
}
