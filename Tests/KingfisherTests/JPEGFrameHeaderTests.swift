import Foundation
import KingfisherLocking
import Testing

@testable import Kingfisher

@Suite("JPEG frame headers and the admission of large decodes")
struct JPEGFrameHeaderTests {
    @Test("baseline and progressive JPEGs are told apart, with their size and components")
    func readsFrameHeader() throws {
        let baseline = try #require(JPEGFrameHeader(Fixtures.jpeg(width: 64, height: 48)))
        #expect(baseline.width == 64 && baseline.height == 48 && baseline.components == 3)
        #expect(!baseline.isProgressive)
        let progressive = try #require(JPEGFrameHeader(Fixtures.progressiveJPEG(width: 33, height: 70)))
        #expect(progressive.width == 33 && progressive.height == 70 && progressive.components == 3)
        #expect(progressive.isProgressive)
    }

    @Test("other formats, truncated headers and garbage give nil")
    func rejectsNonJPEG() {
        let jpeg = Fixtures.progressiveJPEG()
        for data in [Data(), Fixtures.png(), jpeg.prefix(3), jpeg.prefix(40), Data([0xFF, 0xD8, 0xFF, 0xFF, 0xFF])] {
            #expect(JPEGFrameHeader(data) == nil)
        }
    }

    /// `jpeg` with its frame header rewritten to declare 5120 x 2880 (the gate reads only the header).
    private func declaringLargeSize(_ jpeg: Data) throws -> Data {
        var bytes = [UInt8](jpeg)
        let sof = try #require(
            (0..<bytes.count - 1).first { bytes[$0] == 0xFF && [0xC0, 0xC2].contains(bytes[$0 + 1]) })
        bytes[sof + 5] = 0x0B  // height 2880
        bytes[sof + 6] = 0x40
        bytes[sof + 7] = 0x14  // width 5120
        bytes[sof + 8] = 0x00
        return Data(bytes)
    }

    /// A PNG whose header declares 5120 × 2880 (its pixels are the fixture's; only the header is read).
    private func pngDeclaringLargeSize() -> Data {
        var bytes = [UInt8](Fixtures.png())
        bytes.replaceSubrange(16..<24, with: [0, 0, 0x14, 0x00, 0, 0, 0x0B, 0x40])
        return Data(bytes)
    }

    @Test(
        "large progressive JPEGs and other large images wait for admission; large baseline JPEGs and small images not")
    func whatIsLarge() throws {
        let progressive = try declaringLargeSize(Fixtures.progressiveJPEG())
        let baseline = try declaringLargeSize(Fixtures.jpeg())
        #expect(ImageWorkers.needsAdmission(progressive))
        #expect(!ImageWorkers.needsAdmission(baseline))
        #expect(ImageWorkers.needsAdmission(pngDeclaringLargeSize()))
        #expect(!ImageWorkers.needsAdmission(Fixtures.png()))
        #expect(!ImageWorkers.needsAdmission(Fixtures.progressiveJPEG()))
        #expect(!ImageWorkers.needsAdmission(nil))
    }

    @Test("shrunk on load to a small box, large progressive 4:4:4 JPEGs and lossy WebPs need no admission")
    func shrunkOnLoadNeedsNoAdmission() throws {
        // Declaring 5120 x 2880: a box of 256 is decoded at 1/8 (640 x 360), a box of 1000 at 1/4 by libjpeg.
        let progressive444 = try declaringLargeSize(Fixtures.texturedJPEG(width: 64, height: 48, subsample: false))
        let progressive420 = try declaringLargeSize(Fixtures.texturedJPEG(width: 64, height: 48))
        #expect(!ImageWorkers.needsAdmission(progressive444, shrunkToFit: 256))
        #expect(ImageWorkers.needsAdmission(progressive444))
        #expect(ImageWorkers.needsAdmission(progressive444, shrunkToFit: 1000))
        #expect(ImageWorkers.needsAdmission(progressive420, shrunkToFit: 256))
        // A lossy WebP (libvips writes a VP8X header, no alpha) whose canvas declares 5120 x 2880: libwebp scales its
        // rows as it decodes them. With the alpha flag set, it needs admission again.
        var webp = [UInt8](Fixtures.lossyWebP(width: 64, height: 48))
        #expect(webp.count > 30 && Array(webp[12..<16]) == Array("VP8X".utf8))
        webp.replaceSubrange(24..<30, with: [0xFF, 0x13, 0x00, 0x3F, 0x0B, 0x00])  // 5119 and 2879, less one
        #expect(!ImageWorkers.needsAdmission(Data(webp), shrunkToFit: 256))
        #expect(ImageWorkers.needsAdmission(Data(webp)))
        var withAlpha = webp
        withAlpha[20] |= 0x10
        #expect(ImageWorkers.needsAdmission(Data(withAlpha), shrunkToFit: 256))
        // The processors that shrink on load say by how much.
        let downsampling = DownsamplingImageProcessor(size: CGSize(width: 200, height: 100))
        #expect(downsampling.shrinkOnLoadSide(for: Data(webp), scale: 2) == 400)
    }

    @Test("formats whose header libvips reads wait for admission when large: TIFF, SVG")
    func largeImagesOfOtherFormats() throws {
        let (width, height) = (4000, 2000)  // 8 MP
        let large = try KFCrossPlatformImage(
            rgbaPixels: [UInt8](repeating: 180, count: width * height * 4), width: width, height: height)
        #expect(ImageWorkers.needsAdmission(try large.kf.encoded(as: .TIFF)))
        #expect(!ImageWorkers.needsAdmission(try Fixtures.gradient(width: 64, height: 48).kf.encoded(as: .TIFF)))
        let svg = { (w: Int, h: Int) in
            Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="\#(w)" height="\#(h)"><rect/></svg>"#.utf8)
        }
        #expect(ImageWorkers.needsAdmission(svg(width, height)))
        #expect(!ImageWorkers.needsAdmission(svg(200, 100)))
        // Truncated bytes of a format libvips reads are no image to admit: the decode reports them.
        #expect(!ImageWorkers.needsAdmission(try large.kf.encoded(as: .TIFF).prefix(64)))
    }

    /// The most jobs that ran at once when three decodes of `data` went to a three-thread stage together, each
    /// waiting (up to 1 s) for the other two to join it.
    private func mostAtOnce(_ data: Data, largeDecodesOneAtATime: Bool) async -> Int {
        var configured = ImageEngine.Configuration.default
        configured.decodeConcurrency = 3
        configured.largeDecodesOneAtATime = largeDecodesOneAtATime
        let engine = configured
        let stage = ImageWorkers(threads: 3)
        let running = Counter()
        let maximum = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    await stage.run(on: nil, decoding: data, engine: engine) {
                        maximum.raise(to: running.add(1))
                        let deadline = Date().addingTimeInterval(1)
                        while maximum.value < 3 && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
                        _ = running.add(-1)
                    }
                }
            }
        }
        return maximum.value
    }

    @Test(
        "large decodes are admitted one at a time before they take a thread; others run together",
        .timeLimit(.minutes(1)))
    func admittedWork() async throws {
        let large = try declaringLargeSize(Fixtures.progressiveJPEG())
        #expect(await mostAtOnce(large, largeDecodesOneAtATime: true) == 1)
        #expect(await mostAtOnce(large, largeDecodesOneAtATime: false) == 3)
        #expect(await mostAtOnce(Fixtures.progressiveJPEG(), largeDecodesOneAtATime: true) == 3)
    }
}

/// A thread-safe integer for the gate test.
private final class Counter: Sendable {
    private let storage = Locked(0)
    var value: Int { storage.withLock { $0 } }
    func add(_ delta: Int) -> Int {
        storage.withLock {
            $0 += delta
            return $0
        }
    }
    func raise(to candidate: Int) { storage.withLock { $0 = max($0, candidate) } }
}
