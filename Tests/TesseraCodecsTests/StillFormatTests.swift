import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraCodecs

/// BMP, ICO/CUR, PNM/PAM and TGA through ffmpeg's image decoders: the fixtures of
/// scripts/make-still-fixtures.py against Pillow's decode of each (or the pixels it was written
/// from, where Pillow does not read the file or reads it otherwise than browsers do).
@Suite struct StillFormatTests {
    struct Entry: Decodable, Sendable, CustomTestStringConvertible {
        let file: String
        let width: Int
        let height: Int
        let reference: String
        var testDescription: String { file }
    }

    static let entries: [Entry] = {
        let data = try! Data(contentsOf: Fixtures.directory.appendingPathComponent("stills/manifest.json"))
        return try! JSONDecoder().decode([Entry].self, from: data)
    }()

    static func path(_ file: String) -> String { Fixtures.path("stills/" + file) }

    static let formats: [String: ImageFormat] = [
        "bmp": .bmp, "ico": .ico, "cur": .ico, "pbm": .pnm, "pgm": .pnm, "ppm": .pnm, "pam": .pnm, "tga": .tga,
    ]

    @Test(arguments: entries)
    func decodesAsTheReferenceDoes(_ entry: Entry) throws {
        let decoded = try ImageDecoder().decode(.file(Self.path(entry.file)))
        #expect(decoded.properties.format == Self.formats[String(entry.file.split(separator: ".").last!)])
        #expect(decoded.properties.size == PixelSize(width: entry.width, height: entry.height))
        #expect(decoded.pixels.format == decoded.properties.decodedFormat)
        // Pillow reads grey-palette BMPs as grey and gives icons alpha; Tessera's BMP rows are
        // always RGB(A): the same pixels, widened.
        let reference = try Fixtures.pam("stills/reference/\(entry.file).pam").converted(to: decoded.pixels.format)
        #expect(maximumDifference(decoded.pixels, reference) == 0)
    }

    /// The row interface and a thumbnail give the same pixels as a whole decode.
    @Test(arguments: ["bmp-pal8.bmp", "ico-bmp24.ico", "ico-png.ico", "pgm16.pgm", "tga-rgba-rle.tga"])
    func streamsRowsAndMakesThumbnails(_ file: String) throws {
        let whole = try ImageDecoder().decode(.file(Self.path(file))).pixels
        let reader = try ImageRowReader(.file(Self.path(file)))
        var rows: [UInt8] = []
        try reader.forEachRow { rows += $0 }
        #expect(rows == whole.bytes)
        let thumbnail = try Thumbnailer().thumbnail(.file(Self.path(file)), options: ThumbnailOptions(maxPixelSize: 16))
        #expect(max(thumbnail.pixels.width, thumbnail.pixels.height) == 16)
    }

    @Test func probesFromTheHeaders() throws {
        let pam = try ImageDecoder().probe(.file(Self.path("pam-gray-alpha.pam")))
        #expect(pam.format == .pnm && pam.decodedFormat == .grayAlpha8 && pam.colorModel == .gray)
        #expect(try ImageDecoder().probe(.file(Self.path("pgm16.pgm"))).bitsPerComponent == 16)
        let palette = try ImageDecoder().probe(.file(Self.path("tga-pal8-rle.tga")))
        #expect(palette.colorModel == .palette && palette.decodedFormat == .rgb8)
        let icon = try ImageDecoder().probe(.file(Self.path("ico-png.ico")))
        #expect(icon.format == .ico && icon.size == PixelSize(width: 37, height: 23), "the largest entry")
        #expect(try ImageDecoder().probe(.file(Self.path("cur-bmp32.cur"))).decodedFormat == .rgba8)
    }

    /// TGA has no magic number: a file without the footer is recognised by its header, and the
    /// first bytes of other formats and containers are not taken for one.
    @Test func sniffsTGAWithoutItsFooter() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.path("tga-rgb-nofooter.tga"))))
        #expect(ImageFormat(sniffing: bytes) == .tga)
        let others: [[UInt8]] = [
            [0, 0, 0, 0x20] + Array("ftypisom".utf8) + [UInt8](repeating: 0, count: 20),
            [0, 0, 1, 0xBA, 0x44] + [UInt8](repeating: 0, count: 20),
            [0x1A, 0x45, 0xDF, 0xA3] + [UInt8](repeating: 0, count: 20),
            [0x47, 0x40, 0x00, 0x10] + [UInt8](repeating: 0xFF, count: 20),
            Array("ID3\u{3}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}".utf8) + [UInt8](repeating: 0, count: 20),
        ]
        for other in others { #expect(ImageFormat(sniffing: other) == nil) }
    }

    /// Sizes a header claims are checked before ffmpeg allocates its frame: over the limit is
    /// `tooLarge`, and more pixels than the data could hold is `truncated`, both from the header.
    @Test func refusesHostileHeadersBeforeDecoding() throws {
        func bmp(width: Int32, height: Int32, bits: UInt16 = 24, compression: UInt32 = 0) -> [UInt8] {
            var bytes = Array("BM".utf8) + le(UInt32(0)) + le(UInt32(0)) + le(UInt32(54))
            bytes += le(UInt32(40)) + le(UInt32(bitPattern: width)) + le(UInt32(bitPattern: height)) + le(UInt16(1)) + le(bits)
            return bytes + le(compression) + [UInt8](repeating: 0, count: 20) + [UInt8](repeating: 0x55, count: 64)
        }
        func tga(width: UInt16, height: UInt16, type: UInt8) -> [UInt8] {
            [0, 0, type] + [UInt8](repeating: 0, count: 9) + le(width) + le(height) + [24, 0] + [UInt8](repeating: 0x01, count: 64)
        }
        let hostile: [(String, [UInt8], ErrorCategory)] = [
            ("BMP of 2³¹ × 2³¹", bmp(width: .max, height: .min), .tooLarge),
            ("BMP of 16000 × 16000 in 64 bytes", bmp(width: 16000, height: 16000), .truncated),
            ("RLE BMP past the limit", bmp(width: 30000, height: 30000, bits: 8, compression: 1), .tooLarge),
            ("BMP of no width", bmp(width: 0, height: 5), .corrupt),
            ("PPM past the limit", Array("P6\n99999999 99999999\n255\n".utf8) + [1, 2, 3], .tooLarge),
            ("PAM in 3 bytes", Array("P7\nWIDTH 9000\nHEIGHT 9000\nDEPTH 4\nMAXVAL 255\nENDHDR\n".utf8) + [1, 2, 3], .truncated),
            ("PGM with MAXVAL 0", Array("P5 4 4 0\n".utf8) + [UInt8](repeating: 0, count: 16), .corrupt),
            ("TGA of 65535²", tga(width: 65535, height: 65535, type: 2), .tooLarge),
            ("RLE TGA of 16000² in 64 bytes", tga(width: 16000, height: 16000, type: 10), .truncated),
        ]
        for (name, bytes, category) in hostile {
            do {
                _ = try ImageDecoder().decode(.data(Data(bytes)))
                Issue.record("\(name) decoded")
            } catch {
                #expect(error.category == category, "\(name): \(error)")
            }
        }
        // An icon whose largest entry claims more than the limit allows.
        var limited = DecodeOptions()
        limited.maximumPixelCount = 100
        #expect(throws: ImageDecodingError.self) { try ImageDecoder(options: limited).probe(.file(Self.path("ico-bmp32.ico"))) }
    }

    /// swscale's SIMD paths store whole blocks of pixels past a row's end (a 3-pixel grey row: 7
    /// bytes more): rows are converted into the reader's own padded rows, so the caller's buffer is
    /// written to its last row's end and not a byte further.
    @Test(arguments: [1, 3, 5, 37])
    func convertsRowsWithinTheCallersBuffer(width: Int) throws {
        // A PBM (1 bit a pixel, which swscale widens to grey) and a 16-bit BMP (5-5-5, widened to RGB).
        let pbm = Array("P4\n\(width) 3\n".utf8) + [UInt8](repeating: 0xA5, count: 3 * ((width + 7) / 8))
        for bytes in [pbm, Self.bmp16(width: width, height: 3)] {
            let header = try Header(.data(Data(bytes)), options: DecodeOptions())
            let reader = try #require(try header.scanlineReader(options: DecodeOptions()))
            let rowBytes = width * reader.outputFormat.bytesPerPixel
            var buffer = [UInt8](repeating: 0xEE, count: 3 * rowBytes + 64)
            let rows = try buffer.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, maximumRows: 3) }
            #expect(rows == 3)
            #expect(buffer[(3 * rowBytes)...].allSatisfy { $0 == 0xEE }, "\(header.properties.format) of width \(width)")
        }
    }

    static func bmp16(width: Int, height: Int) -> [UInt8] {
        let rowBytes = (width * 2 + 3) / 4 * 4
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        return Array("BM".utf8) + le(54 + rowBytes * height, 4) + le(0, 4) + le(54, 4) + le(40, 4) + le(width, 4) + le(height, 4)
            + le(1, 2) + le(16, 2) + le(0, 24) + (0..<(rowBytes * height)).map { UInt8(truncatingIfNeeded: $0 * 37) }
    }

    /// Data that ends early or is damaged inside fails with a typed error, never a crash.
    @Test(arguments: entries)
    func cutFilesFailCleanly(_ entry: Entry) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.path(entry.file)))
        for length in [20, bytes.count / 2, bytes.count - 1] {
            _ = try? ImageDecoder().decode(.data(bytes.prefix(length)))
        }
        var damaged = bytes
        for index in stride(from: 10, to: damaged.count, by: 7) { damaged[index] ^= 0x5A }
        _ = try? ImageDecoder().decode(.data(damaged))
    }

    private func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<MemoryLayout<T>.size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
