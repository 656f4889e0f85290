public import Foundation

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// PNG data of the image (the first frame of an animation), or `nil` if encoding failed.
    public func pngRepresentation() -> Data? {
        try? encoded(as: .PNG)
    }

    /// JPEG data of the image (the first frame of an animation), or `nil` if encoding failed.
    /// - Parameter compressionQuality: 0...1, as `UIImage.jpegData`; 1 is JPEG quality 100.
    /// - Note: Transparent areas become white.
    public func jpegRepresentation(compressionQuality: CGFloat) -> Data? {
        try? encoded(as: .JPEG, compressionQuality: compressionQuality)
    }

    /// GIF data: the original bytes when the image was decoded from an animated GIF, otherwise every frame
    /// encoded with its timing, or `nil` if encoding failed.
    public func gifRepresentation() -> Data? {
        if let original = base.animatedImageData, original.kf.imageFormat == .GIF { return original }
        return try? encoded(as: .GIF)
    }

    /// The image encoded in `format`, or `nil` if that failed. `.unknown` gives PNG, as in Kingfisher.
    ///
    /// GIF and WebP keep every frame of an animated image; the other formats take the first frame. For WebP a
    /// `compressionQuality` of 1 means lossless.
    public func data(format: ImageFormat, compressionQuality: CGFloat = 1.0) -> Data? {
        format == .GIF ? gifRepresentation() : try? encoded(as: format, compressionQuality: compressionQuality)
    }

    /// The image encoded in `format`, throwing a ``KingfisherError`` that says why when it cannot be.
    /// Unlike ``gifRepresentation()`` this always encodes the current pixels.
    public func encoded(as format: ImageFormat, compressionQuality: CGFloat = 1.0) throws(KingfisherError) -> Data {
        try ImageEncoder.encode(base, as: format, quality: compressionQuality)
    }
}
