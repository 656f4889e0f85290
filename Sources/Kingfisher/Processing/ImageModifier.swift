/// Changes a retrieved image just before it is handed over, every time, without the change being cached:
/// the cache keeps the processor's image. Use a processor for work worth caching.
public protocol ImageModifier: Sendable {
    /// The image to hand over instead of `image`.
    func modify(_ image: KFCrossPlatformImage) -> KFCrossPlatformImage
}

/// An ``ImageModifier`` from a closure.
public struct AnyImageModifier: ImageModifier {
    let block: @Sendable (KFCrossPlatformImage) throws -> KFCrossPlatformImage

    /// - Parameter modify: returns the image to hand over; when it throws, the image is handed over unchanged.
    public init(modify: @escaping @Sendable (KFCrossPlatformImage) throws -> KFCrossPlatformImage) {
        block = modify
    }

    public func modify(_ image: KFCrossPlatformImage) -> KFCrossPlatformImage {
        (try? block(image)) ?? image
    }
}
