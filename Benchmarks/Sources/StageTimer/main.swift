import Foundation
import Kingfisher

// Times the stages of a thumbnail job on one core, image by image, for comparing with other tools' loops.
// Usage: StageTimer ROUNDS SIDE FILE...   (SIDE 0: a full decode instead of the downsampling
// processor; -1: a full decode and no encode)
// Each image runs ROUNDS times; the sum over images of each stage's fastest run is printed, which is robust to
// the noise of a shared machine (a slow round only ever raises a figure).

let arguments = CommandLine.arguments
guard arguments.count >= 4, let rounds = Int(arguments[1]), let side = Double(arguments[2]) else {
    print("usage: StageTimer ROUNDS SIDE FILE...")
    exit(2)
}
let files = arguments.dropFirst(3).map { path -> Data in
    guard let data = FileManager.default.contents(atPath: path) else {
        print("error: cannot read \(path)")
        exit(1)
    }
    return data
}

let processor = DownsamplingImageProcessor(size: CGSize(width: side, height: side))
let options = KingfisherParsedOptionsInfo(nil)
var downsample = Array(repeating: Double.infinity, count: files.count)
var encode = Array(repeating: Double.infinity, count: files.count)

func milliseconds(since start: UInt64) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

let runStart = DispatchTime.now().uptimeNanoseconds
for _ in 0..<rounds {
    for (index, data) in files.enumerated() {
        let start = DispatchTime.now().uptimeNanoseconds
        let decoded = side > 0 ? processor.process(item: .data(data), options: options) : KFCrossPlatformImage(data: data)
        guard let image = decoded else {
            print("error: could not downsample file \(index)")
            exit(1)
        }
        downsample[index] = min(downsample[index], milliseconds(since: start))
        if side < 0 { continue }  // decode only
        let encodeStart = DispatchTime.now().uptimeNanoseconds
        guard image.kf.jpegRepresentation(compressionQuality: 0.8) != nil else {
            print("error: could not encode file \(index)")
            exit(1)
        }
        encode[index] = min(encode[index], milliseconds(since: encodeStart))
    }
}
let wall = milliseconds(since: runStart)
let total = downsample.reduce(0, +) + encode.reduce(0, +)
print(
    String(
        format: "decode %.3f ms, encode %.3f ms, total %.3f ms (%d images, sums of per-image minima over %d rounds)",
        downsample.reduce(0, +), encode.reduce(0, +), total, files.count, rounds))
print(String(format: "all rounds: %.1f ms wall, %.0f images/s", wall, Double(rounds * files.count) / wall * 1000))
