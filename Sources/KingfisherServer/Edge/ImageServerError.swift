import Foundation

/// Why the server refused a request before or around the library's work. The edge turns these and
/// `KingfisherError` into statuses in one place (``ErrorResponse``).
enum ImageServerError: Error, Sendable, Hashable {
    case signatureRequired
    case badSignature
    case unsafeURLsDisabled
    /// `meta/` found no bytes of the source in the cache after making the result (a cache that keeps nothing).
    case metaSourceUnavailable
    case unsupportedScheme
    case sourceNotAllowed
    case forbiddenAddress(AddressClass)
    case unresolvableHost
    case pathOutsideRoot
    case fileNotFound
    case overloaded
}
