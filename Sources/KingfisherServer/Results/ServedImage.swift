import Crypto
import Foundation
import Kingfisher
import NIOCore

/// An encoded result as the server sends it: the bytes, their media type and a strong entity tag (a digest of
/// the bytes, so equal bytes from two instances sharing a cache get equal tags).
struct ServedImage: CacheCostCalculable, Sendable {
    /// The bytes, ready to hand to every response without a copy.
    let body: ByteBuffer
    let contentType: String
    let etag: String
    /// For a result read from the shared result store: served until this instant whatever this instance knows of
    /// its source (the store said until when its source was fresh); `nil` for a result made here.
    var storedUntil: Date?

    /// An encoded image, its media type read from its first bytes.
    init(data: Data) {
        self.init(data: data, contentType: Self.mediaType(of: ImageFormat(sniffing: data)))
    }

    init(data: Data, contentType: String) {
        body = ByteBuffer(bytes: data)
        self.contentType = contentType
        let digest = SHA256.hash(data: data)
        etag = "\"" + digest.prefix(16).map { byte in String(byte, radix: 16).leftPadded() }.joined() + "\""
    }

    var cacheCost: Int { body.readableBytes + 256 }

    static func mediaType(of format: ImageFormat) -> String {
        switch format {
        case .JPEG: "image/jpeg"
        case .PNG: "image/png"
        case .GIF: "image/gif"
        case .WebP: "image/webp"
        case .AVIF: "image/avif"
        case .HEIF: "image/heif"
        case .TIFF: "image/tiff"
        case .BMP: "image/bmp"
        case .SVG: "image/svg+xml"
        case .unknown: "application/octet-stream"
        }
    }
}

extension String {
    fileprivate func leftPadded() -> String { count == 1 ? "0" + self : self }
}
