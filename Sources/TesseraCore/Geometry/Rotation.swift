#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Orientation {
    /// The orientation that mirrors horizontally (when `mirrored`) and then turns clockwise by
    /// `quarterTurns` × 90°: IIIF's `!90`-style rotation, in EXIF terms.
    public init(mirrored: Bool, clockwiseQuarterTurns quarterTurns: Int) {
        switch (mirrored, ((quarterTurns % 4) + 4) % 4) {
        case (false, 0): self = .up
        case (false, 1): self = .right
        case (false, 2): self = .down
        case (false, _): self = .left
        case (true, 0): self = .upMirrored
        case (true, 1): self = .rightMirrored
        case (true, 2): self = .downMirrored
        case (true, _): self = .leftMirrored
        }
    }
}

extension PixelSize {
    /// The bounding box of this size turned by `degrees` about its centre, rounded up; exact (a swap
    /// or the same size) for multiples of 90°, where rounding must not add a pixel.
    public func rotatedBounds(clockwiseDegrees degrees: Double) -> PixelSize {
        let turned = degrees.truncatingRemainder(dividingBy: 360)
        if turned.truncatingRemainder(dividingBy: 90) == 0 {
            return Int(turned / 90) % 2 == 0 ? self : transposed
        }
        let radians = turned * Double.pi / 180
        let c = abs(cos(radians)), s = abs(sin(radians))
        let w = Double(width), h = Double(height)
        // A hair below the exact bound before rounding up, so float noise never adds a pixel.
        return PixelSize(
            width: max(1, Int((w * c + h * s - 1e-9).rounded(.up))),
            height: max(1, Int((w * s + h * c - 1e-9).rounded(.up))))
    }
}

extension PixelBuffer {
    /// The image turned clockwise by any angle about its centre, on a canvas the size of its bounding
    /// box (``PixelSize/rotatedBounds(clockwiseDegrees:)``), sampled bilinearly. The corners the image
    /// no longer covers are transparent, so the result always has alpha; edges are antialiased by
    /// weighting alpha with the covered fraction. Multiples of 90° are exact copies.
    public func rotated(clockwiseDegrees degrees: Double) -> PixelBuffer {
        let turned = degrees.truncatingRemainder(dividingBy: 360)
        if turned.truncatingRemainder(dividingBy: 90) == 0 {
            return Orientation(mirrored: false, clockwiseQuarterTurns: Int(turned / 90)).apply(to: self)
        }
        let source = converted(to: format.withAlpha(true))
        let bounds = size.rotatedBounds(clockwiseDegrees: turned)
        let channels = source.format.bytesPerPixel
        let alpha = channels - 1
        var output = PixelBuffer(width: bounds.width, height: bounds.height, format: source.format)
        let radians = turned * Double.pi / 180
        let cosine = cos(radians), sine = sin(radians)
        let centreX = Double(width) / 2, centreY = Double(height) / 2
        let outCentreX = Double(bounds.width) / 2, outCentreY = Double(bounds.height) / 2
        source.bytes.withUnsafeBufferPointer { input in
            output.bytes.withUnsafeMutableBufferPointer { destination in
                /// Premultiplied channel values of source pixel (x, y), zero outside the image.
                func sample(_ x: Int, _ y: Int, _ channel: Int) -> Double {
                    guard x >= 0, y >= 0, x < width, y < height else { return 0 }
                    let base = y * source.bytesPerRow + x * channels
                    let a = Double(input[base + alpha])
                    return channel == alpha ? a : Double(input[base + channel]) * a / 255
                }
                var values = [Double](repeating: 0, count: channels)
                for oy in 0..<bounds.height {
                    for ox in 0..<bounds.width {
                        // The inverse rotation of the output pixel's centre, in source pixel centres.
                        let dx = Double(ox) + 0.5 - outCentreX, dy = Double(oy) + 0.5 - outCentreY
                        let sx = cosine * dx + sine * dy + centreX - 0.5
                        let sy = -sine * dx + cosine * dy + centreY - 0.5
                        let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                        guard x0 >= -1, y0 >= -1, x0 < width, y0 < height else { continue }
                        let fx = sx - Double(x0), fy = sy - Double(y0)
                        for channel in 0..<channels {
                            let top = sample(x0, y0, channel) * (1 - fx) + sample(x0 + 1, y0, channel) * fx
                            let bottom = sample(x0, y0 + 1, channel) * (1 - fx) + sample(x0 + 1, y0 + 1, channel) * fx
                            values[channel] = top * (1 - fy) + bottom * fy
                        }
                        let a = values[alpha]
                        guard a > 0 else { continue }
                        let d = oy * output.bytesPerRow + ox * channels
                        for channel in 0..<alpha {
                            destination[d + channel] = UInt8(min(255, max(0, (values[channel] * 255 / a).rounded())))
                        }
                        destination[d + alpha] = UInt8(min(255, max(0, a.rounded())))
                    }
                }
            }
        }
        return output
    }

    /// Black and white: luminance (Rec. 601) thresholded at 50%, as one gray channel of 0 or 255
    /// (alpha kept). IIIF's `bitonal` quality.
    public func bitonal() -> PixelBuffer {
        var gray = converted(to: format.hasAlpha ? .grayAlpha8 : .gray8)
        let stride = gray.format.bytesPerPixel
        gray.bytes.withUnsafeMutableBufferPointer { bytes in
            for index in Swift.stride(from: 0, to: bytes.count, by: stride) {
                bytes[index] = bytes[index] >= 128 ? 255 : 0
            }
        }
        return gray
    }
}
