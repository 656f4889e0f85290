import Foundation
import Kingfisher

/// Options with a scale factor, as a retrieval would pass them.
func processingOptions(scale: CGFloat = 1) -> KingfisherParsedOptionsInfo {
    KingfisherParsedOptionsInfo([.scaleFactor(scale)])
}

extension ImageProcessor {
    func run(_ image: KFCrossPlatformImage, scale: CGFloat = 1) -> KFCrossPlatformImage? {
        process(item: .image(image), options: processingOptions(scale: scale))
    }
}

/// Per-channel mean over all pixels of the first frame (RGBA).
func meanColor(_ image: KFCrossPlatformImage) -> [Double] {
    let pixels = image.kf.rgbaPixels()
    var sums = [Double](repeating: 0, count: 4)
    for (index, value) in pixels.enumerated() { sums[index % 4] += Double(value) }
    return sums.map { $0 / Double(pixels.count / 4) }
}

/// Variance of the luminance-ish mean of RGB over the first frame.
func variance(_ image: KFCrossPlatformImage) -> Double {
    let pixels = image.kf.rgbaPixels()
    let values = stride(from: 0, to: pixels.count, by: 4).map {
        (Double(pixels[$0]) + Double(pixels[$0 + 1]) + Double(pixels[$0 + 2])) / 3
    }
    let mean = values.reduce(0, +) / Double(values.count)
    return values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
}

/// A black-and-white checkerboard of `cell`-pixel squares.
func checkerboard(width: Int = 64, height: Int = 64, cell: Int = 4) -> KFCrossPlatformImage {
    var pixels = [UInt8]()
    pixels.reserveCapacity(width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let on: UInt8 = ((x / cell) + (y / cell)) % 2 == 0 ? 255 : 0
            pixels += [on, on, on, 255]
        }
    }
    return try! KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
}
