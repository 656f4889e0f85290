import Foundation
import Kingfisher
import Testing

/// Our Lanczos resize against Pillow's LANCZOS on the same photo-like input. The reference is made by
/// scripts/make-resize-reference.py from the same formula as `photoLikePixels` below.
@Suite struct ResizeQualityTests {
    static let width = 400
    static let height = 300

    static func photoLikePixels() -> [UInt8] {
        func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, (value + 0.5).rounded(.down)))) }
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (fx, fy) = (Double(x), Double(y))
                let red = 127.5 + 120 * sin(fx * 0.045 + fy * 0.013)
                let green = 127.5 + 120 * cos(fx * 0.021 - fy * 0.037)
                let inside = (x - 200) * (x - 200) + (y - 150) * (y - 150) < 80 * 80
                let blue = (inside ? 200 : 50) + 25 * sin(fx * 0.7) * cos(fy * 0.5)
                pixels += [clamp(red), clamp(green), clamp(blue), 255]
            }
        }
        return pixels
    }

    @Test func lanczosResizeMatchesPillowAbove35dB() throws {
        // Given Pillow's 160x120 LANCZOS result of the 400x300 input
        let referenceURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Reference/lanczos-160x120.png")
        let reference = try KFCrossPlatformImage(decoding: Data(contentsOf: referenceURL))
        #expect(reference.pixelWidth == 160 && reference.pixelHeight == 120)

        // When the same input is resized here
        let input = try KFCrossPlatformImage(rgbaPixels: Self.photoLikePixels(), width: Self.width, height: Self.height)
        let output = try #require(ResizingImageProcessor(referenceSize: CGSize(width: 160, height: 120)).run(input))

        // Then the two agree to at least 35 dB PSNR over RGB
        let a = output.kf.rgbaPixels()
        let b = reference.kf.rgbaPixels()
        var squaredError = 0.0
        var count = 0
        for index in a.indices where index % 4 != 3 {
            let difference = Double(a[index]) - Double(b[index])
            squaredError += difference * difference
            count += 1
        }
        let psnr = 10 * log10(255 * 255 / (squaredError / Double(count)))
        #expect(psnr >= 35, "PSNR \(psnr) dB")
        print("Resize vs Pillow LANCZOS: PSNR \(String(format: "%.2f", psnr)) dB")
    }
}
