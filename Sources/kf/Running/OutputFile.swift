import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A path the user named for a result (`-o FILE`), written the way curl, cp and shell redirection write:
/// - `-` is standard output;
/// - a symbolic link is followed, and its target written (a link to nowhere creates its target);
/// - a regular file, or a name that does not exist yet, is replaced whole: the bytes go to a temporary file beside
///   it, which is then renamed over it, so a reader never sees half an image;
/// - anything else (a device such as `/dev/null`, a FIFO) is opened and written where it is, never replaced.
struct OutputFile {
    /// How the bytes reach the path.
    enum Kind: Equatable {
        /// Standard output (`-`).
        case standardOutput
        /// A regular file at `path` (existing or not), replaced by renaming a temporary file over it.
        case replaced(path: String)
        /// A device or FIFO at `path`, opened for writing as it is.
        case inPlace(path: String)
    }

    /// What the user typed.
    let argument: String
    /// How it is written, decided when the path is looked at.
    let kind: Kind

    /// The path as named; `~` expands.
    init(_ argument: String) throws(CommandFailure) {
        self.argument = argument
        if argument == "-" {
            kind = .standardOutput
            return
        }
        let path = try Self.followingLinks((argument as NSString).expandingTildeInPath, shownAs: argument)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let failure = errno
            guard failure == ENOENT else { throw Self.failure(argument, failure) }
            kind = .replaced(path: path)
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .replaced(path: path)
        case S_IFDIR: throw CommandFailure("cannot write \(argument): it is a directory (use --output DIR)")
        case S_IFSOCK: throw CommandFailure("cannot write \(argument): it is a socket")
        default: kind = .inPlace(path: path)
        }
    }

    /// Whether the result goes to standard output, which then carries nothing else.
    var isStandardOutput: Bool { kind == .standardOutput }

    /// The path to report (`-` for standard output).
    var shownPath: String {
        switch kind {
        case .standardOutput: "-"
        case .replaced(let path), .inPlace(let path): path
        }
    }

    /// Writes `data` as the kind says.
    func write(_ data: Data) throws(CommandFailure) {
        switch kind {
        case .standardOutput:
            try Self.writeAll(data, to: STDOUT_FILENO, shownAs: argument)
        case .inPlace(let path):
            let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
            guard descriptor >= 0 else { throw Self.failure(argument, errno) }
            defer { close(descriptor) }
            try Self.writeAll(data, to: descriptor, shownAs: argument)
        case .replaced(let path):
            try Self.replace(path, with: data, shownAs: argument)
        }
    }

    /// `path` with every symbolic link on its last component followed (links in the directories above resolve by
    /// themselves when opened). At most 40 links, as the kernel allows.
    private static func followingLinks(_ path: String, shownAs argument: String) throws(CommandFailure) -> String {
        var current = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            if length < 0 {
                let failure = errno
                if failure == EINVAL || failure == ENOENT { return current }  // not a link, or nothing there
                throw Self.failure(argument, failure)
            }
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current =
                target.hasPrefix("/")
                ? target : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(target)
        }
        throw CommandFailure("cannot write \(argument): too many levels of symbolic links")
    }

    /// Writes `data` to a new temporary file in `path`'s directory, then renames it to `path`. The file gets the
    /// permissions of the one it replaces, or the usual ones for a new file (0666 less the umask).
    private static func replace(_ path: String, with data: Data, shownAs argument: String) throws(CommandFailure) {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        var template = Array(((directory.isEmpty ? "." : directory) + "/.\(name).kf-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw Self.failure(argument, errno) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            close(descriptor)
            if !renamed { unlink(temporary) }
        }
        var existing = stat()
        let mode: mode_t
        if stat(path, &existing) == 0 {
            mode = existing.st_mode & 0o7777
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        guard fchmod(descriptor, mode) == 0 else { throw Self.failure(argument, errno) }
        try writeAll(data, to: descriptor, shownAs: argument)
        guard rename(temporary, path) == 0 else { throw Self.failure(argument, errno) }
        renamed = true
    }

    /// Writes every byte, going on after short writes and interruptions.
    private static func writeAll(_ data: Data, to descriptor: Int32, shownAs argument: String) throws(CommandFailure) {
        var failure: Int32 = 0
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno == EPIPE && descriptor == STDOUT_FILENO {
                    // A reader that went away (`kf fetch a.jpg -o - | head -c 10`) ends kf as it ends `cat`.
                    signal(SIGPIPE, SIG_DFL)
                    raise(SIGPIPE)
                } else if errno != EINTR && errno != EAGAIN {
                    failure = errno
                    return
                }
            }
        }
        if failure != 0 { throw Self.failure(argument, failure) }
    }

    private static func failure(_ argument: String, _ code: Int32) -> CommandFailure {
        CommandFailure("cannot write \(argument): \(String(cString: strerror(code)))")
    }
}
