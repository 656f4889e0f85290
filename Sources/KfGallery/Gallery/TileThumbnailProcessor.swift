import Foundation
import Kingfisher

/// Makes a tile's image for the pixels it fills: the smallest size that still covers the tile (the view fills it,
/// aspect kept, overflow cut off), in device pixels (`.scaleFactor`), never enlarged, shrunk while decoding where
/// the format allows (``DownsamplingImageProcessor`` does the work). At 1x, a 100 x 75 point tile gets a 640 x 480
/// photo as 100 x 75, a 300 x 1500 one as 100 x 500 and a 2400 x 400 panorama as 450 x 75: each drawn pixel for
/// pixel across its narrower side, none enlarged (a cap on the longer side would blur tall and wide ones).
struct TileThumbnailProcessor: ImageProcessor {
    let identifier: String
    /// The tile's size in points.
    let tile: CGSize

    init(tile: CGSize) {
        self.tile = tile
        identifier = "com.onevcat.Kingfisher.kf-gallery.TileThumbnail(\(Int(tile.width))x\(Int(tile.height)))"
    }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        let pixels: (width: Int, height: Int)?
        switch item {
        case .image(let image): pixels = (image.pixelWidth, image.pixelHeight)
        case .data(let data): pixels = ImageHeaderSize.of(data)
        }
        return DownsamplingImageProcessor(size: fittingSize(of: pixels)).process(item: item, options: options)
    }

    /// The square (in points) the image's longer side is shrunk to fit so that it covers the tile; for an image whose
    /// size the header does not say (HEIF, AVIF, TIFF, SVG), one and a half times the tile, which covers it for
    /// images up to 2:1.
    func fittingSize(of pixels: (width: Int, height: Int)?) -> CGSize {
        guard let pixels, pixels.width > 0, pixels.height > 0 else {
            let side = max(tile.width, tile.height) * 1.5
            return CGSize(width: side, height: side)
        }
        let (width, height) = (CGFloat(pixels.width), CGFloat(pixels.height))
        let fill = max(tile.width / width, tile.height / height)
        // To a thousandth of a point: 1500 x (100 / 300) must be 500, not a hair over (a pixel more when rounded up).
        let side = (max(width, height) * fill * 1000).rounded() / 1000
        return CGSize(width: side, height: side)
    }
}
