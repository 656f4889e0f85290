import Foundation
import KingfisherLocking
public import Kingfisher

/// Transitions on a ``TerminalImageView``: a fade as a few blended frames.
extension TerminalImageView {
    /// Fades from `oldImage` to `newImage` in a few blended frames over the transition's duration (about ten a
    /// second, two to eight in all); flips are drawn as fades. With nothing shown before, or no duration, the
    /// image is set at once. A ``ImageTransition/custom(duration:animations:completion:)`` runs its
    /// `animations` (or sets the image when it has none). `completion` gets `false` when another image replaced
    /// this one before the fade ended.
    public func transition(
        _ transition: ImageTransition, from oldImage: KFCrossPlatformImage?, to newImage: KFCrossPlatformImage,
        completion: @escaping @Sendable (Bool) -> Void
    ) {
        if case .custom(_, let animations, _) = transition {
            if let animations { animations(self, newImage) } else { image = newImage }
            completion(true)
            return
        }
        guard let oldImage, !transition.isNone, transition.duration > 0 else {
            image = newImage
            completion(true)
            return
        }
        let generation = replaceImage(with: newImage)
        let fade = Fade(
            from: oldImage, to: newImage, duration: transition.duration, generation: generation, completion: completion)
        queue.async { self.start(fade) }
    }

    /// A fade under way.
    struct Fade: Sendable {
        let from: KFCrossPlatformImage
        let to: KFCrossPlatformImage
        let duration: TimeInterval
        let generation: Int
        let completion: @Sendable (Bool) -> Void

        /// Frames drawn, the final image included.
        var steps: Int { max(2, min(8, Int((duration * 10).rounded()))) }
    }

    private func start(_ fade: Fade) {
        guard isCurrent(fade.generation) else { return fade.completion(false) }
        // Both images at one pixel size: the new one as it will be rendered, the old one stretched to match.
        let target = renderer.shrunkForRendering(fade.to, fitting: pictureSize)
        let scale = fade.from.scale
        let old = fade.from.kf.resize(
            to: CGSize(width: CGFloat(target.pixelWidth) / scale, height: CGFloat(target.pixelHeight) / scale))
        let (fromPixels, toPixels) = (old.kf.rgbaPixels(), target.kf.rgbaPixels())
        guard fromPixels.count == toPixels.count else {
            show(fade.to, generation: fade.generation)
            return fade.completion(true)
        }
        drawing.withLock {
            $0.animation = nil
            $0.isFading = true
        }
        let blend: @Sendable (Double) -> [UInt8] = { PixelBlend.mix(fromPixels, toPixels, fraction: $0) }
        step(1, of: fade, blend: blend, size: (target.pixelWidth, target.pixelHeight))
    }

    /// Draws blended frame `index` (of ``Fade/steps``), or at the last one the new image itself.
    private func step(
        _ index: Int, of fade: Fade, blend: @escaping @Sendable (Double) -> [UInt8], size: (width: Int, height: Int)
    ) {
        guard isCurrent(fade.generation), index < fade.steps else {
            drawing.withLock { $0.isFading = false }
            let finished = isCurrent(fade.generation)
            if finished { show(fade.to, generation: fade.generation) }
            resumeWaitersIfIdle()
            return fade.completion(finished)
        }
        let pixels = blend(Double(index) / Double(fade.steps))
        draw(renderer.render(rgba: pixels, width: size.width, height: size.height, fitting: pictureSize))
        queue.asyncAfter(deadline: .now() + fade.duration / Double(fade.steps)) {
            self.step(index + 1, of: fade, blend: blend, size: size)
        }
    }
}
