import Foundation
import Kingfisher
import Testing

@Suite struct ImageFormatTests {
    @Test func recognisesEveryFormatTheEncoderWrites() throws {
        // Given a small image encoded in each format with an encoder
        let image = Fixtures.gradient(width: 8, height: 8)
        for format in [ImageFormat.PNG, .JPEG, .GIF, .WebP, .TIFF, .BMP] {
            // When the bytes are sniffed
            let data = try image.kf.encoded(as: format, compressionQuality: 0.8)
            // Then the header names the same format
            #expect(data.kf.imageFormat == format, "\(format)")
        }
    }

    @Test func tellsHEIFFromAVIFByTheirBrands() {
        func ftyp(_ brands: String...) -> Data {
            var body = Array(brands[0].utf8) + [0, 0, 0, 0]
            for brand in brands.dropFirst() { body += Array(brand.utf8) }
            let size = UInt32(8 + body.count)
            return Data(
                [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
                    + Array("ftyp".utf8) + body)
        }
        #expect(ftyp("heic", "mif1", "heic").kf.imageFormat == .HEIF)
        #expect(ftyp("avif", "mif1", "miaf").kf.imageFormat == .AVIF)
        #expect(ftyp("mif1", "mif1", "avif").kf.imageFormat == .AVIF)
        #expect(ftyp("mif1", "mif1", "miaf").kf.imageFormat == .HEIF)
        #expect(ftyp("isom", "isom", "mp41").kf.imageFormat == .unknown)  // an MP4 video
    }

    @Test func recognisesSVGTextButNotHTML() {
        let svg =
            #"<?xml version="1.0"?><!-- drawn by hand --><svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>"#
        #expect(Data(svg.utf8).kf.imageFormat == .SVG)
        #expect(Data(("\u{FEFF}  \n" + svg).utf8).kf.imageFormat == .SVG)
        #expect(Data("<!DOCTYPE html><html><body><svg></svg></body></html>".utf8).kf.imageFormat == .unknown)
        #expect(Data("hello <svg".utf8).kf.imageFormat == .unknown)
    }

    @Test func unknownForEmptyShortAndRandomData() {
        #expect(Data().kf.imageFormat == .unknown)
        #expect(Data([0xFF, 0xD8]).kf.imageFormat == .unknown)
        #expect(Data("BM".utf8).kf.imageFormat == .unknown)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes[0] = 0x00  // no format starts with a zero byte except ftyp boxes, which need "ftyp" at 4
            bytes[4] = 0x00
            #expect(Data(bytes).kf.imageFormat == .unknown)
        }
    }

    @Test func fileExtensions() {
        #expect(ImageFormat.JPEG.fileExtension == "jpg")
        #expect(ImageFormat.WebP.fileExtension == "webp")
        #expect(ImageFormat.unknown.fileExtension == nil)
    }
}
