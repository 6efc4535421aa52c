public import TesseraCore

/// A strip's frames laid out in one image: a single row (the classic trimmer strip) or a grid of
/// `columns` (a sprite sheet for a WebVTT thumbnail track).
public struct FrameSheet: Sendable {
    /// Where one frame sits in the sheet, in pixels from the top-left corner.
    public struct Placement: Sendable, Hashable {
        /// Left edge, in pixels from the sheet's left.
        public let x: Int
        /// Top edge, in pixels from the sheet's top.
        public let y: Int
        /// Width, in pixels: the strip's frame width.
        public let width: Int
        /// Height, in pixels: the strip's frame height.
        public let height: Int

        /// A placement at (`x`, `y`) of `width` × `height` pixels.
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// The sheet, RGBA: `columns` frames wide and `rows` frames high; cells past the last frame stay
    /// transparent.
    public let image: PixelBuffer
    /// One per strip frame, in slot order.
    public let placements: [Placement]
    /// Frames per row, at least 1.
    public let columns: Int
    /// Rows of frames.
    public let rows: Int

    /// Lays `strip`'s frames out left to right, top to bottom, `columns` to a row (nil: one row).
    public init(strip: FrameStrip, columns: Int? = nil) {
        let count = strip.frames.count
        let columns = max(1, min(columns ?? count, count))
        let rows = (count + columns - 1) / columns
        let cell = strip.frameSize
        var image = PixelBuffer(width: cell.width * columns, height: cell.height * rows, format: .rgba8)
        var placements: [Placement] = []
        for (index, frame) in strip.frames.enumerated() {
            let placement = Placement(x: (index % columns) * cell.width, y: (index / columns) * cell.height, width: cell.width, height: cell.height)
            image.copy(frame.image, toX: placement.x, y: placement.y)
            placements.append(placement)
        }
        self.image = image
        self.placements = placements
        self.columns = columns
        self.rows = rows
    }
}

extension PixelBuffer {
    /// Copies all of `source` (same pixel format) so its top-left corner lands at (`x`, `y`),
    /// clipped to this buffer.
    mutating func copy(_ source: PixelBuffer, toX x: Int, y: Int) {
        precondition(source.format == format)
        let pixelBytes = format.bytesPerPixel
        let columns = max(0, min(source.width, width - x))
        guard columns > 0, x >= 0 else { return }
        for row in 0..<source.height where y + row >= 0 && y + row < height {
            let from = row * source.bytesPerRow
            let to = (y + row) * bytesPerRow + x * pixelBytes
            bytes.replaceSubrange(to..<to + columns * pixelBytes, with: source.bytes[from..<from + columns * pixelBytes])
        }
    }
}
