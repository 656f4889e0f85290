import CVips

/// The image engine behind every ``KFCrossPlatformImage``: libvips, and the limits Kingfisher applies to it.
///
/// This is the one place to configure decoding:
/// ```swift
/// ImageEngine.maximumPixelCount = 50_000_000  // reject anything over 50 megapixels
/// ```
public enum ImageEngine {
    /// The most pixels (width x height, all frames of an animation counted) an image may declare. Larger
    /// images are rejected from their header with ``KingfisherError/ProcessorErrorReason/pixelLimitExceeded(width:height:limit:)``
    /// before any pixel memory is allocated. 100 megapixels by default; values below 1 are treated as 1.
    public static var maximumPixelCount: Int {
        get { Configuration.default.maximumPixelCount }
        set { Configuration.changeDefault { $0.maximumPixelCount = newValue } }
    }

    /// Keeps large buffers out of the C heap: on glibc, allocations of `threshold` bytes or more (decoded pixels,
    /// JPEG coefficient planes, response bodies) each get their own memory mapping, returned to the system when
    /// freed, instead of glibc's adaptive threshold letting them into the heap, where many decoding threads
    /// fragment it and peak RSS keeps growing. Ours, process-wide: call it once at startup, before decoding; an
    /// application that tunes malloc itself (or sets `MALLOC_MMAP_THRESHOLD_`) should not. `kf` calls it; on
    /// 120 photo thumbnails at 8 at a time it cut peak RSS from 619 to 270 MB.
    ///
    /// `heapKept`, when given, is how much freed memory at the top of the heap glibc keeps instead of handing it
    /// back at each free (its trim threshold, 128 KB once the threshold above is set): a window that draws each frame
    /// into a fresh surface of a few MB should keep it, and a threshold above that surface's size, or every frame
    /// faults the surface's pages in again (`kf gallery`: a cold scroll's frame p50 from 5.1 to 3.9 ms with 16 MB and
    /// 64 MB; a decode of 8 megapixels or more still hands back the memory it freed).
    /// - Returns: whether it took effect (`false` on C libraries other than glibc).
    @discardableResult
    public static func keepLargeAllocationsOutOfHeap(threshold: Int = 1 << 20, heapKept: Int? = nil) -> Bool {
        let mapped = cvips_malloc_mmap_threshold(Int32(clamping: threshold)) == 1
        guard let heapKept else { return mapped }
        return cvips_malloc_trim_threshold(Int32(clamping: heapKept)) == 1 && mapped
    }

    /// Whether libvips runs its resampling and convolution kernels as vector code compiled at run time (liborc).
    /// Off by default: with liborc 0.4.33 (Debian 12's) a server making thumbnails on several threads crashed once
    /// inside it (see docs/benchmarks-history.md), and liborc's concurrency bugs are a known libvips story (libvips
    /// 8.15 dropped it). Thumbnails are as fast without it; a Gaussian blur of a 15-megapixel photo takes ~3x as long
    /// and a resize of one ~1.25x. Turn it on for such work where a crash is acceptable risk. Process-wide. Ours.
    public static var usesVectorCode: Bool {
        get {
            guard (try? VipsRuntime.start()) != nil else { return false }
            return cvips_vector_enabled() != 0
        }
        set {
            guard (try? VipsRuntime.start()) != nil else { return }
            cvips_set_vector_enabled(newValue ? 1 : 0)
        }
    }

    /// The version of the libvips this process loads, e.g. `"8.14.1"`, or `"not installed"` when it cannot be
    /// loaded. libvips is loaded when first needed, not when the program starts; naming its version does not start
    /// it.
    public static var libvipsVersion: String {
        VipsRuntime.versionString
    }

    /// Starts libvips (once per process) for code of this package that calls it directly, as tests making
    /// fixtures do; the library itself starts it on first use.
    package static func startLibvips() {
        _ = try? VipsRuntime.start()
    }

    /// Whether data in `format` can be decoded here. Depends on how the installed libvips was built.
    public static func canDecode(_ format: ImageFormat) -> Bool {
        guard let loader = format.loaderNickname else { return false }
        return VipsRuntime.operationExists(loader)
    }

    /// Whether images can be encoded to `format` here. HEIF and AVIF also need an encoder plugin in libheif,
    /// which only an attempt reveals; `.unknown` encodes as PNG.
    public static func canEncode(_ format: ImageFormat) -> Bool {
        guard let saver = format.saverNickname else { return false }
        return VipsRuntime.operationExists(saver)
    }
}

extension ImageFormat {
    /// The libvips loader that must claim data of this format; any other loader is refused.
    var loaderNickname: String? {
        switch self {
        case .unknown: nil
        case .PNG: "pngload_buffer"
        case .JPEG: "jpegload_buffer"
        case .GIF: "gifload_buffer"
        case .WebP: "webpload_buffer"
        case .HEIF, .AVIF: "heifload_buffer"
        case .TIFF: "tiffload_buffer"
        case .BMP: "magickload_buffer"
        case .SVG: "svgload_buffer"
        }
    }

    var saverNickname: String? {
        switch self {
        case .unknown, .PNG: "pngsave_buffer"
        case .JPEG: "jpegsave_buffer"
        case .GIF: "gifsave_buffer"
        case .WebP: "webpsave_buffer"
        case .HEIF, .AVIF: "heifsave_buffer"
        case .TIFF: "tiffsave_buffer"
        case .BMP: "magicksave_buffer"
        case .SVG: nil
        }
    }

    /// Formats whose files can hold an animation that Kingfisher plays.
    var canBeAnimated: Bool {
        self == .GIF || self == .WebP
    }
}
