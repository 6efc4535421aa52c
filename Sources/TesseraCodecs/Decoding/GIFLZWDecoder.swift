import TesseraCore

/// GIF's LZW decompression in Swift, for a first frame whose LZW minimum code size giflib refuses:
/// 9 to 11 (giflib takes at most 8, the most an 8-bit palette needs; browsers, libnsgif and Pillow
/// take up to 11, whose codes then start at 12 bits, as Pillow's `issue_2811.gif` has them).
/// Palette indices past 255 keep their low byte, as giflib and browsers keep it.
///
/// Reads the frame's data sub-blocks from a stream, from the first; holds its code tables (16 KB)
/// and one sub-block, never the frame's data.
final class GIFLZWDecoder {
    /// The code sizes it is for: those giflib refuses and browsers read.
    static let codeSizes = 9...11

    private let stream: ByteStream
    private let minimumCodeSize: Int
    private let clear: Int
    private let end: Int
    /// Bits a code takes now, and the next code the table defines.
    private var width: Int
    private var next: Int
    /// The last code read since a clear (-1 before the first) and the first byte of its string.
    private var previous = -1
    private var first: UInt8 = 0
    private var prefix = [UInt16](repeating: 0, count: 4096)
    private var suffix = [UInt8](repeating: 0, count: 4096)
    /// One string's bytes, last first; a string is at most as long as the table.
    private var stack = [UInt8](repeating: 0, count: 4098)
    private var stackCount = 0
    private var block: [UInt8] = []
    private var blockOffset = 0
    private var bits: UInt32 = 0
    private var bitCount = 0
    private var dataEnded = false
    private var failure: ImageDecodingError?

    /// - Parameters:
    ///   - stream: positioned at the frame's first data sub-block.
    ///   - codeSize: the LZW minimum code size, one of ``codeSizes``.
    init(stream: ByteStream, codeSize: Int) {
        precondition(Self.codeSizes.contains(codeSize))
        self.stream = stream
        minimumCodeSize = codeSize
        clear = 1 << codeSize
        end = clear + 1
        width = codeSize + 1
        next = clear + 2
    }

    /// Decodes the next `count` palette indices into `output`. Nil when it did; else why it could
    /// not (``ImageDecodingError/truncated(reason:)`` when the data ended first: the indices before
    /// that are written; ``ImageDecodingError/corrupt(reason:)`` for a code that cannot be), which
    /// every later call returns too.
    func read(into output: UnsafeMutablePointer<UInt8>, count: Int) -> ImageDecodingError? {
        if let failure { return failure }
        var produced = 0
        while produced < count {
            while stackCount > 0 && produced < count {
                stackCount -= 1
                output[produced] = stack[stackCount]
                produced += 1
            }
            guard produced < count else { break }
            guard let code = nextCode(), code != end else {
                let place = stream.isAtEnd ? "the GIF ends inside its image data" : "the GIF's image data ends"
                return fail(stream.readFailure ?? .truncated(reason: place + " before its frame is filled"))
            }
            if code == clear {
                (width, next, previous) = (minimumCodeSize + 1, clear + 2, -1)
                continue
            }
            if previous < 0 {
                guard code < clear else { return fail(.corrupt(reason: "GIF image data whose first code, \(code), is no colour")) }
                (previous, first) = (code, UInt8(truncatingIfNeeded: code))
                push(first)
                continue
            }
            guard code <= next else { return fail(.corrupt(reason: "GIF image data with code \(code) before it is defined")) }
            var current = code
            if code == next {  // the previous string and its own first byte
                push(first)
                current = previous
            }
            // Every entry's prefix is an earlier code, so the chain ends, within the table's length.
            while current >= clear {
                push(suffix[current])
                current = Int(prefix[current])
            }
            first = UInt8(truncatingIfNeeded: current)
            push(first)
            if next < 4096 {
                (prefix[next], suffix[next]) = (UInt16(previous), first)
                next += 1
                if next == 1 << width && width < 12 { width += 1 }
            }
            previous = code
        }
        return nil
    }

    private func push(_ byte: UInt8) {
        stack[stackCount] = byte
        stackCount += 1
    }

    private func fail(_ error: ImageDecodingError) -> ImageDecodingError {
        failure = error
        return error
    }

    /// The next code of ``width`` bits, least significant bits first; nil at the end of the data.
    private func nextCode() -> Int? {
        while bitCount < width {
            guard let byte = nextByte() else { return nil }
            bits |= UInt32(byte) << UInt32(bitCount)
            bitCount += 8
        }
        let code = Int(bits & (1 << UInt32(width) - 1))
        bits >>= UInt32(width)
        bitCount -= width
        return code
    }

    /// The next byte of the sub-blocks; nil at their terminator or the end of the file.
    private func nextByte() -> UInt8? {
        if blockOffset == block.count {
            guard !dataEnded, let length = try? stream.readUInt8(), length > 0 else {
                dataEnded = true
                return nil
            }
            block = stream.read(Int(length))
            blockOffset = 0
            if block.isEmpty {
                dataEnded = true
                return nil
            }
        }
        defer { blockOffset += 1 }
        return block[blockOffset]
    }
}
