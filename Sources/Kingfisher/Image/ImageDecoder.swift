import CVips
package import Foundation

/// Turns encoded bytes into a materialised, 8-bit sRGB(A) ``KFCrossPlatformImage``.
///
/// The steps: recognise the format from its header, open the bytes with that format's libvips loader only, read the
/// header lazily and check the pixel limit, then convert colour (ICC, CMYK, 16-bit, grey, palette) in one
/// streaming pass into memory and apply EXIF orientation. Blocking and CPU-bound: callers choose the thread.
package enum ImageDecoder {
    /// Truncated files and codec errors fail; warnings (a stray byte before a marker) do not.
    static let failOn = VIPS_FAIL_ON_ERROR

    static func decode(_ data: Data, options: ImageCreatingOptions) throws(KingfisherError) -> KFCrossPlatformImage {
        let format = try checkedFormat(of: data)
        try checkHoldsItsPixels(data, format: format)
        let animated = format.canBeAnimated && !options.onlyFirstFrame
        let decoded = data.withUnsafeBytes { bytes in
            Result { () throws(KingfisherError) -> (VipsImageHandle, pixels: Int, pages: Int?) in
                let opened = try open(bytes, format: format, allFrames: animated)
                let pixels = opened.width * opened.height
                let image = try failing(format) { () throws(VipsError) in
                    if format == .SVG { try SVGDrawingCost.check(bytes, pixels: pixels) }
                    return try upright(opened.srgb8().materialised(forPixels: pixels)).withoutProfile()
                }
                return (image, pixels, opened.int("n-pages"))
            }
        }
        let (storage, pixels, pages) = try decoded.get()
        VipsRuntime.releaseFreedMemory(afterDecoding: pixels)
        let animation =
            animated ? animationInfo(of: storage, totalDuration: options.duration, keepsOneFrame: format == .GIF) : nil
        // The first frame alone of animated data still says how many frames the data has, as in Kingfisher; it
        // keeps the animation's bytes too, so a cache hit asked for every frame rebuilds the image from them.
        let sourceFrames = format.canBeAnimated && options.onlyFirstFrame ? pages.map { max(1, $0) } : nil
        let keepsData = animation != nil || (options.onlyFirstFrame && format.canBeAnimated && (pages ?? 1) > 1)
        let frames = animation.map {
            DecodedFrameSource(data: data, storage: storage, frameDurations: $0.frameDurations, scale: options.scale)
        }
        return KFCrossPlatformImage(
            storage: storage,
            scale: options.scale,
            animation: animation,
            animatedImageData: keepsData ? data : nil,
            sourceFrameCount: sourceFrames,
            frameSource: frames,
            decodedFormat: format
        )
    }

    /// A shrink-on-load decode that fits the image in `maxPixelSize` x `maxPixelSize`, never enlarging it.
    /// JPEG and WebP decode directly at a reduced size, so the full-size image never exists in memory.
    static func thumbnail(_ data: Data, maxPixelSize: Int, scale: CGFloat) throws(KingfisherError)
        -> KFCrossPlatformImage
    {
        let format = try checkedFormat(of: data)
        try checkHoldsItsPixels(data, format: format)
        let side = Int32(clamping: max(1, maxPixelSize))
        let decoded = data.withUnsafeBytes { bytes in
            Result { () throws(KingfisherError) -> (VipsImageHandle, pixels: Int) in
                let header = try open(bytes, format: format, allFrames: false)  // the format's loader; the pixel limit
                var pixels = header.width * header.pageHeight
                if format == .SVG {
                    // An SVG is drawn at the thumbnail's size: that drawing is what the time limit and the trial
                    // drawings must cover, not the size the document declares.
                    let fit = min(1, Double(side) / Double(max(1, max(header.width, header.pageHeight))))
                    let drawn = max(1, Int((Double(pixels) * fit * fit).rounded()))
                    try failing(format) { () throws(VipsError) in
                        try SVGDrawingCost.check(bytes, pixels: drawn, documentPixels: pixels)
                    }
                    pixels = drawn
                }
                let image = try failing(format) { () throws(VipsError) in
                    try shrunkOnLoad(bytes, of: data, format: format, header: header, side: side) {
                        shrunk throws(VipsError) in try shrunk.srgb8().materialised(forPixels: pixels).withoutProfile()
                    }
                }
                return (image, pixels)
            }
        }
        let (storage, pixels) = try decoded.get()
        VipsRuntime.releaseFreedMemory(afterDecoding: pixels)
        return KFCrossPlatformImage(
            storage: storage, scale: scale, animation: nil, animatedImageData: nil, decodedFormat: format)
    }

    /// The image that fits in `side` x `side`, upright, made by `finish` from a lazy one (`bytes` must outlive the
    /// lazy image; `finish` materialises it). A JPEG decodes at the largest DCT scale (1/2, 1/4, 1/8) that keeps its
    /// long side at least `side`, as ImageIO's thumbnails and Pillow's draft mode do, and one Lanczos reduce fits
    /// it (libvips' own thumbnail leaves at least a factor of 2 to the reduce: a 2560-pixel photo then decoded at
    /// 640 instead of 320 pixels, for ~5% more time per image on the wallpaper photos). At 1/8 a JPEG decodes from
    /// its DC coefficients (``JPEGEighthScale``: baseline files, and progressive ones without 4:2:0 chroma), or, a
    /// progressive one with 4:2:0 chroma, without the AC scans libjpeg does not read (``ProgressiveJPEGDCStream``).
    /// Other formats go through libvips' thumbnail, which shrinks WebP on load and uses a HEIF's embedded thumbnail
    /// when it is large enough.
    private static func shrunkOnLoad(
        _ bytes: UnsafeRawBufferPointer, of data: Data, format: ImageFormat, header: VipsImageHandle, side: Int32,
        finish: (VipsImageHandle) throws(VipsError) -> VipsImageHandle
    ) throws(VipsError) -> VipsImageHandle {
        if format == .JPEG {
            let longSide = max(header.width, header.height)
            var shrink = 1
            while shrink < 8, longSide / (shrink * 2) >= Int(side) { shrink *= 2 }
            // Orientations 2-8 flip or turn the image, which reads it out of order: those load for random access.
            let sequential = !(2...8).contains(header.orientation)
            if shrink == 8, let eighth = JPEGEighthScale.image(bytes, header: header) {
                return try finish(eighth.apply("thumbnail") { cvips_thumbnail_image($0, $1, side, side) })
            }
            if shrink == 8, let dcOnly = ProgressiveJPEGDCStream.make(from: data) {
                let result = dcOnly.withUnsafeBytes { dcBytes in
                    Result { () throws(VipsError) in
                        try finish(fittedJPEG(dcBytes, shrink: shrink, sequential: sequential, side: side))
                    }
                }
                return try result.get()
            }
            return try finish(fittedJPEG(bytes, shrink: shrink, sequential: sequential, side: side))
        }
        if format == .WebP {
            // The WebP loader by name, scaled by libwebp as libvips' thumbnail would ask: the thumbnail's own search
            // for a loader asks every one, ImageMagick's too, whose start-up alone keeps ~26 MB resident.
            let fit = min(1, Double(side) / Double(max(1, max(header.width, header.pageHeight))))
            guard let loaded = cvips_load_webp_scaled(bytes.baseAddress, bytes.count, fit, Int32(failOn.rawValue))
            else { throw VipsRuntime.takeError("load WebP") }
            return try finish(
                VipsImageHandle(owning: loaded).apply("thumbnail") { cvips_thumbnail_image($0, $1, side, side) })
        }
        var output: UnsafeMutablePointer<VipsImage>?
        let status = cvips_thumbnail_buffer(bytes.baseAddress, bytes.count, &output, side, side, Int32(failOn.rawValue))
        guard status == 0, let output else {
            if let output { cvips_unref(output) }
            let error = VipsRuntime.takeError("thumbnail")
            // libvips 8.14 does not recognise every HEIF brand its loader reads (an AVIF image sequence says
            // `avis`): the image the format's loader opened is shrunk instead.
            guard format == .AVIF || format == .HEIF else { throw error }
            return try finish(header.apply("thumbnail") { cvips_thumbnail_image($0, $1, side, side) })
        }
        return try finish(VipsImageHandle(owning: output))
    }

    /// A lazy JPEG load at 1/`shrink` scale, reduced to fit `side` x `side`.
    private static func fittedJPEG(
        _ bytes: UnsafeRawBufferPointer, shrink: Int, sequential: Bool, side: Int32
    ) throws(VipsError) -> VipsImageHandle {
        guard
            let loaded = cvips_load_named(
                "jpegload_buffer", bytes.baseAddress, bytes.count, 0, Int32(shrink), Int32(failOn.rawValue),
                sequential ? 1 : 0)
        else { throw VipsRuntime.takeError("load JPEG") }
        return try VipsImageHandle(owning: loaded).apply("thumbnail") {
            cvips_thumbnail_image($0, $1, side, side)
        }
    }

    /// The width and height the header declares (of the first frame), without decoding pixels.
    static func headerPixelSize(of data: Data) throws(KingfisherError) -> (width: Int, height: Int) {
        let format = try checkedFormat(of: data)
        let opened = data.withUnsafeBytes { bytes in
            Result { () throws(KingfisherError) -> (width: Int, height: Int) in
                let image = try open(bytes, format: format, allFrames: false)
                return (image.width, image.pageHeight)
            }
        }
        return try opened.get()
    }

    /// The size of a frame and the number of frames `data`'s header declares, read by libvips without computing a
    /// pixel, under the current engine limits (what `meta/` reports of a source).
    package static func headerFrames(of data: Data) throws(KingfisherError) -> (width: Int, height: Int, frames: Int) {
        let format = try checkedFormat(of: data)
        let opened = data.withUnsafeBytes { bytes in
            Result { () throws(KingfisherError) -> (width: Int, height: Int, frames: Int) in
                let image = try open(bytes, format: format, allFrames: format.canBeAnimated)
                return (image.width, image.pageHeight, max(1, image.height / max(1, image.pageHeight)))
            }
        }
        return try opened.get()
    }

    /// Everything a decode checks before it computes a pixel, without computing one: a format that decodes here,
    /// a header its loader reads, and the pixel limit (every frame counted when `allFrames` and the format can be
    /// animated) and frame limit. Throws the error the decode would throw at that point. A JPEG or PNG header is
    /// read in Swift when it can be (``ImageHeaderCheck/sizeReadInSwift(of:)``): libvips is not started for it.
    static func checkHeader(of data: Data, allFrames: Bool) throws(KingfisherError) {
        if let size = ImageHeaderCheck.sizeReadInSwift(of: data) {
            try checkPixelLimit(width: size.width, height: size.height)
            return
        }
        let format = try checkedFormat(of: data)
        let opened = data.withUnsafeBytes { bytes in
            Result { () throws(KingfisherError) in
                _ = try open(bytes, format: format, allFrames: allFrames && format.canBeAnimated)
            }
        }
        try opened.get()
    }

    // MARK: - Steps

    private static func checkedFormat(of data: Data) throws(KingfisherError) -> ImageFormat {
        guard !data.isEmpty else { throw .processorError(reason: .emptyImageData) }
        let format = data.kf.imageFormat
        if format != .unknown {
            do {
                try VipsRuntime.start()
            } catch {
                // libvips could not be loaded (or started): every format fails the same way, and says why.
                throw .processorError(reason: .imageDecodingFailed(format: format, error: error))
            }
        }
        guard ImageEngine.canDecode(format) else { throw .processorError(reason: .unsupportedImageFormat(format)) }
        if format == .BMP, let header = BMPHeader(Array(data.prefix(64))) {
            try checkPixelLimit(width: header.width, height: header.height)
        }
        return format
    }

    /// Refuses a Huffman-coded JPEG too short for the pixels its header declares: each 8 x 8 block of the first
    /// component costs at least one bit of scan data (its DC code), so fewer bytes than blocks / 8 is a file cut
    /// off (or made to look large). libjpeg decodes such a file with a warning, making grey pixels of what was
    /// never sent, at the cost of the whole declared size. Arithmetic-coded JPEGs can be smaller and are not
    /// judged. Not for headers alone (a download's first bytes): decodes only.
    private static func checkHoldsItsPixels(_ data: Data, format: ImageFormat) throws(KingfisherError) {
        guard format == .JPEG, let frame = JPEGFrameHeader(data), [0xC0, 0xC1, 0xC2].contains(frame.marker) else {
            return
        }
        let blocks = (frame.width / 8) * (frame.height / 8)
        guard data.count < blocks / 8 else { return }
        let error = VipsError(
            operation: "load JPEG",
            message: "the file is cut off: \(data.count) bytes cannot hold the \(frame.width) x \(frame.height) pixels "
                + "its header declares")
        throw .processorError(reason: .imageDecodingFailed(format: .JPEG, error: error))
    }

    /// Reads the header only (libvips is lazy) with the loader of the recognised format, so no other loader ever
    /// sees the bytes, and refuses headers that declare too many pixels.
    private static func open(
        _ bytes: UnsafeRawBufferPointer,
        format: ImageFormat,
        allFrames: Bool
    ) throws(KingfisherError) -> VipsImageHandle {
        guard let base = bytes.baseAddress else { throw .processorError(reason: .emptyImageData) }
        guard let loader = format.loaderNickname else {
            throw .processorError(reason: .unsupportedImageFormat(format))
        }
        let opened = try failing(format) { () throws(VipsError) in
            guard
                let image = cvips_load_named(
                    loader, base, bytes.count, allFrames ? 1 : 0, 1, Int32(failOn.rawValue), 1)
            else { throw VipsRuntime.takeError("load \(format)") }
            return VipsImageHandle(owning: image)
        }
        try checkPixelLimit(width: opened.width, height: opened.height)
        if allFrames { try checkFrameLimit(opened) }
        return opened
    }

    /// Refuses an animation that declares more frames than ``ImageEngine/maximumFrameCount`` (loaders opened for
    /// every frame stack them, `page-height` rows each).
    private static func checkFrameLimit(_ image: VipsImageHandle) throws(KingfisherError) {
        let limit = ImageEngine.Configuration.current.maximumFrameCount
        let frames = image.height / max(1, image.pageHeight)
        if frames > limit { throw .processorError(reason: .frameLimitExceeded(frames: frames, limit: limit)) }
    }

    private static func checkPixelLimit(width: Int, height: Int) throws(KingfisherError) {
        let limit = ImageEngine.Configuration.current.maximumPixelCount
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > limit {
            throw .processorError(reason: .pixelLimitExceeded(width: width, height: height, limit: limit))
        }
    }

    /// Applies EXIF orientation to a materialised image (rotation needs random access) and drops the tag.
    private static func upright(_ image: VipsImageHandle) throws(VipsError) -> VipsImageHandle {
        guard (2...8).contains(image.orientation), image.pageHeight == image.height else { return image }
        return try image.apply("autorot") { cvips_autorot($0, $1) }.materialised()
    }

    /// The frames and timing of a decode of every frame; `nil` for one frame unless `keepsOneFrame` (a GIF, which
    /// Kingfisher makes an animation of one frame whatever its frame count).
    private static func animationInfo(
        of image: VipsImageHandle, totalDuration: TimeInterval, keepsOneFrame: Bool
    ) -> KFCrossPlatformImage.Animation? {
        let frameHeight = image.pageHeight
        let frameCount = image.height / max(1, frameHeight)
        guard frameCount > 1 || (keepsOneFrame && frameCount == 1) else { return nil }
        let durations: [TimeInterval]
        if totalDuration > 0 {
            durations = Array(repeating: totalDuration / Double(frameCount), count: frameCount)
        } else {
            let delays = image.intArray("delay") ?? []
            durations = (0..<frameCount).map { index in
                FrameDelay.playable(milliseconds: index < delays.count ? delays[index] : 100)
            }
        }
        return .init(frameCount: frameCount, frameDurations: durations, loopCount: max(0, image.int("loop") ?? 0))
    }

    private static func failing<T>(
        _ format: ImageFormat,
        _ body: () throws(VipsError) -> T
    ) throws(KingfisherError) -> T {
        do {
            return try body()
        } catch {
            if let seconds = error.timeLimit { throw .processorError(reason: .timeLimitExceeded(seconds: seconds)) }
            throw .processorError(reason: .imageDecodingFailed(format: format, error: error))
        }
    }
}
