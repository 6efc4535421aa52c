import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// A TIFF's JPEG tile made a file any reader takes (what a slide's pass-through sends): the
/// shared tables put back, an RGB coding said by APP14, the profile carried as APP2 chunks.
@Suite struct JPEGTileSpliceTests {
    /// The markers of the segments before the scan, in order.
    static func markers(_ stream: [UInt8]) -> [UInt8] {
        var offset = 2, found: [UInt8] = []
        while offset + 4 <= stream.count, stream[offset] == 0xFF, stream[offset + 1] != 0xDA {
            found.append(stream[offset + 1])
            offset += 2 + (Int(stream[offset + 2]) << 8 | Int(stream[offset + 3]))
        }
        return found
    }

    /// `stream` as a TIFF writer abbreviates it: (JPEGTables, the tile without tables or JFIF header).
    static func abbreviated(_ stream: [UInt8]) -> (tables: [UInt8], tile: [UInt8]) {
        var offset = 2, tables: [UInt8] = [0xFF, 0xD8], tile: [UInt8] = [0xFF, 0xD8]
        while stream[offset + 1] != 0xDA {
            let end = offset + 2 + (Int(stream[offset + 2]) << 8 | Int(stream[offset + 3]))
            switch stream[offset + 1] {
            case 0xDB, 0xC4: tables += stream[offset..<end]
            case 0xE0: break
            default: tile += stream[offset..<end]
            }
            offset = end
        }
        return (tables + [0xFF, 0xD9], tile + stream[offset...])
    }

    static func pixels(_ bytes: [UInt8]) throws -> PixelBuffer {
        try ImageDecoder().decode(.data(Data(bytes))).pixels
    }

    @Test func anAbbreviatedTileWithItsTablesDecodesAsTheWholeStream() throws {
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("jpeg-baseline.jpg"))))
        let (tables, tile) = Self.abbreviated(whole)
        #expect(!Self.markers(tile).contains(0xDB))
        let file = try #require(JPEGTileSplice.file(tile: tile, tables: tables, codedAsRGB: false, profile: nil))
        #expect(Self.markers(file).filter { $0 == 0xDB || $0 == 0xC4 } == Self.markers(whole).filter { $0 == 0xDB || $0 == 0xC4 })
        #expect(try Self.pixels(file) == Self.pixels(whole))
        // A complete tile (no shared tables) is its own file.
        #expect(JPEGTileSplice.file(tile: whole, tables: nil, codedAsRGB: false, profile: nil) == whole)
    }

    @Test func anRGBCodedTileSaysSoOnce() throws {
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("jpeg-baseline.jpg"))))
        let said = try #require(JPEGTileSplice.file(tile: whole, tables: nil, codedAsRGB: true, profile: nil))
        #expect(Self.markers(said).filter { $0 == 0xEE }.count == 1)
        let adobe = try #require(said.firstRange(of: Array("Adobe".utf8)))
        // Version 100, flags 0 0, transform 0: RGB, not YCbCr.
        #expect(Array(said[adobe.upperBound..<(adobe.upperBound + 7)]) == [0x00, 0x64, 0, 0, 0, 0, 0])
        // Said once, not again.
        #expect(JPEGTileSplice.file(tile: said, tables: nil, codedAsRGB: true, profile: nil)?.count == said.count)
    }

    @Test func aProfileTravelsInChunksTheHeaderReadsBack() throws {
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("jpeg-baseline.jpg"))))
        // Longer than one APP2 segment holds (65,519 bytes): two chunks.
        let profile = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let file = try #require(JPEGTileSplice.file(tile: whole, tables: nil, codedAsRGB: false, profile: profile))
        #expect(Self.markers(file).filter { $0 == 0xE2 }.count == 2)
        let header = try JPEGHeader(reading: DataByteStream(data: Data(file)))
        #expect(header.iccProfileData == profile)
        #expect(try Self.pixels(file) == Self.pixels(whole))
    }

    @Test func whatIsNoJPEGIsRefused() {
        let tile: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
        #expect(JPEGTileSplice.file(tile: [0x00, 0x01, 0x02, 0x03], tables: nil, codedAsRGB: false, profile: nil) == nil)
        #expect(JPEGTileSplice.file(tile: tile, tables: [0xFF, 0xD8, 0x00, 0x00], codedAsRGB: false, profile: nil) == nil)
        #expect(JPEGTileSplice.file(tile: [], tables: nil, codedAsRGB: false, profile: nil) == nil)
    }
}
