import Foundation
import KfCommandKit
import Kingfisher

/// The sample images `kf demo` serves, drawn here pixel by pixel so the demo needs no files and no network.
struct DemoImage {
    /// The path the loopback server serves it at.
    let path: String
    /// What it is, for labels.
    let title: String
    let data: Data
    let contentType: String

    /// The three samples: a photo-like landscape (JPEG), a logo with transparency (PNG), an animation (GIF).
    static func all() throws -> [DemoImage] {
        [
            DemoImage(
                path: "/landscape.jpg", title: "landscape.jpg", data: try encode(landscape(), as: .JPEG, quality: 0.9),
                contentType: "image/jpeg"),
            DemoImage(
                path: "/badge.png", title: "badge.png", data: try encode(badge(), as: .PNG, quality: 1),
                contentType: "image/png"),
            DemoImage(
                path: "/orbit.gif", title: "orbit.gif", data: try encode(orbit(), as: .GIF, quality: 1),
                contentType: "image/gif"),
        ]
    }

    private static func encode(_ image: KFCrossPlatformImage, as format: ImageFormat, quality: CGFloat) throws -> Data {
        guard let data = image.kf.data(format: format, compressionQuality: quality) else {
            throw CommandFailure("the demo could not encode its sample \(format) image")
        }
        return data
    }

    /// A sunset: sky gradient, a glowing sun, two mountain ridges and a lake, with a little grain.
    static func landscape(width: Int = 1200, height: Int = 800) throws -> KFCrossPlatformImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var noise = Grain(seed: 7)
        let horizon = 0.62
        let sun = (x: 0.68, y: 0.36, radius: 0.07)
        for y in 0..<height {
            let v = Double(y) / Double(height)
            for x in 0..<width {
                let u = Double(x) / Double(width)
                var colour: (Double, Double, Double)
                let farRidge = horizon - 0.13 - 0.06 * ridge(u, 3.1, 1.7) - 0.03 * ridge(u, 7.3, 0.4)
                let nearRidge = horizon - 0.04 - 0.07 * ridge(u, 1.9, 4.2) - 0.02 * ridge(u, 11.0, 2.2)
                if v > horizon {
                    // The lake mirrors a darker sky, with ripples.
                    let mirrored = horizon - (v - horizon) * 1.6
                    let ripple = 0.03 * sin(Double(y) * 0.9 + sin(u * 40) * 2)
                    colour = sky(u, mirrored + ripple, sun: sun)
                    colour = (colour.0 * 0.55, colour.1 * 0.6, colour.2 * 0.75)
                } else if v > nearRidge {
                    let shade = (v - nearRidge) / max(0.01, horizon - nearRidge)
                    colour = (40 - 15 * shade, 32 - 10 * shade, 58 - 12 * shade)
                } else if v > farRidge {
                    let haze = (v - farRidge) / max(0.01, nearRidge - farRidge)
                    colour = (120 - 30 * haze, 80 - 20 * haze, 120 - 25 * haze)
                } else {
                    colour = sky(u, v, sun: sun)
                }
                let grain = noise.next()
                let index = (y * width + x) * 4
                pixels[index] = clamp(colour.0 + grain)
                pixels[index + 1] = clamp(colour.1 + grain)
                pixels[index + 2] = clamp(colour.2 + grain)
            }
        }
        return try KFCrossPlatformImage(rgbaPixels: pixels, width: width, height: height)
    }

    /// A round badge on a transparent background: a soft shadow, a teal disc, a white ring and a star.
    static func badge(size: Int = 512) throws -> KFCrossPlatformImage {
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        let centre = Double(size) / 2
        for y in 0..<size {
            for x in 0..<size {
                let dx = Double(x) + 0.5 - centre
                let dy = Double(y) + 0.5 - centre
                let distance = (dx * dx + dy * dy).squareRoot() / centre
                let angle = atan2(dy, dx)
                // Coverage of each layer, anti-aliased over about one pixel.
                let edge = 1 / centre
                let shadowDistance = ((dx - 8) * (dx - 8) + (dy - 10) * (dy - 10)).squareRoot() / centre
                let shadow = 0.35 * smooth(0.93, 0.80, shadowDistance)
                let disc = coverage(distance, 0.86, edge)
                let ring = disc * (1 - coverage(distance, 0.74, edge)) * coverage(distance, 0.8, edge)
                let starRadius = 0.42 + 0.2 * cos(5 * angle + .pi / 2)
                let star = coverage(distance, starRadius, edge)
                var r = 0.0
                var g = 0.0
                var b = 0.0
                var a = shadow
                if disc > 0 {
                    let light = 1 - 0.35 * (dy / centre + 1) / 2
                    (r, g, b) = mix((0, 0, 0), (20 * light, 150 * light, 160 * light), disc / max(a + disc, 1e-6))
                    a = disc + a * (1 - disc)
                }
                (r, g, b) = mix((r, g, b), (250, 250, 245), max(ring, star * disc))
                let index = (y * size + x) * 4
                pixels[index] = clamp(r)
                pixels[index + 1] = clamp(g)
                pixels[index + 2] = clamp(b)
                pixels[index + 3] = clamp(a * 255)
            }
        }
        return try KFCrossPlatformImage(rgbaPixels: pixels, width: size, height: size)
    }

    /// Twelve frames of a ball circling a dot and changing colour, one second per turn, looping forever.
    static func orbit(size: Int = 240, frames: Int = 12) throws -> KFCrossPlatformImage {
        var images: [KFCrossPlatformImage] = []
        let centre = Double(size) / 2
        for frame in 0..<frames {
            let turn = Double(frame) / Double(frames)
            let ball = (x: centre + cos(turn * 2 * .pi) * centre * 0.6, y: centre + sin(turn * 2 * .pi) * centre * 0.6)
            let hue = (255 * (0.5 + 0.5 * cos(turn * 2 * .pi)), 120.0, 255 * (0.5 - 0.5 * cos(turn * 2 * .pi)))
            var pixels = [UInt8](repeating: 255, count: size * size * 4)
            for y in 0..<size {
                for x in 0..<size {
                    let px = Double(x) + 0.5
                    let py = Double(y) + 0.5
                    let fromBall = ((px - ball.x) * (px - ball.x) + (py - ball.y) * (py - ball.y)).squareRoot()
                    let fromCentre = ((px - centre) * (px - centre) + (py - centre) * (py - centre)).squareRoot()
                    var colour = (246.0, 244.0, 236.0)
                    colour = mix(colour, (60, 60, 70), coverage(fromCentre, 14, 1))
                    colour = mix(colour, hue, coverage(fromBall, 26, 1))
                    let index = (y * size + x) * 4
                    pixels[index] = clamp(colour.0)
                    pixels[index + 1] = clamp(colour.1)
                    pixels[index + 2] = clamp(colour.2)
                }
            }
            images.append(try KFCrossPlatformImage(rgbaPixels: pixels, width: size, height: size))
        }
        return try KFCrossPlatformImage(
            frames: images, frameDurations: Array(repeating: 1 / Double(frames), count: frames))
    }

    // MARK: - Drawing helpers

    private static func sky(_ u: Double, _ v: Double, sun: (x: Double, y: Double, radius: Double)) -> (
        Double, Double, Double
    ) {
        let t = min(max(v / 0.62, 0), 1)
        var colour = mix((30, 40, 110), (250, 150, 80), pow(t, 1.6))
        let dx = (u - sun.x) * 1.5
        let dy = v - sun.y
        let distance = (dx * dx + dy * dy).squareRoot()
        colour = mix(colour, (255, 210, 140), 0.6 * exp(-distance * 9))
        return mix(colour, (255, 245, 215), coverage(distance, sun.radius, 0.004))
    }

    private static func ridge(_ u: Double, _ frequency: Double, _ phase: Double) -> Double {
        0.5 + 0.5 * sin(u * frequency * 2 * .pi + phase) * cos(u * frequency * 1.3 + phase * 0.7)
    }

    /// 1 inside `radius`, 0 outside, blended over `edge`.
    private static func coverage(_ distance: Double, _ radius: Double, _ edge: Double) -> Double {
        min(max((radius - distance) / edge + 0.5, 0), 1)
    }

    private static func smooth(_ outer: Double, _ inner: Double, _ distance: Double) -> Double {
        min(max((outer - distance) / (outer - inner), 0), 1)
    }

    private static func mix(_ a: (Double, Double, Double), _ b: (Double, Double, Double), _ t: Double) -> (
        Double, Double, Double
    ) {
        (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t, a.2 + (b.2 - a.2) * t)
    }

    private static func clamp(_ value: Double) -> UInt8 {
        UInt8(min(max(value.rounded(), 0), 255))
    }
}

/// Film grain: a small deterministic pseudo-random walk (xorshift), ±4 levels.
private struct Grain {
    var state: UInt64

    init(seed: UInt64) { state = seed | 1 }

    mutating func next() -> Double {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Double(state % 9) - 4
    }
}
