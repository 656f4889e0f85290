import CVips
public import Foundation

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The first frame's pixels as straight (not premultiplied) RGBA8, row by row from the top left:
    /// `pixelWidth * pixelHeight * 4` bytes. Images without alpha read as opaque.
    public func rgbaPixels() -> [UInt8] {
        guard !base.isEmptyImage else { return [] }
        do throws(VipsError) {
            var frame = try base.storage.frame(0)
            if frame.bands == 3 {
                frame = try frame.apply("bandjoin_const") { cvips_add_opaque_alpha($0, $1) }
            }
            return try frame.packedBytes()
        } catch {
            // Only an allocation failure can get here: the pixels are already in memory.
            return []
        }
    }
}

extension KFCrossPlatformImage {
    /// Creates an image from straight (not premultiplied) RGBA8 pixels, row by row from the top left.
    /// - Throws: ``KingfisherError/ProcessorErrorReason/invalidPixelBuffer(width:height:byteCount:)`` when
    ///   `width` or `height` is not positive or `rgbaPixels.count != width * height * 4`.
    public convenience init(rgbaPixels: [UInt8], width: Int, height: Int, scale: CGFloat = 1) throws(KingfisherError) {
        let invalid = KingfisherError.processorError(
            reason: .invalidPixelBuffer(width: width, height: height, byteCount: rgbaPixels.count))
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else { throw invalid }
        let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: 4)
        let (expected, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        guard !rowOverflow, !overflow, expected == rgbaPixels.count else { throw invalid }
        do throws(VipsError) {
            try VipsRuntime.start()
            let image = try VipsImageHandle.packed(rgbaPixels, width: width, height: height, bands: 4)
            self.init(storage: image, scale: scale, animation: nil, animatedImageData: nil)
        } catch {
            throw .processorError(reason: .imageEncodingFailed(format: .unknown, error: error))
        }
    }

    /// An animated image that shows `images` one after another, `duration` seconds in all (as
    /// `UIImage.animatedImage(with:duration:)`); `nil` if the list is empty or the frames differ in pixel size.
    public static func animatedImage(with images: [KFCrossPlatformImage], duration: TimeInterval)
        -> KFCrossPlatformImage?
    {
        guard !images.isEmpty else { return nil }
        let each = duration > 0 ? duration / Double(images.count) : 0.1
        return try? KFCrossPlatformImage(frames: images, frameDurations: Array(repeating: each, count: images.count))
    }

    /// An animated image from frames of equal pixel size, each shown for its duration in seconds.
    /// - Parameter loopCount: how many times to play; 0 (the default) means forever.
    /// - Throws: ``KingfisherError/ProcessorErrorReason/invalidPixelBuffer(width:height:byteCount:)`` when the frames
    ///   differ in size or the counts do not match.
    public convenience init(
        frames: [KFCrossPlatformImage],
        frameDurations: [TimeInterval],
        loopCount: Int = 0
    ) throws(KingfisherError) {
        guard let first = frames.first, frameDurations.count == frames.count, !first.isEmptyImage,
            frames.allSatisfy({ $0.pixelWidth == first.pixelWidth && $0.pixelHeight == first.pixelHeight })
        else {
            throw .processorError(
                reason: .invalidPixelBuffer(
                    width: frames.first?.pixelWidth ?? 0, height: frames.first?.pixelHeight ?? 0, byteCount: 0))
        }
        do throws(VipsError) {
            let withAlpha = frames.contains { $0.hasAlpha }
            let handles = try frames.map { image throws(VipsError) -> VipsImageHandle in
                let frame = try image.storage.frame(0)
                guard withAlpha, !frame.hasAlpha else { return frame }
                return try frame.apply("bandjoin_const") { cvips_add_opaque_alpha($0, $1) }
            }
            var pointers: [UnsafeMutablePointer<VipsImage>?] = handles.map(\.pointer)
            let joined = try withExtendedLifetime(handles) { () throws(VipsError) -> VipsImageHandle in
                var output: UnsafeMutablePointer<VipsImage>?
                guard cvips_join_vertically(&pointers, Int32(pointers.count), &output) == 0, let output else {
                    throw VipsRuntime.takeError("arrayjoin")
                }
                return try VipsImageHandle(owning: output).materialised()
            }
            // `joined` is new and unshared, so its metadata may still be written.
            joined.setInt("page-height", first.pixelHeight)
            joined.setIntArray("delay", frameDurations.map { Int(($0 * 1000).rounded()) })
            joined.setInt("loop", loopCount)
            let animation =
                frames.count > 1
                ? Animation(frameCount: frames.count, frameDurations: frameDurations, loopCount: max(0, loopCount))
                : nil
            self.init(storage: joined, scale: first.scale, animation: animation, animatedImageData: nil)
        } catch {
            throw .processorError(reason: .imageEncodingFailed(format: .unknown, error: error))
        }
    }
}
