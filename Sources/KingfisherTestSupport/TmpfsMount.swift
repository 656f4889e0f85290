public import Foundation

/// A tmpfs mounted for one test: the honest way to get a full or read-only file system as root.
public struct TmpfsMount: Sendable {
    public let url: URL

    /// Whether this process may mount file systems (root, outside a restricted container).
    public static let isAvailable: Bool = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("kf-tmpfs-probe-\(UUID().uuidString)")
        guard let mount = try? TmpfsMount(at: probe, options: "size=16k") else {
            try? FileManager.default.removeItem(at: probe)
            return false
        }
        mount.unmount()
        return true
    }()

    /// Mounts a tmpfs with `options` (e.g. `size=64k`) on `url`, creating the directory.
    public init(at url: URL, options: String) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        self.url = url
        guard Self.run("/usr/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", url.path]) else {
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    /// Changes the mount's options, e.g. `remount,ro`.
    public func remount(options: String) throws {
        guard Self.run("/usr/bin/mount", ["-o", options, url.path]) else { throw CocoaError(.fileWriteNoPermission) }
    }

    /// Unmounts it and removes the directory.
    public func unmount() {
        _ = Self.run("/usr/bin/umount", [url.path])
        try? FileManager.default.removeItem(at: url)
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
