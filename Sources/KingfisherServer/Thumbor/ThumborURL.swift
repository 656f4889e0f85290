import Foundation

/// A thumbor image URL, parsed: `/<signature | unsafe>/[meta/][trim/][AxB:CxD/][fit-in/][-]WxH/[halign/][valign/]
/// [smart/][filters:name(args):.../]IMAGE`, the syntax thumbor and the URL builders made for it (libthumbor and
/// others) use. Options come in that order; a segment out of order is taken as the start of the image, as thumbor
/// does.
public struct ThumborURL: Sendable, Hashable {
    /// How the URL is authorised: `unsafe`, or an HMAC-SHA1 of ``signedPart`` (see ``ThumborSignature``).
    public enum Authorisation: Sendable, Hashable {
        case unsafe
        case signed(String)
    }

    /// How the image is fitted into the size (`fit-in`, `adaptive-fit-in`, `full-fit-in`); `crop` fills it.
    public enum Fit: String, Sendable, Hashable {
        case crop
        case fitIn = "fit-in"
        case adaptiveFitIn = "adaptive-fit-in"
        case fullFitIn = "full-fit-in"
    }

    /// One side of the requested size: unset (kept in proportion), pixels, or `orig` (the source's).
    public enum Length: Sendable, Hashable {
        case proportional
        case pixels(Int)
        case original
    }

    /// `trim`: remove a uniform border, judged by the colour of a corner.
    public struct Trim: Sendable, Hashable {
        public enum Corner: String, Sendable, Hashable {
            case topLeft = "top-left"
            case bottomRight = "bottom-right"
        }
        public var corner: Corner
        public var tolerance: Int

        public init(corner: Corner = .topLeft, tolerance: Int = 0) {
            self.corner = corner
            self.tolerance = tolerance
        }
    }

    /// A manual crop `AxB:CxD`: the left, top, right and bottom edges in source pixels.
    public struct Crop: Sendable, Hashable {
        public var left: Int
        public var top: Int
        public var right: Int
        public var bottom: Int

        public init(left: Int, top: Int, right: Int, bottom: Int) {
            (self.left, self.top, self.right, self.bottom) = (left, top, right, bottom)
        }

        /// thumbor's focal point for it as a `focal(...)` region: the centre, rounded down, weighing the area.
        var centre: (x: Int, y: Int, weight: Int) {
            let (width, height) = (right - left, bottom - top)
            return (left + width / 2, top + height / 2, width * height)
        }
    }

    public enum HorizontalAlignment: String, Sendable, Hashable { case left, center, right }
    public enum VerticalAlignment: String, Sendable, Hashable { case top, middle, bottom }

    /// A filter, `name(arguments)`, arguments as written (split at commas outside parentheses and brackets).
    public struct Filter: Sendable, Hashable {
        public var name: String
        public var arguments: [String]

        public init(name: String, arguments: [String] = []) {
            self.name = name
            self.arguments = arguments
        }
    }

    public var authorisation: Authorisation
    /// Everything after the signature segment: what the signature covers.
    public var signedPart: String
    /// `meta/`: the image's metadata as JSON instead of the image.
    public var meta = false
    public var trim: Trim?
    public var crop: Crop?
    public var fit = Fit.crop
    public var width = Length.proportional
    public var height = Length.proportional
    /// A `-` before the width or the height: mirror the image left to right, or top to bottom.
    public var flipsHorizontally = false
    public var flipsVertically = false
    public var horizontalAlignment: HorizontalAlignment?
    public var verticalAlignment: VerticalAlignment?
    /// `smart/`: crop around what matters (libvips' attention strategy; thumbor uses face and feature detection).
    public var smart = false
    public var filters: [Filter] = []
    /// The image: a URL (with or without its scheme) or a path, percent-decoded.
    public var image: String

    /// Parses the path of a request (with or without its leading `/`; no query).
    public init(path: String) throws(ThumborURLError) {
        var rest = Substring(path.hasPrefix("/") ? path.dropFirst() : Substring(path))
        guard let slash = rest.firstIndex(of: "/") else { throw .missingImage }
        let first = rest[..<slash]
        if first == "unsafe" {
            authorisation = .unsafe
        } else {
            guard ThumborSignature.looksLikeSignature(first) else { throw .missingSignature }
            authorisation = .signed(String(first))
        }
        rest = rest[rest.index(after: slash)...]
        signedPart = String(rest)
        image = ""

        var reader = SegmentReader(rest)
        meta = reader.take { $0 == "meta" ? true : nil } ?? false
        if let segment = reader.take({ $0 == "trim" || $0.hasPrefix("trim:") ? $0 : nil }) {
            trim = try Self.trim(segment)
        }
        if let segment = reader.take({ Self.isCrop($0) ? $0 : nil }) { crop = try Self.crop(segment) }
        // (`crop` is the mode without a segment of its own.)
        fit = reader.take { $0 == "crop" ? nil : Fit(rawValue: String($0)) } ?? .crop
        if let segment = reader.take({ Self.isSize($0) ? $0 : nil }) { try readSize(segment) }
        horizontalAlignment = reader.take { HorizontalAlignment(rawValue: String($0)) }
        verticalAlignment = reader.take { VerticalAlignment(rawValue: String($0)) }
        smart = reader.take { $0 == "smart" ? true : nil } ?? false
        if reader.rest.hasPrefix("filters:") {
            let text = reader.rest.dropFirst("filters:".count)
            // Filters end at the first `)/`: their arguments may hold slashes (a URL), the image follows.
            guard let end = text.range(of: ")/") else { throw .malformedFilters(String(text.prefix(80))) }
            filters = try Self.filters(text[..<text.index(after: end.lowerBound)])
            reader.rest = text[end.upperBound...]
        }
        let image = reader.rest.removingPercentEncoding ?? String(reader.rest)
        guard !image.isEmpty else { throw .missingImage }
        self.image = image
        if filters.contains(where: { $0.name == "extract_focal" }), let (inner, crop) = Self.croppedImage(in: image) {
            // thumbor's extract_focal(): the image is a thumbor URL with a manual crop; its image is fetched, and
            // the crop becomes a focal region.
            self.image = inner
            filters.append(
                Filter(name: "focal", arguments: ["\(crop.left)x\(crop.top):\(crop.right)x\(crop.bottom)"]))
        }
    }

    /// When `image` is a thumbor URL (its host and scheme optional) with a manual crop, possibly wrapping other
    /// thumbor URLs (up to ten deep): the innermost image such a URL names, and that URL's crop.
    private static func croppedImage(in image: String) -> (image: String, crop: Crop)? {
        var current = image
        for _ in 0..<10 {
            // Everything up to the first slash is a host (and scheme), as thumbor strips it.
            var path = Substring(current)
            for scheme in ["http://", "https://"] where path.hasPrefix(scheme) { path = path.dropFirst(scheme.count) }
            guard let slash = path.firstIndex(of: "/"),
                let inner = try? ThumborURL(path: String(path[path.index(after: slash)...]))
            else { return nil }
            if let crop = inner.crop { return (inner.image, crop) }
            current = inner.image
        }
        return nil
    }

    private mutating func readSize(_ segment: Substring) throws(ThumborURLError) {
        let halves = segment.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        func length(_ text: Substring) throws(ThumborURLError) -> (Length, Bool) {
            let flipped = text.hasPrefix("-")
            let value = flipped ? text.dropFirst() : text
            if value.isEmpty { return (.proportional, flipped) }
            if value == "orig" { return (.original, flipped) }
            guard let pixels = Int(value), pixels <= 100_000 else { throw .badSize(String(segment)) }
            return (pixels == 0 ? .proportional : .pixels(pixels), flipped)
        }
        (width, flipsHorizontally) = try length(halves[0])
        (height, flipsVertically) = try length(halves[1])
    }

    /// `-?(\d+|orig)?x-?(\d+|orig)?`, whole.
    static func isSize(_ segment: Substring) -> Bool {
        let halves = segment.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return false }
        return halves.allSatisfy { half in
            let value = half.hasPrefix("-") ? half.dropFirst() : half
            return value.isEmpty || value == "orig" || value.utf8.allSatisfy { (48...57).contains($0) }
        }
    }

    /// `\d+x\d+:\d+x\d+`, whole.
    static func isCrop(_ segment: Substring) -> Bool {
        let corners = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard corners.count == 2 else { return false }
        return corners.allSatisfy { corner in
            let sides = corner.split(separator: "x", omittingEmptySubsequences: false)
            return sides.count == 2 && sides.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }
        }
    }

    static func crop(_ segment: Substring) throws(ThumborURLError) -> Crop {
        let numbers = segment.split(whereSeparator: { $0 == ":" || $0 == "x" }).map { Int($0) }
        guard numbers.count == 4, let left = numbers[0], let top = numbers[1], let right = numbers[2],
            let bottom = numbers[3]
        else { throw .badCrop(String(segment)) }
        return Crop(left: left, top: top, right: right, bottom: bottom)
    }

    private static func trim(_ segment: Substring) throws(ThumborURLError) -> Trim {
        var trim = Trim()
        for part in segment.split(separator: ":").dropFirst() {
            if let corner = Trim.Corner(rawValue: String(part)) {
                trim.corner = corner
            } else if let tolerance = Int(part), (0...442).contains(tolerance) {
                trim.tolerance = tolerance
            } else {
                throw .badTrim(String(segment))
            }
        }
        return trim
    }

    /// `name(args):name(args)...`, split at colons outside parentheses.
    private static func filters(_ text: Substring) throws(ThumborURLError) -> [Filter] {
        var filters: [Filter] = []
        var depth = 0
        var start = text.startIndex
        var index = text.startIndex
        func add(_ piece: Substring) throws(ThumborURLError) {
            guard let open = piece.firstIndex(of: "("), piece.last == ")" else {
                throw .malformedFilters(String(piece.prefix(80)))
            }
            let name = piece[..<open]
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw .malformedFilters(String(piece.prefix(80)))
            }
            let inside = piece[piece.index(after: open)..<piece.index(before: piece.endIndex)]
            filters.append(Filter(name: String(name), arguments: splitArguments(inside)))
        }
        while index < text.endIndex {
            switch text[index] {
            case "(": depth += 1
            case ")": depth -= 1
            case ":" where depth == 0:
                try add(text[start..<index])
                start = text.index(after: index)
            default: break
            }
            guard depth >= 0 else { throw .malformedFilters(String(text.prefix(80))) }
            index = text.index(after: index)
        }
        guard depth == 0 else { throw .malformedFilters(String(text.prefix(80))) }
        try add(text[start...])
        return filters
    }

    private static func splitArguments(_ text: Substring) -> [String] {
        guard !text.isEmpty else { return [] }
        var arguments: [String] = []
        var depth = 0
        var current = ""
        for character in text {
            switch character {
            case "(", "[": depth += 1
            case ")", "]": depth -= 1
            case "," where depth == 0:
                arguments.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        arguments.append(current)
        return arguments
    }
}

/// Takes the leading path segments one at a time.
private struct SegmentReader {
    var rest: Substring

    init(_ rest: Substring) { self.rest = rest }

    /// What `read` makes of the next segment, when it is followed by more and `read` makes something of it; the
    /// segment is consumed then.
    mutating func take<Value>(_ read: (Substring) -> Value?) -> Value? {
        guard let slash = rest.firstIndex(of: "/"), let value = read(rest[..<slash]) else { return nil }
        rest = rest[rest.index(after: slash)...]
        return value
    }
}

/// Why a thumbor URL was refused; the text is safe to send back in a `400`.
public enum ThumborURLError: Error, Sendable, Hashable, CustomStringConvertible {
    case missingSignature
    case missingImage
    case badSize(String)
    case badCrop(String)
    case badTrim(String)
    case malformedFilters(String)
    case unknownFilter(String)
    case badFilterArgument(filter: String, reason: String)
    case resultTooLarge(width: Int, height: Int, limit: Int)
    case tooManyFilters(count: Int, limit: Int)

    public var description: String {
        switch self {
        case .missingSignature: "the URL starts with neither a signature nor unsafe/"
        case .missingImage: "the URL names no image"
        case .badSize(let text): "bad size \(text.quotedCut)"
        case .badCrop(let text): "bad crop \(text.quotedCut)"
        case .badTrim(let text): "bad trim \(text.quotedCut)"
        case .malformedFilters(let text): "malformed filters \(text.quotedCut)"
        case .unknownFilter(let name): "unknown filter \(name.quotedCut)"
        case .badFilterArgument(let filter, let reason): "bad argument of filter \(filter.quotedCut): \(reason)"
        case .resultTooLarge(let width, let height, let limit):
            "a \(width) x \(height) result is more than the limit of \(limit) pixels"
        case .tooManyFilters(let count, let limit): "\(count) filters, more than the limit of \(limit)"
        }
    }
}

extension StringProtocol {
    /// The text in quotes for an error message, cut to a few dozen characters: an answer never echoes a long
    /// argument back whole.
    var quotedCut: String {
        let limit = 40
        let shown = count > limit ? prefix(limit - 3) + "..." : Substring(self)
        return "\"\(shown)\""
    }
}
