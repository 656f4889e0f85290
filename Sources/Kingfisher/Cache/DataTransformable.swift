public import Foundation

/// A value ``DiskStorage/Backend`` can write to a file and read back.
public protocol DataTransformable: Sendable {
    /// The bytes to write.
    func toData() throws -> Data
    /// The value read back from `data`.
    static func fromData(_ data: Data) throws -> Self
    /// A placeholder value, as in Kingfisher.
    static var empty: Self { get }
}

extension Data: DataTransformable {
    public func toData() throws -> Data { self }
    public static func fromData(_ data: Data) throws -> Data { data }
    public static var empty: Data { Data() }
}
