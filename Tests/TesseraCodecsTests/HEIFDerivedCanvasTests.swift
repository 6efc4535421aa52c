import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// The canvases of HEIF's derived images (`grid`, `iovl`), read before libheif allocates them.
@Suite("HEIF derived canvases")
struct HEIFDerivedCanvasTests {
    /// FuzzDecodeHEIF's 4.5 KB HEIC: its primary item is an overlay whose `ispe` says 64×64 and
    /// whose `iovl` data says 23150×14650, which libheif 1.15 allocated as three 339 MB planes
    /// (about 1 GB resident). Probing still reports what the file claims; decoding and thumbnailing
    /// refuse the canvas before libheif sees it.
    @Test func anOverlayCanvasOverTheLimitIsRefusedBeforeDecoding() throws {
        let source = ImageSource.file(Fixtures.path("fuzz/heic-overlay-canvas-339mp.heic"))
        #expect(try ImageDecoder().probe(source).size == PixelSize(width: 64, height: 64))
        let tooLarge: (any Error) -> Bool = { error in
            guard case ImageDecodingError.tooLarge(let pixels, _) = error else { return false }
            return pixels == 23150 * 14650
        }
        #expect(throws: Never.self) { _ = try ImageDecoder().probe(source) }
        #expect(performing: { try ImageDecoder().decode(source) }, throws: tooLarge)
        #expect(performing: { try Thumbnailer().thumbnail(source, options: ThumbnailOptions(maxPixelSize: 64)) }, throws: tooLarge)
    }

    @Test func aGridInItemDataAndAnOverlayInTheFileAreBothRead() throws {
        // grid: version 0, flags 0 (16-bit sizes), 2 rows, 3 columns, 3000×2000; kept in idat.
        let grid: [UInt8] = [0, 0, 1, 2] + Self.be(3000, 2) + Self.be(2000, 2)
        // iovl: version 0, flags 1 (32-bit sizes), four fill values, 70000×500; after the meta box.
        let overlay: [UInt8] = [0, 1] + [UInt8](repeating: 0xFF, count: 8) + Self.be(70000, 4) + Self.be(500, 4)
        let file = Self.heif(items: [(1, "grid", .idat(grid)), (2, "iovl", .file(overlay)), (3, "hvc1", .file([1, 2, 3]))])
        let canvases = HEIFDerivedCanvases(reading: DataByteStream(data: file))
        #expect(Set(canvases.sizes.map { [$0.width, $0.height] }) == [[3000, 2000], [70000, 500]])
        #expect(throws: Never.self) { try canvases.check(AllocationLimits(maximumPixelCount: 35_000_000)) }
        #expect(
            performing: { try canvases.check(AllocationLimits(maximumPixelCount: 34_999_999)) },
            throws: { error in
                guard case ImageDecodingError.tooLarge(let pixels, _) = error else { return false }
                return pixels == 35_000_000
            })
    }

    /// Whatever the bytes, the reader ends: every prefix of a valid file and a few corruptions of
    /// it give some canvases or none, never a trap.
    @Test func damagedBoxesGiveNoCanvasesAndNoTrap() {
        let grid: [UInt8] = [0, 0, 0, 0] + Self.be(640, 2) + Self.be(480, 2)
        let file = Self.heif(items: [(7, "grid", .file(grid))])
        #expect(HEIFDerivedCanvases(reading: DataByteStream(data: file)).sizes == [PixelSize(width: 640, height: 480)])
        for length in stride(from: 0, to: file.count, by: 3) {
            let sizes = HEIFDerivedCanvases(reading: DataByteStream(data: file.prefix(length))).sizes
            #expect(sizes.isEmpty || sizes == [PixelSize(width: 640, height: 480)])
        }
        for index in stride(from: 0, to: file.count, by: 5) {
            var damaged = file
            damaged[index] = 0xFF
            _ = HEIFDerivedCanvases(reading: DataByteStream(data: damaged)).sizes
        }
    }

    // MARK: - Building ISO-BMFF

    enum Place {
        case idat([UInt8])
        case file([UInt8])
    }

    /// `ftyp`, then `meta` with `iinf` (version 2 `infe` entries), `iloc` (version 1: construction
    /// method 1 for data in `idat`, 0 for data after `meta`, at absolute offsets) and `idat`, then
    /// the file-placed data.
    static func heif(items: [(id: Int, type: String, data: Place)]) -> Data {
        let ftyp = box("ftyp", Array("heic".utf8) + be(0, 4) + Array("mif1heic".utf8))
        let infes = items.map { box("infe", [2, 0, 0, 0] + be($0.id, 2) + be(0, 2) + Array($0.type.utf8) + [0]) }
        let iinf = box("iinf", [0, 0, 0, 0] + be(items.count, 2) + infes.flatMap { $0 })
        let idatData = items.flatMap { item -> [UInt8] in if case .idat(let bytes) = item.data { bytes } else { [] } }
        let fileData = items.flatMap { item -> [UInt8] in if case .file(let bytes) = item.data { bytes } else { [] } }
        func meta(fileStart: Int) -> [UInt8] {
            var entries: [UInt8] = []
            var idatOffset = 0, fileOffset = fileStart
            for item in items {
                let (method, offset, length): (Int, Int, Int)
                switch item.data {
                case .idat(let bytes): (method, offset, length) = (1, idatOffset, bytes.count); idatOffset += bytes.count
                case .file(let bytes): (method, offset, length) = (0, fileOffset, bytes.count); fileOffset += bytes.count
                }
                entries += be(item.id, 2) + be(method, 2) + be(0, 2) + be(1, 2) + be(offset, 4) + be(length, 4)
            }
            // version 1, offset and length 4 bytes, no base offset, no index
            let iloc = box("iloc", [1, 0, 0, 0, 0x44, 0x00] + be(items.count, 2) + entries)
            return box("meta", [0, 0, 0, 0] + iinf + iloc + box("idat", idatData))
        }
        let metaLength = meta(fileStart: 0).count
        return Data(ftyp + meta(fileStart: ftyp.count + metaLength) + fileData)
    }

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be(8 + body.count, 4) + Array(type.utf8) + body }

    static func be(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - $0))) }
    }
}
