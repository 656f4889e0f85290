import CVips
import Foundation

extension KFCrossPlatformImage {
    /// An empty image, as `UIImage()`: no pixels, `size` `.zero`, scale 1, no frames.
    ///
    /// What works on it: `size`, `scale`, `kf.cost` (0), `kf.images` (`nil`), `kf.normalized` (itself), `==`.
    /// What does not: it encodes to nothing (`pngRepresentation()` and the other representations are `nil`,
    /// `encoded(as:)` throws `imageEncodingFailed`), `kf.rgbaPixels()` is empty, the `kf` resize, crop and effect
    /// methods return it unchanged, and a processor given it fails (`processingFailed`) — as `UIImage()` draws
    /// nothing. A cache stores it in memory only: the serializer has no bytes for the disk.
    public convenience init() {
        self.init(storage: nil, scale: 1, animation: nil, animatedImageData: nil, isEmptyImage: true)
    }

    /// The one transparent pixel every empty image stands for, made when first asked for (libvips has no 0 x 0
    /// image).
    static let emptyPixel: VipsImageHandle = {
        try? VipsRuntime.start()
        let bytes: [UInt8] = [0, 0, 0, 0]
        let pointer = bytes.withUnsafeBytes { raw in
            cvips_new_from_memory_copy(raw.baseAddress, raw.count, 1, 1, 4, Int32(VIPS_FORMAT_UCHAR.rawValue))
        }
        // Only a libvips that cannot allocate four bytes gets here; nothing else in the library could work then.
        guard let pointer else { fatalError("libvips could not create a 1 x 1 image: \(VipsRuntime.takeError("new"))") }
        return VipsImageHandle(owning: pointer)
    }()

    /// The error for work on an empty image.
    static let emptyImageError = VipsError(operation: "image", message: "the image is empty (0 x 0 pixels)")
}
