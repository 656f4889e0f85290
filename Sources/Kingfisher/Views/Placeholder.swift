/// Something a target shows while its image loads. An image is a placeholder (it is set as the target's image);
/// a target with richer drawing (a terminal view's "loading" text) gives its own conforming type.
///
/// Kingfisher adds the placeholder when a load starts (unless `keepCurrentImageWhileLoading` keeps an image that
/// is shown) and removes it when the load succeeds, or fails with `onFailureImage` set. Both are called the way
/// every target call is (see ``KingfisherImageTarget``).
public protocol Placeholder: Sendable {
    /// Shows the placeholder on `target`.
    func add(to target: any KingfisherImageTarget)
    /// Takes the placeholder off `target`.
    func remove(from target: any KingfisherImageTarget)
}

/// An image is a placeholder: it becomes the target's image while the real one loads.
extension KFCrossPlatformImage: Placeholder {
    /// Sets the image as `target`'s image.
    public func add(to target: any KingfisherImageTarget) {
        target.image = self
    }

    /// Clears `target`'s image if it still is this placeholder.
    public func remove(from target: any KingfisherImageTarget) {
        if target.image === self { target.image = nil }
    }
}
