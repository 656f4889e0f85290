import Foundation
import Kingfisher
import Testing

/// Where an object's URL points (path-style and virtual-hosted), and the standard AWS settings read from variables
/// and profile files written to a temp directory.
@Suite struct S3ConfigurationTests {
    @Test func objectURLsArePathStyleOnCustomEndpointsAndVirtualHostedOnAWS() throws {
        let custom = S3Configuration(endpoint: URL(string: "http://127.0.0.1:9000")!)
        #expect(
            custom.objectURL(bucket: "photos", key: "a b/c.jpg").absoluteString
                == "http://127.0.0.1:9000/photos/a%20b/c.jpg")
        let prefixed = S3Configuration(endpoint: URL(string: "https://store.example/s3/")!)
        #expect(
            prefixed.objectURL(bucket: "photos", key: "c.jpg").absoluteString == "https://store.example/s3/photos/c.jpg"
        )
        let aws = S3Configuration(region: "eu-west-1")
        #expect(
            aws.objectURL(bucket: "photos", key: "c.jpg").absoluteString
                == "https://photos.s3.eu-west-1.amazonaws.com/c.jpg")
        // A bucket with dots or capitals cannot be one TLS-covered label: path-style
        #expect(
            aws.objectURL(bucket: "my.photos", key: "c.jpg").absoluteString
                == "https://s3.eu-west-1.amazonaws.com/my.photos/c.jpg")
        let virtual = S3Configuration(endpoint: URL(string: "http://minio.local:9000")!, addressing: .virtualHosted)
        #expect(
            virtual.objectURL(bucket: "photos", key: "c+d.jpg").absoluteString
                == "http://photos.minio.local:9000/c%2Bd.jpg")
        let path = S3Configuration(region: "us-east-1", addressing: .path)
        #expect(
            path.objectURL(bucket: "photos", key: "c.jpg").absoluteString
                == "https://s3.us-east-1.amazonaws.com/photos/c.jpg")
    }

    @Test func locationsComeFromS3URLsOnly() throws {
        #expect(
            S3Location(url: URL(string: "s3://photos/2026/a.jpg")!) == S3Location(bucket: "photos", key: "2026/a.jpg"))
        #expect(S3Location(url: URL(string: "s3://photos/a%2Bb.jpg")!)?.key == "a+b.jpg")
        #expect(S3Location(url: URL(string: "https://photos/a.jpg")!) == nil)
        #expect(S3Location(url: URL(string: "s3://photos/")!) == nil)
        #expect(S3Location(url: URL(string: "s3://ab/key")!) == nil)  // a bucket name has 3 to 63 characters
    }

    private func withFiles(
        credentials: String? = nil, config: String? = nil,
        _ body: ([String: String]) throws -> Void
    ) throws {
        let home = FileManager.default.temporaryDirectory.appending(path: "kf-aws-\(UUID())")
        try FileManager.default.createDirectory(at: home.appending(path: ".aws"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        if let credentials { try Data(credentials.utf8).write(to: home.appending(path: ".aws/credentials")) }
        if let config { try Data(config.utf8).write(to: home.appending(path: ".aws/config")) }
        try body(["HOME": home.path])
    }

    @Test func variablesComeBeforeProfilesAndNothingConfiguredIsUnsignedAWS() throws {
        try withFiles(credentials: "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = filesecret\n") {
            home in
            var environment = home
            environment["AWS_ACCESS_KEY_ID"] = "ENVKEY"
            environment["AWS_SECRET_ACCESS_KEY"] = "envsecret"
            environment["AWS_SESSION_TOKEN"] = "token"
            environment["AWS_REGION"] = "eu-central-1"
            environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:9000"
            let configured = try S3Configuration.fromEnvironment(environment)
            #expect(
                configured.credentials
                    == AWSCredentials(accessKeyID: "ENVKEY", secretAccessKey: "envsecret", sessionToken: "token"))
            #expect(configured.region == "eu-central-1")
            #expect(configured.endpoint == URL(string: "http://127.0.0.1:9000"))
            // The profile file when the variables are not set
            let fromFile = try S3Configuration.fromEnvironment(home)
            #expect(fromFile.credentials == AWSCredentials(accessKeyID: "FILEKEY", secretAccessKey: "filesecret"))
            #expect(fromFile.region == "us-east-1" && fromFile.endpoint == nil)
        }
        try withFiles { home in
            let nothing = try S3Configuration.fromEnvironment(home)
            #expect(nothing == S3Configuration())
        }
    }

    @Test func aNamedProfileTakesItsRegionEndpointAndAddressingFromTheConfigFile() throws {
        let config = """
            # comments and blank lines are skipped
            [default]
            region = us-west-2

            [profile dev]
            region = eu-west-3
            endpoint_url = http://ignored.example:1
            s3 =
              endpoint_url = http://127.0.0.1:9000
              addressing_style = path
            aws_access_key_id = DEVKEY
            aws_secret_access_key = devsecret
            """
        try withFiles(config: config) { home in
            var environment = home
            environment["AWS_PROFILE"] = "dev"
            let dev = try S3Configuration.fromEnvironment(environment)
            #expect(dev.region == "eu-west-3")
            #expect(dev.endpoint == URL(string: "http://127.0.0.1:9000"))
            #expect(dev.addressing == .path)
            #expect(dev.credentials?.accessKeyID == "DEVKEY")
            // The argument names the profile too, and the default profile has the default region
            #expect(try S3Configuration.fromEnvironment(home, profile: "dev").region == "eu-west-3")
            #expect(try S3Configuration.fromEnvironment(home).region == "us-west-2")
            // AWS_ENDPOINT_URL_S3 first; AWS_IGNORE_CONFIGURED_ENDPOINT_URLS turns every endpoint off
            environment["AWS_ENDPOINT_URL_S3"] = "https://s3.store.example"
            #expect(
                try S3Configuration.fromEnvironment(environment).endpoint == URL(string: "https://s3.store.example"))
            environment["AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"] = "true"
            #expect(try S3Configuration.fromEnvironment(environment).endpoint == nil)
        }
    }

    @Test func settingsThatCannotBeHonouredAreErrorsNotUnsignedRequests() throws {
        try withFiles(config: "[profile sso]\nsso_session = corp\nregion = eu-west-1\n") { home in
            #expect(throws: S3Configuration.EnvironmentError.self) {
                try S3Configuration.fromEnvironment(home, profile: "missing")
            }
            #expect {
                try S3Configuration.fromEnvironment(home, profile: "sso")
            } throws: { error in
                "\(error)".contains("sso_session")
            }
            var environment = home
            environment["AWS_ENDPOINT_URL"] = "ftp://store.example"
            #expect(throws: S3Configuration.EnvironmentError.self) {
                try S3Configuration.fromEnvironment(environment)
            }
        }
    }

    @Test func credentialsNeverPrintTheirSecret() {
        let credentials = AWSCredentials(accessKeyID: "AKID", secretAccessKey: "very-secret", sessionToken: "tok")
        #expect(!"\(credentials)".contains("very-secret") && !"\(credentials)".contains("tok"))
        #expect("\(credentials)".contains("AKID"))
    }
}
