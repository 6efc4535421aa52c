import TesseraCore

/// Fits a video frame into a strip cell the way a thumbnail strip should: aspect kept, centre
/// cropped to the cell's shape, then resampled, never stretched.
enum TrimmingFrameScaler {
    /// `frame` centre-cropped to the aspect of `size`, scaled to exactly `size`, as RGBA.
    static func fill(_ frame: PixelBuffer, to size: PixelSize) -> PixelBuffer {
        let crop = centreCrop(of: frame.size, aspect: size)
        var pixels = frame.cropped(x: crop.x, y: crop.y, width: crop.width, height: crop.height) ?? frame
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

    /// The largest centred rectangle of `source` with the width-to-height ratio of `aspect`.
    static func centreCrop(of source: PixelSize, aspect: PixelSize) -> (x: Int, y: Int, width: Int, height: Int) {
        let sourceWide = source.width * aspect.height > source.height * aspect.width
        if sourceWide {
            let width = Double(source.height) * Double(aspect.width) / Double(aspect.height)
            let cropWidth = min(source.width, max(1, Int(width.rounded())))
            return ((source.width - cropWidth) / 2, 0, cropWidth, source.height)
        }
        let height = Double(source.width) * Double(aspect.height) / Double(aspect.width)
        let cropHeight = min(source.height, max(1, Int(height.rounded())))
        return (0, (source.height - cropHeight) / 2, source.width, cropHeight)
    }
}
