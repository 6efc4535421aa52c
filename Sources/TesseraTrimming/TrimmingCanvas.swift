import TesseraCore

/// An RGBA bitmap addressed in points. Every edge goes through ``column(_:)`` or ``row(_:)``, the
/// same rounding for every shape, so two shapes that share an x in points share a pixel edge: the
/// dimming stops exactly where a frame cell or a handle starts.
struct TrimmingCanvas {
    private(set) var buffer: PixelBuffer
    let scale: Double

    init(size: PixelSize, scale: DisplayScale, background: TrimmingColor) {
        buffer = PixelBuffer(width: size.width, height: size.height, format: .rgba8)
        self.scale = scale.value
        if background != .clear {
            buffer.bytes = [UInt8]((0..<size.width * size.height).lazy.flatMap { _ in background.rgba })
        }
    }

    /// The pixel column whose left edge is nearest to `x` points, inside the bitmap.
    func column(_ x: Double) -> Int { min(max(Int((x * scale).rounded()), 0), buffer.width) }

    /// The pixel row whose top edge is nearest to `y` points, inside the bitmap.
    func row(_ y: Double) -> Int { min(max(Int((y * scale).rounded()), 0), buffer.height) }

    /// The pixels `rect` covers: those whose top-left corner lies inside it after rounding.
    func pixels(of rect: TrimmingRect) -> (columns: Range<Int>, rows: Range<Int>) {
        let left = column(rect.minX)
        let top = row(rect.minY)
        return (left..<max(left, column(rect.maxX)), top..<max(top, row(rect.maxY)))
    }

    /// Paints `color` over `rect`, blending by its alpha.
    mutating func fill(_ rect: TrimmingRect, with color: TrimmingColor) {
        guard color.alpha > 0 else { return }
        let (columns, rows) = pixels(of: rect)
        let source = color.rgba
        let width = buffer.width
        buffer.bytes.withUnsafeMutableBufferPointer { bytes in
            for y in rows {
                for x in columns { Self.blend(source, 0, over: bytes, (y * width + x) * 4) }
            }
        }
    }

    /// Blends `rect` toward black by `fraction` (0…1), keeping alpha.
    mutating func dim(_ rect: TrimmingRect, by fraction: Double) {
        let keep = Int(((1 - fraction) * 65536).rounded())
        let (columns, rows) = pixels(of: rect)
        let width = buffer.width
        buffer.bytes.withUnsafeMutableBufferPointer { bytes in
            for y in rows {
                for x in columns {
                    let p = (y * width + x) * 4
                    for channel in 0..<3 { bytes[p + channel] = UInt8((Int(bytes[p + channel]) * keep + 32768) >> 16) }
                }
            }
        }
    }

    /// Paints the RGBA `image` with its top-left pixel at (`column`, `row`), blending by its alpha
    /// and cutting what falls outside the bitmap.
    mutating func draw(_ image: PixelBuffer, column: Int, row: Int) {
        precondition(image.format == .rgba8)
        let width = buffer.width
        let columns = max(column, 0)..<min(column + image.width, width)
        let rows = max(row, 0)..<min(row + image.height, buffer.height)
        image.bytes.withUnsafeBufferPointer { source in
            buffer.bytes.withUnsafeMutableBufferPointer { bytes in
                for y in rows {
                    for x in columns {
                        let s = ((y - row) * image.width + (x - column)) * 4
                        Self.blend(source, s, over: bytes, (y * width + x) * 4)
                    }
                }
            }
        }
    }

    /// Source-over for straight alpha: colours weighted by their alphas, then divided back out.
    @inline(__always)
    private static func blend<Source: RandomAccessCollection<UInt8>>(
        _ source: Source, _ s: Source.Index, over target: UnsafeMutableBufferPointer<UInt8>, _ t: Int
    ) where Source.Index == Int {
        let sourceAlpha = Int(source[s + 3])
        if sourceAlpha == 255 {
            for channel in 0..<4 { target[t + channel] = source[s + channel] }
            return
        }
        if sourceAlpha == 0 { return }
        let targetWeight = Int(target[t + 3]) * (255 - sourceAlpha) / 255
        let alpha = sourceAlpha + targetWeight
        for channel in 0..<3 {
            let mixed = Int(source[s + channel]) * sourceAlpha + Int(target[t + channel]) * targetWeight
            target[t + channel] = UInt8((mixed + alpha / 2) / alpha)
        }
        target[t + 3] = UInt8(alpha)
    }
}
