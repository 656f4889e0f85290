import CJPEGEighth
import CVips
import Foundation
import Testing

@testable import Kingfisher

@Suite("JPEGs decoded at 1/8 from their DC coefficients")
struct JPEGEighthScaleTests {
    /// The layouts a JPEG comes in that this decoder takes: baseline with chroma subsampled or not, grey, sizes that
    /// are not multiples of the block or MCU size, restart markers; progressive without 4:2:0 chroma.
    static let layouts: [(name: String, data: Data)] = [
        ("4:2:0, 203 x 157", Fixtures.texturedJPEG(width: 203, height: 157, progressive: false)),
        ("4:4:4, 200 x 120", Fixtures.texturedJPEG(width: 200, height: 120, progressive: false, subsample: false)),
        (
            "4:4:4 with restart markers every 5 MCUs",
            Fixtures.texturedJPEG(width: 150, height: 90, progressive: false, subsample: false, restartInterval: 5)
        ),
        ("grey, 77 x 250", Fixtures.texturedJPEG(width: 77, height: 250, bands: 1, progressive: false)),
        (
            "4:2:0 with restart markers every 3 MCUs",
            Fixtures.texturedJPEG(width: 161, height: 99, progressive: false, restartInterval: 3)
        ),
        ("9 x 9", Fixtures.texturedJPEG(width: 9, height: 9, progressive: false)),
        ("progressive 4:4:4, 203 x 157", Fixtures.texturedJPEG(width: 203, height: 157, subsample: false)),
        ("progressive grey, 77 x 250", Fixtures.texturedJPEG(width: 77, height: 250, bands: 1)),
        (
            "progressive 4:4:4 with restart markers every 4 MCUs",
            Fixtures.texturedJPEG(width: 150, height: 90, subsample: false, restartInterval: 4)
        ),
    ]

    /// libjpeg's 1/8-scale decode of `bytes` through libvips: its width, height and raw pixels.
    private func libjpegPixels(_ bytes: [UInt8]) -> (width: Int, height: Int, pixels: [UInt8])? {
        ImageEngine.startLibvips()  // before calling libvips directly
        return bytes.withUnsafeBytes { buffer -> (Int, Int, [UInt8])? in
            guard
                let loaded = cvips_load_named(
                    "jpegload_buffer", buffer.baseAddress, buffer.count, 0, 8, Int32(VIPS_FAIL_ON_ERROR.rawValue), 1)
            else {
                VipsRuntime.discardError()
                return nil
            }
            defer { cvips_unref(loaded) }
            var size = 0
            guard let memory = cvips_write_to_memory(loaded, &size) else {
                VipsRuntime.discardError()
                return nil
            }
            defer { cvips_free(memory) }
            let pixels = Array(UnsafeRawBufferPointer(start: memory, count: size))
            return (Int(cvips_width(loaded)), Int(cvips_height(loaded)), pixels)
        }
    }

    /// This decoder's pixels for `bytes`, or its status when it refuses them.
    private func eighthPixels(_ bytes: [UInt8]) -> Result<(width: Int, height: Int, pixels: [UInt8]), Int32Error> {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0
        var height: Int32 = 0
        var bands: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { buffer in
            kf_jpeg_eighth_decode(buffer.baseAddress, buffer.count, 0, &pixels, &width, &height, &bands)
        }
        guard status == KF_JPEG_EIGHTH_OK, let pixels else { return .failure(Int32Error(status: status)) }
        defer { free(pixels) }
        let count = Int(width) * Int(height) * Int(bands)
        return .success((Int(width), Int(height), Array(UnsafeBufferPointer(start: pixels, count: count))))
    }

    struct Int32Error: Error { let status: Int32 }

    /// The largest difference between two decodes' samples, and how many samples differ at all.
    private func difference(_ a: [UInt8], _ b: [UInt8]) -> (largest: Int, differing: Int) {
        var largest = 0
        var differing = 0
        for (x, y) in zip(a, b) where x != y {
            differing += 1
            largest = max(largest, abs(Int(x) - Int(y)))
        }
        return (largest, differing)
    }

    @Test("each layout decodes to libjpeg's size and pixels, within 2 levels", arguments: layouts)
    func libjpegsPixels(layout: (name: String, data: Data)) throws {
        let bytes = [UInt8](layout.data)
        let expected = try #require(libjpegPixels(bytes))
        let actual = try eighthPixels(bytes).get()
        #expect(actual.width == expected.width && actual.height == expected.height, "\(layout.name)")
        #expect(actual.pixels.count == expected.pixels.count, "\(layout.name)")
        let (largest, differing) = difference(actual.pixels, expected.pixels)
        #expect(largest <= 2, "\(layout.name): samples differ by up to \(largest)")
        #expect(differing * 20 <= expected.pixels.count, "\(layout.name): \(differing) samples differ")
    }

    @Test("an image smaller than one block is one pixel (libvips asserts on a 1/8 load of it; kf never asks one)")
    func smallerThanABlock() throws {
        let decoded = try eighthPixels([UInt8](Fixtures.texturedJPEG(width: 5, height: 3, progressive: false))).get()
        #expect(decoded.width == 1 && decoded.height == 1 && decoded.pixels.count == 3)
    }

    @Test("without chroma subsampling, or grey, the pixels are libjpeg's exactly")
    func exactWithoutSubsampling() throws {
        for data in [
            Fixtures.texturedJPEG(width: 200, height: 120, progressive: false, subsample: false),
            Fixtures.texturedJPEG(width: 77, height: 250, bands: 1, progressive: false),
            Fixtures.texturedJPEG(width: 200, height: 120, subsample: false),
        ] {
            let bytes = [UInt8](data)
            let expected = try #require(libjpegPixels(bytes))
            #expect(try eighthPixels(bytes).get().pixels == expected.pixels)
        }
    }

    @Test(
        "every wallpaper photo (baseline 4:4:4, 4:2:2, 4:2:0, grey; progressive) decodes to libjpeg's within 2 levels",
        .enabled(if: !Fixtures.wallpapers.isEmpty, "plasma-workspace-wallpapers is not installed"))
    func wallpaperPhotos() throws {
        var decoded = 0
        for url in Fixtures.wallpapers {
            let data = try Data(contentsOf: url)
            decoded += 1
            let expected = try #require(libjpegPixels([UInt8](data)))
            let actual = try eighthPixels([UInt8](data)).get()
            #expect(actual.width == expected.width && actual.height == expected.height, "\(url.path)")
            let (largest, differing) = difference(actual.pixels, expected.pixels)
            #expect(largest <= 2 && differing * 20 <= expected.pixels.count, "\(url.path): \(differing), \(largest)")
        }
        #expect(decoded > 0)
    }

    @Test("a progressive file that never sends its AC coefficients in full is left to libjpeg (which smooths it)")
    func incompleteProgressiveFiles() throws {
        let data = [UInt8](Fixtures.texturedJPEG(width: 400, height: 300, subsample: false))
        let scans = (0..<data.count - 1).filter { data[$0] == 0xFF && data[$0 + 1] == 0xDA }
        #expect(scans.count > 2)
        // Cut after the DC scan (a preview), and after each later scan but the last.
        for scan in scans.dropFirst() {
            let cut = Array(data[..<scan]) + [0xFF, 0xD9]
            guard case .failure(let error) = eighthPixels(cut) else {
                Issue.record("cut at \(scan) of \(data.count) bytes: decoded")
                continue
            }
            #expect(error.status == KF_JPEG_EIGHTH_UNSUPPORTED)
        }
        #expect(try eighthPixels(data).get().pixels == libjpegPixels(data)?.pixels)
    }

    @Test("progressive 4:2:0, 12-bit, RGB, Adobe-RGB, cut-short and malformed files are left to libjpeg")
    func refusesWhatItDoesNotTake() {
        let baseline = [UInt8](Fixtures.texturedJPEG(width: 64, height: 48, progressive: false))
        let sof = (0..<baseline.count - 1).first { baseline[$0] == 0xFF && baseline[$0 + 1] == 0xC0 } ?? 0
        var twelveBit = baseline
        twelveBit[sof + 4] = 12
        var rgbIDs = baseline
        (rgbIDs[sof + 10], rgbIDs[sof + 13], rgbIDs[sof + 16]) = (0x52, 0x47, 0x42)  // "R", "G", "B"
        var duplicateIDs = baseline
        duplicateIDs[sof + 13] = duplicateIDs[sof + 10]
        // An Adobe segment whose transform flag says the three components are RGB, not YCbCr.
        let adobe: [UInt8] = [0xFF, 0xEE, 0x00, 0x0E] + Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 0]
        let adobeRGB = Array(baseline[..<2]) + adobe + Array(baseline[2...])
        let progressive444 = [UInt8](Fixtures.texturedJPEG(width: 64, height: 48, subsample: false))
        var cases: [(String, [UInt8])] = [
            ("progressive 4:2:0", [UInt8](Fixtures.texturedJPEG(width: 64, height: 48))),
            ("progressive 4:4:4 without EOI", Array(progressive444.dropLast(2))),
            ("12-bit frame", twelveBit),
            ("components R, G, B", rgbIDs),
            ("duplicate component ids", duplicateIDs),
            ("Adobe transform 0", adobeRGB),
            ("PNG", [UInt8](Fixtures.png())),
            ("empty", []),
            ("SOI only", [0xFF, 0xD8]),
            ("without EOI", Array(baseline.dropLast(2))),
        ]
        // Every cut of the file short of its end (EOI is its last two bytes).
        for length in stride(from: 0, to: baseline.count - 1, by: max(1, baseline.count / 97)) {
            cases.append(("first \(length) bytes", Array(baseline.prefix(length))))
        }
        for (name, bytes) in cases {
            guard case .failure(let error) = eighthPixels(bytes) else {
                Issue.record("\(name): decoded")
                continue
            }
            #expect(error.status == KF_JPEG_EIGHTH_UNSUPPORTED, "\(name)")
        }
    }

    @Test("a downsampled baseline JPEG is decoded here, to libjpeg's thumbnail within 2 levels")
    func downsamplingUsesIt() throws {
        // 2048 x 1536 to fit 256: decoded at 1/8 (256 x 192), so no resize follows.
        let data = Fixtures.texturedJPEG(width: 2048, height: 1536, progressive: false)
        let header = try #require(JPEGFrameHeader(data))
        #expect(!header.isProgressive)
        let image = try #require(
            KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(
                data: data, to: CGSize(width: 256, height: 256), scale: 1))
        #expect(image.pixelWidth == 256 && image.pixelHeight == 192)
        let expected = try #require(libjpegPixels([UInt8](data)))
        let ours = try eighthPixels([UInt8](data)).get()
        let rgb = image.rgbPixels()
        // The thumbnail is this decoder's output (the same samples), which is libjpeg's within 2 levels.
        #expect(rgb == ours.pixels)
        #expect(difference(rgb, expected.pixels).largest <= 2)
    }

    @Test("an EXIF orientation still turns the thumbnail upright")
    func orientationIsKept() throws {
        // 512 x 256 stored, orientation 6 (turned 90 degrees clockwise): 32 x 64 once upright at 1/8.
        let data = Fixtures.orientedJPEG(orientation: 6, width: 512, height: 256)
        #expect(JPEGFrameHeader(data)?.isProgressive == false)
        #expect(try eighthPixels([UInt8](data)).get().width == 64)
        let image = try ImageDecoder.thumbnail(data, maxPixelSize: 64, scale: 1)
        #expect(image.pixelWidth == 32 && image.pixelHeight == 64)
    }

    @Test("damaged baseline JPEGs give an image or a KingfisherError, never a crash")
    func damagedFiles() {
        let data = [UInt8](Fixtures.texturedJPEG(width: 300, height: 200, progressive: false, restartInterval: 4))
        var generator = SplitMix64(seed: 0x8E18)
        var decoded = 0
        for _ in 0..<300 {
            var bytes = data
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                bytes[Int.random(in: 2..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if case .success(let result) = eighthPixels(bytes) {
                decoded += 1
                #expect(result.width > 0 && result.height > 0 && result.pixels.count >= result.width * result.height)
            }
            do {
                let image = try ImageDecoder.thumbnail(Data(bytes), maxPixelSize: 32, scale: 1)
                #expect(image.pixelWidth <= 32 && image.pixelHeight <= 32)
            } catch {
                #expect(error.errorCode > 0)
            }
        }
        #expect(decoded > 0, "no damaged file was decoded here: the test exercised nothing")
    }
}
