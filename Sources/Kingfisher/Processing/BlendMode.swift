/// How an image is drawn onto what is below it. The names are Core Graphics' (`CGBlendMode`); the set is what
/// libvips can composite. Core Graphics' `hue`, `saturation`, `color`, `luminosity` and `plusDarker` have no
/// libvips equivalent and are not offered.
public enum BlendMode: String, Sendable, CaseIterable {
    case normal, multiply, screen, overlay, darken, lighten, colorDodge, colorBurn, softLight, hardLight
    case difference, exclusion
    /// Porter-Duff modes.
    case clear, copy, sourceIn, sourceOut, sourceAtop, destinationOver, destinationIn, destinationOut
    case destinationAtop, xor
    /// Adds colours, clamping at white.
    case plusLighter
}
