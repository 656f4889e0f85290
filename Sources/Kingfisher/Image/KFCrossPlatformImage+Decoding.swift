public import Foundation

extension KFCrossPlatformImage {
    /// Decodes `data` in any format ``ImageEngine/canDecode(_:)`` accepts.
    ///
    /// Blocking and CPU-bound: call it off the cooperative thread pool for large images.
    /// - Throws: a ``KingfisherError/processorError(reason:)`` saying why the data cannot be an image.
    public convenience init(decoding data: Data, options: ImageCreatingOptions = .init()) throws(KingfisherError) {
        let decoded = try ImageDecoder.decode(data, options: options)
        self.init(
            storage: decoded.storage,
            scale: decoded.scale,
            animation: decoded.animation,
            animatedImageData: decoded.animatedImageData,
            sourceFrameCount: decoded.sourceFrameCount,
            frameSource: decoded.frameSource
        )
    }

    /// Decodes `data`, or returns `nil` when it is not a decodable image (as `UIImage(data:scale:)`).
    public convenience init?(data: Data, scale: CGFloat = 1) {
        guard let decoded = try? ImageDecoder.decode(data, options: .init(scale: scale)) else { return nil }
        self.init(
            storage: decoded.storage,
            scale: decoded.scale,
            animation: decoded.animation,
            animatedImageData: decoded.animatedImageData,
            sourceFrameCount: decoded.sourceFrameCount,
            frameSource: decoded.frameSource
        )
    }

    /// Decodes the file at `path`, or returns `nil` (as `UIImage(contentsOfFile:)`).
    public convenience init?(contentsOfFile path: String) {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        self.init(data: data)
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// Decodes `data`, keeping every frame of an animated GIF or WebP unless `options.onlyFirstFrame`;
    /// `nil` when the data is not a decodable image.
    public static func image(data: Data, options: ImageCreatingOptions) -> KFCrossPlatformImage? {
        try? ImageDecoder.decode(data, options: options)
    }

    /// Decodes animated data (GIF, WebP) with its frames and timing; still images decode as with
    /// ``image(data:options:)``.
    public static func animatedImage(data: Data, options: ImageCreatingOptions) -> KFCrossPlatformImage? {
        try? ImageDecoder.decode(data, options: options)
    }

    /// Decodes a reduced image whose longer side is at most `max(pointSize.width, pointSize.height)` points at
    /// `scale` (Kingfisher's rule), keeping the aspect ratio and never enlarging; the first frame of animated data.
    /// `.zero` gives the full image, as Kingfisher on iOS 17.4 / macOS 14.4 and later. JPEG and WebP shrink while
    /// decoding, so the full-size image never exists in memory.
    public static func downsampledImage(data: Data, to pointSize: CGSize, scale: CGFloat) -> KFCrossPlatformImage? {
        try? downsampled(data: data, to: pointSize, scale: scale)
    }

    /// ``downsampledImage(data:to:scale:)``, with the reason it failed (`nil`: a size that is not a number).
    static func downsampled(
        data: Data, to pointSize: CGSize, scale: CGFloat
    ) throws(KingfisherError) -> KFCrossPlatformImage? {
        let side = max(pointSize.width, pointSize.height) * scale
        guard !pointSize.width.isNaN, !pointSize.height.isNaN, !side.isNaN else { return nil }
        guard side > 0 else {
            return try ImageDecoder.decode(data, options: .init(scale: scale, onlyFirstFrame: true))
        }
        let pixels = Int(min(side, CGFloat(Int32.max)).rounded(.up))
        return try ImageDecoder.thumbnail(data, maxPixelSize: pixels, scale: scale)
    }
}
