public import Foundation

/// Processor and serializer setters of every ``KFOptionSetter`` (``KF/Builder`` among them), as Kingfisher has them.
extension KFOptionSetter {
    /// Replaces the processor. ``DefaultImageProcessor`` by default.
    @discardableResult
    public func setProcessor(_ processor: any ImageProcessor) -> Self {
        changing { $0.processor = processor }
    }

    /// Replaces the processor with `processors` applied in order; the default processor when empty.
    @discardableResult
    public func setProcessors(_ processors: [any ImageProcessor]) -> Self {
        guard let first = processors.first else { return setProcessor(DefaultImageProcessor.default) }
        return setProcessor(processors.dropFirst().reduce(first) { $0 |> $1 })
    }

    /// Applies `processor` after the current one (or instead of the default one).
    @discardableResult
    public func appendProcessor(_ processor: any ImageProcessor) -> Self {
        changing { options in
            let current = options.processor
            options.processor = current.identifier.isEmpty ? processor : current.append(another: processor)
        }
    }

    /// Appends a ``ResizingImageProcessor``.
    @discardableResult
    public func resizing(referenceSize: CGSize, mode: ContentMode = .none) -> Self {
        appendProcessor(ResizingImageProcessor(referenceSize: referenceSize, mode: mode))
    }

    /// Appends a ``DownsamplingImageProcessor`` (shrink-on-load).
    @discardableResult
    public func downsampling(size: CGSize) -> Self {
        appendProcessor(DownsamplingImageProcessor(size: size))
    }

    /// Appends a ``RoundCornerImageProcessor``.
    @discardableResult
    public func roundCorner(
        radius: Radius, targetSize: CGSize? = nil, roundingCorners corners: RectCorner = .all,
        backgroundColor: KFCrossPlatformColor? = nil
    ) -> Self {
        appendProcessor(
            RoundCornerImageProcessor(
                radius: radius, targetSize: targetSize, roundingCorners: corners, backgroundColor: backgroundColor))
    }

    /// Appends a ``BlurImageProcessor``.
    @discardableResult
    public func blur(radius: CGFloat) -> Self {
        appendProcessor(BlurImageProcessor(blurRadius: radius))
    }

    /// Appends an ``OverlayImageProcessor``; `fraction` is `0.5` by default.
    @discardableResult
    public func overlay(color: KFCrossPlatformColor, fraction: CGFloat = 0.5) -> Self {
        appendProcessor(OverlayImageProcessor(overlay: color, fraction: fraction))
    }

    /// Appends a ``TintImageProcessor``.
    @discardableResult
    public func tint(color: KFCrossPlatformColor) -> Self {
        appendProcessor(TintImageProcessor(tint: color))
    }

    /// Appends a ``BlackWhiteProcessor``.
    @discardableResult
    public func blackWhite() -> Self {
        appendProcessor(BlackWhiteProcessor())
    }

    /// Appends a ``CroppingImageProcessor``; `anchor` is the centre by default.
    @discardableResult
    public func cropping(size: CGSize, anchor: CGPoint = CGPoint(x: 0.5, y: 0.5)) -> Self {
        appendProcessor(CroppingImageProcessor(size: size, anchor: anchor))
    }

    /// Replaces the cache serializer. ``DefaultCacheSerializer`` by default.
    @discardableResult
    public func serialize(by cacheSerializer: any CacheSerializer) -> Self {
        changing { $0.cacheSerializer = cacheSerializer }
    }

    /// Caches in `format` with a ``FormatIndicatedCacheSerializer``; formats it has no preset for use the
    /// ``DefaultCacheSerializer``. `jpegCompressionQuality` is `nil` (full quality) by default.
    @discardableResult
    public func serialize(as format: ImageFormat, jpegCompressionQuality: CGFloat? = nil) -> Self {
        let serializer: any CacheSerializer
        switch format {
        case .PNG: serializer = FormatIndicatedCacheSerializer.png
        case .JPEG:
            serializer =
                jpegCompressionQuality.map { FormatIndicatedCacheSerializer.jpeg(compressionQuality: $0) }
                ?? FormatIndicatedCacheSerializer.jpeg
        case .GIF: serializer = FormatIndicatedCacheSerializer.gif
        case .WebP: serializer = FormatIndicatedCacheSerializer.webp
        default: serializer = DefaultCacheSerializer.default
        }
        return serialize(by: serializer)
    }
}
