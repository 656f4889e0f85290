/// `curve(...)`'s tone curves: a natural cubic spline through a curve's points, sampled at the 256 levels of a
/// channel, as thumbor draws it. Levels below the first point take its value, levels from the last point on take
/// the last value, and the spline is rounded and clamped to 0...255 between them.
enum ThumborCurve {
    /// The level each of the 256 input levels maps to. `points` are non-empty, with increasing `x`, all in 0...255.
    static func table(through points: [ThumborFilters.CurvePoint]) -> [UInt8] {
        precondition(!points.isEmpty, "a curve has points")
        let x = points.map { Double($0.x) }
        let y = points.map { Double($0.y) }
        let bends = secondDerivatives(x: x, y: y)
        var table = [UInt8](repeating: UInt8(points[0].y), count: 256)
        for segment in 0..<max(0, points.count - 1) {
            let width = x[segment + 1] - x[segment]
            for level in points[segment].x..<points[segment + 1].x {
                let t = (Double(level) - x[segment]) / width
                let (a, b) = (1 - t, t)
                let value =
                    a * y[segment] + b * y[segment + 1]
                    + width * width / 6 * ((a * a * a - a) * bends[segment] + (b * b * b - b) * bends[segment + 1])
                table[level] = UInt8(min(max(value.rounded(), 0), 255))
            }
        }
        for level in points[points.count - 1].x...255 {
            table[level] = UInt8(points[points.count - 1].y)
        }
        return table
    }

    /// The spline's second derivative at each point: zero at both ends (a natural spline), and inside the
    /// solution of the tridiagonal system that makes the slopes meet, solved by elimination down and back up.
    private static func secondDerivatives(x: [Double], y: [Double]) -> [Double] {
        let count = x.count
        guard count > 2 else { return [Double](repeating: 0, count: count) }
        // Row i: below[i]·m[i-1] + diagonal[i]·m[i] + above[i]·m[i+1] = right[i]; rows 0 and n-1 say m = 0.
        var below = [Double](repeating: 0, count: count)
        var diagonal = [Double](repeating: 1, count: count)
        var above = [Double](repeating: 0, count: count)
        var right = [Double](repeating: 0, count: count)
        for i in 1..<(count - 1) {
            below[i] = (x[i] - x[i - 1]) / 6
            diagonal[i] = (x[i + 1] - x[i - 1]) / 3
            above[i] = (x[i + 1] - x[i]) / 6
            right[i] = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1])
        }
        for i in 1..<count {
            let factor = below[i] / diagonal[i - 1]
            diagonal[i] -= factor * above[i - 1]
            right[i] -= factor * right[i - 1]
        }
        var bends = [Double](repeating: 0, count: count)
        bends[count - 1] = right[count - 1] / diagonal[count - 1]
        for i in stride(from: count - 2, through: 0, by: -1) {
            bends[i] = (right[i] - above[i] * bends[i + 1]) / diagonal[i]
        }
        return bends
    }
}
