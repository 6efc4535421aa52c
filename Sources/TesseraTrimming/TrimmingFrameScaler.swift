import TesseraCore

/// Fits a video frame into a strip cell the way a thumbnail strip should: aspect kept, centre
/// cropped to the cell's shape, then resampled, never stretched.
enum TrimmingFrameScaler {
    /// `frame` centre-cropped to the aspect of `size`, scaled to exactly `size`, as RGBA.
    static func fill(_ frame: PixelBuffer, to size: PixelSize) -> PixelBuffer {
        var pixels = frame.cropped(to: frame.size.centered(aspect: size)) ?? frame
        pixels = pixels.converted(to: .rgba8)
        // Lanczos stays sharp and cheap within a few times the target; beyond that a box average
        // gets there first, as LanczosResampler's documentation asks.
        let factor = min(pixels.width / size.width, pixels.height / size.height) / 2
        if factor >= 2 {
            var shrinker = BoxShrinker(inputSize: pixels.size, format: .rgba8, factorX: factor, factorY: factor)
            for y in 0..<pixels.height { pixels.withRow(y) { shrinker.append(row: $0) } }
            pixels = shrinker.result()
        }
        return LanczosResampler.resize(pixels, to: size)
    }
}
