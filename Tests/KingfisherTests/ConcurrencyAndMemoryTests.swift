import Dispatch
import Foundation
import Kingfisher
import Testing

@Suite struct ConcurrencyAndMemoryTests {
    @Test func manyTasksDecodeAndEncodeAtOnce() async throws {
        // Given one sample per format
        let samples: [(ImageFormat, Data)] = try [ImageFormat.PNG, .JPEG, .GIF, .WebP, .TIFF].map { format in
            (format, try Fixtures.gradient(width: 48, height: 32).kf.encoded(as: format, compressionQuality: 0.9))
        }
        // When 256 tasks decode them, read pixels and re-encode at the same time
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<256 {
                let (format, data) = samples[index % samples.count]
                group.addTask {
                    guard let image = KFCrossPlatformImage(data: data) else { return false }
                    let pixels = image.kf.rgbaPixels()
                    let reencoded = image.kf.data(format: format, compressionQuality: 0.9)
                    return image.pixelWidth == 48 && pixels.count == 48 * 32 * 4 && reencoded != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        // Then every one succeeds
        #expect(results.count == 256)
        #expect(results.allSatisfy { $0 })
    }

    @Test func sharedImageIsReadFromManyThreads() throws {
        let image = try KFCrossPlatformImage(decoding: Fixtures.png(width: 64, height: 64))
        let expected = image.kf.rgbaPixels()
        DispatchQueue.concurrentPerform(iterations: 200) { _ in
            #expect(image.kf.rgbaPixels() == expected)
            #expect(image.kf.pngRepresentation() != nil)
        }
    }

    @Test func residentMemoryStaysBoundedOverAThousandDecodes() throws {
        // A 512x512 JPEG decodes to 768 KB; leaking every decode would add ~750 MB
        let data = Fixtures.jpeg(width: 512, height: 512)
        for _ in 0..<100 { _ = KFCrossPlatformImage(data: data) }  // warm up allocator arenas and codecs
        let before = residentMemory()
        DispatchQueue.concurrentPerform(iterations: 1000) { _ in
            let image = KFCrossPlatformImage(data: data)
            precondition(image?.pixelWidth == 512)
        }
        let growth = residentMemory() - before
        #expect(growth < 150_000_000, "RSS grew by \(growth / 1_000_000) MB over 1000 decodes")
    }
}
