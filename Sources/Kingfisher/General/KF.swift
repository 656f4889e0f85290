/// Kingfisher's namespace for builders and small value types: `KF.ImageResource`, and (with the manager)
/// `KF.url(_:)`, `KF.source(_:)` and the `KF.Builder` they return.
public enum KF {}
