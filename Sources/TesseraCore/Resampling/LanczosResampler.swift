#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Resizes a bitmap with a separable Lanczos-3 filter widened by the reduction factor (a true
/// low-pass when shrinking, so fine detail averages out instead of aliasing). Alpha is filtered
/// premultiplied and divided out at the end.
///
/// Rows are filtered horizontally on demand into a ring that holds only the rows one output row
/// needs (about six times the reduction factor), so beyond the input and output bitmaps the
/// working memory is a few rows. Callers shrinking by large factors should first reduce with
/// ``BoxShrinker`` to within a few times the target, as libvips does.
public enum LanczosResampler {
    /// `pixels` resized to exactly `size` (aspect is the caller's choice).
    public static func resize(_ pixels: PixelBuffer, to size: PixelSize) -> PixelBuffer {
        precondition(size.width > 0 && size.height > 0)
        if size == pixels.size { return pixels }
        return pixels.bytes.withUnsafeBufferPointer { source in
            resize(pixels.size, format: pixels.format, to: size) { source.baseAddress! + $0 * pixels.bytesPerRow }
        }
    }

    /// An image of `inputSize` pixels of `format` resized to exactly `size`, its rows given by
    /// `row(y)` (a row of `inputSize.width` pixels, read before `row` is called again), each asked
    /// for once, top to bottom: for a caller that assembles rows as they are needed rather than
    /// holding the whole input.
    public static func resize(
        _ inputSize: PixelSize, format: PixelFormat, to size: PixelSize, row: (_ y: Int) throws -> UnsafePointer<UInt8>
    ) rethrows -> PixelBuffer {
        precondition(size.width > 0 && size.height > 0)
        return try resize(
            inputWidth: inputSize.width, format: format, horizontal: FilterTaps(inputLength: inputSize.width, outputLength: size.width),
            vertical: FilterTaps(inputLength: inputSize.height, outputLength: size.height), row: row)
    }

    /// The input rectangle that ``resize(_:at:of:to:window:)`` of `window` (of `inputSize` resized
    /// to `outputSize`) reads: every sample its taps reach, clipped to the input.
    public static func inputRect(for window: PixelRect, of inputSize: PixelSize, to outputSize: PixelSize) -> PixelRect {
        let horizontal = FilterTaps(inputLength: inputSize.width, outputLength: outputSize.width, outputs: window.x..<(window.x + window.width))
        let vertical = FilterTaps(inputLength: inputSize.height, outputLength: outputSize.height, outputs: window.y..<(window.y + window.height))
        let x = horizontal.firsts.min() ?? 0, y = vertical.firsts.min() ?? 0
        return PixelRect(
            x: x, y: y, width: (horizontal.firsts.max() ?? 0) + horizontal.tapCount - x, height: (vertical.firsts.max() ?? 0) + vertical.tapCount - y)
    }

    /// `window` of the image `inputSize` resized to `outputSize`, made from `block`, the pixels of
    /// the input at `origin` (covering at least ``inputRect(for:of:to:)``): the pixels that window
    /// has in the whole image resized, so parts resized apart (tiles, a region) meet without a seam.
    public static func resize(
        _ block: PixelBuffer, at origin: (x: Int, y: Int), of inputSize: PixelSize, to outputSize: PixelSize, window: PixelRect
    ) -> PixelBuffer {
        precondition(window.width > 0 && window.height > 0)
        let horizontal = FilterTaps(
            inputLength: inputSize.width, outputLength: outputSize.width, outputs: window.x..<(window.x + window.width), inputOffset: origin.x)
        let vertical = FilterTaps(
            inputLength: inputSize.height, outputLength: outputSize.height, outputs: window.y..<(window.y + window.height), inputOffset: origin.y)
        precondition(horizontal.fits(block.width) && vertical.fits(block.height), "the block does not cover the window's taps")
        return block.bytes.withUnsafeBufferPointer { source in
            resize(inputWidth: block.width, format: block.format, horizontal: horizontal, vertical: vertical) {
                source.baseAddress! + $0 * block.bytesPerRow
            }
        }
    }

    /// The resize of rows `inputWidth` wide with the taps of each axis (whose counts are the
    /// output's size, their firsts in the rows given).
    private static func resize(
        inputWidth: Int, format: PixelFormat, horizontal: FilterTaps, vertical: FilterTaps, row: (_ y: Int) throws -> UnsafePointer<UInt8>
    ) rethrows -> PixelBuffer {
        let size = PixelSize(width: horizontal.firsts.count, height: vertical.firsts.count)
        let channels = format.bytesPerPixel
        let alphaIndex = format.alphaChannelIndex ?? -1
        let rowLength = size.width * channels

        let ring = UnsafeMutableBufferPointer<Float>.allocate(capacity: rowLength * vertical.tapCount)
        defer { ring.deallocate() }
        // One float past the row: ``FilterTaps/apply(_:channels:into:)`` reads RGB pixels four
        // floats at a time.
        let premultiplied = UnsafeMutableBufferPointer<Float>.allocate(capacity: inputWidth * channels + 1)
        premultiplied.initialize(repeating: 0)
        defer { premultiplied.deallocate() }
        let column = UnsafeMutableBufferPointer<Float>.allocate(capacity: rowLength)
        defer { column.deallocate() }
        // The ring rows and weights of one output row's non-zero taps.
        let tapRows = UnsafeMutableBufferPointer<UnsafeRawPointer>.allocate(capacity: vertical.tapCount)
        defer { tapRows.deallocate() }
        let tapWeights = UnsafeMutableBufferPointer<Float>.allocate(capacity: vertical.tapCount)
        defer { tapWeights.deallocate() }
        // Every byte is written below, so the output is not zeroed first.
        return try PixelBuffer(width: size.width, height: size.height, format: format) { destination in
            /// Input row `y`, premultiplied and filtered to the output width, in its ring slot.
            func filterRow(_ y: Int) throws {
                let row = try row(y)
                if alphaIndex < 0 {
                    for index in 0..<inputWidth * channels { premultiplied[index] = Float(row[index]) }
                } else {
                    for x in 0..<inputWidth {
                        let p = x * channels
                        let alpha = Float(row[p + alphaIndex]) * (1 / 255)
                        for channel in 0..<alphaIndex { premultiplied[p + channel] = Float(row[p + channel]) * alpha }
                        premultiplied[p + alphaIndex] = Float(row[p + alphaIndex])
                    }
                }
                horizontal.apply(
                    premultiplied.baseAddress!, channels: channels,
                    into: ring.baseAddress! + (y % vertical.tapCount) * rowLength)
            }

            var nextRow = 0
            for y in 0..<size.height {
                let first = vertical.firsts[y]
                // Windows only move down, so rows above `first` are never needed again.
                nextRow = max(nextRow, first)
                while nextRow < first + vertical.tapCount {
                    try filterRow(nextRow)
                    nextRow += 1
                }
                // The non-zero taps of this output row.
                var tapCount = 0
                for tap in 0..<vertical.tapCount {
                    let weight = vertical.weights[y * vertical.tapCount + tap]
                    if weight == 0 { continue }
                    tapRows[tapCount] = UnsafeRawPointer(ring.baseAddress! + ((first + tap) % vertical.tapCount) * rowLength)
                    tapWeights[tapCount] = weight
                    tapCount += 1
                }
                sum(tapCount, rows: tapRows, weights: tapWeights, into: column)
                store(column, channels: channels, alphaIndex: alphaIndex, into: destination.baseAddress! + y * rowLength)
            }
        }
    }

    /// The first `count` of `rows` (ring rows of filtered floats, `column.count` each) weighted by
    /// `weights` and summed into `column`, eight floats at a time in registers, rather than one
    /// pass over the row for each tap.
    @inline(__always)
    private static func sum(
        _ count: Int, rows: UnsafeMutableBufferPointer<UnsafeRawPointer>, weights: UnsafeMutableBufferPointer<Float>,
        into column: UnsafeMutableBufferPointer<Float>
    ) {
        let rowLength = column.count
        var index = 0
        while index + 8 <= rowLength {
            var sum = SIMD8<Float>()
            for tap in 0..<count { sum += rows[tap].loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self) * weights[tap] }
            UnsafeMutableRawPointer(column.baseAddress! + index).storeBytes(of: sum, as: SIMD8<Float>.self)
            index += 8
        }
        while index < rowLength {
            var sum: Float = 0
            for tap in 0..<count { sum += rows[tap].load(fromByteOffset: index * 4, as: Float.self) * weights[tap] }
            column[index] = sum
            index += 1
        }
    }

    /// A row of summed floats stored as bytes in `target`, unpremultiplied by its alpha (at
    /// `alphaIndex`; none when negative).
    @inline(__always)
    private static func store(_ column: UnsafeMutableBufferPointer<Float>, channels: Int, alphaIndex: Int, into target: UnsafeMutablePointer<UInt8>) {
        if alphaIndex < 0 {
            for index in 0..<column.count { target[index] = clampToByte(column[index]) }
            return
        }
        for x in 0..<column.count / channels {
            let p = x * channels
            let alpha = min(max(column[p + alphaIndex], 0), 255)
            let unpremultiply: Float = alpha > 0 ? 255 / alpha : 0
            for channel in 0..<alphaIndex { target[p + channel] = clampToByte(column[p + channel] * unpremultiply) }
            target[p + alphaIndex] = clampToByte(alpha)
        }
    }

    /// `value` rounded to the nearest integer in 0...255. Adding 2²³ to a float in 0...255 leaves
    /// that integer in the low bits of its representation: a conversion without the range checks
    /// of `UInt8(_: Float)`, so loops of it vectorise (they were half the time of this function).
    @inline(__always)
    private static func clampToByte(_ value: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: (min(max(value, 0), 255) + 8_388_608).bitPattern)
    }
}

/// Lanczos-3 taps for one axis: for each output sample, the first input sample it reads and a fixed
/// number of normalised weights from there (zero-padded), laid out flat for fast inner loops.
struct FilterTaps {
    let firsts: [Int]
    let tapCount: Int
    let weights: [Float]

    /// The taps of outputs `outputs` (all of them when nil) of `inputLength` samples resized to
    /// `outputLength`, their firsts counted from input sample `inputOffset`.
    init(inputLength: Int, outputLength: Int, outputs: Range<Int>? = nil, inputOffset: Int = 0) {
        let outputs = outputs ?? 0..<outputLength
        let scale = Double(inputLength) / Double(outputLength)
        let filterScale = max(scale, 1)  // widen the kernel when shrinking: a low-pass at the new rate
        let support = 3 * filterScale
        let tapCount = min(inputLength, Int((support * 2).rounded(.up)) + 1)
        var firsts = [Int](repeating: 0, count: outputs.count)
        var weights = [Float](repeating: 0, count: outputs.count * tapCount)
        var taps = [Double](repeating: 0, count: tapCount)
        for (index, output) in outputs.enumerated() {
            let center = (Double(output) + 0.5) * scale
            let lower = max(Int(center - support + 0.5), 0)
            let upper = min(Int(center + support + 0.5), inputLength)
            // Keep the window inside the input with room for tapCount taps.
            let first = min(lower, inputLength - tapCount)
            var total = 0.0
            for tap in 0..<tapCount { taps[tap] = 0 }
            for sample in lower..<max(upper, lower + 1) where sample - first < tapCount {
                let weight = Self.lanczos3((Double(sample) - center + 0.5) / filterScale)
                taps[sample - first] = weight
                total += weight
            }
            if total == 0 { taps[min(lower, inputLength - 1) - first] = 1; total = 1 }
            for tap in 0..<tapCount { weights[index * tapCount + tap] = Float(taps[tap] / total) }
            firsts[index] = first - inputOffset
        }
        self.firsts = firsts
        self.tapCount = tapCount
        self.weights = weights
    }

    /// Whether every tap lies within an input of `length` samples.
    func fits(_ length: Int) -> Bool { firsts.allSatisfy { $0 >= 0 && $0 + tapCount <= length } }

    /// Filters one interleaved row of `channels` floats into `output` (output length × channels).
    /// With 3 channels `input` must hold one float more than the row: a pixel is loaded with the
    /// next one's first sample in a fourth lane, which is computed and dropped.
    func apply(_ input: UnsafePointer<Float>, channels: Int, into output: UnsafeMutablePointer<Float>) {
        weights.withUnsafeBufferPointer { weights in
            var index = 0
            if channels >= 3 {
                // A pixel's channels in one vector, four output pixels at a time: each pixel's sum
                // is one chain of adds, whose latency, not the arithmetic, bounds a single sum, so
                // four independent chains run in about the time of one. Per channel the same
                // multiplies and adds in the same order as a scalar sum, so the same bytes. This
                // horizontal pass over every input row is most of a resize.
                let taps = tapCount
                @inline(__always) func pixel(_ base: UnsafePointer<Float>, _ tap: Int) -> SIMD4<Float> {
                    UnsafeRawPointer(base + tap * channels).loadUnaligned(as: SIMD4<Float>.self)
                }
                @inline(__always) func store(_ sum: SIMD4<Float>, _ index: Int) {
                    let target = output + index * channels
                    target[0] = sum[0]; target[1] = sum[1]; target[2] = sum[2]
                    if channels == 4 { target[3] = sum[3] }
                }
                while index + 4 <= firsts.count {
                    let source0 = input + firsts[index] * channels, source1 = input + firsts[index + 1] * channels
                    let source2 = input + firsts[index + 2] * channels, source3 = input + firsts[index + 3] * channels
                    let w0 = weights.baseAddress! + index * taps, w1 = w0 + taps, w2 = w1 + taps, w3 = w2 + taps
                    var sum0 = SIMD4<Float>(), sum1 = SIMD4<Float>(), sum2 = SIMD4<Float>(), sum3 = SIMD4<Float>()
                    for tap in 0..<taps {
                        sum0 += pixel(source0, tap) * w0[tap]
                        sum1 += pixel(source1, tap) * w1[tap]
                        sum2 += pixel(source2, tap) * w2[tap]
                        sum3 += pixel(source3, tap) * w3[tap]
                    }
                    store(sum0, index); store(sum1, index + 1); store(sum2, index + 2); store(sum3, index + 3)
                    index += 4
                }
                while index < firsts.count {
                    let source = input + firsts[index] * channels, w = weights.baseAddress! + index * taps
                    var sum = SIMD4<Float>()
                    for tap in 0..<taps { sum += pixel(source, tap) * w[tap] }
                    store(sum, index)
                    index += 1
                }
                return
            }
            for index in 0..<firsts.count {
                let source = input + firsts[index] * channels
                let w = weights.baseAddress! + index * tapCount
                let target = output + index * channels
                var s0: Float = 0, s1: Float = 0
                for tap in 0..<tapCount {
                    s0 += source[tap * channels] * w[tap]
                    if channels == 2 { s1 += source[tap * 2 + 1] * w[tap] }
                }
                target[0] = s0
                if channels == 2 { target[1] = s1 }
            }
        }
    }

    private static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let pix = Double.pi * x
        // sin 3θ = 3 sin θ − 4 sin³ θ: one sine rather than two (a server makes these taps for
        // every region it scales; sine was 2% of its time).
        let third = sin(pix / 3)
        return 3 * third * (3 - 4 * third * third) * third / (pix * pix)
    }
}
