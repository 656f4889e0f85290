import ArgumentParser
import Foundation
import Kingfisher

/// `WxH` in pixels, e.g. `256x256`.
struct PixelSize: ExpressibleByArgument, Equatable {
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else {
            return nil
        }
        self.init(width: width, height: height)
    }

    var cgSize: CGSize { CGSize(width: width, height: height) }
    var description: String { "\(width)x\(height)" }
}

/// `WxH` or `WxH@x,y`: a crop of `W`x`H` pixels whose top-left corner is at pixel (`x`, `y`); centred without
/// the `@` part.
struct CropSpec: ExpressibleByArgument, Equatable {
    let size: PixelSize
    let origin: (x: Int, y: Int)?

    init?(argument: String) {
        let halves = argument.split(separator: "@", omittingEmptySubsequences: false)
        guard halves.count <= 2, let size = PixelSize(argument: String(halves[0])) else { return nil }
        self.size = size
        guard halves.count == 2 else {
            origin = nil
            return
        }
        let coordinates = halves[1].split(separator: ",", omittingEmptySubsequences: false)
        guard coordinates.count == 2, let x = Int(coordinates[0]), let y = Int(coordinates[1]), x >= 0, y >= 0 else {
            return nil
        }
        origin = (x, y)
    }

    static func == (lhs: CropSpec, rhs: CropSpec) -> Bool {
        lhs.size == rhs.size && lhs.origin?.x == rhs.origin?.x && lhs.origin?.y == rhs.origin?.y
    }
}

/// A colour: `#RGB`, `#RRGGBB`, `#RRGGBBAA` (the `#` may be left out) or a name such as `red` or `transparent`.
struct ColorArgument: ExpressibleByArgument {
    static let names: [String: KFCrossPlatformColor] = [
        "black": .black, "white": .white, "red": .red, "green": .green, "blue": .blue,
        "transparent": .clear, "clear": .clear,
        "gray": KFCrossPlatformColor(red: 0.5, green: 0.5, blue: 0.5),
        "grey": KFCrossPlatformColor(red: 0.5, green: 0.5, blue: 0.5),
        "yellow": KFCrossPlatformColor(red: 1, green: 1, blue: 0),
        "cyan": KFCrossPlatformColor(red: 0, green: 1, blue: 1),
        "magenta": KFCrossPlatformColor(red: 1, green: 0, blue: 1),
        "orange": KFCrossPlatformColor(red: 1, green: 0.65, blue: 0),
        "sepia": KFCrossPlatformColor(red: 0.44, green: 0.26, blue: 0.08),
    ]

    let color: KFCrossPlatformColor

    init?(argument: String) {
        let text = argument.lowercased()
        if let named = Self.names[text] {
            color = named
            return
        }
        var hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit),
            let parsed = KFCrossPlatformColor(hex: hex)
        else { return nil }
        color = parsed
    }

    static var defaultCompletionKind: CompletionKind { .list(names.keys.sorted()) }
}

/// `WIDTH:COLOR[:RADIUS]`, e.g. `4:#336699` or `4:#336699:50%`. Without a radius the border follows the corners an
/// earlier `--round` made (square corners when none did).
struct BorderSpec: ExpressibleByArgument {
    let width: Double
    let color: ColorArgument
    let radius: RadiusArgument?

    init?(argument: String) {
        let parts = argument.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, let width = Double(parts[0]), width > 0, width.isFinite,
            let color = ColorArgument(argument: parts[1])
        else { return nil }
        self.width = width
        self.color = color
        if parts.count == 3 {
            guard let radius = RadiusArgument(argument: parts[2]) else { return nil }
            self.radius = radius
        } else {
            radius = nil
        }
    }
}

/// `COLOR:FRACTION`, e.g. `red:0.3` — FRACTION (0...1) is how much of the image stays.
struct OverlaySpec: ExpressibleByArgument {
    let color: ColorArgument
    let fraction: Double

    init?(argument: String) {
        guard let colon = argument.lastIndex(of: ":"), let fraction = Double(argument[argument.index(after: colon)...]),
            (0...1).contains(fraction), let color = ColorArgument(argument: String(argument[..<colon]))
        else { return nil }
        self.color = color
        self.fraction = fraction
    }
}

/// A corner radius: pixels (`12`) or a percentage of the width (`50%`).
struct RadiusArgument: ExpressibleByArgument {
    let radius: Radius

    init?(argument: String) {
        if argument.hasSuffix("%") {
            guard let percent = Double(argument.dropLast()), (0...100).contains(percent) else { return nil }
            radius = .widthFraction(percent / 100)
        } else {
            guard let points = Double(argument), points >= 0, points.isFinite else { return nil }
            radius = .point(points)
        }
    }
}

/// `--mode`: how `--resize` fits the image into its size.
enum ResizeMode: String, CaseIterable, ExpressibleByArgument {
    case none, fit, fill

    var contentMode: ContentMode {
        switch self {
        case .none: .none
        case .fit: .aspectFit
        case .fill: .aspectFill
        }
    }
}
