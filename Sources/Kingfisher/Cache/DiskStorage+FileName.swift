import Crypto
import Foundation

extension DiskStorage.Config {
    /// The file name for `key`: its SHA-256 in hex (or the escaped key), then ``pathExtension``, or
    /// `forcedExtension` when given.
    func fileName(forKey key: String, forcedExtension: String? = nil) -> String {
        let base: String
        var fileExtension = forcedExtension ?? pathExtension
        if usesHashedFileName {
            base = Self.sha256Hex(key)
            if fileExtension == nil, autoExtAfterHashedFileName {
                fileExtension = Self.keyExtension(key)
            }
        } else {
            base = Self.safeName(key)
        }
        guard let fileExtension, !fileExtension.isEmpty else { return base }
        let name = "\(base).\(Self.safeName(fileExtension))"
        return name.utf8.count <= Self.maximumNameLength ? name : base
    }

    /// The most bytes a file name may have on common Linux file systems.
    static let maximumNameLength = 255

    static func sha256Hex(_ key: String) -> String {
        let digest = SHA256.hash(data: Data(key.utf8))
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        for byte in digest {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `key` as one path component that stays inside the directory; the hash when it would be too long.
    static func safeName(_ key: String) -> String {
        var result = ""
        for (offset, scalar) in key.unicodeScalars.enumerated() {
            let unsafe =
                scalar == "/" || scalar == "%" || scalar.value < 0x20 || scalar.value == 0x7F
                || (offset == 0 && scalar == ".")
            if unsafe {
                for byte in String(scalar).utf8 {
                    let hex = String(byte, radix: 16, uppercase: true)
                    result += (hex.count == 1 ? "%0" : "%") + hex
                }
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        if result.isEmpty { return "%" }
        return result.utf8.count <= maximumNameLength - 12 ? result : sha256Hex(key)
    }

    /// The extension of the key's last path component (`"png"` for `"https://x/a.png?s=1"`), when it looks like
    /// one: 1...8 letters or digits.
    static func keyExtension(_ key: String) -> String? {
        let path = URL(string: key)?.path ?? key
        guard let lastComponent = path.split(separator: "/").last, let dot = lastComponent.lastIndex(of: ".") else {
            return nil
        }
        let candidate = lastComponent[lastComponent.index(after: dot)...]
        guard (1...8).contains(candidate.count), candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { return nil }
        return String(candidate)
    }
}
