import Foundation

/// The name an ICC profile gives itself (its `desc` tag), read without lcms: enough to recognise the standard sRGB
/// profiles, whose transform to sRGB would change nothing.
enum ICCProfileName {
    /// The descriptions of the common sRGB profiles: HP/Microsoft's (embedded by most editors and cameras), its
    /// ICC v4 variants, and libvips' own.
    static let sRGBNames: Set<String> = [
        "sRGB IEC61966-2.1", "sRGB IEC61966-2-1 black scaled", "sRGB IEC61966-2-1 no black scaling",
        "sRGB built-in", "sRGB",
    ]

    /// Whether `profile` is an RGB profile named as one of ``sRGBNames``.
    static func isSRGB(_ profile: [UInt8]) -> Bool {
        guard profile.count >= 132, profile[16..<20].elementsEqual("RGB ".utf8) else { return false }
        return description(of: profile).map { sRGBNames.contains($0) } ?? false
    }

    /// The `desc` tag's text: ASCII in a v2 `desc` type, the first UTF-16 record of a v4 `mluc`.
    static func description(of profile: [UInt8]) -> String? {
        func uint32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= profile.count else { return nil }
            return profile[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        guard let tagCount = uint32(128), tagCount < 1000 else { return nil }
        for index in 0..<tagCount {
            let entry = 132 + 12 * index
            guard entry + 12 <= profile.count else { return nil }
            guard profile[entry..<entry + 4].elementsEqual("desc".utf8), let offset = uint32(entry + 4),
                offset + 12 <= profile.count
            else { continue }
            let type = profile[offset..<offset + 4]
            if type.elementsEqual("desc".utf8), let count = uint32(offset + 8), count > 0,
                offset + 12 + count <= profile.count
            {
                let text = profile[(offset + 12)..<(offset + 12 + count)].prefix { $0 != 0 }
                return String(decoding: text, as: UTF8.self)
            }
            if type.elementsEqual("mluc".utf8), let length = uint32(offset + 20), let start = uint32(offset + 24),
                offset + start + length <= profile.count, length % 2 == 0
            {
                let bytes = profile[(offset + start)..<(offset + start + length)]
                let units = stride(from: bytes.startIndex, to: bytes.endIndex, by: 2).map {
                    UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
                }
                return String(decoding: units, as: UTF16.self)
            }
            return nil
        }
        return nil
    }
}
