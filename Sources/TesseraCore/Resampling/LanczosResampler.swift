import Foundation

/// Resizes a bitmap with a separable Lanczos-3 filter widened by the reduction factor (a true
/// low-pass when shrinking, so fine detail averages out instead of aliasing). Alpha is filtered
/// premultiplied and divided out at the end.
///
/// Memory: one float buffer of `output width × input height × channels`, plus the output. Callers
/// shrinking by large factors should first reduce with ``BoxShrinker`` to within a few times the
/// target, as libvips does, which keeps both time and memory proportional to the target.
public enum LanczosResampler {
    /// `pixels` resized to exactly `size` (aspect is the caller's choice).
    public static func resize(_ pixels: PixelBuffer, to size: PixelSize) -> PixelBuffer {
        precondition(size.width > 0 && size.height > 0)
        if size == pixels.size { return pixels }
        let channels = pixels.format.bytesPerPixel
        let alphaIndex = pixels.format.alphaChannelIndex
        let horizontal = Contributions(inputLength: pixels.width, outputLength: size.width)
        let vertical = Contributions(inputLength: pixels.height, outputLength: size.height)

        // Pass 1: every input row to the output width, premultiplied, as floats.
        var rows = [Float](repeating: 0, count: size.width * pixels.height * channels)
        pixels.bytes.withUnsafeBufferPointer { source in
            rows.withUnsafeMutableBufferPointer { rows in
                var premultiplied = [Float](repeating: 0, count: pixels.width * channels)
                for y in 0..<pixels.height {
                    let rowStart = y * pixels.bytesPerRow
                    for x in 0..<pixels.width {
                        let p = rowStart + x * channels
                        let alpha: Float = alphaIndex.map { Float(source[p + $0]) / 255 } ?? 1
                        for channel in 0..<channels {
                            let value = Float(source[p + channel])
                            premultiplied[x * channels + channel] = channel == alphaIndex ? value : value * alpha
                        }
                    }
                    let outputStart = y * size.width * channels
                    for x in 0..<size.width {
                        let (first, weights) = horizontal[x]
                        for channel in 0..<channels {
                            var sum: Float = 0
                            for (tap, weight) in weights.enumerated() {
                                sum += premultiplied[(first + tap) * channels + channel] * weight
                            }
                            rows[outputStart + x * channels + channel] = sum
                        }
                    }
                }
            }
        }

        // Pass 2: columns to the output height; undo premultiplication; round and clamp.
        var output = PixelBuffer(width: size.width, height: size.height, format: pixels.format)
        let rowLength = size.width * channels
        rows.withUnsafeBufferPointer { rows in
            output.bytes.withUnsafeMutableBufferPointer { destination in
                var column = [Float](repeating: 0, count: rowLength)
                for y in 0..<size.height {
                    let (first, weights) = vertical[y]
                    for index in 0..<rowLength { column[index] = 0 }
                    for (tap, weight) in weights.enumerated() {
                        let rowStart = (first + tap) * rowLength
                        for index in 0..<rowLength { column[index] += rows[rowStart + index] * weight }
                    }
                    let start = y * rowLength
                    for x in 0..<size.width {
                        let p = x * channels
                        let alpha = alphaIndex.map { min(max(column[p + $0], 0), 255) } ?? 255
                        for channel in 0..<channels {
                            var value = column[p + channel]
                            if let alphaIndex, channel != alphaIndex {
                                value = alpha > 0 ? value * 255 / alpha : 0
                            }
                            destination[start + p + channel] = UInt8(min(max(value.rounded(), 0), 255))
                        }
                    }
                }
            }
        }
        return output
    }
}

/// For each output sample: the first input sample it reads and the normalised weights from there.
private struct Contributions {
    private var firsts: [Int] = []
    private var weights: [[Float]] = []

    init(inputLength: Int, outputLength: Int) {
        let scale = Double(inputLength) / Double(outputLength)
        let filterScale = max(scale, 1)  // widen the kernel when shrinking: a low-pass at the new rate
        let support = 3 * filterScale
        for index in 0..<outputLength {
            let center = (Double(index) + 0.5) * scale
            let first = max(Int(center - support + 0.5), 0)
            let last = min(Int(center + support + 0.5), inputLength)
            var taps = (first..<max(last, first + 1)).map { sample in
                Float(Self.lanczos3((Double(sample) - center + 0.5) / filterScale))
            }
            let total = taps.reduce(0, +)
            if total != 0 { taps = taps.map { $0 / total } } else { taps = [Float](repeating: 1 / Float(taps.count), count: taps.count) }
            firsts.append(min(first, inputLength - 1))
            weights.append(taps)
        }
    }

    subscript(index: Int) -> (first: Int, weights: [Float]) { (firsts[index], weights[index]) }

    private static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let pix = Double.pi * x
        return 3 * sin(pix) * sin(pix / 3) / (pix * pix)
    }
}
