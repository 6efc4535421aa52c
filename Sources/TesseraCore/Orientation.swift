/// How stored pixels must be turned to appear upright: the EXIF/TIFF orientation tag, values 1–8.
///
/// The raw value names where the stored image's first row and first column belong on screen
/// (1: top/left, unchanged; 6: the first row becomes the right column, a quarter turn clockwise).
public enum Orientation: Int, Sendable, Hashable, CaseIterable, Codable {
    /// 1: stored upright; nothing to do.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: turned half a turn.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the top-left to bottom-right diagonal (transposed); sides exchange.
    case leftMirrored = 5
    /// 6: needs a quarter turn clockwise to appear upright; sides exchange.
    case right = 6
    /// 7: mirrored along the top-right to bottom-left diagonal (transversed); sides exchange.
    case rightMirrored = 7
    /// 8: needs a quarter turn counter-clockwise to appear upright; sides exchange.
    case left = 8

    /// Orientations 5–8 exchange width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The upright (display) size of a stored image of `size`.
    public func displaySize(ofStored size: PixelSize) -> PixelSize {
        swapsDimensions ? size.transposed : size
    }

    /// The stored-pixel coordinate that lands at `(x, y)` of the upright image.
    /// `storedSize` is the stored image's size.
    public func storedCoordinate(ofDisplayed x: Int, _ y: Int, storedSize: PixelSize) -> (x: Int, y: Int) {
        let lastX = storedSize.width - 1
        let lastY = storedSize.height - 1
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (lastX - x, y)
        case .down: return (lastX - x, lastY - y)
        case .downMirrored: return (x, lastY - y)
        case .leftMirrored: return (y, x)
        case .right: return (y, lastY - x)
        case .rightMirrored: return (lastX - y, lastY - x)
        case .left: return (lastX - y, x)
        }
    }

    /// The stored pixels that land in `rect` of the upright image (the same pixels, turned and
    /// flipped into the stored image's frame). `storedSize` is the stored image's size.
    public func storedRect(ofDisplayed rect: PixelRect, storedSize: PixelSize) -> PixelRect {
        let first = storedCoordinate(ofDisplayed: rect.x, rect.y, storedSize: storedSize)
        let last = storedCoordinate(ofDisplayed: rect.x + rect.width - 1, rect.y + rect.height - 1, storedSize: storedSize)
        let x = min(first.x, last.x), y = min(first.y, last.y)
        return PixelRect(x: x, y: y, width: max(first.x, last.x) - x + 1, height: max(first.y, last.y) - y + 1)
    }

    /// The upright image: `buffer`'s stored pixels turned and flipped as this orientation says.
    public func apply(to buffer: PixelBuffer) -> PixelBuffer {
        if self == .up { return buffer }
        let stored = buffer.size
        let display = displaySize(ofStored: stored)
        var output = PixelBuffer(width: display.width, height: display.height, format: buffer.format)
        let pixelBytes = buffer.format.bytesPerPixel
        buffer.bytes.withUnsafeBufferPointer { source in
            output.bytes.withUnsafeMutableBufferPointer { destination in
                var d = 0
                for y in 0..<display.height {
                    for x in 0..<display.width {
                        let (sx, sy) = storedCoordinate(ofDisplayed: x, y, storedSize: stored)
                        let s = sy * buffer.bytesPerRow + sx * pixelBytes
                        for channel in 0..<pixelBytes { destination[d + channel] = source[s + channel] }
                        d += pixelBytes
                    }
                }
            }
        }
        return output
    }
}
