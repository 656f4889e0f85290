/// Progressive JPEG previews on an image target (`.progressiveJPEG`).
extension TargetRequest {
    /// The sink through which request `identifier`'s previews reach `target`: each is shown in the target's turn
    /// (see ``KingfisherImageTarget``) while the request is current and its task not cancelled, as
    /// ``ImageProgressive/onImageUpdated`` decides.
    static func previewSink(
        _ progressive: ImageProgressive, identifier: UInt, target: Target
    ) -> PreviewSink {
        PreviewSink(progressive: progressive) { [weak target] preview in
            guard let target else { return }
            let state = target.kingfisherState
            state.actions.submit {
                guard state.isCurrent(identifier), state.currentTask?.isCancelled != true else { return }
                switch progressive.onImageUpdated.call(preview) ?? .default {
                case .default: target.image = preview
                case .keepCurrent: break
                case .replace(let image): target.image = image
                }
            }
        }
    }
}
