import Foundation
import Kingfisher

// Times DownsamplingImageProcessor on one file's bytes, for the side-by-side script (compare-downsampling.sh).
// Usage: DownsampleTimer FILE ITERATIONS SIDE
// Prints one line: the median wall time per image in milliseconds, and the output size.

let arguments = CommandLine.arguments
guard arguments.count == 4, let iterations = Int(arguments[2]), let side = Double(arguments[3]),
    let data = FileManager.default.contents(atPath: arguments[1])
else {
    print("usage: DownsampleTimer FILE ITERATIONS SIDE")
    exit(2)
}

let processor = DownsamplingImageProcessor(size: CGSize(width: side, height: side))
let options = KingfisherParsedOptionsInfo(nil)
var samples: [Double] = []
var lastSize = ""
for _ in 0..<iterations {
    let start = DispatchTime.now().uptimeNanoseconds
    guard let image = processor.process(item: .data(data), options: options) else {
        print("error: could not downsample \(arguments[1])")
        exit(1)
    }
    samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    lastSize = "\(image.pixelWidth)x\(image.pixelHeight)"
}
samples.sort()
print(String(format: "%.2f %@", samples[samples.count / 2], lastSize))
