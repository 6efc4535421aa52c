#if canImport(Glibc)
    import Foundation
    import Testing

    /// Files of a few hundred bytes whose headers claim gigapixels, huge strips or huge chunks, run
    /// through `tessera info` and `tessera thumbnail` as a user would: each must fail with one line
    /// naming the file, a non-zero exit and little memory, never a trap.
    @Suite("Hostile headers on the command line")
    struct HostileHeaderTests {
        static let giant = (width: 65535, height: 65535)

        /// Each file's name says what its header claims.
        static let files: [(name: String, bytes: [UInt8])] = [
            ("png-65535x65535-4-bytes-of-data.png", png(width: giant.width, height: giant.height)),
            ("png-40000x40000-gigapixels-4-bytes-of-data.png", png(width: 40000, height: 40000)),
            ("png-ihdr-crc-wrong.png", png(width: 4, height: 3, ihdrCRC: 0)),
            (
                "tiff-65535x900-strip-past-the-end.tif",
                tiff(width: 65535, height: 900, samples: 3, extraTags: [273: 200, 279: 65535 * 900 * 3])
            ),
            (
                "tiff-65535x65535-tile-of-40-samples.tif",
                tiff(width: 65535, height: 900, samples: 40, extraTags: [322: 65535, 323: 65535, 324: 200, 325: 1000])
            ),
            (
                "tiff-65535x900-deflate-strip-of-10-bytes.tif",
                tiff(width: 65535, height: 900, samples: 3, extraTags: [259: 8, 273: 200, 279: 10])
            ),
            ("gif-65535x65535-screen-1x1-frame.gif", gif(screen: giant, frame: (1, 1))),
            ("gif-65535x65535-frame-2-bytes-of-data.gif", gif(screen: giant, frame: giant)),
            ("webp-65535x65535-canvas-1x1-image.webp", webp([vp8x(giant, flags: 0), vp8l(1, 1)])),
            ("webp-65535x65535-animation-1x1-frame.webp", webp([vp8x(giant, flags: 0x02), anmf(1, 1)])),
            ("webp-riff-of-2-gb.webp", webp([vp8l(1, 1)], riffSize: 0x7FFF_FFF0)),
            ("webp-exif-chunk-of-2-gb.webp", webp([vp8l(1, 1), chunk("EXIF", [], length: 0x7FFF_FF00)])),
            ("bmp-65535x65535-64-bytes-of-data.bmp", bmp(width: giant.width, height: giant.height)),
            ("bmp-16000x16000-64-bytes-of-data.bmp", bmp(width: 16000, height: 16000)),
            ("ico-entry-of-65535x65535.ico", icon(bmp(width: giant.width, height: 2 * giant.height).dropFirst(14))),
            ("pam-9000x9000-rgba-3-bytes-of-data.pam", Array("P7\nWIDTH 9000\nHEIGHT 9000\nDEPTH 4\nMAXVAL 255\nENDHDR\n".utf8) + [1, 2, 3]),
            (
                "tga-rle-16000x16000-64-bytes-of-data.tga",
                [0, 0, 10] + [UInt8](repeating: 0, count: 9) + littleEndian(16000, 2) + littleEndian(16000, 2) + [24, 0]
                    + [UInt8](repeating: 0xFF, count: 64)
            ),
        ]

        @Test(
            "info and thumbnail: non-zero exit, one stderr line naming the file, under 64 MiB resident",
            arguments: files.map(\.name))
        func hostileFile(name: String) throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-hostile-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let input = directory.appendingPathComponent(name).path
            try Data(Self.files.first { $0.name == name }!.bytes).write(to: URL(fileURLWithPath: input))
            let output = directory.appendingPathComponent("thumbnail.png").path
            for arguments in [["info", input], ["thumbnail", input, "--max-pixel-size", "256", "--output", output]] {
                let result = try CLI.run(arguments)
                #expect(result.status != 0, "\(arguments[0])")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].contains(name), "\(arguments[0]): \(result.stderr)")
                let measured = try CLI.measure(arguments)
                #expect(measured.status != 0, "\(arguments[0])")
                CLI.expectResident(measured.peakResidentBytes, arguments[0])
            }
            #expect(!FileManager.default.fileExists(atPath: output))
        }

        @Test("a 1 GB LZMA strip of 10 bytes fails the thumbnail in the pages the decoder wrote, not the strip's")
        func unboundedCompression() throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-hostile-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            // LZMA has no useful bound on how far it expands, so the header passes; the strip and the
            // band are allocated, but only touched as far as libtiff decodes before it fails.
            let name = "tiff-16000x16000-rgba-lzma-strip-of-10-bytes.tif"
            let input = directory.appendingPathComponent(name).path
            let bytes = Self.tiff(width: 16000, height: 16000, samples: 4, extraTags: [259: 34925, 273: 200, 279: 10, 338: 2])
            try Data(bytes).write(to: URL(fileURLWithPath: input))
            let arguments = ["thumbnail", input, "--max-pixel-size", "256", "--output", directory.appendingPathComponent("t.png").path]
            let result = try CLI.run(arguments)
            #expect(result.status != 0)
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(name), "\(result.stderr)")
            let measured = try CLI.measure(arguments)
            CLI.expectResident(measured.peakResidentBytes)
        }

        // MARK: Writing headers

        static func png(width: Int, height: Int, ihdrCRC: UInt32? = nil, chunks: [[UInt8]] = []) -> [UInt8] {
            let ihdr = bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
            return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr, crc: ihdrCRC)
                + chunks.joined() + pngChunk("IDAT", [0x78, 0x01, 0x03, 0x00]) + pngChunk("IEND", [])
        }

        static func pngChunk(_ type: String, _ data: [UInt8], crc: UInt32? = nil) -> [UInt8] {
            let body = Array(type.utf8) + data
            var computed = UInt32.max
            for byte in body {
                computed ^= UInt32(byte)
                for _ in 0..<8 { computed = computed & 1 == 1 ? (computed >> 1) ^ 0xEDB8_8320 : computed >> 1 }
            }
            return bigEndian(data.count) + body + bigEndian(Int(crc ?? ~computed))
        }

        /// A 262-byte little-endian TIFF: 8-bit samples, uncompressed unless `extraTags` say otherwise.
        static func tiff(width: Int, height: Int, samples: Int, extraTags: [Int: Int]) -> [UInt8] {
            let tags = [256: width, 257: height, 258: 8, 259: 1, 262: samples >= 3 ? 2 : 1, 277: samples, 284: 1]
                .merging(extraTags) { $1 }
            var bytes: [UInt8] = [0x49, 0x49, 42, 0] + littleEndian(8, 4) + littleEndian(tags.count, 2)
            for (tag, value) in tags.sorted(by: { $0.key < $1.key }) {
                let type = [258, 259, 262, 277, 284, 338].contains(tag) ? 3 : 4  // SHORT or LONG
                bytes += littleEndian(tag, 2) + littleEndian(type, 2) + littleEndian(1, 4) + littleEndian(value, 4)
            }
            bytes += littleEndian(0, 4)
            return bytes + [UInt8](repeating: 0, count: 262 - bytes.count)
        }

        static func gif(screen: (width: Int, height: Int), frame: (width: Int, height: Int)) -> [UInt8] {
            Array("GIF89a".utf8) + littleEndian(screen.width, 2) + littleEndian(screen.height, 2)
                + [0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x2C, 0, 0, 0, 0]
                + littleEndian(frame.width, 2) + littleEndian(frame.height, 2) + [0, 2, 2, 0x4C, 0x01, 0, 0x3B]
        }

        static func webp(_ chunks: [[UInt8]], riffSize: Int? = nil) -> [UInt8] {
            let body = Array("WEBP".utf8) + chunks.joined()
            return Array("RIFF".utf8) + littleEndian(riffSize ?? body.count, 4) + body
        }

        static func chunk(_ fourCC: String, _ data: [UInt8], length: Int? = nil) -> [UInt8] {
            Array(fourCC.utf8) + littleEndian(length ?? data.count, 4) + data + (data.count % 2 == 1 ? [0] : [])
        }

        static func vp8x(_ canvas: (width: Int, height: Int), flags: UInt8) -> [UInt8] {
            chunk("VP8X", [flags, 0, 0, 0] + littleEndian(canvas.width - 1, 3) + littleEndian(canvas.height - 1, 3))
        }

        /// A VP8L header stating the size, and a few bytes that are no image.
        static func vp8l(_ width: Int, _ height: Int) -> [UInt8] {
            chunk("VP8L", [0x2F] + littleEndian((width - 1) | (height - 1) << 14, 4) + [0, 0, 0])
        }

        static func anmf(_ width: Int, _ height: Int) -> [UInt8] {
            chunk(
                "ANMF",
                [0, 0, 0, 0, 0, 0] + littleEndian(width - 1, 3) + littleEndian(height - 1, 3) + [0, 0, 0, 0]
                    + vp8l(width, height))
        }

        /// A 24-bit BMP (info header) stating the size, and 64 bytes of pixels.
        static func bmp(width: Int, height: Int) -> [UInt8] {
            Array("BM".utf8) + littleEndian(0, 8) + littleEndian(54, 4) + littleEndian(40, 4) + littleEndian(width, 4)
                + littleEndian(height, 4) + littleEndian(1, 2) + littleEndian(24, 2) + littleEndian(0, 24) + [UInt8](repeating: 0x55, count: 64)
        }

        /// An icon of one entry holding `entry` (a DIB, whose height counts the AND mask).
        static func icon(_ entry: some Collection<UInt8>) -> [UInt8] {
            [0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 24, 0] + littleEndian(entry.count, 4) + littleEndian(22, 4) + Array(entry)
        }

        static func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }

        static func littleEndian(_ value: Int, _ count: Int) -> [UInt8] {
            (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        }
    }
#endif
