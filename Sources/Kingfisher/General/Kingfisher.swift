/// The `.kf` namespace: Kingfisher's extensions live on `base.kf` so they never clash with a type's own members.
///
/// ```swift
/// let format = data.kf.imageFormat
/// let png = image.kf.pngRepresentation()
/// ```
public struct KingfisherWrapper<Base> {
    /// The value the extensions act on.
    public let base: Base

    public init(_ base: Base) {
        self.base = base
    }
}

extension KingfisherWrapper: Sendable where Base: Sendable {}

/// A reference type that gains the `.kf` namespace.
public protocol KingfisherCompatible: AnyObject {}

/// A value type that gains the `.kf` namespace.
public protocol KingfisherCompatibleValue {}

extension KingfisherCompatible {
    /// Kingfisher's extensions for this object.
    public var kf: KingfisherWrapper<Self> {
        KingfisherWrapper(self)
    }
}

extension KingfisherCompatibleValue {
    /// Kingfisher's extensions for this value.
    public var kf: KingfisherWrapper<Self> {
        KingfisherWrapper(self)
    }
}

/// The version of this package.
public enum KingfisherVersion {
    /// Semantic version of the library, e.g. `"0.1.0"`.
    public static let string = "0.1.0"
}
