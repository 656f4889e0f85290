import Foundation
import KingfisherLocking
import Testing

/// A tmux server of its own (a private socket, no user configuration) running one command in a detached session
/// of a fixed size: a real terminal for `kf view`, read back with `capture-pane`.
final class TmuxSession: Sendable {
    let executable: URL
    let socket = "kf-test-\(UUID().uuidString.prefix(8))"

    /// The tmux on `PATH`; `nil` when there is none.
    static var tmuxExecutable: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("tmux") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Starts `command` (a shell command line) in a `columns` x `rows` session; the test fails if tmux is missing.
    init(running command: String, columns: Int = 100, rows: Int = 40) async throws {
        executable = try #require(Self.tmuxExecutable, "tmux is missing: run scripts/bootstrap")
        let status = try await run([
            "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", "-s", "kf", command,
        ]).status
        try #require(status == 0, "tmux new-session failed")
    }

    /// The pane's text now, with colours as escape sequences (`capture-pane -p -e`).
    func capture() async throws -> String {
        try await run(["capture-pane", "-p", "-e", "-t", "kf"]).output
    }

    /// Captures until `done` holds for a capture, for up to `seconds`; returns the last capture either way.
    func capture(until done: (String) -> Bool, within seconds: Double = 60) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var text = try await capture()
        while !done(text) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            text = try await capture()
        }
        return text
    }

    /// Types `keys` into the pane, in `send-keys` notation (`C-c` for Ctrl-C).
    func sendKeys(_ keys: String) async throws {
        _ = try await run(["send-keys", "-t", "kf", keys])
    }

    /// The pane's `format` (as `#{cursor_flag}`), expanded by `display-message -p`.
    func display(_ format: String) async throws -> String {
        try await run(["display-message", "-p", "-t", "kf", format]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the server and everything it runs.
    func kill() async {
        _ = try? await run(["kill-server"])
    }

    /// Runs `tmux -L socket -f /dev/null arguments...` and waits for it. Spawned and reaped here rather than with
    /// `Process`: the first command forks the tmux server, which inherits the descriptor `Process` watches for
    /// the child's exit, so its termination handler would never run.
    private func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let argv = [executable.path, "-L", socket, "-f", "/dev/null"] + arguments
        let executablePath = executable.path
        let status = await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: Self.spawnAndWait(executablePath, argv, output: outputURL.path))
            }
        }
        try #require(status >= 0, "could not start tmux")
        return (status, (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "")
    }

    /// Starts `path` with `argv`, standard output into the file at `output`, and blocks until it exits; its exit
    /// status, or -1 when it could not start.
    private static func spawnAndWait(_ path: String, _ argv: [String], output: String) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = argv.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        // A dispatch thread blocks most signals, and a child inherits that mask: unblock every signal and reset
        // the common ones, or the server and its panes could not be stopped.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        guard posix_spawn(&pid, path, &actions, &attributes, arguments, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which Swift does not import: the low 7 bits are 0 for an exit.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
