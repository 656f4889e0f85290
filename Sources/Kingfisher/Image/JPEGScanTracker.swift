import Foundation

/// Follows a JPEG as its bytes arrive, piece by piece, and records where each scan of a progressive one ends.
///
/// The bytes up to the end of a completed scan, followed by an EOI marker, are a valid progressive JPEG that
/// libjpeg decodes without complaint: coefficients of the scans not yet received count as zero (and libjpeg smooths
/// blocks that have only their DC). Segments are skipped by their declared lengths, so bytes inside an EXIF
/// thumbnail or an ICC profile are never taken for markers; inside entropy-coded data a marker is a 0xFF not
/// followed by a stuffed zero or a restart marker. Anything that is not a progressive JPEG (another format, a
/// baseline frame, a malformed segment) settles ``verdict`` to ``Verdict/notProgressive`` and nothing more is read.
struct JPEGScanTracker {
    enum Verdict: Equatable {
        /// No frame header seen yet.
        case undecided
        /// A progressive frame (SOF2 Huffman or SOF10 arithmetic) of this size.
        case progressive(width: Int, height: Int)
        /// Not a progressive JPEG, or malformed: stop.
        case notProgressive
    }

    private enum Phase {
        /// Reading SOI; the count of its bytes seen.
        case start(Int)
        /// Expecting the 0xFF of the next marker.
        case markerPrefix
        /// After 0xFF: expecting the marker code (0xFF is a fill byte).
        case markerCode
        /// Reading a segment's two length bytes (`high` once the first arrived).
        case length(marker: UInt8, high: UInt8?)
        /// Inside a segment's body, `remaining` bytes to go.
        case segment(marker: UInt8, remaining: Int)
        /// Inside entropy-coded data after an SOS header.
        case entropy
        /// Inside entropy-coded data, just after a 0xFF at offset `at`.
        case entropyFF(at: Int)
        /// EOI reached, or nothing more to read.
        case done
    }

    private(set) var verdict = Verdict.undecided
    /// Offsets where each completed scan's entropy-coded data ends (the 0xFF of the marker after it), in order.
    private(set) var scanEnds: [Int] = []
    /// Whether the whole file, up to EOI, has been seen.
    private(set) var isComplete = false
    private var phase = Phase.start(0)
    /// The offset of the next byte to read.
    private var offset = 0
    /// The first bytes of a frame header's body: precision, height, width.
    private var frameBytes: [UInt8] = []

    /// Reads the next piece of the file.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        let start = offset
        var index = 0
        while index < bytes.count {
            if case .done = phase { break }
            if case .entropy = phase {
                // Most of the file: find the next 0xFF at memchr's speed.
                guard let found = memchr(base + index, 0xFF, bytes.count - index) else {
                    index = bytes.count
                    break
                }
                index = UnsafeRawPointer(found) - base
                phase = .entropyFF(at: start + index)
                index += 1
                continue
            }
            step(bytes.load(fromByteOffset: index, as: UInt8.self), at: start + index)
            index += 1
        }
        offset = start + bytes.count
    }

    private mutating func step(_ byte: UInt8, at position: Int) {
        switch phase {
        case .start(let seen):
            guard byte == (seen == 0 ? 0xFF : 0xD8) else { return stop() }
            phase = seen == 0 ? .start(1) : .markerPrefix
        case .markerPrefix:
            guard byte == 0xFF else { return stop() }
            phase = .markerCode
        case .markerCode:
            marker(byte)
        case .length(let marker, nil):
            phase = .length(marker: marker, high: byte)
        case .length(let marker, let high?):
            let length = Int(high) << 8 | Int(byte)
            guard length >= 2 else { return stop() }
            beginSegment(marker, bodyLength: length - 2)
        case .segment(let marker, let remaining):
            if isFrameHeader(marker), frameBytes.count < 5 {
                frameBytes.append(byte)
                if frameBytes.count == 5 { readFrameHeader(marker) }
                if case .done = phase { return }
            }
            endOrContinueSegment(marker, remaining: remaining - 1)
        case .entropy:
            if byte == 0xFF { phase = .entropyFF(at: position) }
        case .entropyFF(let at):
            switch byte {
            case 0x00, 0xD0...0xD7: phase = .entropy  // stuffed zero, restart marker
            case 0xFF: break  // fill bytes before a marker
            default:
                scanEnds.append(at)
                marker(byte)
            }
        case .done:
            break
        }
    }

    /// Handles a marker code read after 0xFF.
    private mutating func marker(_ code: UInt8) {
        switch code {
        case 0xFF:
            phase = .markerCode
        case 0xD9:
            isComplete = true
            phase = .done
        case 0xD8, 0x00:
            stop()
        case 0x01, 0xD0...0xD7:
            phase = .markerPrefix  // markers without a length
        default:
            phase = .length(marker: code, high: nil)
        }
    }

    private mutating func beginSegment(_ marker: UInt8, bodyLength: Int) {
        if isFrameHeader(marker) {
            guard verdict == .undecided, marker == 0xC2 || marker == 0xCA, bodyLength >= 6 else { return stop() }
            frameBytes = []
        }
        if marker == 0xDA, case .undecided = verdict { return stop() }  // a scan before any frame header
        endOrContinueSegment(marker, remaining: bodyLength)
    }

    private mutating func endOrContinueSegment(_ marker: UInt8, remaining: Int) {
        guard remaining == 0 else {
            phase = .segment(marker: marker, remaining: remaining)
            return
        }
        phase = marker == 0xDA ? .entropy : .markerPrefix
    }

    /// SOF0...SOF15 but DHT (C4), JPG (C8) and DAC (CC).
    private func isFrameHeader(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
    }

    private mutating func readFrameHeader(_ marker: UInt8) {
        let height = Int(frameBytes[1]) << 8 | Int(frameBytes[2])
        let width = Int(frameBytes[3]) << 8 | Int(frameBytes[4])
        guard frameBytes[0] == 8, width > 0, height > 0 else { return stop() }
        verdict = .progressive(width: width, height: height)
    }

    private mutating func stop() {
        // Scans completed before a malformed segment still decode; a file malformed before that gives nothing.
        if verdict == .undecided || scanEnds.isEmpty { verdict = .notProgressive }
        phase = .done
    }
}
