import Foundation
import KingfisherLocking
public import Kingfisher

/// The indicator on a ``TerminalImageView``'s status line: a spinner with the download's progress.
extension TerminalImageView {
    /// How often the spinner turns, in seconds.
    static let spinnerInterval: TimeInterval = 0.1

    /// Shows an ``ActivityIndicator`` or ``ImageIndicator`` as a spinner line with progress; other indicators
    /// are not drawn.
    public func addIndicator(_ indicator: any Indicator) {
        let update: @Sendable (IndicatorState) -> Void = { [weak self] state in self?.indicatorChanged(state) }
        switch indicator {
        case let activity as ActivityIndicator:
            activity.onChange = update
            indicatorChanged(activity.state)
        case let image as ImageIndicator:
            image.onChange = update
            indicatorChanged(image.state)
        default: break
        }
    }

    public func removeIndicator(_ indicator: any Indicator) {
        switch indicator {
        case let activity as ActivityIndicator: activity.onChange = nil
        case let image as ImageIndicator: image.onChange = nil
        default: return
        }
        indicatorChanged(IndicatorState())
    }

    /// Records the indicator's state on the queue, redraws the status line and keeps the spinner turning while
    /// it animates.
    private func indicatorChanged(_ state: IndicatorState) {
        queue.async {
            let startsSpinner = self.drawing.withLock { drawing -> Bool in
                drawing.indicator = state.isAnimating ? state : nil
                guard state.isAnimating, !drawing.isSpinnerScheduled else { return false }
                drawing.isSpinnerScheduled = true
                return true
            }
            self.drawStatus()
            if startsSpinner { self.scheduleSpin() }
        }
    }

    private func scheduleSpin() {
        queue.asyncAfter(deadline: .now() + Self.spinnerInterval) {
            let spins = self.drawing.withLock { drawing -> Bool in
                guard drawing.indicator != nil else {
                    drawing.isSpinnerScheduled = false
                    return false
                }
                drawing.spinnerTick += 1
                return true
            }
            guard spins else { return }
            self.drawStatus()
            self.scheduleSpin()
        }
    }
}
