/// A decoded bitmap in memory: `height` rows of `bytesPerRow` bytes, each row `width` pixels of `format`.
///
/// The buffer owns its bytes (copy-on-write, like any Swift array), so it can be passed between
/// tasks freely. Its memory cost is ``byteCount``.
public struct PixelBuffer: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The layout of each pixel: channels and bytes per pixel.
    public let format: PixelFormat
    /// Bytes from the start of one row to the start of the next. Rows are tightly packed.
    public let bytesPerRow: Int
    /// The pixels, row after row, top row first.
    public var bytes: [UInt8]

    /// A buffer of `width × height` pixels, every byte zero (transparent black where there is alpha).
    public init(width: Int, height: Int, format: PixelFormat) {
        precondition(width > 0 && height > 0, "a pixel buffer needs at least one pixel")
        self.width = width
        self.height = height
        self.format = format
        self.bytesPerRow = width * format.bytesPerPixel
        self.bytes = [UInt8](repeating: 0, count: bytesPerRow * height)
    }

    /// A buffer whose every byte `initialize` writes, given uninitialised memory (`width × height ×
    /// format.bytesPerPixel` bytes): for a bitmap about to be overwritten whole, which need not be
    /// zeroed first (a server composing and scaling regions spent 3% of its time zeroing).
    public init(
        width: Int, height: Int, format: PixelFormat, initializingWith initialize: (UnsafeMutableBufferPointer<UInt8>) throws -> Void
    ) rethrows {
        precondition(width > 0 && height > 0, "a pixel buffer needs at least one pixel")
        self.width = width
        self.height = height
        self.format = format
        self.bytesPerRow = width * format.bytesPerPixel
        let count = bytesPerRow * height
        self.bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try initialize(UnsafeMutableBufferPointer(rebasing: buffer[..<count]))
            initialized = count
        }
    }

    /// A buffer over existing pixels; `bytes.count` must be `width × height × format.bytesPerPixel`.
    public init(width: Int, height: Int, format: PixelFormat, bytes: [UInt8]) {
        precondition(width > 0 && height > 0, "a pixel buffer needs at least one pixel")
        precondition(bytes.count == width * height * format.bytesPerPixel, "pixel byte count does not match the size")
        self.width = width
        self.height = height
        self.format = format
        self.bytesPerRow = width * format.bytesPerPixel
        self.bytes = bytes
    }

    /// Width and height in pixels.
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// Memory the pixels occupy, in bytes: `bytesPerRow × height`.
    public var byteCount: Int { bytesPerRow * height }

    /// The channel values of the pixel at column `x`, row `y` (top-left is 0, 0).
    public func pixel(x: Int, y: Int) -> ArraySlice<UInt8> {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(size)")
        let start = y * bytesPerRow + x * format.bytesPerPixel
        return bytes[start..<start + format.bytesPerPixel]
    }

    /// Calls `body` with the bytes of row `y`.
    public func withRow<Result>(_ y: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBufferPointer { all in
            try body(UnsafeBufferPointer(rebasing: all[y * bytesPerRow..<(y + 1) * bytesPerRow]))
        }
    }

    /// The same pixels converted to `target`: gray from RGB uses Rec. 601 luma, alpha added is opaque,
    /// alpha removed is composited over black (which is what dropping straight alpha means).
    public func converted(to target: PixelFormat) -> PixelBuffer {
        if target == format { return self }
        var output = PixelBuffer(width: width, height: height, format: target)
        let sourceStride = format.bytesPerPixel
        let targetStride = target.bytesPerPixel
        bytes.withUnsafeBufferPointer { source in
            output.bytes.withUnsafeMutableBufferPointer { destination in
                for index in 0..<(width * height) {
                    let s = index * sourceStride
                    let d = index * targetStride
                    let alpha = format.hasAlpha ? Int(source[s + sourceStride - 1]) : 255
                    var red: Int, green: Int, blue: Int
                    if format.isGray {
                        red = Int(source[s]); green = red; blue = red
                    } else {
                        red = Int(source[s]); green = Int(source[s + 1]); blue = Int(source[s + 2])
                    }
                    if !target.hasAlpha && alpha < 255 {
                        red = (red * alpha + 127) / 255
                        green = (green * alpha + 127) / 255
                        blue = (blue * alpha + 127) / 255
                    }
                    if target.isGray {
                        destination[d] = UInt8((299 * red + 587 * green + 114 * blue + 500) / 1000)
                    } else {
                        destination[d] = UInt8(red)
                        destination[d + 1] = UInt8(green)
                        destination[d + 2] = UInt8(blue)
                    }
                    if target.hasAlpha { destination[d + targetStride - 1] = UInt8(alpha) }
                }
            }
        }
        return output
    }
}

extension PixelBuffer {
    /// The rectangle at (`x`, `y`) of `width × height` pixels; nil if it does not lie inside.
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> PixelBuffer? {
        guard x >= 0, y >= 0, width > 0, height > 0, x + width <= self.width, y + height <= self.height else { return nil }
        let channels = format.bytesPerPixel
        var output = [UInt8]()
        output.reserveCapacity(width * height * channels)
        for row in y..<(y + height) {
            let start = row * bytesPerRow + x * channels
            output.append(contentsOf: bytes[start..<start + width * channels])
        }
        return PixelBuffer(width: width, height: height, format: format, bytes: output)
    }
}
