public import Foundation

/// Every failure Kingfisher reports, grouped by the stage that failed; each reason says what and where.
///
/// Error codes follow Kingfisher's numbering; codes Kingfisher does not have are ours and are listed on each
/// case. Each reason enum lives in its own file, `KingfisherError+<Stage>.swift`, beside the component that
/// raises it.
public enum KingfisherError: Error, Sendable {
    /// Building or sending the request failed before any response arrived (codes 1001...).
    case requestError(reason: RequestErrorReason)
    /// The response was missing, invalid or unusable (codes 2001...).
    case responseError(reason: ResponseErrorReason)
    /// Reading or writing the memory or disk cache failed (codes 3001...).
    case cacheError(reason: CacheErrorReason)
    /// Decoding, encoding or processing an image failed (codes 4001...).
    case processorError(reason: ProcessorErrorReason)
    /// Delivering an image to its target failed (codes 5001...).
    case imageSettingError(reason: ImageSettingErrorReason)

    /// The code of the underlying reason, in Kingfisher's numbering.
    public var errorCode: Int {
        switch self {
        case .requestError(let reason): reason.errorCode
        case .responseError(let reason): reason.errorCode
        case .cacheError(let reason): reason.errorCode
        case .processorError(let reason): reason.errorCode
        case .imageSettingError(let reason): reason.errorCode
        }
    }
}

extension KingfisherError: LocalizedError, CustomStringConvertible {
    public var errorDescription: String? {
        switch self {
        case .requestError(let reason): reason.errorDescription
        case .responseError(let reason): reason.errorDescription
        case .cacheError(let reason): reason.errorDescription
        case .processorError(let reason): reason.errorDescription
        case .imageSettingError(let reason): reason.errorDescription
        }
    }

    public var description: String {
        "KingfisherError (code \(errorCode)): \(errorDescription ?? "")"
    }
}

extension KingfisherError {
    /// A one-line description of any error for our messages: a `KingfisherError`'s or `LocalizedError`'s own
    /// description, a Foundation file error's reason and path (not the `NSError` dump), otherwise the error's
    /// localized description.
    static func readableDescription(of error: any Error) -> String {
        if let error = error as? KingfisherError { return error.errorDescription ?? "\(error)" }
        if let described = (error as? any LocalizedError)?.errorDescription { return described }
        let nsError = error as NSError
        guard nsError.domain == NSCocoaErrorDomain else { return nsError.localizedDescription }
        let path = (nsError.userInfo[NSFilePathErrorKey] as? String) ?? (nsError.userInfo[NSURLErrorKey] as? URL)?.path
        var reason = nsError.localizedDescription
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? any Error,
            (underlying as NSError).domain == NSPOSIXErrorDomain
        {
            reason = String(cString: strerror(Int32((underlying as NSError).code)))  // "No such file or directory"
        } else if let path,
            (try? URL(fileURLWithPath: path).resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory
                == true
        {
            reason = "It is a directory, not a file."
        }
        return reason + (path.map { " (\($0))" } ?? "")
    }
}
