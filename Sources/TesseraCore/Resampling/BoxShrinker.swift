/// Shrinks a stream of rows by whole factors with a box (area-average) filter, holding only one
/// row of sums: memory is proportional to the output width, whatever the input height.
///
/// Alpha is averaged premultiplied, so the colour of transparent pixels never bleeds into their
/// neighbours. Blocks at the right and bottom edges that are cut short average what they have.
public struct BoxShrinker: Sendable {
    /// The size of the image whose rows are fed in, in pixels.
    public let inputSize: PixelSize
    /// The pixel format of input and output rows.
    public let format: PixelFormat
    /// Input pixels per output pixel, horizontally and vertically.
    public let factorX: Int
    /// Input rows per output row.
    public let factorY: Int
    /// The shrunk size: each side divided by its factor, rounded up (edge blocks cut short count).
    public let outputSize: PixelSize

    private var sums: [UInt64]  // per output pixel and channel; colour premultiplied by alpha
    private var rowsInBlock = 0
    private var output: [UInt8]
    private var outputRow = 0

    /// A shrinker by `factorX` across and `factorY` down (each at least 1; a factor of 1 keeps that side).
    /// Allocates the output bitmap at once: ``outputSize`` × `format`'s bytes per pixel.
    public init(inputSize: PixelSize, format: PixelFormat, factorX: Int, factorY: Int) {
        precondition(factorX >= 1 && factorY >= 1)
        self.inputSize = inputSize
        self.format = format
        self.factorX = factorX
        self.factorY = factorY
        outputSize = PixelSize(
            width: (inputSize.width + factorX - 1) / factorX,
            height: (inputSize.height + factorY - 1) / factorY)
        sums = [UInt64](repeating: 0, count: outputSize.width * format.bytesPerPixel)
        output = [UInt8](repeating: 0, count: outputSize.width * outputSize.height * format.bytesPerPixel)
    }

    /// A shrinker that reduces `inputSize` by the whole factors per axis that leave between 2 and 4
    /// times `target` (or nothing, when the input is already that small), so a Lanczos pass after it
    /// works on a bounded image, as libvips does before its final resample.
    public init(inputSize: PixelSize, format: PixelFormat, toward target: PixelSize) {
        let factors = Self.factors(from: inputSize, toward: target)
        self.init(inputSize: inputSize, format: format, factorX: factors.x, factorY: factors.y)
    }

    /// Whether a shrinker made ``init(inputSize:format:toward:)`` would reduce at all (without
    /// making one, which allocates its output).
    public static func reduces(_ inputSize: PixelSize, toward target: PixelSize) -> Bool {
        factors(from: inputSize, toward: target) != (1, 1)
    }

    /// The whole factors across and down by which ``init(inputSize:format:toward:)`` reduces.
    public static func factors(from inputSize: PixelSize, toward target: PixelSize) -> (x: Int, y: Int) {
        (max(1, inputSize.width / max(target.width, 1) / 2), max(1, inputSize.height / max(target.height, 1) / 2))
    }

    /// Whether this shrinker reduces at all.
    public var reduces: Bool { factorX > 1 || factorY > 1 }

    /// `pixels` reduced toward `target` as ``init(inputSize:format:toward:)`` decides; the same
    /// buffer when no whole factor applies.
    public static func reduce(_ pixels: PixelBuffer, toward target: PixelSize) -> PixelBuffer {
        let factors = Self.factors(from: pixels.size, toward: target)
        return reduce(pixels, factorX: factors.x, factorY: factors.y)
    }

    /// `pixels` reduced by `factorX` across and `factorY` down; the same buffer for factors of 1.
    public static func reduce(_ pixels: PixelBuffer, factorX: Int, factorY: Int) -> PixelBuffer {
        var shrinker = BoxShrinker(inputSize: pixels.size, format: pixels.format, factorX: factorX, factorY: factorY)
        guard shrinker.reduces else { return pixels }
        for y in 0..<pixels.height { pixels.withRow(y) { shrinker.append(row: $0) } }
        return shrinker.result()
    }

    /// Bytes this shrinker holds: the sums row and the output bitmap.
    public var workingByteCount: Int { sums.count * 8 + output.count }

    /// Adds the next input row (`inputSize.width` pixels of `format`).
    public mutating func append(row: UnsafeBufferPointer<UInt8>) {
        precondition(outputRow < outputSize.height, "more rows than the input has")
        precondition(row.count >= inputSize.width * format.bytesPerPixel, "row too short")
        let channels = format.bytesPerPixel
        let width = inputSize.width
        let factorX = self.factorX
        let source = row.baseAddress!
        sums.withUnsafeMutableBufferPointer { sums in
            let sums = sums.baseAddress!
            if let alphaIndex = format.alphaChannelIndex {
                for x in 0..<width {
                    let p = source + x * channels
                    let s = sums + (x / factorX) * channels
                    let alpha = UInt64(p[alphaIndex])
                    for channel in 0..<alphaIndex { s[channel] &+= UInt64(p[channel]) &* alpha }
                    s[alphaIndex] &+= alpha
                }
            } else if channels == 3 {
                var x = 0
                var s = sums
                while x < width {
                    let end = min(x + factorX, width)
                    var r: UInt64 = 0, g: UInt64 = 0, b: UInt64 = 0
                    var p = source + x * 3
                    for _ in x..<end {
                        r &+= UInt64(p[0]); g &+= UInt64(p[1]); b &+= UInt64(p[2])
                        p += 3
                    }
                    s[0] &+= r; s[1] &+= g; s[2] &+= b
                    s += 3
                    x = end
                }
            } else {
                var x = 0
                var s = sums
                while x < width {
                    let end = min(x + factorX, width)
                    for column in x..<end {
                        let p = source + column * channels
                        for channel in 0..<channels { s[channel] &+= UInt64(p[channel]) }
                    }
                    s += channels
                    x = end
                }
            }
        }
        rowsInBlock += 1
        let lastInputRow = outputRow * factorY + rowsInBlock == inputSize.height
        if rowsInBlock == factorY || lastInputRow { emitRow() }
    }

    private mutating func emitRow() {
        let channels = format.bytesPerPixel
        let alphaIndex = format.alphaChannelIndex
        let rows = UInt64(rowsInBlock)
        let width = inputSize.width
        let factorX = self.factorX
        let start = outputRow * outputSize.width * channels
        sums.withUnsafeMutableBufferPointer { sums in
            output.withUnsafeMutableBufferPointer { output in
                for outputX in 0..<outputSize.width {
                    let columns = UInt64(min(factorX, width - outputX * factorX))
                    let count = columns * rows
                    let base = outputX * channels
                    if let alphaIndex {
                        let alphaSum = sums[base + alphaIndex]
                        for channel in 0..<alphaIndex {
                            output[start + base + channel] =
                                alphaSum == 0 ? 0 : UInt8(min(255, (sums[base + channel] + alphaSum / 2) / alphaSum))
                        }
                        output[start + base + alphaIndex] = UInt8((alphaSum + count / 2) / count)
                    } else {
                        for channel in 0..<channels {
                            output[start + base + channel] = UInt8((sums[base + channel] + count / 2) / count)
                        }
                    }
                }
                sums.update(repeating: 0)
            }
        }
        rowsInBlock = 0
        outputRow += 1
    }

    /// True once every input row has been appended.
    public var isComplete: Bool { outputRow == outputSize.height }

    /// The shrunk image; call after the last row.
    public func result() -> PixelBuffer {
        precondition(isComplete, "the shrinker has not seen every input row")
        return PixelBuffer(width: outputSize.width, height: outputSize.height, format: format, bytes: output)
    }
}
