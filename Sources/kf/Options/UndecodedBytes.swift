import Foundation
import Kingfisher

/// `kf fetch --original`: the downloaded bytes pass through the pipeline (download, cache) without a decode, as
/// curl would fetch them; only their header is checked to be an image's. The image the manager sees is a 1x1
/// stand-in, so this processor and serializer are used together and only by that mode (their own cache key).
enum UndecodedBytes {
    static let standIn: KFCrossPlatformImage = {
        // A 1x1 pixel buffer always has the right size, so this cannot fail.
        try! KFCrossPlatformImage(rgbaPixels: [0, 0, 0, 0], width: 1, height: 1)
    }()

    /// Accepts data whose header names an image format; decodes nothing.
    struct Processor: ImageProcessor {
        let identifier = "kf.undecoded"

        func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
            switch item {
            case .image(let image): image
            case .data(let data): data.kf.imageFormat == .unknown ? nil : UndecodedBytes.standIn
            }
        }
    }

    /// Stores the original bytes; reads a cached file back as the stand-in after the same header check.
    struct Serializer: CacheSerializer {
        var originalDataUsed: Bool { true }

        func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
            guard let original, original.kf.imageFormat != .unknown else { return nil }
            return original
        }

        func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
            data.kf.imageFormat == .unknown ? nil : UndecodedBytes.standIn
        }
    }
}
