/// How content is sized against a reference size.
public enum ContentMode: Sendable, Hashable {
    /// Take the reference size exactly, stretching if the aspect ratios differ.
    case none
    /// Keep the aspect ratio and fit inside the reference size.
    case aspectFit
    /// Keep the aspect ratio and cover the reference size (one side may be larger; nothing is cropped).
    case aspectFill
}
