/// A processor made from a closure: the way to write a one-off processor, and what `append(another:)` builds.
///
/// ```swift
/// let invert = GeneralProcessor(identifier: "com.example.invert") { item, options in
///     guard case .image(let image) = item else { return DefaultImageProcessor.default.process(item: item, options: options) }
///     let pixels = image.kf.rgbaPixels().enumerated().map { $0.offset % 4 == 3 ? $0.element : 255 - $0.element }
///     return try? KFCrossPlatformImage(rgbaPixels: pixels, width: image.pixelWidth, height: image.pixelHeight)
/// }
/// ```
public struct GeneralProcessor: ImageProcessor {
    public let identifier: String
    private let body: @Sendable (ImageProcessItem, KingfisherParsedOptionsInfo) -> KFCrossPlatformImage?

    public init(
        identifier: String,
        _ body: @escaping @Sendable (ImageProcessItem, KingfisherParsedOptionsInfo) -> KFCrossPlatformImage?
    ) {
        self.identifier = identifier
        self.body = body
    }

    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        body(item, options)
    }
}

extension ImageProcessor {
    /// A processor that runs `self`, then `another` on the result. Its identifier is
    /// `"\(identifier)|>\(another.identifier)"`.
    public func append(another: any ImageProcessor) -> any ImageProcessor {
        GeneralProcessor(identifier: "\(identifier)|>\(another.identifier)") { item, options in
            guard let image = process(item: item, options: options) else { return nil }
            return another.process(item: .image(image), options: options)
        }
    }

    /// Decodes `.data` with ``DefaultImageProcessor`` and hands the image to `body`; the shared first step of
    /// every built-in processor.
    func processImage(
        _ item: ImageProcessItem,
        _ options: KingfisherParsedOptionsInfo,
        _ body: (KFCrossPlatformImage) throws(VipsError) -> KFCrossPlatformImage?
    ) -> KFCrossPlatformImage? {
        let image: KFCrossPlatformImage
        switch item {
        case .image(let given): image = given.kf.scaled(to: options.scaleFactor)
        case .data:
            guard let decoded = DefaultImageProcessor.default.process(item: item, options: options) else { return nil }
            image = decoded
        }
        // A run that stops at the time limit leaves its reason for the pipeline (see ProcessingFailure).
        return ProcessingFailure.catching { () throws(VipsError) in try body(image) }
    }
}

infix operator |> : AdditionPrecedence

/// `left` then `right`: the same as `left.append(another: right)`.
public func |> (left: any ImageProcessor, right: any ImageProcessor) -> any ImageProcessor {
    left.append(another: right)
}

/// Two processors are equal when their identifiers are.
public func == (left: any ImageProcessor, right: any ImageProcessor) -> Bool {
    left.identifier == right.identifier
}

public func != (left: any ImageProcessor, right: any ImageProcessor) -> Bool {
    left.identifier != right.identifier
}
