import TesseraCore

/// A 16-bit gray transform to 8-bit gray as a table: the output for each of the 65,536 sample
/// values, read from LittleCMS (see ``ColorTransform``). Alpha, when there is one, is rounded to 8
/// bits. Immutable once made; safe to use from any thread.
struct WideGrayTable: Sendable {
    /// The 8-bit answer for each 16-bit value.
    private let values: [UInt8]
    /// Channels a pixel: gray, or gray and alpha.
    private let channels: Int
    /// Samples stored big-endian (PNG) rather than in the machine's order (TIFF).
    private let bigEndian: Bool

    /// - Parameters:
    ///   - values: 65,536 outputs, one for each input value.
    ///   - format: the output's format, ``PixelFormat/gray8`` or ``PixelFormat/grayAlpha8``; the
    ///     input has the same channels at 16 bits.
    init(values: [UInt8], format: PixelFormat, bigEndian: Bool) {
        precondition(values.count == 65536)
        self.values = values
        channels = format.bytesPerPixel
        self.bigEndian = bigEndian
    }

    /// Converts `pixelCount` 16-bit pixels at `input` into 8-bit ones at `output`.
    func apply(from input: UnsafeRawPointer, to output: UnsafeMutableRawPointer, pixelCount: Int) {
        let bytes = output.assumingMemoryBound(to: UInt8.self)
        let channels = channels, bigEndian = bigEndian
        values.withUnsafeBufferPointer { table in
            for sample in 0..<(pixelCount * channels) {
                let stored = input.loadUnaligned(fromByteOffset: sample * 2, as: UInt16.self)
                let value = Int(bigEndian ? UInt16(bigEndian: stored) : stored)
                // Gray through the table; alpha rounded from 16 bits to 8.
                bytes[sample] = sample % channels == 0 ? table[value] : UInt8((value * 255 + 32767) / 65535)
            }
        }
    }
}
