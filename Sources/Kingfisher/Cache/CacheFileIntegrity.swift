import CChecksum
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
/// Each write puts the CRC-32C of the bytes in an extended attribute of the temporary file before it is renamed
/// into place, so the checksum and the bytes arrive together. A read checksums what it read and compares. CRC-32C
/// (the checksum ext4 and Btrfs keep for their metadata) catches cuts, lost tails, garbage and flipped bits; it is
/// computed by a CPU instruction at about 10 GB/s, where the SHA-256 earlier versions stored cost a fifth of the
/// CPU time of warming a cache with original bytes. Nothing here defends against someone who can write the cache
/// directory (they could rewrite any digest beside the bytes), so a cryptographic hash bought nothing.
///
/// Files written by earlier versions carry a SHA-256 (``legacyAttributeName``) and are checked against it. A file
/// with neither (copied without extended attributes, or on a file system that has none) is checked by the end of
/// its image data instead (``ImageDataEnd``): it catches the usual damage (a cut, a lost tail) but not bytes
/// changed in place.
enum CacheFileIntegrity {
    /// The extended attribute holding the CRC-32C, four bytes, big-endian.
    static let attributeName = "user.kingfisher.crc32c"
    /// The attribute earlier versions wrote: the SHA-256 of the bytes.
    static let legacyAttributeName = "user.kingfisher.sha256"

    /// A checksum read from a file's attributes.
    enum StoredChecksum: Equatable, Sendable {
        case crc32c(UInt32)
        case sha256([UInt8])
    }

    /// What a read found.
    enum Verdict: Equatable {
        /// The bytes match their checksum, or (with none) their image data ends where it should.
        case intact
        /// The bytes are not the ones stored; the reason says how it was seen.
        case damaged(String)
    }

    static func checksum(of data: Data) -> UInt32 {
        data.withUnsafeBytes { bytes in kf_crc32c(bytes.baseAddress, bytes.count) }
    }

    /// Checks `data` against `stored`, or by its image data's end when there is none.
    static func verdict(for data: Data, stored: StoredChecksum?) -> Verdict {
        let matches: Bool
        switch stored {
        case .crc32c(let value): matches = checksum(of: data) == value
        case .sha256(let digest): matches = Array(SHA256.hash(data: data)) == digest
        case nil:
            return ImageDataEnd.isComplete(data)
                ? .intact : .damaged("its image data ends early or is followed by garbage")
        }
        return matches ? .intact : .damaged("its bytes do not match the checksum stored with them")
    }

    /// Attaches the checksum of `data` (`known` when the caller computed it already) to the open file; best
    /// effort: a file system without extended attributes keeps the file without one, and reads fall back to the
    /// end-of-data check.
    static func attachChecksum(of data: Data, known: UInt32? = nil, toDescriptor descriptor: Int32) {
        var bigEndian = (known ?? checksum(of: data)).bigEndian
        withUnsafeBytes(of: &bigEndian) { bytes in
            #if canImport(Darwin)
                _ = fsetxattr(descriptor, attributeName, bytes.baseAddress, bytes.count, 0, 0)
            #else
                _ = fsetxattr(descriptor, attributeName, bytes.baseAddress, bytes.count, 0)
            #endif
        }
    }

    /// The checksum attached to the open file, or `nil` when it has none (or not one of the right length).
    static func storedChecksum(descriptor: Int32) -> StoredChecksum? {
        if let bytes = attribute(attributeName, length: 4, descriptor: descriptor) {
            return .crc32c(bytes.reduce(0) { $0 << 8 | UInt32($1) })
        }
        return attribute(legacyAttributeName, length: 32, descriptor: descriptor).map(StoredChecksum.sha256)
    }

    private static func attribute(_ name: String, length: Int, descriptor: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: length)
        let read = buffer.withUnsafeMutableBytes { bytes in
            #if canImport(Darwin)
                fgetxattr(descriptor, name, bytes.baseAddress, bytes.count, 0, 0)
            #else
                fgetxattr(descriptor, name, bytes.baseAddress, bytes.count)
            #endif
        }
        return read == length ? buffer : nil
    }
}
