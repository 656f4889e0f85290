import Foundation
import Kingfisher
import KingfisherTestSupport
import Testing

/// Every kind of bad input gives a `KingfisherError` with a reason (or `nil` from the optional APIs), never a
/// crash, a hang or a huge allocation. Serialized: these tests are the ones that make libvips report errors,
/// and some check that one failure's message never shows up in the next.
@Suite(.serialized) struct BadInputTests {
    private func decodingError(_ data: Data) -> KingfisherError.ProcessorErrorReason? {
        do {
            _ = try KFCrossPlatformImage(decoding: data)
            return nil
        } catch {
            guard case .processorError(let reason) = error else { return nil }
            return reason
        }
    }

    @Test func emptyData() {
        guard case .emptyImageData = decodingError(Data()) else {
            Issue.record("expected emptyImageData")
            return
        }
        #expect(KFCrossPlatformImage(data: Data()) == nil)
        #expect(KingfisherWrapper<KFCrossPlatformImage>.image(data: Data(), options: .init()) == nil)
    }

    @Test func zeroAndRandomBytesAreNotAnImage() {
        guard case .unsupportedImageFormat(.unknown) = decodingError(Data(count: 4096)) else {
            Issue.record("expected unsupportedImageFormat")
            return
        }
        for seed in 0..<50 {
            var bytes = (0..<2048).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761 &+ seed &* 40503) >> 7) }
            bytes[0] = 0x01
            #expect(KFCrossPlatformImage(data: Data(bytes)) == nil)
        }
    }

    /// A header that declares 65500 x 1500 pixels over a few bytes of scan ended by an EOI: libjpeg would only warn
    /// and make 98 megapixels of grey. Refused as cut off, whether decoded whole or shrunk on load.
    @Test func aJPEGTooShortForItsDeclaredPixelsIsCutOff() throws {
        let claims = TestImages.jpegCutAfterItsHeader(
            Fixtures.jpeg(width: 64, height: 48), claiming: 65500, 1500, ended: true)
        guard case .imageDecodingFailed(.JPEG, let error) = decodingError(claims) else {
            Issue.record("expected imageDecodingFailed")
            return
        }
        #expect(error.message.contains("cut off"))
        let side = CGSize(width: 64, height: 64)
        #expect(KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(data: claims, to: side, scale: 1) == nil)
        // The header alone is still read (a download's first bytes are judged by it).
        #expect(claims.kf.headerPixelSize?.width == 65500)
    }

    @Test func garbageAfterAValidSignature() {
        // The header says PNG, JPEG, GIF or WebP; everything after it is noise
        let signatures: [[UInt8]] = [
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0xFF, 0xD8, 0xFF, 0xE0], Array("GIF89a".utf8),
            Array("RIFF".utf8) + [0, 1, 0, 0] + Array("WEBPVP8 ".utf8), [0x49, 0x49, 0x2A, 0x00],
        ]
        for signature in signatures {
            let noise = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }
            let reason = decodingError(Data(signature + noise))
            #expect(reason != nil, "\(signature) + noise decoded")
        }
    }

    @Test(arguments: [ImageFormat.PNG, .JPEG, .GIF, .WebP, .TIFF, .HEIF, .AVIF])
    func truncatedFilesFail(format: ImageFormat) throws {
        let full = try Fixtures.gradient(width: 96, height: 64).kf.encoded(as: format, compressionQuality: 0.9)
        for fraction in [0.1, 0.5, 0.9] {
            let cut = full.prefix(Int(Double(full.count) * fraction))
            let reason = decodingError(Data(cut))
            #expect(reason != nil, "\(format) cut to \(Int(fraction * 100))% decoded")
            if case .imageDecodingFailed(let decodedFormat, let error) = reason {
                #expect(decodedFormat == format)
                let text = KingfisherError.processorError(
                    reason: .imageDecodingFailed(format: decodedFormat, error: error)
                ).description
                #expect(text.contains("\(format)") && text.contains("libvips \(error.operation) failed"), "\(text)")
            }
        }
    }

    @Test func pngDeclaringTwentyThousandSquaredIsRejectedBeforeDecoding() {
        let before = residentMemory()
        let bomb = Fixtures.pngHeaderOnly(width: 20000, height: 20000)
        #expect(bomb.count < 100)
        guard case .pixelLimitExceeded(20000, 20000, let limit) = decodingError(bomb) else {
            Issue.record("expected pixelLimitExceeded")
            return
        }
        #expect(limit == ImageEngine.maximumPixelCount)
        #expect(residentMemory() - before < 50_000_000)
        #expect(
            KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(
                data: bomb, to: CGSize(width: 64, height: 64), scale: 1) == nil)
    }

    @Test func bmpDeclaringHugeSizeIsRejectedBeforeLibvipsSeesIt() {
        let bomb = Fixtures.bmp(width: 30000, height: -30000, pixelBytes: 16)
        #expect(bomb.kf.imageFormat == .BMP)
        guard case .pixelLimitExceeded(30000, 30000, _) = decodingError(bomb) else {
            Issue.record("expected pixelLimitExceeded")
            return
        }
    }

    @Test func truncatedBMPFails() {
        let truncated = Fixtures.bmp(width: 100, height: 100, pixelBytes: 10)
        #expect(decodingError(truncated) != nil)
        // A complete one decodes
        let complete = Fixtures.bmp(width: 4, height: 2, pixelBytes: 24)
        #expect(KFCrossPlatformImage(data: complete)?.pixelWidth == 4)
    }

    @Test func raisingThePixelLimitLetsALargerHeaderThrough() {
        // 10001 x 10000 is just over the default limit of 100 megapixels
        let header = Fixtures.pngHeaderOnly(width: 10001, height: 10000)
        guard case .pixelLimitExceeded = decodingError(header) else {
            Issue.record("expected pixelLimitExceeded at the default limit")
            return
        }
        let saved = ImageEngine.maximumPixelCount
        ImageEngine.maximumPixelCount = 10001 * 10000
        defer { ImageEngine.maximumPixelCount = saved }
        // Now the header passes the limit and decoding fails on the missing pixel data instead
        guard case .imageDecodingFailed(.PNG, _) = decodingError(header) else {
            Issue.record("expected imageDecodingFailed once the limit allows the size")
            return
        }
    }

    @Test func formatsWeDoNotDecodeAreUnsupported() {
        // JPEG 2000, PDF and an ICO file: libvips or ImageMagick could read some, but they are not ours to accept
        let jp2: [UInt8] =
            [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] + Array(repeating: 0, count: 64)
        let pdf = Array("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n".utf8)
        let ico: [UInt8] = [0, 0, 1, 0, 1, 0, 16, 16] + Array(repeating: 0, count: 64)
        for bytes in [jp2, pdf, ico] {
            guard case .unsupportedImageFormat(.unknown) = decodingError(Data(bytes)) else {
                Issue.record("expected unsupportedImageFormat for \(bytes.prefix(4))")
                continue
            }
        }
    }

    @Test func decodingErrorsSayWhatFailed() throws {
        let truncated = Fixtures.jpeg(width: 64, height: 64).prefix(300)
        do {
            _ = try KFCrossPlatformImage(decoding: Data(truncated))
            Issue.record("truncated JPEG decoded")
        } catch {
            #expect(error.errorCode == 4004)
            let text = error.description
            #expect(text.contains("JPEG") && text.contains("libvips"), "\(text)")
        }
    }

    @Test func oneFailureMessageNeverLeaksIntoTheNext() throws {
        // Given a PNG failure and then a JPEG failure
        let png = Fixtures.png(width: 64, height: 64)
        guard case .imageDecodingFailed(_, let first) = decodingError(png.prefix(png.count / 2)) else {
            Issue.record("expected a PNG decoding failure")
            return
        }
        // A success in between carries no error
        #expect(KFCrossPlatformImage(data: png) != nil)
        guard case .imageDecodingFailed(_, let second) = decodingError(Fixtures.jpeg(width: 64, height: 64).prefix(200))
        else {
            Issue.record("expected a JPEG decoding failure")
            return
        }
        // Then the second message does not repeat the first. (libvips' buffer is process-wide: a suite running in
        // parallel may fail at the same moment, so only this sequential property is guaranteed.)
        #expect(first.message.isEmpty || !second.message.contains(first.message), "\(second.message)")
        #expect(first.operation == "load PNG" || first.operation == "compute pixels", "\(first.operation)")
    }

    @Test func concurrentFailuresAndSuccessesStayApart() async throws {
        let good = Fixtures.png(width: 32, height: 32)
        let bad = Data(Fixtures.jpeg(width: 64, height: 64).prefix(300))
        let outcomes = await withTaskGroup(of: (Bool, Bool).self) { group in
            for index in 0..<64 {
                group.addTask {
                    let wantsGood = index % 2 == 0
                    let image = KFCrossPlatformImage(data: wantsGood ? good : bad)
                    return (wantsGood, image != nil)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 64)
        #expect(outcomes.allSatisfy { $0.0 == $0.1 })
        // After the storm, a sequential failure is still reported as itself
        guard case .imageDecodingFailed(.PNG, _) = decodingError(Fixtures.png(width: 64, height: 64).prefix(100)) else {
            Issue.record("expected a PNG decoding failure")
            return
        }
    }

    @Test func invalidPixelBuffers() {
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(rgbaPixels: [0, 0, 0], width: 1, height: 1) }
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(rgbaPixels: [], width: 0, height: 0) }
        #expect(throws: KingfisherError.self) {
            try KFCrossPlatformImage(rgbaPixels: [0, 0, 0, 0], width: -1, height: -4)
        }
        #expect(throws: KingfisherError.self) {
            try KFCrossPlatformImage(rgbaPixels: [0, 0, 0, 0], width: Int.max / 2, height: 4)
        }
    }

    @Test func nonsenseQualitiesAndScalesAreClamped() throws {
        let image = Fixtures.gradient(width: 8, height: 8)
        for quality in [CGFloat.nan, -1, 0, 7, .infinity] {
            #expect(image.kf.jpegRepresentation(compressionQuality: quality) != nil, "\(quality)")
        }
        #expect(KFCrossPlatformImage(data: Fixtures.png(), scale: 0)?.scale == 1)
        #expect(KFCrossPlatformImage(data: Fixtures.png(), scale: .nan)?.scale == 1)
        // `.zero` keeps the full image, as Kingfisher (iOS 17.4 and later); a NaN size gives nothing
        let full = KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(data: Fixtures.png(), to: .zero, scale: 1)
        #expect(full?.pixelWidth == KFCrossPlatformImage(data: Fixtures.png())?.pixelWidth)
        #expect(
            KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(
                data: Fixtures.png(), to: CGSize(width: CGFloat.nan, height: 1), scale: 1) == nil)
    }

    @Test func svgCannotBeEncoded() {
        let image = Fixtures.gradient(width: 4, height: 4)
        #expect(image.kf.data(format: .SVG) == nil)
        #expect(throws: KingfisherError.self) { try image.kf.encoded(as: .SVG) }
    }
}
