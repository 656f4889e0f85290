public import Foundation

extension S3Configuration {
    /// Why the standard AWS settings could not be read.
    public struct EnvironmentError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The configuration the AWS CLI and SDKs would use, from the variables and files users already have:
    /// - credentials: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`), else the profile's
    ///   `aws_access_key_id`/`aws_secret_access_key`/`aws_session_token` in `~/.aws/credentials`
    ///   (`AWS_SHARED_CREDENTIALS_FILE`), then in `~/.aws/config` (`AWS_CONFIG_FILE`); none: requests go unsigned;
    /// - region: `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`, else `us-east-1`;
    /// - endpoint: `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, the profile's `s3` section's `endpoint_url`, the
    ///   profile's `endpoint_url` (none of them when `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is `true`), else AWS;
    /// - addressing: the profile's `s3` section's `addressing_style` (`path`, `virtual`, `auto`).
    ///
    /// The profile is `profile`, else `AWS_PROFILE`, else `default`. A profile named that neither file has, an
    /// unreadable file, an endpoint that is no `http(s)` URL, or a profile whose credentials come from somewhere
    /// this library does not read (`credential_process`, `role_arn`, SSO) is an error rather than a silent
    /// unsigned request.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, profile: String? = nil
    ) throws(EnvironmentError) -> S3Configuration {
        func variable(_ name: String) -> String? {
            guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
                return nil
            }
            return value
        }
        let named = profile ?? variable("AWS_PROFILE")
        let profileName = named ?? "default"
        let home =
            variable("HOME").map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        func file(_ override: String, _ name: String) -> URL {
            variable(override).map { URL(fileURLWithPath: $0) } ?? home.appending(path: ".aws/\(name)")
        }
        let credentialsFile: AWSProfileFile
        let configFile: AWSProfileFile
        do {
            credentialsFile = try AWSProfileFile.read(file("AWS_SHARED_CREDENTIALS_FILE", "credentials"))
            configFile = try AWSProfileFile.read(file("AWS_CONFIG_FILE", "config"))
        } catch {
            throw EnvironmentError(description: "an AWS settings file could not be read: \(error)")
        }
        let fromCredentials = credentialsFile.sections[profileName]
        let fromConfig = configFile.sections[profileName == "default" ? "default" : "profile \(profileName)"]
        if named != nil, fromCredentials == nil, fromConfig == nil {
            throw EnvironmentError(description: "the AWS profile '\(profileName)' is in neither settings file")
        }
        func setting(_ key: String) -> String? { fromCredentials?[key] ?? fromConfig?[key] }

        var configuration = S3Configuration()
        configuration.region =
            variable("AWS_REGION") ?? variable("AWS_DEFAULT_REGION") ?? fromConfig?["region"]
            ?? "us-east-1"
        if let key = variable("AWS_ACCESS_KEY_ID"), let secret = variable("AWS_SECRET_ACCESS_KEY") {
            configuration.credentials = AWSCredentials(
                accessKeyID: key, secretAccessKey: secret, sessionToken: variable("AWS_SESSION_TOKEN"))
        } else if let key = setting("aws_access_key_id"), let secret = setting("aws_secret_access_key") {
            configuration.credentials = AWSCredentials(
                accessKeyID: key, secretAccessKey: secret, sessionToken: setting("aws_session_token"))
        } else if let other = ["credential_process", "role_arn", "sso_session", "sso_start_url"].first(where: {
            setting($0) != nil
        }) {
            throw EnvironmentError(
                description: "the AWS profile '\(profileName)' takes its credentials from \(other), which this "
                    + "library does not run: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead")
        }
        let ignoresEndpoints = variable("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")?.lowercased() == "true"
        if !ignoresEndpoints,
            let endpoint = variable("AWS_ENDPOINT_URL_S3") ?? variable("AWS_ENDPOINT_URL")
                ?? fromConfig?["s3.endpoint_url"] ?? fromConfig?["endpoint_url"]
        {
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil
            else {
                throw EnvironmentError(description: "the S3 endpoint '\(endpoint)' is not an http(s) URL")
            }
            configuration.endpoint = url
        }
        switch fromConfig?["s3.addressing_style"]?.lowercased() {
        case "path": configuration.addressing = .path
        case "virtual": configuration.addressing = .virtualHosted
        default: configuration.addressing = .automatic
        }
        return configuration
    }
}
