import Benchmark
import Foundation
import Kingfisher

/// Decoding and encoding through `KFCrossPlatformImage`, on images generated here (no files needed).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .peakMemoryResident], maxDuration: .seconds(3))

    let photoLike = gradient(width: 1024, height: 768)
    let jpeg = try! photoLike.kf.encoded(as: .JPEG, compressionQuality: 0.85)
    let png = try! photoLike.kf.encoded(as: .PNG)
    let thumbnailJPEG = try! gradient(width: 256, height: 256).kf.encoded(as: .JPEG, compressionQuality: 0.8)

    Benchmark("Decode 256x256 JPEG") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(KFCrossPlatformImage(data: thumbnailJPEG))
        }
    }
    Benchmark("Decode 1024x768 JPEG") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(KFCrossPlatformImage(data: jpeg))
        }
    }
    Benchmark("Decode 1024x768 PNG") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(KFCrossPlatformImage(data: png))
        }
    }
    Benchmark("Encode 1024x768 JPEG Q85") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(photoLike.kf.jpegRepresentation(compressionQuality: 0.85))
        }
    }
}

/// A gradient with some texture, so codecs have real work to do.
private func gradient(width: Int, height: Int) -> KFCrossPlatformImage {
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let i = (y * width + x) * 4
            pixels[i] = UInt8(x * 255 / width)
            pixels[i + 1] = UInt8(y * 255 / height)
            pixels[i + 2] = UInt8(truncatingIfNeeded: (x * 31 + y * 17) ^ (x * y))
        }
    }
    return try! KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
}
