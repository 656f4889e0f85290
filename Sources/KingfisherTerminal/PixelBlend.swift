/// Mixes two pixel buffers of the same size: the frames of a fade.
enum PixelBlend {
    /// Each byte of `from` moved `fraction` (0...1) of the way to the matching byte of `to`; `to` itself when
    /// the counts differ.
    static func mix(_ from: [UInt8], _ to: [UInt8], fraction: Double) -> [UInt8] {
        guard from.count == to.count else { return to }
        let weight = Int((min(1, max(0, fraction)) * 256).rounded())
        var result = [UInt8](repeating: 0, count: to.count)
        for index in result.indices {
            let start = Int(from[index])
            result[index] = UInt8(start + ((Int(to[index]) - start) * weight) / 256)
        }
        return result
    }
}
