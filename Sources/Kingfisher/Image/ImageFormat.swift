public import Foundation

/// An image file format, as recognised from the first bytes of its data.
///
/// Kingfisher knows `.PNG`, `.JPEG` and `.GIF`; the other cases are ours and follow the same spelling.
public enum ImageFormat: Sendable, Hashable, CaseIterable {
    /// The data is not one of the formats below (or is empty).
    case unknown
    case PNG
    case JPEG
    case GIF
    case WebP
    /// HEIF with HEVC coding (what iPhones call HEIC).
    case HEIF
    /// HEIF with AV1 coding.
    case AVIF
    case TIFF
    case BMP
    case SVG

    /// The file extension commonly used for the format, without a dot; `nil` for `.unknown`.
    public var fileExtension: String? {
        switch self {
        case .unknown: nil
        case .PNG: "png"
        case .JPEG: "jpg"
        case .GIF: "gif"
        case .WebP: "webp"
        case .HEIF: "heic"
        case .AVIF: "avif"
        case .TIFF: "tiff"
        case .BMP: "bmp"
        case .SVG: "svg"
        }
    }

    /// Recognises a format from the header of `data`; looks at most at the first 4 KB.
    public init<Bytes: Collection>(sniffing data: Bytes) where Bytes.Element == UInt8 {
        let header = Array(data.prefix(4096))
        self = Self.sniff(header)
    }

    private static func sniff(_ bytes: [UInt8]) -> ImageFormat {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .PNG }
        if starts([0xFF, 0xD8, 0xFF]) { return .JPEG }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .GIF }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .WebP }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .TIFF }
        if starts(Array("ftyp".utf8), at: 4) { return isobmffFormat(bytes) }
        if starts(Array("BM".utf8)) && BMPHeader(bytes) != nil { return .BMP }
        if looksLikeSVG(bytes) { return .SVG }
        return .unknown
    }

    /// HEIF and AVIF share the ISO base media container; the `ftyp` box's brands tell them apart.
    private static func isobmffFormat(_ bytes: [UInt8]) -> ImageFormat {
        guard bytes.count >= 16 else { return .unknown }
        let declaredSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let boxEnd = min(max(declaredSize, 16), bytes.count)
        var brands: [String] = []
        // Major brand at 8, minor version at 12, compatible brands from 16.
        for offset in stride(from: 8, to: boxEnd - 3, by: 4) where offset != 12 {
            brands.append(String(decoding: bytes[offset..<offset + 4], as: UTF8.self))
        }
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .AVIF }
        let heifBrands: Set = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"]
        if brands.contains(where: heifBrands.contains) { return .HEIF }
        return .unknown
    }

    /// SVG is XML text whose root element is `<svg`; allow a BOM, an XML declaration, comments and a doctype first.
    private static func looksLikeSVG(_ bytes: [UInt8]) -> Bool {
        var text = Substring(String(decoding: bytes, as: UTF8.self))
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        text = text.drop(while: \.isWhitespace)
        guard text.hasPrefix("<") else { return false }
        guard let svg = text.range(of: "<svg") else { return false }
        return text.range(of: "<html", options: .caseInsensitive, range: text.startIndex..<svg.lowerBound) == nil
    }
}

extension Data: KingfisherCompatibleValue {}

extension KingfisherWrapper where Base == Data {
    /// The image format of the data, recognised from its header (`.unknown` if none matches).
    public var imageFormat: ImageFormat {
        ImageFormat(sniffing: base)
    }
}
