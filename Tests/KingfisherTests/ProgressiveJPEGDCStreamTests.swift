import CVips
import Foundation
import Testing

@testable import Kingfisher

@Suite("Progressive JPEGs decoded at 1/8 from their DC scans")
struct ProgressiveJPEGDCStreamTests {
    /// The layouts a progressive JPEG comes in: chroma subsampled or not, grey, sizes that are not multiples of the
    /// block or MCU size, restart markers.
    static let layouts: [(name: String, data: Data)] = [
        ("4:2:0, 203 x 157", Fixtures.texturedJPEG(width: 203, height: 157)),
        ("4:4:4, 200 x 120", Fixtures.texturedJPEG(width: 200, height: 120, subsample: false)),
        (
            "4:4:4 with restart markers every 5 MCUs",
            Fixtures.texturedJPEG(width: 150, height: 90, subsample: false, restartInterval: 5)
        ),
        ("grey, 77 x 250", Fixtures.texturedJPEG(width: 77, height: 250, bands: 1)),
        ("4:2:0 with restart markers every 3 MCUs", Fixtures.texturedJPEG(width: 161, height: 99, restartInterval: 3)),
        ("9 x 9", Fixtures.texturedJPEG(width: 9, height: 9)),
    ]

    /// libjpeg's 1/8-scale decode of `bytes`, as raw pixels; `nil` when libvips refuses it. With `strict`, a libjpeg
    /// warning (a scan that ends early or late, a bogus progression) fails the decode.
    private func eighthScalePixels(_ bytes: [UInt8], strict: Bool) -> [UInt8]? {
        ImageEngine.startLibvips()  // before calling libvips directly
        let failOn = strict ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_ERROR
        return bytes.withUnsafeBytes { buffer -> [UInt8]? in
            guard
                let loaded = cvips_load_named(
                    "jpegload_buffer", buffer.baseAddress, buffer.count, 0, 8, Int32(failOn.rawValue), 1)
            else {
                VipsRuntime.discardError()
                return nil
            }
            defer { cvips_unref(loaded) }
            guard let computed = cvips_compute_in_memory(loaded, 64 << 10) else {
                VipsRuntime.discardError()
                return nil
            }
            defer { cvips_unref(computed) }
            var size = 0
            guard let memory = cvips_write_to_memory(computed, &size) else { return nil }
            defer { cvips_free(memory) }
            return Array(UnsafeRawBufferPointer(start: memory, count: size))
        }
    }

    @Test(
        "the DC stream decodes at 1/8 to exactly the whole file's pixels, without a libjpeg warning", arguments: layouts
    )
    func samePixels(layout: (name: String, data: Data)) throws {
        let original = [UInt8](layout.data)
        let stream = try #require(ProgressiveJPEGDCStream.make(from: layout.data), "\(layout.name)")
        let expected = try #require(eighthScalePixels(original, strict: false))
        let actual = try #require(eighthScalePixels(stream, strict: true), "\(layout.name): warning or error")
        #expect(actual.count == expected.count, "\(layout.name)")
        let differing = zip(actual, expected).filter { $0 != $1 }.count
        #expect(differing == 0, "\(layout.name): \(differing) of \(expected.count) samples differ")
    }

    @Test(
        "every progressive wallpaper photo decodes at 1/8 from its DC stream to the whole file's pixels",
        .enabled(if: !Fixtures.wallpapers.isEmpty, "plasma-workspace-wallpapers is not installed"))
    func wallpaperPhotos() throws {
        var progressive = 0
        for url in Fixtures.wallpapers {
            let data = try Data(contentsOf: url)
            guard JPEGFrameHeader(data)?.isProgressive == true else { continue }
            progressive += 1
            let stream = try #require(ProgressiveJPEGDCStream.make(from: data), "\(url.path)")
            let expected = try #require(eighthScalePixels([UInt8](data), strict: false))
            let actual = try #require(eighthScalePixels(stream, strict: true), "\(url.path): warning or error")
            #expect(actual == expected, "\(url.path)")
        }
        #expect(progressive > 0)
    }

    @Test("AC scans are dropped: the stream is a fraction of a textured file")
    func dropsACScans() throws {
        let data = Fixtures.texturedJPEG(width: 400, height: 300)
        let stream = try #require(ProgressiveJPEGDCStream.make(from: data))
        #expect(stream.count * 3 < data.count, "\(stream.count) of \(data.count) bytes")
    }

    @Test("baseline JPEGs, other formats, cut-short and malformed files are not rewritten")
    func refusesWhatItCannotRewrite() {
        let progressive = Fixtures.texturedJPEG(width: 64, height: 48)
        var twelveBit = [UInt8](progressive)
        if let sof = (0..<twelveBit.count - 1).first(where: { twelveBit[$0] == 0xFF && twelveBit[$0 + 1] == 0xC2 }) {
            twelveBit[sof + 4] = 12
        }
        var duplicateIDs = [UInt8](progressive)
        if let sof = (0..<duplicateIDs.count - 1).first(where: {
            duplicateIDs[$0] == 0xFF && duplicateIDs[$0 + 1] == 0xC2
        }) {
            duplicateIDs[sof + 13] = duplicateIDs[sof + 10]  // the second component takes the first one's id
        }
        var cases: [(String, Data)] = [
            ("baseline", Fixtures.texturedJPEG(width: 64, height: 48, progressive: false)),
            ("duplicate component ids", Data(duplicateIDs)),
            ("PNG", Fixtures.png()),
            ("empty", Data()),
            ("SOI only", Data([0xFF, 0xD8])),
            ("without EOI", progressive.dropLast(2)),
            ("12-bit frame", Data(twelveBit)),
        ]
        // Every cut of the file short of its end (EOI is its last two bytes).
        for length in stride(from: 0, to: progressive.count - 1, by: max(1, progressive.count / 97)) {
            cases.append(("first \(length) bytes", progressive.prefix(length)))
        }
        for (name, data) in cases {
            #expect(ProgressiveJPEGDCStream.make(from: data) == nil, "\(name)")
        }
    }

    @Test("a file that never sends the AC coefficients (cut after its DC scan) decodes from its original bytes")
    func incompleteFilesAreNotRewritten() throws {
        // libjpeg smooths such a file's blocks from their neighbours; an empty AC scan would stop that.
        let data = [UInt8](Fixtures.texturedJPEG(width: 400, height: 300, subsample: false))
        let scans = (0..<data.count - 1).filter { data[$0] == 0xFF && data[$0 + 1] == 0xDA }
        #expect(scans.count > 2)
        let dcOnly = Data(data[..<scans[1]] + [0xFF, 0xD9])
        #expect(ProgressiveJPEGDCStream.make(from: dcOnly) == nil)
        // The thumbnail is still made, from the original bytes.
        let image = try ImageDecoder.thumbnail(dcOnly, maxPixelSize: 50, scale: 1)
        #expect(image.pixelWidth == 50)
        let expected = try #require(eighthScalePixels(Array(dcOnly), strict: false))
        let rgb = image.rgbPixels()
        #expect(rgb == expected)
    }

    @Test("a downsampled progressive JPEG has the pixels of the whole-file thumbnail")
    func downsamplingUsesIt() throws {
        // 2048 x 1536 to fit 256: libjpeg decodes at 1/8 (256 x 192), so the DC stream is used.
        let data = Fixtures.texturedJPEG(width: 2048, height: 1536)
        let image = try #require(
            KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(
                data: data, to: CGSize(width: 256, height: 256), scale: 1))
        #expect(image.pixelWidth == 256 && image.pixelHeight == 192)
        let expected = try #require(eighthScalePixels([UInt8](data), strict: false))
        let rgb = image.rgbPixels()
        #expect(rgb.count == expected.count)
        let differing = zip(rgb, expected).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(expected.count) samples differ")
    }

    @Test("damaged progressive JPEGs give an image or a KingfisherError, never a crash")
    func damagedFiles() {
        let data = [UInt8](Fixtures.texturedJPEG(width: 300, height: 200))
        var generator = SplitMix64(seed: 0x6B66)
        var rewritten = 0
        for _ in 0..<300 {
            var bytes = data
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                bytes[Int.random(in: 2..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if let stream = ProgressiveJPEGDCStream.make(from: Data(bytes)) {
                rewritten += 1
                #expect(stream.starts(with: [0xFF, 0xD8]) && stream.suffix(2) == [0xFF, 0xD9])
            }
            do {
                let image = try ImageDecoder.thumbnail(Data(bytes), maxPixelSize: 32, scale: 1)
                #expect(image.pixelWidth <= 32 && image.pixelHeight <= 32)
            } catch {
                #expect(error.errorCode > 0)
            }
        }
        #expect(rewritten > 0, "no damaged file was rewritten: the test exercised nothing")
    }
}

/// A small seeded generator, so a failing damaged-file case can be reproduced.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
