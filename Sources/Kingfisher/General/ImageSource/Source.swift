public import Foundation
import Synchronization

/// Where an image comes from: the network, or a provider of data (a file, base64 text, bytes in memory...).
public enum Source: Sendable {
    /// Identifies one request of an image target: each `setImage` call gets the next value, and a result is shown
    /// only while its identifier is the target's ``KingfisherWrapper/taskIdentifier``.
    public enum Identifier {
        /// The type of an identifier.
        public typealias Value = UInt

        private static let counter = Atomic<Value>(0)

        /// A value never issued before in this process (starting at 1).
        static func next() -> Value {
            counter.wrappingAdd(1, ordering: .relaxed).newValue
        }
    }

    /// Downloaded by an `ImageDownloader`.
    case network(any Resource)
    /// Produced by an ``ImageDataProvider``, without the downloader.
    case provider(any ImageDataProvider)

    /// The key the image is cached under.
    public var cacheKey: String {
        switch self {
        case .network(let resource): resource.cacheKey
        case .provider(let provider): provider.cacheKey
        }
    }

    /// The URL of the image: the download URL, or the provider's ``ImageDataProvider/contentURL``.
    public var url: URL? {
        switch self {
        case .network(let resource): resource.downloadURL
        case .provider(let provider): provider.contentURL
        }
    }

    /// The resource of a network source, `nil` for a provider.
    public var asResource: (any Resource)? {
        if case .network(let resource) = self { return resource }
        return nil
    }

    /// The provider of a provider source, `nil` for the network.
    public var asProvider: (any ImageDataProvider)? {
        if case .provider(let provider) = self { return provider }
        return nil
    }
}
