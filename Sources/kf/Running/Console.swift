import Foundation

/// Writes straight to the file descriptors (unbuffered), so lines from the progress reporter, results and
/// messages keep their order whether stdout is a terminal, a pipe or a file.
enum Console {
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
