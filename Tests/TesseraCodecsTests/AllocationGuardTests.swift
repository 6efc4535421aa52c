import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// Small files whose headers claim what a test chooses, written byte by byte: just enough of each
/// format for its header to be read, and none of the pixel data the claims would need.
enum HostileHeader {
    // MARK: PNG

    /// A PNG: signature, IHDR (with its CRC replaced by `ihdrCRC` when given), `chunks`, then IDAT
    /// holding `imageData` and IEND unless `ends` is false.
    static func png(
        width: Int, height: Int, bitDepth: UInt8 = 8, colorType: UInt8 = 6, compressionMethod: UInt8 = 0,
        ihdrCRC: UInt32? = nil, chunks: [[UInt8]] = [], imageData: [UInt8] = [0x78, 0x01, 0x03, 0x00], ends: Bool = true
    ) -> Data {
        let ihdr = bigEndian32(width) + bigEndian32(height) + [bitDepth, colorType, compressionMethod, 0, 0]
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr, crc: ihdrCRC)
        bytes += chunks.joined() + pngChunk("IDAT", imageData)
        if ends { bytes += pngChunk("IEND", []) }
        return Data(bytes)
    }

    /// A chunk: length, type, data, and the CRC-32 of type and data (or `crc`).
    static func pngChunk(_ type: String, _ data: [UInt8], crc: UInt32? = nil) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian32(data.count) + body + bigEndian32(Int(crc ?? crc32(body)))
    }

    /// A zlib stream of one stored (uncompressed) deflate block: valid image data for a tiny PNG.
    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        let length = UInt16(raw.count)
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            + raw + bigEndian32(Int(b << 16 | a))
    }

    /// CRC-32 as PNG defines it, bit by bit: independent of the table the decoder uses.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc = UInt32.max
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    // MARK: TIFF

    /// A little-endian TIFF of one directory: the given tags (all single SHORT or LONG values) plus
    /// the image size, padded with zeros to `length` bytes.
    static func tiff(width: Int, height: Int, tags: [Int: Int], length: Int = 262) -> Data {
        let all = tags.merging([256: width, 257: height]) { chosen, _ in chosen }
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + littleEndian(8, 4) + littleEndian(all.count, 2)
        for (tag, value) in all.sorted(by: { $0.key < $1.key }) {
            let isShort = [258, 259, 262, 277, 284, 338].contains(tag)
            bytes += littleEndian(tag, 2) + littleEndian(isShort ? 3 : 4, 2) + littleEndian(1, 4) + littleEndian(value, 4)
        }
        bytes += littleEndian(0, 4)
        return Data(bytes + [UInt8](repeating: 0, count: max(0, length - bytes.count)))
    }

    /// Tags of `samples` 8-bit samples a pixel under `compression` (1: none), laid out as `layout`
    /// says (strip or tile tags).
    static func tags(samples: Int, compression: Int = 1, _ layout: [Int: Int]) -> [Int: Int] {
        [258: 8, 259: compression, 262: samples >= 3 ? 2 : 1, 277: samples, 284: 1].merging(layout) { $1 }
    }

    /// Layout tags of one strip at byte 200 (StripOffsets, StripByteCounts, and RowsPerStrip if given).
    static func strip(byteCount: Int, rowsPerStrip: Int? = nil) -> [Int: Int] {
        [273: 200, 279: byteCount].merging(rowsPerStrip.map { [278: $0] } ?? [:]) { $1 }
    }

    // MARK: GIF

    /// A GIF89a: a `screen` with a 2-colour table, one image of `frame` pixels at `origin`, its LZW
    /// data in one sub-block.
    static func gif(
        screen: PixelSize, frame: PixelSize, origin: (x: Int, y: Int) = (0, 0),
        data: [UInt8] = [0x4C, 0x01]
    ) -> Data {
        var bytes = Array("GIF89a".utf8) + littleEndian(screen.width, 2) + littleEndian(screen.height, 2)
        bytes += [0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF]
        bytes += [0x2C] + littleEndian(origin.x, 2) + littleEndian(origin.y, 2)
        bytes += littleEndian(frame.width, 2) + littleEndian(frame.height, 2) + [0]
        bytes += [2, UInt8(data.count)] + data + [0, 0x3B]
        return Data(bytes)
    }

    // MARK: WebP

    /// A RIFF/WEBP container of `chunks`, its size field `riffSize` when given.
    static func webp(_ chunks: [[UInt8]], riffSize: Int? = nil) -> Data {
        let body = Array("WEBP".utf8) + chunks.joined()
        return Data(Array("RIFF".utf8) + littleEndian(riffSize ?? body.count, 4) + body)
    }

    /// A chunk, padded to an even length; `length` overrides the length field.
    static func webpChunk(_ fourCC: String, _ data: [UInt8], length: Int? = nil) -> [UInt8] {
        Array(fourCC.utf8) + littleEndian(length ?? data.count, 4) + data + (data.count % 2 == 1 ? [0] : [])
    }

    /// VP8X: flags (0x02 animation, 0x10 alpha) and the canvas size.
    static func vp8x(canvas: PixelSize, flags: UInt8 = 0) -> [UInt8] {
        webpChunk("VP8X", [flags, 0, 0, 0] + littleEndian(canvas.width - 1, 3) + littleEndian(canvas.height - 1, 3))
    }

    /// A VP8L chunk whose header states `size`, followed by a few bytes that are no image.
    static func vp8l(_ size: PixelSize) -> [UInt8] {
        webpChunk("VP8L", [0x2F] + littleEndian((size.width - 1) | (size.height - 1) << 14, 4) + [0, 0, 0])
    }

    /// An animation frame of `size` at (`x`, `y`) (even), holding a VP8L of that size.
    static func anmf(x: Int = 0, y: Int = 0, _ size: PixelSize) -> [UInt8] {
        webpChunk(
            "ANMF",
            littleEndian(x / 2, 3) + littleEndian(y / 2, 3) + littleEndian(size.width - 1, 3)
                + littleEndian(size.height - 1, 3) + [0, 0, 0, 0] + vp8l(size))
    }

    // MARK: Integers

    static func bigEndian32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

    static func littleEndian(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}

@Suite("Allocation guard")
struct AllocationGuardTests {
    typealias H = HostileHeader
    static let limit = DecodeOptions.defaultMaximumPixelCount
    static let giant = PixelSize(width: 65535, height: 65535)

    /// A hostile file and the error every path must give: the exact error for `tooLarge`, else its kind.
    struct Case: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let bytes: Data
        let kind: String
        var tooLarge: ImageDecodingError?

        init(_ name: String, _ bytes: Data, _ kind: String) {
            testDescription = name
            self.bytes = bytes
            self.kind = kind
        }

        init(_ name: String, _ bytes: Data, tooLarge pixels: Int, limit: Int = AllocationGuardTests.limit) {
            self.init(name, bytes, "tooLarge")
            tooLarge = .tooLarge(pixels: pixels, limit: limit)
        }

        func check(_ error: ImageDecodingError?, _ path: String) {
            #expect(error?.kind == kind, "\(path): \(String(describing: error))")
            if let tooLarge { #expect(error == tooLarge, "\(path)") }
        }
    }

    static let cases: [Case] = [
        // PNG
        Case(
            "PNG claiming 65535×65535 with 4 bytes of image data",
            H.png(width: 65535, height: 65535), "corrupt"),
        Case(
            "PNG claiming 40000×40000 (1.6 gigapixels) with 4 bytes of image data",
            H.png(width: 40000, height: 40000, colorType: 0), "corrupt"),
        Case("PNG whose IHDR fails its CRC", H.png(width: 4, height: 3, ihdrCRC: 0x1234_5678), "corrupt"),
        Case("PNG wider than libpng's 1000000 pixels", H.png(width: 0x7FFF_FFFF, height: 1), "unsupported"),
        Case("PNG with an unknown compression method", H.png(width: 4, height: 3, compressionMethod: 1), "corrupt"),
        Case(
            "PNG with a chunk longer than 2³¹ − 1 bytes",
            H.png(width: 4, height: 3, chunks: [H.bigEndian32(-1) + Array("tEXt".utf8)]), "corrupt"),
        // TIFF
        Case(
            "TIFF claiming 65535×900 RGB in one strip of a 262-byte file",
            H.tiff(width: 65535, height: 900, tags: H.tags(samples: 3, H.strip(byteCount: 65535 * 900 * 3))),
            "truncated"),
        Case(
            "TIFF tiled 65535×65535 with 40 samples a pixel: a 171 GB tile",
            H.tiff(width: 65535, height: 900, tags: H.tags(samples: 40, [322: 65535, 323: 65535, 324: 200, 325: 1000])),
            tooLarge: 65535 * 65535),
        Case(
            "TIFF with 40 samples a pixel: 1,000,000 pixels wide, 2.6 GB in each 64-row Deflate strip",
            H.tiff(
                width: 1_000_000, height: 128,
                tags: H.tags(samples: 40, compression: 8, H.strip(byteCount: 10, rowsPerStrip: 64))),
            tooLarge: 1_000_000 * 64, limit: limit * 8 / 40),
        // A taller strip is read a row at a time, never held: only its data can be wrong.
        Case(
            "TIFF with 40 samples a pixel: 8192×8192 pixels, 2.7 GB in one 10-byte Deflate strip",
            H.tiff(width: 8192, height: 8192, tags: H.tags(samples: 40, compression: 8, H.strip(byteCount: 10))),
            "corrupt"),
        Case(
            "TIFF whose 10-byte Deflate strip claims 65535×900 RGB",
            H.tiff(width: 65535, height: 900, tags: H.tags(samples: 3, compression: 8, H.strip(byteCount: 10))), "corrupt"),
        Case(
            "TIFF whose 10-byte Zstandard strip claims 16000×16000 RGBA",
            H.tiff(
                width: 16000, height: 16000,
                tags: H.tags(samples: 4, compression: 50000, H.strip(byteCount: 10).merging([338: 2]) { $1 })),
            "corrupt"),
        Case(
            "TIFF whose strips have no data",
            H.tiff(width: 64, height: 48, tags: H.tags(samples: 1, H.strip(byteCount: 0, rowsPerStrip: 8))), "corrupt"),
        // GIF
        Case(
            "GIF with a 65535×65535 screen and a 1×1 frame",
            H.gif(screen: giant, frame: PixelSize(width: 1, height: 1)), tooLarge: 65535 * 65535),
        Case("GIF with a 65535×65535 frame in 2 bytes of data", H.gif(screen: giant, frame: giant), "corrupt"),
        Case(
            "GIF whose first frame is empty", H.gif(screen: PixelSize(width: 8, height: 8), frame: PixelSize(width: 0, height: 8)),
            "corrupt"),
        // WebP
        Case(
            "WebP whose VP8X canvas of 65535×65535 holds a 1×1 image",
            H.webp([H.vp8x(canvas: giant), H.vp8l(PixelSize(width: 1, height: 1))]), "corrupt"),
        Case(
            "WebP with a 16777216×16777216 canvas",
            H.webp([H.vp8x(canvas: PixelSize(width: 1 << 24, height: 1 << 24)), H.vp8l(PixelSize(width: 1, height: 1))]),
            "corrupt"),
        Case(
            "animated WebP with a 65535×65535 canvas and a 1×1 frame",
            H.webp([H.vp8x(canvas: giant, flags: 0x02), H.anmf(PixelSize(width: 1, height: 1))]),
            tooLarge: 65535 * 65535),
        Case(
            "animated WebP whose frame lies outside its canvas",
            H.webp([
                H.vp8x(canvas: PixelSize(width: 4, height: 4), flags: 0x02),
                H.anmf(x: 2, PixelSize(width: 4, height: 4)),
            ]), "corrupt"),
        Case(
            "WebP whose RIFF claims 2 GB",
            H.webp([H.vp8l(PixelSize(width: 1, height: 1))], riffSize: 0x7FFF_FFF0), "truncated"),
        Case(
            "WebP whose EXIF chunk claims 2 GB",
            H.webp([H.vp8l(PixelSize(width: 1, height: 1)), H.webpChunk("EXIF", [], length: 0x7FFF_FF00)]), "corrupt"),
    ]

    @Test("a hostile header fails alike in probe, decode and thumbnail, before anything is allocated", arguments: cases)
    func hostileHeader(_ hostile: Case) {
        let source = ImageSource.data(hostile.bytes)
        hostile.check(#expect(throws: ImageDecodingError.self) { try ImageDecoder().probe(source) }, "probe")
        hostile.check(#expect(throws: ImageDecodingError.self) { try ImageDecoder().decode(source) }, "decode")
        hostile.check(
            #expect(throws: ImageDecodingError.self) {
                try Thumbnailer().thumbnail(source, options: ThumbnailOptions(maxPixelSize: 256))
            }, "thumbnail")
    }

    @Test("a PNG cut short before its data could cover its size is truncated, unless truncated data is allowed")
    func truncatedPNG() throws {
        let cut = ImageSource.data(H.png(width: 65535, height: 65535, ends: false))
        let strict = #expect(throws: ImageDecodingError.self) { try ImageDecoder().probe(cut) }
        #expect(strict?.kind == "truncated", "\(String(describing: strict))")
        let lenient = ImageDecoder(options: DecodeOptions(allowsTruncatedData: true))
        #expect(try lenient.probe(cut).size == Self.giant)
    }

    @Test("an ancillary chunk that fails its CRC is dropped, as libpng drops it, and the image still decodes")
    func damagedAncillaryChunk() throws {
        let rows: [UInt8] = (0..<3).flatMap { row in [0] + (0..<12).map { UInt8(row * 12 + $0) } }
        let damaged = H.pngChunk("tRNS", [0, 0, 0, 0, 0, 0], crc: 0)
        let source = ImageSource.data(H.png(width: 4, height: 3, colorType: 2, chunks: [damaged], imageData: H.zlibStored(rows)))
        #expect(try ImageDecoder().probe(source).hasAlpha == false)
        let decoded = try ImageDecoder().decode(source)
        #expect(decoded.pixels.format == .rgb8)
        #expect(decoded.pixels.bytes == rows.enumerated().filter { $0.offset % 13 != 0 }.map(\.element))
    }

    @Test("a strip's buffer is held to the pixel limit the options set, in probe and decode alike")
    func tighterLimit() throws {
        let tiff = ImageSource.data(
            H.tiff(
                width: 64, height: 48, tags: H.tags(samples: 1, H.strip(byteCount: 64 * 48)),
                length: 200 + 64 * 48))
        let tight = ImageDecoder(options: DecodeOptions(maximumPixelCount: 64 * 47))
        #expect(throws: ImageDecodingError.tooLarge(pixels: 64 * 48, limit: 64 * 47)) { try tight.probe(tiff) }
        #expect(throws: ImageDecodingError.tooLarge(pixels: 64 * 48, limit: 64 * 47)) { try tight.decode(tiff) }
        #expect(try ImageDecoder().decode(tiff).pixels.size == PixelSize(width: 64, height: 48))
    }
}
