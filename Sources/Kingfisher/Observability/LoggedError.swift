package import Logging

/// A ``KingfisherError`` as a log metadata value: it prints as the error's description, and a log handler in this
/// package (`kf`'s) can take the error itself back out to phrase it for a person.
package struct LoggedError: CustomStringConvertible, Sendable {
    package let error: KingfisherError

    package init(_ error: KingfisherError) { self.error = error }

    package var description: String { error.errorDescription ?? "\(error)" }
}

extension Logger.MetadataValue {
    /// `error` as metadata: its description, with the error kept for handlers that look (see ``LoggedError``).
    package static func error(_ error: KingfisherError) -> Self {
        .stringConvertible(LoggedError(error))
    }

    /// The error a ``LoggedError`` value carries.
    package var loggedError: KingfisherError? {
        guard case .stringConvertible(let value) = self else { return nil }
        return (value as? LoggedError)?.error
    }
}
