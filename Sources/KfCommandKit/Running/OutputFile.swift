package import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A path the user named for a result (`-o FILE`), written the way curl, cp and shell redirection write:
/// - `-` (or `/dev/stdout`) is standard output;
/// - a symbolic link is followed, and its target written (a link to nowhere creates its target);
/// - a regular file, or a name that does not exist yet, is replaced whole: the bytes go to a temporary file beside
///   it, which is then renamed over it, so a reader never sees half an image;
/// - anything else (a device such as `/dev/null`, a FIFO, another descriptor link such as `/dev/fd/3`) is opened and
///   written where it is, never replaced.
package struct OutputFile {
    /// How the bytes reach the path.
    package enum Kind: Equatable {
        /// Standard output (`-`).
        case standardOutput
        /// A regular file at `path` (existing or not), replaced by renaming a temporary file over it.
        case replaced(path: String)
        /// A device or FIFO at `path`, opened for writing as it is.
        case inPlace(path: String)
    }

    /// What the user typed.
    package let argument: String
    /// How it is written, decided when the path is looked at.
    package let kind: Kind

    /// The path as named; `~` expands.
    package init(_ argument: String) throws(CommandFailure) {
        self.argument = argument
        let named = (argument as NSString).expandingTildeInPath
        if argument == "-" || ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"].contains(named) {
            // kf's own standard output, written through its descriptor (in append mode if the shell opened it so).
            kind = .standardOutput
            return
        }
        // What the path leads to, links followed the kernel's way (`/dev/stdout` reaches the process's own output
        // through /proc, whatever that is: a pipe, a terminal, a file the shell opened).
        var info = stat()
        if stat(named, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw CommandFailure("cannot write \(argument): it is a directory (use --output DIR)")
            case S_IFSOCK: throw CommandFailure("cannot write \(argument): it is a socket")
            default:
                kind = .inPlace(path: named)
                return
            }
        }
        // A regular file, or nothing yet: replaced beside the file the links end at. A chain through /proc (a
        // descriptor's link) is written through as the kernel opens it, never replaced.
        let followed = try Self.followingLinks(named, shownAs: argument)
        kind = followed.throughDescriptor ? .inPlace(path: named) : .replaced(path: followed.path)
    }

    /// Whether the result goes to standard output, which then carries nothing else.
    package var isStandardOutput: Bool { kind == .standardOutput }

    /// The path to report (`-` for standard output).
    package var shownPath: String {
        switch kind {
        case .standardOutput: "-"
        case .replaced(let path), .inPlace(let path): path
        }
    }

    /// Writes `data` as the kind says.
    package func write(_ data: Data) throws(CommandFailure) {
        switch kind {
        case .standardOutput:
            try Self.writeAll(data, to: STDOUT_FILENO, shownAs: argument)
        case .inPlace(let path):
            var descriptor: Int32
            repeat {
                descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)  // a FIFO waits here for its reader
            } while descriptor < 0 && errno == EINTR
            guard descriptor >= 0 else { throw Self.failure(argument, errno) }
            defer { close(descriptor) }
            try Self.writeAll(data, to: descriptor, shownAs: argument)
        case .replaced(let path):
            try Self.replace(path, with: data, shownAs: argument)
        }
    }

    /// `path` with every symbolic link on its last component followed (links in the directories above resolve by
    /// themselves when opened), at most 40, as the kernel allows; `throughDescriptor` when a step is one of the
    /// process's descriptor links (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`), which name an open file, not a
    /// place to put a new one.
    private static func followingLinks(
        _ path: String, shownAs argument: String
    ) throws(CommandFailure) -> (path: String, throughDescriptor: Bool) {
        var current = path
        var throughDescriptor = false
        for _ in 0..<40 {
            throughDescriptor = throughDescriptor || descriptorLinkPrefixes.contains { current.hasPrefix($0) }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            if length < 0 {
                let failure = errno
                if failure == EINVAL || failure == ENOENT { return (current, throughDescriptor) }  // not a link
                throw Self.failure(argument, failure)
            }
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current =
                target.hasPrefix("/")
                ? target : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(target)
        }
        throw CommandFailure("cannot write \(argument): too many levels of symbolic links")
    }

    private static let descriptorLinkPrefixes = ["/proc/", "/dev/fd/", "/dev/stdout", "/dev/stderr", "/dev/stdin"]

    /// Writes `data` to a new temporary file in `path`'s directory, then renames it to `path`. The file gets the
    /// permissions of the one it replaces, or the usual ones for a new file (0666 less the umask, which the kernel
    /// applies: the process-wide umask is never changed, other threads create files meanwhile).
    private static func replace(_ path: String, with data: Data, shownAs argument: String) throws(CommandFailure) {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        var descriptor: Int32 = -1
        var temporary = ""
        for _ in 0..<100 where descriptor < 0 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            temporary = (directory.isEmpty ? "" : directory + "/") + ".\(name).kf-\(suffix)"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor < 0 && errno != EEXIST && errno != EINTR { throw Self.failure(argument, errno) }
        }
        guard descriptor >= 0 else { throw Self.failure(argument, EEXIST) }
        var renamed = false
        defer {
            close(descriptor)
            if !renamed { unlink(temporary) }
        }
        var existing = stat()
        if stat(path, &existing) == 0, fchmod(descriptor, existing.st_mode & 0o7777) != 0 {
            throw Self.failure(argument, errno)
        }
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
                } else if errno == EAGAIN {
                    // A descriptor left non-blocking by whoever opened it: wait until it takes more.
                    var waiter = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&waiter, 1, -1)
                } else if errno != EINTR {
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
