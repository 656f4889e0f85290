import Foundation
import Kingfisher
import Testing

/// Every file of the fuzzers' seed corpus (`Fuzz/Corpus/`: odd, cut, header-only, huge-declared and foreign files
/// besides ordinary ones) through every way the library reads untrusted bytes: each gives an image or a
/// `KingfisherError`, never a crash or a hang.
@Suite(.timeLimit(.minutes(2)))
struct OddFileCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    static var files: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return names.sorted().map { corpus.appendingPathComponent($0) }
    }

    @Test func theCorpusIsThere() {
        #expect(Self.files.count >= 40)
    }

    @Test(arguments: files)
    func decodesOrFailsWithAKingfisherError(_ file: URL) throws {
        let data = try Data(contentsOf: file)
        _ = data.kf.imageFormat
        _ = data.kf.headerPixelSize
        do {
            let image = try KFCrossPlatformImage(decoding: data)
            #expect(image.pixelWidth > 0 && image.pixelHeight > 0)
        } catch {
            #expect(!(error.errorDescription ?? "").isEmpty, "\(file.lastPathComponent): \(error)")
        }
        let thumbnail = KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(
            data: data, to: CGSize(width: 32, height: 32), scale: 1)
        if let thumbnail { #expect(thumbnail.pixelWidth <= 32 && thumbnail.pixelHeight <= 32) }
        let processed = DownsamplingImageProcessor(size: CGSize(width: 16, height: 16))
            .process(item: .data(data), options: KingfisherParsedOptionsInfo(nil))
        #expect((processed == nil) == (thumbnail == nil), "\(file.lastPathComponent)")
    }
}
