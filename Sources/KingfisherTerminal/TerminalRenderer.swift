import CChafa
public import Foundation
public import Kingfisher

/// Turns an image into the text that draws it in a grid of terminal cells, with libchafa.
///
/// ```swift
/// let renderer = TerminalRenderer(mode: .symbols)
/// let picture = renderer.render(image, fitting: TerminalGridSize(columns: 40, rows: 20))
/// print(picture.lines.joined(separator: "\n"))
/// ```
///
/// Rendering is CPU-bound and blocking: ``TerminalImageView`` runs it on its own queue.
public struct TerminalRenderer: Sendable {
    /// The output mode. ``TerminalOutputMode/detect(environment:)`` by default.
    public var mode: TerminalOutputMode
    /// The environment libchafa reads the terminal's abilities from (colours, sequences).
    public var environment: [String: String]

    /// Width over height of one character cell; 0.5 (a cell twice as tall as wide) is common.
    static let cellAspect: Float = 0.5

    public init(
        mode: TerminalOutputMode? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.mode = mode ?? .detect(environment: environment)
        self.environment = environment
    }

    /// Renders the first frame of `image` as large as fits in `size` with its aspect kept.
    public func render(_ image: KFCrossPlatformImage, fitting size: TerminalGridSize) -> TerminalPicture {
        let shrunk = shrunkForRendering(image, fitting: size)
        return render(rgba: shrunk.kf.rgbaPixels(), width: shrunk.pixelWidth, height: shrunk.pixelHeight, fitting: size)
    }

    /// Every frame of `image` (one for a still image), rendered as ``render(_:fitting:)`` does.
    public func renderFrames(_ image: KFCrossPlatformImage, fitting size: TerminalGridSize) -> [TerminalPicture] {
        let shrunk = shrunkForRendering(image, fitting: size)
        guard let frames = shrunk.kf.images, frames.count > 1 else { return [render(shrunk, fitting: size)] }
        return frames.map {
            render(rgba: $0.kf.rgbaPixels(), width: $0.pixelWidth, height: $0.pixelHeight, fitting: size)
        }
    }

    /// Renders straight RGBA8 pixels (`width * height * 4` bytes) as large as fits in `size`, aspect kept; an
    /// empty picture when the pixels or the size are empty.
    public func render(rgba: [UInt8], width: Int, height: Int, fitting size: TerminalGridSize) -> TerminalPicture {
        let empty = TerminalPicture(lines: [], size: TerminalGridSize(columns: 0, rows: 0), isGraphics: false)
        guard width > 0, height > 0, rgba.count == width * height * 4, size.columns > 0, size.rows > 0 else {
            return empty
        }
        var columns = Int32(size.columns)
        var rows = Int32(size.rows)
        chafa_calc_canvas_geometry(Int32(width), Int32(height), &columns, &rows, Self.cellAspect, 1, 0)
        guard columns > 0, rows > 0 else { return empty }

        let config = chafa_canvas_config_new()
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, columns, rows)
        chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
        chafa_canvas_config_set_pixel_mode(config, pixelMode)
        let symbols = chafa_symbol_map_new()
        defer { chafa_symbol_map_unref(symbols) }
        let tags = CHAFA_SYMBOL_TAG_BLOCK.rawValue | CHAFA_SYMBOL_TAG_BORDER.rawValue | CHAFA_SYMBOL_TAG_SPACE.rawValue
        chafa_symbol_map_add_by_tags(symbols, ChafaSymbolTags(rawValue: tags))
        chafa_canvas_config_set_symbol_map(config, symbols)

        let canvas = chafa_canvas_new(config)
        defer { chafa_canvas_unref(canvas) }
        rgba.withUnsafeBufferPointer { pixels in
            chafa_canvas_draw_all_pixels(
                canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels.baseAddress, Int32(width), Int32(height),
                Int32(width * 4))
        }
        let text = withTermInfo { info in
            var length = 0
            guard let bytes = cchafa_string_take(chafa_canvas_print(canvas, info), &length) else { return "" }
            defer { cchafa_free(bytes) }
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        }
        let covered = TerminalGridSize(columns: Int(columns), rows: Int(rows))
        if mode == .symbols {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            return TerminalPicture(lines: lines, size: covered, isGraphics: false)
        }
        return TerminalPicture(lines: [text], size: covered, isGraphics: true)
    }

    private var pixelMode: ChafaPixelMode {
        switch mode {
        case .symbols: CHAFA_PIXEL_MODE_SYMBOLS
        case .sixel: CHAFA_PIXEL_MODE_SIXELS
        case .kitty: CHAFA_PIXEL_MODE_KITTY
        }
    }

    /// Runs `body` with libchafa's description of the terminal in ``environment``.
    private func withTermInfo<T>(_ body: (OpaquePointer?) -> T) -> T {
        let entries = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { for entry in entries { free(entry) } }
        var envp: [UnsafeMutablePointer<CChar>?] = entries + [nil]
        let info = envp.withUnsafeMutableBufferPointer { cchafa_term_info_new($0.baseAddress) }
        defer { chafa_term_info_unref(info) }
        return body(info)
    }

    /// `image` shrunk (every frame) when it has many more pixels than the cells can show: libchafa would only
    /// sample them, and fewer pixels are faster to read out.
    func shrunkForRendering(_ image: KFCrossPlatformImage, fitting size: TerminalGridSize) -> KFCrossPlatformImage {
        // libchafa's cell is 10x20 pixels; more than that per cell is only sampled.
        let limit = CGSize(width: size.columns * 10, height: size.rows * 20)
        guard CGFloat(image.pixelWidth) > limit.width || CGFloat(image.pixelHeight) > limit.height else {
            return image
        }
        let pixelLimit = CGSize(width: limit.width / image.scale, height: limit.height / image.scale)
        return image.kf.resize(to: pixelLimit, for: .aspectFit)
    }
}
