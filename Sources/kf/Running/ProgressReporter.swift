import Foundation
import KfCommandKit
import KingfisherLocking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Counts finished sources and shows it: on a terminal, a progress bar on stderr (count, rate, ETA) once a run
/// has taken about a second; otherwise nothing until the summary. Result lines go to stdout, errors to stderr,
/// each printed whole with the bar cleared first.
final class ProgressReporter: Sendable {
    enum Outcome {
        case completed, skipped, failed
    }

    private struct State {
        var completed = 0
        var skipped = 0
        var failed = 0
        var barShown = false
        var lastDraw: ContinuousClock.Instant?
        var ended = false
    }

    private let total: Int
    private let verb: String
    private let start = ContinuousClock.now
    private let drawsBar: Bool
    private let state = Locked(State())

    /// - Parameters:
    ///   - total: how many sources the run has.
    ///   - verb: the bar's label, e.g. "fetching".
    ///   - showsBar: `false` turns the bar off even on a terminal.
    init(total: Int, verb: String, showsBar: Bool = true) {
        self.total = total
        self.verb = verb
        drawsBar = showsBar && isatty(STDERR_FILENO) == 1
    }

    /// Redraws the bar now and then while the run lasts (rate and ETA keep moving between results).
    func startTicking() -> Task<Void, Never>? {
        guard drawsBar else { return nil }
        return Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                self?.redraw(force: true)
            }
        }
    }

    /// Records one finished source and prints its line (`stdout` or `stderr`).
    func record(_ outcome: Outcome, stdout: String? = nil, stderr: String? = nil) {
        state.withLock { state in
            switch outcome {
            case .completed: state.completed += 1
            case .skipped: state.skipped += 1
            case .failed: state.failed += 1
            }
            if stdout != nil || stderr != nil { clearBar(&state) }
            if let stdout { Self.write(stdout + "\n", to: .standardOutput) }
            if let stderr { Self.write(stderr + "\n", to: .standardError) }
            draw(&state, force: false)
        }
    }

    /// Prints a line that belongs to no source (a warning), keeping the bar intact.
    func note(_ line: String) {
        state.withLock { state in
            clearBar(&state)
            Self.write(line + "\n", to: .standardError)
            draw(&state, force: true)
        }
    }

    /// Ends the run: clears the bar and prints `N completed, M skipped, K failed in S s (R images/s)` to stderr; the
    /// rate counts completed sources only, and is left out when none completed.
    /// - Returns: the counts.
    @discardableResult
    func finish() -> (completed: Int, skipped: Int, failed: Int) {
        state.withLock { state in
            clearBar(&state)
            state.ended = true
            Self.write(summary(state) + "\n", to: .standardError)
            return (state.completed, state.skipped, state.failed)
        }
    }

    /// Until the returned source is cancelled, Ctrl-C (SIGINT) ends the run as a finished one does (the bar cleared,
    /// the summary printed, marked interrupted with how many sources were not done), then exits with 130 as a shell
    /// expects of a program stopped by SIGINT.
    func endingOnInterrupt() -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [self] in
            state.withLock { state in
                clearBar(&state)
                state.ended = true
                let left = total - state.completed - state.skipped - state.failed
                Self.write(summary(state) + ", interrupted with \(left) not done\n", to: .standardError)
            }
            exit(130)
        }
        source.resume()
        return source
    }

    private func summary(_ state: State) -> String {
        let seconds = elapsedSeconds
        let rate =
            state.completed > 0 && seconds > 0
            ? " (\(Self.format(Double(state.completed) / seconds, digits: 1)) images/s)" : ""
        return "\(state.completed) completed, \(state.skipped) skipped, \(state.failed) failed in "
            + "\(Self.format(seconds, digits: 2)) s\(rate)"
    }

    private var elapsedSeconds: Double { (ContinuousClock.now - start).seconds }

    private func redraw(force: Bool) {
        state.withLock { draw(&$0, force: force) }
    }

    private func draw(_ state: inout State, force: Bool) {
        guard drawsBar, !state.ended else { return }
        let now = ContinuousClock.now
        guard now - start >= .seconds(1) else { return }
        if !force, let last = state.lastDraw, now - last < .milliseconds(100) { return }
        state.lastDraw = now
        state.barShown = true
        let done = state.completed + state.skipped + state.failed
        let seconds = elapsedSeconds
        let rate = seconds > 0 ? Double(done) / seconds : 0
        let eta = rate > 0 ? "ETA \(Self.format(Double(total - done) / rate, digits: 0)) s" : "ETA --"
        let counts = "\(done)/\(total)  \(Self.format(rate, digits: 1))/s  \(eta)"
        let failed = state.failed > 0 ? "  \(state.failed) failed" : ""
        let text = "\(verb) " + "\(counts)\(failed)"
        let width = max(10, min(50, Self.terminalColumns - text.count - 4))
        let filled = total > 0 ? width * done / total : width
        let bar = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
        Self.write("\r\u{1B}[2K" + bar + text, to: .standardError)
    }

    private func clearBar(_ state: inout State) {
        guard state.barShown else { return }
        Self.write("\r\u{1B}[2K", to: .standardError)
        state.barShown = false
    }

    private static var terminalColumns: Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    private static func write(_ text: String, to handle: FileHandle) {
        Console.write(text, to: handle)
    }

    static func format(_ value: Double, digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }
}
