import Foundation
import KfCommandKit
import Kingfisher
import KingfisherLocking
import KingfisherTerminal

/// Loads each source of `kf view` into its own terminal view and waits until every one is drawn.
struct ViewRunner {
    /// What every view gets.
    struct Options: Sendable {
        var placeholder: KFCrossPlatformImage?
        var transition: ImageTransition
        var forceTransition: Bool
        /// Previews of progressive JPEGs while they download (`--progressive`).
        var progressive = false
    }

    let manager: KingfisherManager
    let options: Options

    /// Shows `sources[i]` in `views[i]`, all at once; a source that fails shows its error on its view's status
    /// line. Returns how many failed, once every view is idle (an animation looping forever never is).
    func show(_ sources: [String], in views: [TerminalImageView]) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for (text, view) in zip(sources, views) {
                group.addTask { await load(text, into: view) }
            }
            var failures = 0
            for await succeeded in group where !succeeded { failures += 1 }
            return failures
        }
    }

    /// Loads one source into `view` and waits until it is drawn; `false` when it failed.
    private func load(_ text: String, into view: TerminalImageView) async -> Bool {
        let source: Source
        do {
            source = try SourceArgument(text).source
        } catch {
            view.message = "error: \(error.description)"
            await view.waitUntilIdle()
            return false
        }
        view.kf.indicatorType = .activity
        let succeeded = await withSanitizedCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            KF.source(source)
                .manager(manager)
                .placeholder(options.placeholder)
                .transition(options.transition)
                .forceTransition(options.forceTransition)
                .progressiveJPEG(options.progressive ? ImageProgressive() : nil)
                .onSuccess { _ in continuation.resume(returning: true) }
                .onFailure { error in
                    view.message = "error: \(FailureMessage.reason(error, source: text)) (\(text))"
                    continuation.resume(returning: false)
                }
                .set(to: view)
        }
        await view.waitUntilIdle()
        return succeeded
    }
}
