public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How far apart two images of the same size and format are, over every channel of every pixel:
/// the mean and the largest difference in 8-bit levels. One pass over raw buffers (a `zip` of the
/// bytes takes about a microsecond a byte in a debug build: seconds for the larger answers).
public func pixelDifferences(_ a: PixelBuffer, _ b: PixelBuffer) -> (mean: Double, maximum: Int) {
    precondition(a.size == b.size && a.format == b.format, "\(a.size) \(a.format) vs \(b.size) \(b.format)")
    var sum = 0, maximum = 0
    a.bytes.withUnsafeBufferPointer { first in
        b.bytes.withUnsafeBufferPointer { second in
            for index in 0..<first.count {
                let difference = abs(Int(first[index]) - Int(second[index]))
                sum += difference
                maximum = max(maximum, difference)
            }
        }
    }
    return (Double(sum) / Double(max(a.bytes.count, 1)), maximum)
}

/// The largest difference of any channel of any pixel between two same-sized images.
public func maximumDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int { pixelDifferences(a, b).maximum }

/// The mean difference, in 8-bit levels, over every channel of every pixel of two same-sized images.
public func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double { pixelDifferences(a, b).mean }

/// Peak signal-to-noise ratio in dB of two same-sized 8-bit images (infinite when identical).
public func psnr(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    precondition(a.size == b.size && a.format == b.format)
    var squares = 0.0
    a.bytes.withUnsafeBufferPointer { first in
        b.bytes.withUnsafeBufferPointer { second in
            for index in 0..<first.count {
                let difference = Double(first[index]) - Double(second[index])
                squares += difference * difference
            }
        }
    }
    return 10 * log10(255 * 255 / (squares / Double(max(a.bytes.count, 1))))
}
