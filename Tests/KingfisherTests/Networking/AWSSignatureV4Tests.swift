import Crypto
import Foundation
import Testing

@testable import Kingfisher

/// The signatures AWS publishes for its own examples: the Signature Version 4 test suite (`get-vanilla`,
/// `post-vanilla`, `get-vanilla-query-order-key-case`: service `service`, us-east-1, 2015-08-30 12:36:00 UTC, the
/// example key AKIDEXAMPLE) and the S3 API reference's "Signature Calculations for the Authorization Header:
/// Transferring Payload in a Single Chunk" examples (GET Object with a range, PUT Object, GET Bucket Lifecycle,
/// GET Bucket (List Objects): bucket `examplebucket`, us-east-1, 2013-05-24 00:00:00 UTC, the example key
/// AKIAIOSFODNN7EXAMPLE). Inputs reproduced here, expected signatures as published.
@Suite("AWS Signature Version 4 against AWS's published examples")
struct AWSSignatureV4Tests {
    static let suite = AWSSignatureV4(
        credentials: .init(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "service")
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)  // 2015-08-30T12:36:00Z

    static let s3 = AWSSignatureV4(
        credentials: .init(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "s3")
    static let s3Date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z

    private func authorization(_ headers: [AWSSignatureV4.Header]) -> String? {
        headers.first { $0.name == "authorization" }?.value
    }

    @Test(
        "the test suite's vectors",
        arguments: [
            (
                "GET", "https://example.amazonaws.com/",
                "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
            ),
            (
                "POST", "https://example.amazonaws.com/",
                "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
            ),
            (
                "GET", "https://example.amazonaws.com/?Param2=value2&Param1=value1",
                "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"
            ),
        ])
    func suiteVectors(method: String, address: String, signature: String) throws {
        let url = try #require(URL(string: address))
        let headers = Self.suite.signed(method: method, url: url, headers: [], at: Self.suiteDate)
        #expect(
            authorization(headers)
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=host;x-amz-date, Signature=\(signature)")
        #expect(headers.contains(AWSSignatureV4.Header("x-amz-date", "20150830T123600Z")))
        #expect(headers.contains(AWSSignatureV4.Header("host", "example.amazonaws.com")))
    }

    @Test("S3's GET Object with a range")
    func getObject() throws {
        let url = try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt"))
        let headers = Self.s3.signed(
            method: "GET", url: url,
            headers: [.init("Range", "bytes=0-9"), .init("x-amz-content-sha256", AWSSignatureV4.emptyPayloadHash)],
            at: Self.s3Date)
        #expect(
            authorization(headers)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test("S3's PUT Object: a key that must be encoded, a signed body, a date header")
    func putObject() throws {
        let body = Data("Welcome to Amazon S3.".utf8)
        let payloadHash = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
        #expect(payloadHash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let url = try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test$file.text"))
        let headers = Self.s3.signed(
            method: "PUT", url: url,
            headers: [
                .init("Date", "Fri, 24 May 2013 00:00:00 GMT"), .init("x-amz-storage-class", "REDUCED_REDUNDANCY"),
                .init("x-amz-content-sha256", payloadHash),
            ],
            payloadHash: payloadHash, at: Self.s3Date)
        #expect(
            authorization(headers)?.hasSuffix(
                "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
                    + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd") == true)
    }

    @Test(
        "S3's GET Bucket Lifecycle (a parameter without a value) and List Objects (parameters sorted)",
        arguments: [
            (
                "https://examplebucket.s3.amazonaws.com/?lifecycle",
                "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"
            ),
            (
                "https://examplebucket.s3.amazonaws.com/?prefix=J&max-keys=2",
                "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"
            ),
        ])
    func bucketQueries(address: String, signature: String) throws {
        let url = try #require(URL(string: address))
        let headers = Self.s3.signed(
            method: "GET", url: url, headers: [.init("x-amz-content-sha256", AWSSignatureV4.emptyPayloadHash)],
            at: Self.s3Date)
        #expect(
            authorization(headers)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=\(signature)")
    }

    @Test("temporary credentials send and sign their session token; a port that is not the default is signed")
    func sessionTokenAndPort() throws {
        var credentials = Self.s3.credentials
        credentials.sessionToken = "token/with+signs"
        let signer = AWSSignatureV4(credentials: credentials, region: "us-east-1")
        let url = try #require(URL(string: "http://127.0.0.1:9000/bucket/a.jpg"))
        let headers = signer.signed(method: "GET", url: url, headers: [], at: Self.s3Date)
        #expect(headers.contains(.init("x-amz-security-token", "token/with+signs")))
        #expect(headers.contains(.init("host", "127.0.0.1:9000")))
        #expect(authorization(headers)?.contains("SignedHeaders=host;x-amz-date;x-amz-security-token,") == true)
    }
}
