public import Foundation

/// When a cached value expires.
public enum StorageExpiration: Sendable, Equatable {
    /// Never expires.
    case never
    /// Expires this many seconds after it was stored (or last extended).
    case seconds(TimeInterval)
    /// Expires this many days after it was stored (or last extended).
    case days(Int)
    /// Expires at this date.
    case date(Date)
    /// Already expired: the value is not cached at all.
    case expired

    /// The moment a value stored (or extended) at `date` expires.
    public func estimatedExpirationSince(_ date: Date) -> Date {
        switch self {
        case .never: .distantFuture
        case .seconds(let seconds): date.addingTimeInterval(seconds)
        case .days(let days): date.addingTimeInterval(TimeInterval(days) * 86_400)
        case .date(let expiry): expiry
        case .expired: .distantPast
        }
    }

    /// Seconds a value lives from now on; 0 or less when already expired.
    public var timeInterval: TimeInterval {
        switch self {
        case .never: .infinity
        case .seconds(let seconds): seconds
        case .days(let days): TimeInterval(days) * 86_400
        case .date(let expiry): expiry.timeIntervalSinceNow
        case .expired: -.infinity
        }
    }

    /// Whether the value is expired before it is even stored.
    public var isExpired: Bool {
        timeInterval <= 0
    }
}

/// What reading a cached value does to its expiration.
public enum ExpirationExtending: Sendable, Equatable {
    /// Reading does not change the expiration.
    case none
    /// Reading restarts the expiration the value was stored with.
    case cacheTime
    /// Reading sets a new expiration.
    case expirationTime(StorageExpiration)
}
