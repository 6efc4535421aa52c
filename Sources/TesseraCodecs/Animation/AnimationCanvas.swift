import TesseraCore

/// A frame's place on the canvas, in canvas pixels.
struct FrameRect: Hashable {
    var x: Int, y: Int, width: Int, height: Int

    /// The part inside a canvas of `size` (empty when the frame lies wholly outside it).
    func clipped(to size: PixelSize) -> FrameRect {
        let x = min(self.x, size.width), y = min(self.y, size.height)
        return FrameRect(x: x, y: y, width: max(0, min(width, size.width - x)), height: max(0, min(height, size.height - y)))
    }
}

/// What becomes of a frame's area before the next frame is drawn: GIF's disposal methods and
/// APNG's dispose ops (libwebp applies WebP's itself).
enum FrameDisposal {
    /// Left as drawn (GIF 0, 1 and the undefined 4–7; APNG NONE).
    case keep
    /// Cleared to transparent (GIF 2, as browsers do rather than to the background colour; APNG BACKGROUND).
    case clear
    /// Put back as it was before the frame was drawn (GIF 3; APNG PREVIOUS).
    case restorePrevious
}

/// How a frame's pixels meet the canvas under them.
enum FrameBlending {
    /// Replace them, alpha included (APNG SOURCE).
    case replace
    /// Composite over them (APNG OVER; a GIF's transparent index is this with alpha 0 or 255).
    case over
}

/// The full-size RGBA canvas GIF and APNG frames are composed on.
///
/// Memory: the canvas (`width × height × 4` bytes) and, while a frame to be restored is showing,
/// a copy of that frame's area: at most twice the canvas.
struct AnimationCanvas {
    private(set) var pixels: PixelBuffer
    private var shown: (rect: FrameRect, disposal: FrameDisposal, saved: [UInt8]?)?

    init(size: PixelSize, limits: AllocationLimits) throws(ImageDecodingError) {
        try limits.check(size, .rgba8)
        pixels = PixelBuffer(width: size.width, height: size.height, format: .rgba8)
    }

    var size: PixelSize { pixels.size }

    /// Disposes of the frame shown last, then makes ready for one at `rect` that is to be disposed of
    /// with `disposal`; returns `rect` clipped to the canvas.
    mutating func beginFrame(at rect: FrameRect, disposal: FrameDisposal) -> FrameRect {
        disposeShownFrame()
        let clipped = rect.clipped(to: size)
        shown = (clipped, disposal, disposal == .restorePrevious ? area(clipped) : nil)
        return clipped
    }

    /// Draws row `frameRow` of a frame at `rect` (clipped by ``beginFrame(at:disposal:)``): `row` holds
    /// the frame's RGBA pixels from its left edge, at least `rect.width` of them.
    mutating func draw(row: UnsafePointer<UInt8>, frameRow: Int, in rect: FrameRect, blending: FrameBlending) {
        guard frameRow < rect.height else { return }
        let stride = pixels.bytesPerRow
        let start = (rect.y + frameRow) * stride + rect.x * 4
        pixels.bytes.withUnsafeMutableBufferPointer { canvas in
            let destination = canvas.baseAddress! + start
            switch blending {
            case .replace:
                destination.update(from: row, count: rect.width * 4)
            case .over:
                for x in 0..<rect.width { Self.composite(row + x * 4, over: destination + x * 4) }
            }
        }
    }

    /// Row `frameRow` of a frame at `rect` (clipped), for writing in place: `rect.width` RGBA
    /// pixels, 4 bytes each, at offsets that are multiples of 4 from a word-aligned allocation (so
    /// a pixel may be stored as one `UInt32` with `storeBytes`).
    mutating func withRow(_ frameRow: Int, in rect: FrameRect, _ body: (UnsafeMutableRawPointer) -> Void) {
        let start = (rect.y + frameRow) * pixels.bytesPerRow + rect.x * 4
        pixels.bytes.withUnsafeMutableBytes { canvas in body(canvas.baseAddress! + start) }
    }

    /// `source` over `destination`, straight alpha, with Pillow's `alpha_composite` arithmetic
    /// (7 extra bits of precision, divisions by 255 rounded) so the results match it exactly.
    @inline(__always)
    private static func composite(_ source: UnsafePointer<UInt8>, over destination: UnsafeMutablePointer<UInt8>) {
        let sourceAlpha = UInt32(source[3])
        if sourceAlpha == 0 { return }
        if sourceAlpha == 255 {
            destination.update(from: source, count: 4)
            return
        }
        let blend = UInt32(destination[3]) * (255 - sourceAlpha)
        let outAlpha255 = sourceAlpha * 255 + blend
        let coefficient1 = sourceAlpha * 255 * 255 * 128 / outAlpha255
        let coefficient2 = 255 * 128 - coefficient1
        @inline(__always) func divide255(_ value: UInt32) -> UInt32 { ((value >> 8) + value) >> 8 }
        for channel in 0..<3 {
            let mixed = UInt32(source[channel]) * coefficient1 + UInt32(destination[channel]) * coefficient2
            destination[channel] = UInt8(truncatingIfNeeded: divide255(mixed + (0x80 << 7)) >> 7)
        }
        destination[3] = UInt8(truncatingIfNeeded: divide255(outAlpha255 + 0x80))
    }

    private mutating func disposeShownFrame() {
        guard let shown else { return }
        self.shown = nil
        switch shown.disposal {
        case .keep:
            break
        case .clear:
            let zeros = [UInt8](repeating: 0, count: shown.rect.width * 4)
            zeros.withUnsafeBufferPointer { row in
                for frameRow in 0..<shown.rect.height { draw(row: row.baseAddress!, frameRow: frameRow, in: shown.rect, blending: .replace) }
            }
        case .restorePrevious:
            guard let saved = shown.saved else { return }
            saved.withUnsafeBufferPointer { area in
                for frameRow in 0..<shown.rect.height {
                    draw(row: area.baseAddress! + frameRow * shown.rect.width * 4, frameRow: frameRow, in: shown.rect, blending: .replace)
                }
            }
        }
    }

    /// A copy of the canvas under `rect`, row after row.
    private func area(_ rect: FrameRect) -> [UInt8] {
        var copy = [UInt8]()
        copy.reserveCapacity(rect.width * rect.height * 4)
        for y in rect.y..<rect.y + rect.height {
            let start = y * pixels.bytesPerRow + rect.x * 4
            copy.append(contentsOf: pixels.bytes[start..<start + rect.width * 4])
        }
        return copy
    }
}
