/// An AWS access key, its secret and, for temporary credentials, the session token sent beside them: what signs
/// the requests of ``S3Configuration``. Taken from the environment or a profile by
/// ``S3Configuration/fromEnvironment(_:profile:)``, or given.
public struct AWSCredentials: Sendable, Equatable {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// The token of temporary credentials (`AWS_SESSION_TOKEN`, `aws_session_token`); `nil` for long-term keys.
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}

extension AWSCredentials: CustomStringConvertible {
    /// The key's ID only: the secret and the token never reach a log.
    public var description: String {
        "AWSCredentials(\(accessKeyID)\(sessionToken == nil ? "" : ", temporary"))"
    }
}
