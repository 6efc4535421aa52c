/// Shrinks a stream of rows by whole factors with a box (area-average) filter, holding only one
/// row of sums: memory is proportional to the output width, whatever the input height.
///
/// Alpha is averaged premultiplied, so the colour of transparent pixels never bleeds into their
/// neighbours. Blocks at the right and bottom edges that are cut short average what they have.
public struct BoxShrinker: Sendable {
    public let inputSize: PixelSize
    public let format: PixelFormat
    /// Input pixels per output pixel, horizontally and vertically.
    public let factorX: Int
    public let factorY: Int
    public let outputSize: PixelSize

    private var sums: [UInt64]       // per output pixel and channel; colour premultiplied by alpha
    private var rowsInBlock = 0
    private var output: [UInt8]
    private var outputRow = 0

    public init(inputSize: PixelSize, format: PixelFormat, factorX: Int, factorY: Int) {
        precondition(factorX >= 1 && factorY >= 1)
        self.inputSize = inputSize
        self.format = format
        self.factorX = factorX
        self.factorY = factorY
        outputSize = PixelSize(width: (inputSize.width + factorX - 1) / factorX,
                               height: (inputSize.height + factorY - 1) / factorY)
        sums = [UInt64](repeating: 0, count: outputSize.width * format.bytesPerPixel)
        output = [UInt8](repeating: 0, count: outputSize.width * outputSize.height * format.bytesPerPixel)
    }

    /// Bytes this shrinker holds: the sums row and the output bitmap.
    public var workingByteCount: Int { sums.count * 8 + output.count }

    /// Adds the next input row (`inputSize.width` pixels of `format`).
    public mutating func append(row: UnsafeBufferPointer<UInt8>) {
        precondition(outputRow < outputSize.height, "more rows than the input has")
        let channels = format.bytesPerPixel
        let alphaIndex = format.alphaChannelIndex
        let width = inputSize.width
        let factorX = self.factorX
        sums.withUnsafeMutableBufferPointer { sums in
            var x = 0
            var outputX = 0
            while x < width {
                let end = min(x + factorX, width)
                let base = outputX * channels
                if let alphaIndex {
                    for column in x..<end {
                        let p = column * channels
                        let alpha = UInt64(row[p + alphaIndex])
                        for channel in 0..<alphaIndex { sums[base + channel] &+= UInt64(row[p + channel]) &* alpha }
                        sums[base + alphaIndex] &+= alpha
                    }
                } else {
                    for column in x..<end {
                        let p = column * channels
                        for channel in 0..<channels { sums[base + channel] &+= UInt64(row[p + channel]) }
                    }
                }
                x = end
                outputX += 1
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
