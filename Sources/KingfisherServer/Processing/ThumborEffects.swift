import Foundation
import Kingfisher

/// The filters that change pixel values (or the scale) with thumbor's arithmetic, so a result looks as thumbor's:
/// thumbor computes them on 8-bit RGB with whole numbers, and so do the scales and offsets here (the last step
/// rounds where thumbor truncates: at most one level apart).
enum ThumborEffects {
    /// `effect` applied to `image`; only for the effects listed in ``ThumborProcessor``'s dispatch to this type.
    static func apply(
        _ effect: ThumborFilters.Effect, to image: KFCrossPlatformImage
    ) throws(VipsError) -> KFCrossPlatformImage {
        switch effect {
        case .brightness(let percent):
            let delta = Double(255 * percent / 100)
            return try image.mappingColourChannels(scale: [1, 1, 1], offset: [delta, delta, delta])
        case .contrast(let percent):
            // thumbor: c' = d × (c − 128) / 100 + 128, with d = (100 + v)² / 100.
            let factor = Double((100 + percent) * (100 + percent) / 100) / 100
            let offset = 128 - 128 * factor
            return try image.mappingColourChannels(
                scale: [factor, factor, factor], offset: [offset, offset, offset])
        case .rgb(let red, let green, let blue):
            return try image.mappingColourChannels(
                scale: [1, 1, 1], offset: [red, green, blue].map { Double(255 * $0 / 100) })
        case .colorize(let red, let green, let blue, let color):
            // thumbor: c' = (c × (100 − p) + colour × p) / 100 per channel.
            let percents = [red, green, blue].map(Double.init)
            return try image.mappingColourChannels(
                scale: percents.map { (100 - $0) / 100 },
                offset: zip(percents, color).map { percent, value in Double(value) * percent / 100 })
        case .equalize:
            return try image.equalisingHistogram()
        case .noise(let amount, let seed):
            // thumbor adds a whole number drawn evenly from `amount` values around 0; Gaussian noise of the same
            // spread (standard deviation √((a² − 1) / 12)) looks the same.
            let sigma = (Double(amount * amount - 1) / 12).squareRoot()
            return try image.addingNoise(sigma: sigma, seed: Int32(clamping: seed))
        case .proportion(let factor):
            let width = Int(Double(image.pixelWidth) * factor)
            let height = Int(Double(image.pixelHeight) * factor)
            guard width >= 1, height >= 1 else { return image }
            return try image.resizing(to: CGSize(width: width, height: height))
        case .backgroundColor(let color):
            return try image.flattening(onto: color)
        case .saturation(let factor):
            return try image.scalingSaturation(by: factor)
        case .convolution(let kernel, let columns, let divisor):
            return try image.convolving(kernel: kernel, columns: columns, divisor: divisor)
        case .sharpen(let amount, let radius):
            // thumbor sharpens with wavelets, boosting the detail near `radius` by up to `amount`; an unsharp
            // mask of that strength, over a blur of that radius, is the nearest single operation.
            return try image.sharpening(amount: amount, sigma: max(0.5, radius))
        case .curve(let all, let red, let green, let blue):
            // thumbor: a level goes through its channel's curve, then through the curve of all channels.
            let overall = ThumborCurve.table(through: all)
            let tables = [red, green, blue].map { points in
                ThumborCurve.table(through: points).map { overall[Int($0)] }
            }
            return try image.mappingColourLevels(tables)
        case .blur, .roundCorners, .grayscale, .rotate, .fill, .watermark, .frame:
            preconditionFailure("\(effect) is applied by ThumborProcessor")
        }
    }
}
