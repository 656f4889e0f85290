#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension KingfisherError {
    /// Whether the caller cancelled the task (``RequestErrorReason/taskCancelled(task:token:)``,
    /// ``RequestErrorReason/asyncTaskContextCancelled`` or ``RequestErrorReason/dataProviderCancelled(provider:)``).
    public var isTaskCancelled: Bool {
        guard case .requestError(let reason) = self else { return false }
        switch reason {
        case .taskCancelled, .asyncTaskContextCancelled, .dataProviderCancelled: return true
        default: return false
        }
    }

    /// Whether a target's load ended after a newer one replaced it
    /// (``ImageSettingErrorReason/notCurrentSourceTask(result:error:source:)``).
    public var isNotCurrentTask: Bool {
        guard case .imageSettingError(reason: .notCurrentSourceTask) = self else { return false }
        return true
    }

    /// Whether the server answered with a status the downloader does not accept.
    public var isInvalidResponseStatusCode: Bool {
        guard case .responseError(reason: .invalidHTTPStatusCode) = self else { return false }
        return true
    }

    /// Whether the server answered with the status `code`, which the downloader does not accept.
    public func isInvalidResponseStatusCode(_ code: Int) -> Bool {
        guard case .responseError(reason: .invalidHTTPStatusCode(let response)) = self else { return false }
        return response.statusCode == code
    }
}
