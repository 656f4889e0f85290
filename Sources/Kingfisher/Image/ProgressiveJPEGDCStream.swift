import Foundation

/// A progressive JPEG cut down to what a 1/8-scale decode reads: its DC scans, and the AC scans of subsampled
/// components.
///
/// At 1/8 scale libjpeg turns each 8 x 8 block of a full-resolution component into one pixel from the block's DC
/// coefficient alone, yet it still Huffman-decodes every AC scan of a progressive file, which is most of its bytes
/// and most of its decoding time (the wallpaper photos: 1.7 s of 3.5 s for the 32 progressive files of 171).
/// Components subsampled in both directions (the chroma of 4:2:0) are the exception: libjpeg decodes them with a
/// 2 x 2 (or larger) IDCT instead of upsampling, which reads AC coefficients, so their AC scans are kept (each AC
/// scan holds one component). Every other AC scan is skipped by looking for the marker that ends it, and one empty
/// AC scan per such component (every block an end-of-band run) is appended so that libjpeg knows its AC
/// coefficients as exactly zero: without those it would take them for missing and "smooth" the blocks from their
/// neighbours, changing the pixels. The result is the same pixels as the whole file's at 1/8 scale (tested pixel
/// for pixel); at any other scale more AC coefficients matter and the stream must not be used.
enum ProgressiveJPEGDCStream {
    /// The DC-only stream of `data`, or `nil` when `data` is not a complete progressive Huffman JPEG this can
    /// rewrite (baseline, arithmetic-coded, cut short, malformed): then decode the original, which reports errors.
    static func make(from data: Data) -> [UInt8]? {
        data.withUnsafeBytes { raw in
            Rewriter(raw.bindMemory(to: UInt8.self))?.rewrite()
        }
    }

    /// The largest end-of-band run one symbol can code: EOB14 with 14 extra bits.
    static let longestRun = 32_767

    private struct Component {
        let id: UInt8
        let horizontalSampling: Int
        let verticalSampling: Int
    }

    private struct Frame {
        let width: Int
        let height: Int
        let components: [Component]

        /// Whether libjpeg's 1/8-scale decode reads the AC coefficients of `component`: it doubles a component's
        /// IDCT size, instead of upsampling it, while the component is subsampled by at least twice that size in
        /// both directions (jdmaster.c, jpeg_core_output_dimensions).
        func readsACCoefficients(of component: Component) -> Bool {
            let maxHorizontal = components.map(\.horizontalSampling).max() ?? 1
            let maxVertical = components.map(\.verticalSampling).max() ?? 1
            return maxHorizontal % (component.horizontalSampling * 2) == 0
                && maxVertical % (component.verticalSampling * 2) == 0
        }

        func readsACCoefficients(ofComponentWithID id: UInt8) -> Bool {
            components.first { $0.id == id }.map(readsACCoefficients(of:)) ?? false
        }
    }

    private struct Rewriter {
        let bytes: UnsafeBufferPointer<UInt8>

        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
            self.bytes = bytes
        }

        func rewrite() -> [UInt8]? {
            var output: [UInt8] = [0xFF, 0xD8]
            output.reserveCapacity(bytes.count / 2)
            var frame: Frame?
            var dcScans = 0
            var index = 2
            while index + 1 < bytes.count {
                guard bytes[index] == 0xFF else { return nil }
                let marker = bytes[index + 1]
                if marker == 0xFF {  // fill byte before a marker
                    index += 1
                    continue
                }
                if marker == 0xD9 {  // EOI
                    guard let frame, dcScans > 0 else { return nil }
                    appendEmptyACScans(for: frame, to: &output)
                    output += [0xFF, 0xD9]
                    return output
                }
                guard index + 3 < bytes.count else { return nil }
                let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                let segmentEnd = index + 2 + length
                guard length >= 2, segmentEnd <= bytes.count else { return nil }
                switch marker {
                case 0xC2:  // SOF2, progressive Huffman
                    guard frame == nil, let parsed = parseFrame(at: index, length: length) else { return nil }
                    frame = parsed
                case 0xC0...0xCF where ![0xC4, 0xC8, 0xCC].contains(marker):
                    return nil  // any other frame type: baseline, lossless, arithmetic, hierarchical
                case 0xDA:  // SOS
                    let componentCount = length >= 3 ? Int(bytes[index + 4]) : 0
                    guard let frame, (1...4).contains(componentCount), length == 6 + 2 * componentCount,
                        let scanEnd = endOfEntropyData(from: segmentEnd)
                    else { return nil }
                    let spectralStart = bytes[index + 5 + 2 * componentCount]
                    // An AC scan has exactly one component (else libjpeg rejects the file anyway).
                    if spectralStart == 0 || frame.readsACCoefficients(ofComponentWithID: bytes[index + 5]) {
                        output.append(contentsOf: bytes[index..<scanEnd])
                        dcScans += spectralStart == 0 ? 1 : 0
                    }
                    index = scanEnd
                    continue
                case 0xDC, 0xD0...0xD7, 0x01:
                    return nil  // DNL (height given after the first scan), or a stray standalone marker
                default:
                    break  // DHT, DQT, DRI, APPn, COM: kept as they are
                }
                output.append(contentsOf: bytes[index..<segmentEnd])
                index = segmentEnd
            }
            return nil  // no EOI: cut short
        }

        /// An 8-bit SOF2 with 1-4 components and declared dimensions.
        private func parseFrame(at index: Int, length: Int) -> Frame? {
            guard length >= 8 else { return nil }
            let precision = bytes[index + 4]
            let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
            let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
            let count = Int(bytes[index + 9])
            guard precision == 8, width > 0, height > 0, (1...4).contains(count), length == 8 + 3 * count else {
                return nil
            }
            var components: [Component] = []
            for number in 0..<count {
                let offset = index + 10 + 3 * number
                let sampling = bytes[offset + 1]
                let component = Component(
                    id: bytes[offset], horizontalSampling: Int(sampling >> 4), verticalSampling: Int(sampling & 0x0F))
                guard (1...4).contains(component.horizontalSampling), (1...4).contains(component.verticalSampling)
                else { return nil }
                components.append(component)
            }
            return Frame(width: width, height: height, components: components)
        }

        /// The index of the marker that ends a scan's entropy-coded data starting at `start`: the first 0xFF not
        /// followed by a stuffed zero or a restart marker. `nil` if the data runs out first.
        private func endOfEntropyData(from start: Int) -> Int? {
            guard let base = bytes.baseAddress else { return nil }
            var index = start
            while index < bytes.count {
                guard let found = memchr(base + index, 0xFF, bytes.count - index) else { return nil }
                index = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                guard index + 1 < bytes.count else { return nil }
                let next = bytes[index + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) {
                    index += 2
                    continue
                }
                return index
            }
            return nil
        }
    }

    /// Restart intervals off, an AC Huffman table whose symbols are the end-of-band runs EOB0...EOB14 (4-bit codes
    /// 0...14), then per component whose AC scans were dropped one first AC scan of coefficients 1-63 at full
    /// precision in which every block ends at once.
    private static func appendEmptyACScans(for frame: Frame, to output: inout [UInt8]) {
        output += [0xFF, 0xDD, 0x00, 0x04, 0x00, 0x00]
        var counts = [UInt8](repeating: 0, count: 16)
        counts[3] = 15
        let table: [UInt8] = [0x10] + counts + (0..<15).map { UInt8($0 << 4) }
        output += [0xFF, 0xC4, UInt8((table.count + 2) >> 8), UInt8((table.count + 2) & 0xFF)] + table

        let maxHorizontal = frame.components.map(\.horizontalSampling).max() ?? 1
        let maxVertical = frame.components.map(\.verticalSampling).max() ?? 1
        for component in frame.components where !frame.readsACCoefficients(of: component) {
            // libjpeg's block counts for a scan of one component (jdinput.c: jdiv_round_up).
            let blocksWide = ceilingDivision(frame.width * component.horizontalSampling, maxHorizontal * 8)
            let blocksHigh = ceilingDivision(frame.height * component.verticalSampling, maxVertical * 8)
            output += [0xFF, 0xDA, 0x00, 0x08, 0x01, component.id, 0x00, 0x01, 0x3F, 0x00]
            var writer = BitWriter()
            var remaining = blocksWide * blocksHigh
            while remaining > 0 {
                let run = min(remaining, longestRun)
                let log2 = Int.bitWidth - 1 - run.leadingZeroBitCount
                writer.write(log2, bits: 4)
                writer.write(run - (1 << log2), bits: log2)
                remaining -= run
            }
            writer.finish(into: &output)
        }
    }

    private static func ceilingDivision(_ numerator: Int, _ denominator: Int) -> Int {
        (numerator + denominator - 1) / denominator
    }

    /// Entropy-coded bits, most significant first, with a zero stuffed after every 0xFF byte and the last byte
    /// padded with ones, as JPEG requires.
    private struct BitWriter {
        private var bytes: [UInt8] = []
        private var pending: UInt32 = 0
        private var pendingCount = 0

        mutating func write(_ value: Int, bits: Int) {
            guard bits > 0 else { return }
            pending = pending << UInt32(bits) | UInt32(value & ((1 << bits) - 1))
            pendingCount += bits
            while pendingCount >= 8 {
                pendingCount -= 8
                append(UInt8(truncatingIfNeeded: pending >> UInt32(pendingCount)))
            }
        }

        mutating func finish(into output: inout [UInt8]) {
            if pendingCount > 0 {
                write((1 << (8 - pendingCount)) - 1, bits: 8 - pendingCount)
            }
            output += bytes
        }

        private mutating func append(_ byte: UInt8) {
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0x00) }
        }
    }
}
