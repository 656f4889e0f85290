import Foundation
import Kingfisher
import KingfisherLocking
import KingfisherTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `-o PATH` writes what PATH names and never replaces it with something else: a device or FIFO is written in place,
/// a link writes its target, `-` is standard output. (Devices are made with `mknod` in a temporary directory: the
/// machine's `/dev/null` is never touched.)
@Suite("kf -o")
struct OutputFileCommandTests {
    private func photo(in dir: TempDir) throws -> String {
        try Samples.jpeg(width: 120, height: 80).write(to: dir.url.appendingPathComponent("photo.jpg"))
        return dir.path("photo.jpg")
    }

    private func fileType(_ path: String) -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return info.st_mode & S_IFMT
    }

    /// Whether a null device made in the temporary directory can be opened (root, and a file system without
    /// `nodev`).
    static let devicesWork: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("kf-null-\(UUID().uuidString)").path
        defer { unlink(probe) }
        guard mknod(probe, S_IFCHR | 0o666, Self.nullDevice) == 0 else { return false }
        let descriptor = open(probe, O_WRONLY)
        if descriptor >= 0 { close(descriptor) }
        return descriptor >= 0
    }()

    /// The null device's numbers, (1, 3) (`makedev` is a C macro): writes succeed and vanish.
    static let nullDevice = dev_t((1 << 8) | 3)

    @Test(
        "a character device stays a device: the image is written to it",
        .enabled(if: devicesWork, "needs root and a file system that allows devices"))
    func characterDevice() async throws {
        let dir = try TempDir()
        let source = try photo(in: dir)
        let device = dir.path("null")
        #expect(mknod(device, S_IFCHR | 0o666, Self.nullDevice) == 0)
        let run = try await Kf.run(["fetch", source, "--no-cache", "--format", "png", "-o", device])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(fileType(device) == S_IFCHR)
        #expect(run.stdout.contains("-> \(device)"))
    }

    @Test("a FIFO is written in place: its reader gets the image")
    func fifo() async throws {
        let dir = try TempDir()
        let source = try photo(in: dir)
        let fifo = dir.path("pipe")
        #expect(mkfifo(fifo, 0o644) == 0)
        // The reader opens the FIFO and reads it to the end while kf writes.
        let reader = FIFOReader(fifo)
        let run = try await Kf.run(["fetch", source, "--no-cache", "--format", "png", "-o", fifo])
        let received = await reader.bytes()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(fileType(fifo) == S_IFIFO)
        #expect(received.kf.imageFormat == .PNG)
        #expect(try KFCrossPlatformImage(decoding: received).pixelWidth == 120)
    }

    @Test("a symbolic link writes its target and stays a link; a link to nowhere creates its target")
    func symbolicLink() async throws {
        let dir = try TempDir()
        let source = try photo(in: dir)
        try Data("old".utf8).write(to: dir.url.appendingPathComponent("target.png"))
        try FileManager.default.createSymbolicLink(atPath: dir.path("link.png"), withDestinationPath: "target.png")
        let run = try await Kf.run(["fetch", source, "--no-cache", "-o", dir.path("link.png")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(fileType(dir.path("link.png")) == S_IFLNK)
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("target.png")).kf.imageFormat == .PNG)

        try FileManager.default.createSymbolicLink(atPath: dir.path("dangling.png"), withDestinationPath: "new.png")
        let dangling = try await Kf.run(["fetch", source, "--no-cache", "-o", dir.path("dangling.png")])
        #expect(dangling.status == 0, "\(dangling.stderr)")
        #expect(fileType(dir.path("dangling.png")) == S_IFLNK)
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("new.png")).kf.imageFormat == .PNG)
    }

    @Test("a regular file is replaced whole and keeps its permissions; no temporary file is left")
    func regularFile() async throws {
        let dir = try TempDir()
        let source = try photo(in: dir)
        let output = dir.path("out.jpg")
        try Data("old".utf8).write(to: URL(fileURLWithPath: output))
        #expect(chmod(output, 0o640) == 0)
        let run = try await Kf.run(["fetch", source, "--no-cache", "--downsample", "60x60", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try KFCrossPlatformImage(decoding: Data(contentsOf: URL(fileURLWithPath: output))).pixelWidth == 60)
        var info = stat()
        #expect(stat(output, &info) == 0 && info.st_mode & 0o777 == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == ["out.jpg", "photo.jpg"])
    }

    @Test("-o - writes the image to standard output, and nothing else goes there")
    func standardOutput() async throws {
        let dir = try TempDir()
        let source = try photo(in: dir)
        let captured = dir.url.appendingPathComponent("captured")
        _ = FileManager.default.createFile(atPath: captured.path, contents: nil)
        let handle = try FileHandle(forWritingTo: captured)
        let toFile = try await Kf.run(["fetch", source, "--no-cache", "--format", "png", "-o", dir.path("file.png")])
        #expect(toFile.status == 0, "\(toFile.stderr)")
        let expected = try Data(contentsOf: dir.url.appendingPathComponent("file.png"))
        for extra in [[], ["--json"]] {
            try handle.truncate(atOffset: 0)
            let run = try await Kf.run(
                ["fetch", source, "--no-cache", "--format", "png", "-o", "-"] + extra, standardOutput: handle)
            #expect(run.status == 0, "\(run.stderr)")
            // Exactly the image's bytes: the same as -o FILE writes, nothing before or after them.
            let bytes = try Data(contentsOf: captured)
            #expect(bytes == expected, "\(bytes.count) bytes on stdout, \(expected.count) in the file")
            // The result line went to standard error instead, and no file named "-" was made.
            #expect(run.stderr.contains(source))
            #expect(!FileManager.default.fileExists(atPath: dir.path("-")))
        }
        // /dev/stdout is standard output too (here a file the runner opened), written through its descriptor.
        try handle.truncate(atOffset: 0)
        let devStdout = try await Kf.run(
            ["fetch", source, "--no-cache", "--format", "png", "-o", "/dev/stdout"], standardOutput: handle)
        #expect(devStdout.status == 0, "\(devStdout.stderr)")
        #expect(try Data(contentsOf: captured) == expected)
        try handle.close()
    }

    @Test("a directory is refused with a clear message, and left alone")
    func directory() async throws {
        let dir = try TempDir()
        let source = try photo(in: dir)
        try FileManager.default.createDirectory(atPath: dir.path("out"), withIntermediateDirectories: false)
        let run = try await Kf.run(["fetch", source, "--no-cache", "-o", dir.path("out")])
        #expect(run.status != 0)
        #expect(run.stderr.contains("is a directory"), "\(run.stderr)")
        #expect(fileType(dir.path("out")) == S_IFDIR)
    }

    @Test("kf view -o follows the same rules: a FIFO gets the PNG")
    func viewToFIFO() async throws {
        let dir = try TempDir()
        let source = try photo(in: dir)
        let fifo = dir.path("pipe")
        #expect(mkfifo(fifo, 0o644) == 0)
        let reader = FIFOReader(fifo)
        let run = try await Kf.run(["view", source, "-o", fifo, "--cache-dir", dir.path("cache")])
        let received = await reader.bytes()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(fileType(fifo) == S_IFIFO)
        #expect(received.kf.imageFormat == .PNG)
    }
}

/// Reads a FIFO to its end on a thread of its own (a blocking open and read must not hold one of the cooperative
/// pool's few threads), as a program reading `-o`'s pipe would.
private final class FIFOReader: Sendable {
    private let path: String
    private let result = Locked<Data?>(nil)

    init(_ path: String) {
        self.path = path
        let result = self.result
        let thread = Thread {
            var data = Data()
            if let handle = FileHandle(forReadingAtPath: path) {  // blocks until a writer opens the FIFO
                data = (try? handle.readToEnd()) ?? Data()
                try? handle.close()
            }
            result.withLock { $0 = data }
        }
        thread.start()
    }

    /// What was read, once the writer closed the FIFO. Called after kf exited: if kf never opened the FIFO (it
    /// failed first), an empty write end opened here lets the reader see the end instead of waiting forever.
    func bytes() async -> Data {
        while true {
            if let data = result.withLock({ $0 }) { return data }
            let writer = open(path, O_WRONLY | O_NONBLOCK)  // succeeds only while the reader waits in its open
            if writer >= 0 { close(writer) }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
