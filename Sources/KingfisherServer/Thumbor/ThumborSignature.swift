import Crypto
import Foundation

/// thumbor's URL signatures: the HMAC-SHA1 of everything after the signature segment, keyed with the security
/// key, in URL-safe Base64 with its padding (28 characters), as libthumbor makes them.
public enum ThumborSignature {
    /// The signature of `signedPart` (a thumbor path without its leading `/` and signature segment).
    public static func sign(_ signedPart: String, key: String) -> String {
        let code = HMAC<Insecure.SHA1>.authenticationCode(
            for: Data(signedPart.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return Data(code).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }

    /// Whether `url` is signed with `key`. Compares in constant time.
    public static func isValid(_ url: ThumborURL, key: String) -> Bool {
        guard case .signed(let signature) = url.authorisation else { return false }
        let expected = Array(sign(url.signedPart, key: key).utf8)
        let given = Array(signature.utf8)
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Whether `segment` could be a signature: 28 URL-safe Base64 characters, padding included.
    static func looksLikeSignature(_ segment: Substring) -> Bool {
        segment.utf8.count == 28
            && segment.utf8.allSatisfy { byte in
                (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "=")
            }
    }
}
