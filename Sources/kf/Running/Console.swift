import Foundation

/// Writes straight to the file descriptors (unbuffered), so lines from the progress reporter, results and
/// messages keep their order whether stdout is a terminal, a pipe or a file.
enum Console {
    static func out(_ line: String) {
        write(line + "\n", to: .standardOutput)
    }

    static func error(_ line: String) {
        write(line + "\n", to: .standardError)
    }

    /// `text` as it is (the progress bar redraws a line without ending it).
    static func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(text.utf8))
    }

    /// `value` as one line of JSON, keys sorted, slashes unescaped.
    static func jsonLine(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
