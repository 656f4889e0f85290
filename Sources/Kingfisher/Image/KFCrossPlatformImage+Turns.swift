import Foundation
import CVips

extension KFCrossPlatformImage {
    /// Mirrors every frame left-right and/or top-bottom.
    package func flipping(horizontally: Bool, vertically: Bool) throws(VipsError) -> KFCrossPlatformImage {
        guard horizontally || vertically else { return self }
        return try mappingFrames { frame throws(VipsError) in
            var result = frame
            if horizontally { result = try result.apply("flip") { cvips_flip($0, $1, 0) } }
            if vertically { result = try result.apply("flip") { cvips_flip($0, $1, 1) } }
            return result
        }
    }

    /// Turns every frame clockwise by `quarterTurns` quarter turns (negative turns go anticlockwise).
    package func rotating(quarterTurns: Int) throws(VipsError) -> KFCrossPlatformImage {
        let turns = ((quarterTurns % 4) + 4) % 4
        guard turns != 0 else { return self }
        return try mappingFrames { frame throws(VipsError) in
            try frame.apply("rot") { cvips_rotate_quarters($0, $1, Int32(turns)) }
        }
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image mirrored left-right (`horizontally`) and/or top-bottom (`vertically`); every frame of an
    /// animation. Returns the image itself on failure. Ours.
    public func flipped(horizontally: Bool, vertically: Bool = false) -> KFCrossPlatformImage {
        (try? base.flipping(horizontally: horizontally, vertically: vertically)) ?? base
    }

    /// The image turned clockwise by `quarterTurns` × 90° (negative: anticlockwise); every frame of an animation.
    /// Returns the image itself on failure. Ours.
    public func rotated(quarterTurns: Int) -> KFCrossPlatformImage {
        (try? base.rotating(quarterTurns: quarterTurns)) ?? base
    }
}
