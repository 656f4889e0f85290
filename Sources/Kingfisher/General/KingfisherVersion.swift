/// The version of this package.
public enum KingfisherVersion {
    /// Semantic version of the library, e.g. `"0.1.0"`.
    public static let string = "0.1.0"
}
