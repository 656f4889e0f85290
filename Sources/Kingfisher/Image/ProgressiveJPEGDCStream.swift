import Foundation

/// A progressive JPEG cut down to what a 1/8-scale decode reads: its DC scans, and the AC scans of subsampled
/// components.
///
/// At 1/8 scale libjpeg turns each 8 x 8 block of a full-resolution component into one pixel from the block's DC
/// coefficient alone, yet it still Huffman-decodes every AC scan of a progressive file, which is most of its bytes
/// and most of its decoding time (the 32 progressive wallpaper photos: 1,712 ms of 3,476 ms for all 171, and
/// 608 ms from these streams; docs/benchmarks-history.md). The AC scans of full-resolution components (luma; all three
/// of 4:4:4) are skipped by looking for the marker that ends them, and one empty AC scan per such component (every
/// block an end-of-band run) is appended so that libjpeg knows those coefficients as exactly zero: without it libjpeg
/// would take them for missing and "smooth" the blocks from their neighbours, changing the pixels. Subsampled
/// components keep their AC scans: libjpeg-turbo decodes the chroma of 4:2:0 with a 2 x 2 IDCT instead of upsampling
/// it, and IJG libjpeg 9 scales each direction on its own, so AC coefficients of subsampled components may be read.
///
/// Only a file that sends every AC coefficient of the skipped components to full precision is rewritten (a file cut
/// at a scan boundary, or a DC-only preview, is smoothed by libjpeg and decodes from its original bytes), and only
/// scans that libjpeg would accept are dropped. The result is the same pixels as the whole file's at 1/8 scale
/// (tested pixel for pixel); at any other scale more AC coefficients matter and the stream must not be used.
enum ProgressiveJPEGDCStream {
    /// The DC-only stream of `data`, or `nil` when `data` is not a complete progressive Huffman JPEG this can
    /// rewrite (baseline, arithmetic-coded, cut short, malformed): then decode the original, which reports errors.
    static func make(from data: Data) -> [UInt8]? {
        data.withUnsafeBytes { raw in
            Rewriter(raw.bindMemory(to: UInt8.self))?.rewrite()
        }
    }

    /// The largest end-of-band run one symbol can code: EOB14 with 14 extra bits.
    private static let longestRun = 32_767

    private struct Component {
        let id: UInt8
        let horizontalSampling: Int
        let verticalSampling: Int
    }

    private struct Frame {
        let width: Int
        let height: Int
        let components: [Component]
        let maxHorizontalSampling: Int
        let maxVerticalSampling: Int

        init(width: Int, height: Int, components: [Component]) {
            self.width = width
            self.height = height
            self.components = components
            maxHorizontalSampling = components.map(\.horizontalSampling).max() ?? 1
            maxVerticalSampling = components.map(\.verticalSampling).max() ?? 1
        }

        /// Whether a 1/8-scale decode reads only the DC coefficients of `component`: it is sampled at the full
        /// resolution in both directions, so each of its blocks becomes one pixel.
        func decodesFromDCAlone(_ component: Component) -> Bool {
            component.horizontalSampling == maxHorizontalSampling && component.verticalSampling == maxVerticalSampling
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
            // Per skipped component (by index in the frame): bit k set once coefficient k was sent at full precision.
            var fullPrecision: [UInt64] = []
            var index = 2
            while index + 1 < bytes.count {
                guard bytes[index] == 0xFF else { return nil }
                let marker = bytes[index + 1]
                if marker == 0xFF {  // fill byte before a marker
                    index += 1
                    continue
                }
                if marker == 0xD9 {  // EOI
                    let allACCoefficients: UInt64 = ~1
                    guard let frame, dcScans > 0,
                        zip(frame.components, fullPrecision).allSatisfy({ component, sent in
                            !frame.decodesFromDCAlone(component) || sent & allACCoefficients == allACCoefficients
                        })
                    else { return nil }
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
                    fullPrecision = Array(repeating: 0, count: parsed.components.count)
                case 0xC0...0xCF where ![0xC4, 0xC8, 0xCC].contains(marker):
                    return nil  // any other frame type: baseline, lossless, arithmetic, hierarchical
                case 0xDA:  // SOS
                    let componentCount = length >= 3 ? Int(bytes[index + 4]) : 0
                    guard let frame, (1...4).contains(componentCount), length == 6 + 2 * componentCount,
                        let scanEnd = endOfEntropyData(from: segmentEnd)
                    else { return nil }
                    let spectralStart = Int(bytes[index + 5 + 2 * componentCount])
                    let spectralEnd = Int(bytes[index + 6 + 2 * componentCount])
                    let low = Int(bytes[index + 7 + 2 * componentCount] & 0x0F)
                    if spectralStart == 0 {
                        output.append(contentsOf: bytes[index..<scanEnd])
                        dcScans += 1
                    } else {
                        // An AC scan: one component, coefficients Ss...Se within 1...63 (libjpeg's own checks).
                        guard componentCount == 1, spectralStart <= spectralEnd, spectralEnd <= 63,
                            let number = frame.components.firstIndex(where: { $0.id == bytes[index + 5] })
                        else { return nil }
                        if frame.decodesFromDCAlone(frame.components[number]) {
                            if low == 0 {
                                let count = spectralEnd - spectralStart + 1
                                let bits: UInt64 = count == 64 ? ~0 : (1 << UInt64(count)) - 1
                                fullPrecision[number] |= bits << UInt64(spectralStart)
                            }
                        } else {
                            output.append(contentsOf: bytes[index..<scanEnd])
                        }
                    }
                    index = scanEnd
                    continue
                case 0xDC, 0xD0...0xD8, 0x01, 0x00:
                    return nil  // DNL (height given after the first scan), a second SOI, or a stray marker
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
                guard !components.contains(where: { $0.id == component.id }) else { return nil }
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
    /// 0...14), then per full-resolution component (whose AC scans were dropped) one first AC scan of coefficients
    /// 1-63 at full precision in which every block ends at once.
    private static func appendEmptyACScans(for frame: Frame, to output: inout [UInt8]) {
        output += [0xFF, 0xDD, 0x00, 0x04, 0x00, 0x00]
        var counts = [UInt8](repeating: 0, count: 16)
        counts[3] = 15
        let table: [UInt8] = [0x10] + counts + (0..<15).map { UInt8($0 << 4) }
        output += [0xFF, 0xC4, UInt8((table.count + 2) >> 8), UInt8((table.count + 2) & 0xFF)] + table

        for component in frame.components where frame.decodesFromDCAlone(component) {
            // libjpeg's block counts for a scan of one component (jdinput.c: jdiv_round_up).
            let blocksWide = ceilingDivision(
                frame.width * component.horizontalSampling, frame.maxHorizontalSampling * 8)
            let blocksHigh = ceilingDivision(frame.height * component.verticalSampling, frame.maxVerticalSampling * 8)
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
