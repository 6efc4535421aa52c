import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The most memory one buffer sized from a file may take, and the checks every reader makes before
/// it allocates such a buffer.
///
/// A header's numbers are claims until checked: a 262-byte TIFF can state a 171 GB tile, and
/// allocating that aborts the whole process instead of failing the one file. So every buffer whose
/// size comes from a file (a strip, a tile, a band of rows, a frame, a canvas) is measured here
/// first, in pixels and in bytes, with arithmetic overflow counted as over the limit.
struct AllocationLimits: Sendable, Hashable {
    /// The most pixels one buffer may hold: ``DecodeOptions/maximumPixelCount``.
    let maximumPixelCount: Int

    /// No limit but arithmetic overflow: for checking a size that is never allocated.
    static let unlimited = AllocationLimits(maximumPixelCount: .max)

    /// The widest pixel Tessera holds, in bytes: four 16-bit samples.
    static let widestPixelByteCount = 8

    /// The most bytes of metadata (an EXIF block, an ancillary PNG chunk) read into memory. Longer
    /// blocks are skipped unread, as libpng skips ancillary chunks over its own limit: metadata
    /// never makes an image undecodable.
    static let maximumMetadataByteCount = 1 << 20

    /// The most bytes one buffer may hold: ``widestPixelByteCount`` bytes per pixel of
    /// ``maximumPixelCount``, so pixels stored wider than that (a TIFF with 40 samples per pixel)
    /// are allowed proportionally fewer of them.
    var maximumByteCount: Int {
        let (bytes, overflow) = maximumPixelCount.multipliedReportingOverflow(by: Self.widestPixelByteCount)
        return overflow ? .max : bytes
    }

    /// The size in bytes of a buffer of `width × rows` pixels of `bytesPerPixel` bytes each.
    /// - Throws: ``ImageDecodingError/tooLarge(pixels:limit:)`` when the pixels are over
    ///   ``maximumPixelCount``, or their bytes over ``maximumByteCount``; the limit is then stated
    ///   in pixels of this width (``maximumByteCount`` ÷ `bytesPerPixel`).
    func byteCount(width: Int, rows: Int, bytesPerPixel: Int) throws(ImageDecodingError) -> Int {
        let pixels = PixelSize(width: width, height: rows).area
        guard pixels <= maximumPixelCount else { throw .tooLarge(pixels: pixels, limit: maximumPixelCount) }
        let pixelsWithinByteLimit = maximumByteCount / max(bytesPerPixel, 1)
        guard pixels <= pixelsWithinByteLimit else { throw .tooLarge(pixels: pixels, limit: pixelsWithinByteLimit) }
        return pixels * bytesPerPixel
    }

    /// Throws unless a bitmap of `size` in `format` is within both limits: the check before a
    /// `PixelBuffer` of a size read from a file is made.
    func check(_ size: PixelSize, _ format: PixelFormat) throws(ImageDecodingError) {
        _ = try byteCount(width: size.width, rows: size.height, bytesPerPixel: format.bytesPerPixel)
    }

    /// A zero-filled buffer of `width × rows` pixels of `elementsPerPixel` elements each, allocated
    /// only once ``byteCount(width:rows:bytesPerPixel:)`` accepts its size.
    func zeroedBuffer<Element: FixedWidthInteger>(
        width: Int, rows: Int, elementsPerPixel: Int, of _: Element.Type = Element.self
    ) throws(ImageDecodingError) -> ZeroedBuffer<Element> {
        let bytes = try byteCount(width: width, rows: rows, bytesPerPixel: elementsPerPixel * MemoryLayout<Element>.stride)
        return try ZeroedBuffer(count: bytes / MemoryLayout<Element>.stride)
    }
}

/// Zero-filled memory that takes resident memory only where it is written.
///
/// calloc hands a large block over as untouched zero pages, where an array would write every byte
/// first; so a decoder that fails early in a band a hostile header sized (the data ends, or never
/// was there) costs the pages it wrote, not the band.
final class ZeroedBuffer<Element: FixedWidthInteger> {
    let elements: UnsafeMutableBufferPointer<Element>

    /// - Throws: ``ImageDecodingError/unsupported(reason:)`` when the system refuses the memory.
    init(count: Int) throws(ImageDecodingError) {
        guard let memory = calloc(max(count, 1), MemoryLayout<Element>.stride) else {
            throw .unsupported(reason: "the system refused \(count * MemoryLayout<Element>.stride) bytes for a decode buffer")
        }
        elements = UnsafeMutableBufferPointer(start: memory.bindMemory(to: Element.self, capacity: count), count: count)
    }

    deinit { free(elements.baseAddress) }
}

/// The most a compression can expand: how many decoded bytes (or pixels, for GIF) one encoded byte
/// can become at best. A header that claims more decoded data than its encoded bytes could ever
/// produce is not describing the file it is in, and is refused before anything is decoded.
struct ExpansionBound: Sendable {
    /// Decoded units per encoded byte, at most.
    let maximumRatio: Int

    /// Deflate (PNG, TIFF Deflate): a 258-byte match coded in 2 bits is the densest it gets.
    static let deflate = ExpansionBound(maximumRatio: 1032)
    /// TIFF's LZW: a code of at least 9 bits stands for a string of at most 4096 bytes.
    static let tiffLZW = ExpansionBound(maximumRatio: 4096 * 8 / 9 + 1)
    /// GIF's LZW, in pixels: a code (of 1 bit at the least, for giflib's smallest code size) stands
    /// for at most 4096 pixels.
    static let gifLZW = ExpansionBound(maximumRatio: 4096 * 8)
    /// Zstandard: a block decodes to at most 128 KiB and takes at least 4 bytes (a 3-byte header and
    /// the byte a run repeats).
    static let zstandard = ExpansionBound(maximumRatio: 128 * 1024 / 4)
    /// PackBits: a 2-byte run stands for 128 bytes.
    static let packBits = ExpansionBound(maximumRatio: 64)
    /// No compression: a byte is a byte.
    static let uncompressed = ExpansionBound(maximumRatio: 1)

    /// Whether `encodedByteCount` bytes can decode to `decodedCount` units.
    func allows(decodedCount: Int, from encodedByteCount: Int) -> Bool {
        let (most, overflow) = encodedByteCount.multipliedReportingOverflow(by: maximumRatio)
        return overflow || decodedCount <= most
    }
}

extension ByteStream {
    /// The next `length` bytes of a metadata block, or nil (skipping them unread) when the block is
    /// longer than ``AllocationLimits/maximumMetadataByteCount`` or the file ends inside it.
    func readMetadata(_ length: Int) -> [UInt8]? {
        guard length <= AllocationLimits.maximumMetadataByteCount else {
            skip(length)
            return nil
        }
        let bytes = read(length)
        return bytes.count == length ? bytes : nil
    }
}
