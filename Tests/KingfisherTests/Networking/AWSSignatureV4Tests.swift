import Crypto
import Foundation
import Testing

@testable import Kingfisher

/// The signatures AWS publishes for its own examples: the Signature Version 4 test suite (`get-vanilla`,
/// `post-vanilla`, `get-vanilla-query-order-key-case`, `get-vanilla-query-order-value`, `get-unreserved`,
/// `get-vanilla-utf8-query`, `get-header-value-trim`, `get-header-key-duplicate`, `get-header-value-order`: service
/// `service`, us-east-1, 2015-08-30 12:36:00 UTC, the example key AKIDEXAMPLE) and the S3 API reference's "Signature Calculations for the Authorization Header:
/// Transferring Payload in a Single Chunk" examples (GET Object with a range, PUT Object, GET Bucket Lifecycle,
/// GET Bucket (List Objects): bucket `examplebucket`, us-east-1, 2013-05-24 00:00:00 UTC, the example key
/// AKIAIOSFODNN7EXAMPLE). Inputs reproduced here, expected signatures as published.
///
/// The suite's vectors whose request line holds a raw space or UTF-8 path (`get-space`, `get-utf8`) describe a
/// request line no HTTP client sends unencoded, and its `normalize-path` ones paths S3 signs as they are: they do
/// not apply to S3. What they would check, a key with spaces signed as S3 reads it, is checked against a real
/// S3-compatible server instead (`S3SourceTests`: moto recomputes each signature with botocore).
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
            // get-vanilla-query-order-value: one name twice, sorted by value
            (
                "GET", "https://example.amazonaws.com/?Param1=value2&Param1=value1",
                "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"
            ),
            // get-unreserved: the characters never encoded
            (
                "GET",
                "https://example.amazonaws.com/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"
            ),
            // get-vanilla-utf8-query: U+1234 as a query name, encoded byte by byte
            (
                "GET", "https://example.amazonaws.com/?%E1%88%B4=bar",
                "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"
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

    @Test(
        "the test suite's header vectors: values trimmed, inner spaces made one, a name given twice joined in order",
        arguments: [
            // get-header-value-trim
            (
                [AWSSignatureV4.Header("My-Header1", " value1"), .init("My-Header2", "\"a   b   c\"")],
                "host;my-header1;my-header2;x-amz-date",
                "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"
            ),
            // get-header-key-duplicate
            (
                [.init("My-Header1", "value2"), .init("My-Header1", "value2"), .init("My-Header1", "value1")],
                "host;my-header1;x-amz-date", "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"
            ),
            // get-header-value-order
            (
                [
                    .init("My-Header1", "value4"), .init("My-Header1", "value1"), .init("My-Header1", "value3"),
                    .init("My-Header1", "value2"),
                ],
                "host;my-header1;x-amz-date", "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"
            ),
        ])
    func suiteHeaderVectors(headers: [AWSSignatureV4.Header], signedHeaders: String, signature: String) throws {
        let url = try #require(URL(string: "https://example.amazonaws.com/"))
        let signed = Self.suite.signed(method: "GET", url: url, headers: headers, at: Self.suiteDate)
        #expect(
            authorization(signed)
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=\(signedHeaders), Signature=\(signature)")
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
