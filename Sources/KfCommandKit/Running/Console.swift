package import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes straight to the file descriptors (unbuffered), so lines from the progress reporter, results and
/// messages keep their order whether stdout is a terminal, a pipe or a file.
package enum Console {
    package static func out(_ line: String) {
        write(line + "\n", to: .standardOutput)
    }

    package static func error(_ line: String) {
        write(line + "\n", to: .standardError)
    }

    /// `text` as it is (the progress bar redraws a line without ending it).
    ///
    /// A reader that went away (`kf fetch --json | head -1`) ends kf as it ends `cat`: by `SIGPIPE`. Any other
    /// failure to write ends it with status 1 and, when it was not standard error that failed, a message there.
    package static func write(_ text: String, to handle: FileHandle) {
        var bytes = Array(text.utf8)[...]
        let descriptor = handle.fileDescriptor
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written >= 0 {
                bytes = bytes.dropFirst(written)
                continue
            }
            let failure = errno
            if failure == EINTR || failure == EAGAIN { continue }
            if failure == EPIPE {
                signal(SIGPIPE, SIG_DFL)
                raise(SIGPIPE)
            }
            if descriptor != STDERR_FILENO {
                let message = "kf: cannot write its output: \(String(cString: strerror(failure)))\n"
                _ = message.utf8CString.withUnsafeBufferPointer {
                    Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count - 1)
                }
            }
            exit(1)
        }
    }

    /// `value` as one line of JSON, keys sorted, slashes unescaped.
    package static func jsonLine(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Duration {
    /// The duration in seconds.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
