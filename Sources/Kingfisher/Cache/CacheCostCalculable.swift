/// A value that knows how much memory it holds, for ``MemoryStorage/Backend``'s cost limit.
public protocol CacheCostCalculable {
    /// The cost of keeping the value in memory; bytes for images.
    var cacheCost: Int { get }
}

extension KFCrossPlatformImage: CacheCostCalculable {
    /// The decoded bytes the image holds (``KingfisherWrapper/cost``).
    public var cacheCost: Int { kf.cost }
}
