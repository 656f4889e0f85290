import CFileAttributes
import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a cache file shows that its bytes are the ones that were stored.
///
/// Each write puts the SHA-256 of the bytes in an extended attribute of the temporary file before it is renamed
/// into place, so the digest and the bytes arrive together. A read hashes what it read and compares. A file
/// without the attribute (written by an older version, copied without extended attributes, or on a file system
/// that has none) is checked by the end of its image data instead (``ImageDataEnd``): cheaper, and it catches
/// the usual damage (a cut, a lost tail) but not bytes changed in place.
enum CacheFileIntegrity {
    /// The extended attribute holding the digest.
    static let attributeName = "user.kingfisher.sha256"

    /// What a read found.
    enum Verdict: Equatable {
        /// The bytes match their digest, or (with no digest) their image data ends where it should.
        case intact
        /// The bytes are not the ones stored; the reason says how it was seen.
        case damaged(String)
    }

    static func digest(of data: Data) -> [UInt8] {
        Array(SHA256.hash(data: data))
    }

    /// Checks `data` against `storedDigest`, or by its image data's end when there is none.
    static func verdict(for data: Data, storedDigest: [UInt8]?) -> Verdict {
        if let storedDigest {
            return digest(of: data) == storedDigest
                ? .intact : .damaged("its bytes do not match the digest stored with them")
        }
        return ImageDataEnd.isComplete(data) ? .intact : .damaged("its image data ends early or is followed by garbage")
    }

    /// Attaches `digest` to the open file; best effort: a file system without extended attributes keeps the file
    /// without one, and reads fall back to the end-of-data check.
    static func attach(_ digest: [UInt8], toDescriptor descriptor: Int32) {
        digest.withUnsafeBytes { bytes in
            #if canImport(Darwin)
                _ = fsetxattr(descriptor, attributeName, bytes.baseAddress, bytes.count, 0, 0)
            #else
                _ = fsetxattr(descriptor, attributeName, bytes.baseAddress, bytes.count, 0)
            #endif
        }
    }

    /// The digest attached to the open file, or `nil` when it has none (or not one of the right length).
    static func storedDigest(descriptor: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let length = buffer.withUnsafeMutableBytes { bytes in
            #if canImport(Darwin)
                fgetxattr(descriptor, attributeName, bytes.baseAddress, bytes.count, 0, 0)
            #else
                fgetxattr(descriptor, attributeName, bytes.baseAddress, bytes.count)
            #endif
        }
        return length == 32 ? buffer : nil
    }
}
