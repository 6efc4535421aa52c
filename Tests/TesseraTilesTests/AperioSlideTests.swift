import Foundation
import TesseraCodecs
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraTiles

/// How an Aperio slide's directories are told apart (levels, thumbnail, label, macro) and what its
/// description says; the pixels and stored bytes are checked against OpenSlide by
/// Tests/Browser/test_slides.py.
@Suite struct AperioSlideTests {
    static func directory(
        _ index: Int, _ width: Int, _ height: Int, tile: Int? = 256, compression: Int = 7, kind: Int = 0, description: String = ""
    ) -> TIFFDirectorySummary {
        TIFFDirectorySummary(
            index: index, size: PixelSize(width: width, height: height), tileSize: tile.map { PixelSize(width: $0, height: $0) },
            compression: compression, subfileType: kind, description: description)
    }

    /// CMU-1.svs's layout: level 0, a stripped thumbnail, levels 4×, 16×, 32× smaller, label, macro.
    static let slide = [
        directory(
            0, 46000, 32914,
            description: "Aperio Image Library v10.0.51\r\n46920x33014 [0,100 46000x32914] (256x256) JPEG/RGB Q=30|AppMag = 20|MPP = 0.4990"),
        directory(1, 1024, 732, tile: nil, description: "Aperio Image Library v10.0.51\r\n46000x32914 -> 1024x732 - "),
        directory(2, 11500, 8228), directory(3, 2875, 2057), directory(4, 1437, 1028),
        directory(5, 387, 463, tile: nil, compression: 5, kind: 1, description: "Aperio Image Library v10.0.51\r\nlabel 387x463"),
        directory(6, 1280, 431, tile: nil, kind: 9, description: "Aperio Image Library v10.0.51\r\nmacro 1280x431"),
    ]

    @Test func theLevelsAreTheTiledDirectoriesEachSmallerThanTheOneBefore() throws {
        #expect(try AperioSlideKind.levelDirectories(Self.slide) == [0, 2, 3, 4].map(TIFFImageAddress.directory))
        // A tiled image of another tiling or compression, or no smaller, is not a level.
        var odd = Self.slide
        odd[3] = Self.directory(3, 2875, 2057, tile: 240)
        odd.append(Self.directory(7, 1437, 1028))
        #expect(try AperioSlideKind.levelDirectories(odd) == [0, 2, 4].map(TIFFImageAddress.directory))
        #expect(try AperioSlideKind.levelDirectories([Self.slide[0]]) == [0].map(TIFFImageAddress.directory))
        // A file claiming thousands of ever smaller levels gets no more than a slide could have.
        let claimed = [Self.slide[0]] + (1..<5000).map { Self.directory($0, 46000 - $0, 32914 - $0) }
        #expect(try AperioSlideKind.levelDirectories(claimed).count == TIFFPyramid.maximumLevelCount)
    }

    @Test func aSlideWhoseTilesCannotBeReadIsRefusedWithAReason() throws {
        // Strips first: no slide to read. JPEG 2000 tiles (Aperio's 33003 and 33005) are read.
        #expect(throws: ImageDecodingError.self) { try AperioSlideKind.levelDirectories([Self.slide[1]]) }
        for compression in [33003, 33005] {
            #expect(
                try AperioSlideKind.levelDirectories([Self.directory(0, 4096, 4096, compression: compression)]) == [0].map(TIFFImageAddress.directory)
            )
        }
        #expect(throws: ImageDecodingError.self) { try AperioSlideKind.levelDirectories([]) }
    }

    @Test func theDescriptionGivesTheScaleWhenItIsOne() {
        let description = AperioDescription(Self.slide[0].description)
        #expect(description?.micronsPerPixel == 0.499)
        #expect(description?.fields["AppMag"] == "20")
        #expect(AperioDescription("Aperio Image Library|MPP = 0.25 ")?.micronsPerPixel == 0.25)
        for value in ["", "abc", "-0.25", "0", "nan", "inf"] {
            #expect(AperioDescription("Aperio|MPP = \(value)")?.micronsPerPixel == nil, "\(value)")
        }
        #expect(AperioDescription("Aperio Image Library")?.micronsPerPixel == nil)
        #expect(AperioDescription("ImageJ=1.52|MPP = 0.25") == nil)
        #expect(AperioDescription("") == nil)
    }

    @Test func aTIFFsDirectoriesAreListedFromTheirTagsAlone() throws {
        let levels = [PixelSize(width: 600, height: 400), PixelSize(width: 300, height: 200)].map { size in
            PixelBuffer(width: size.width, height: size.height, format: .rgb8)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("directories-\(UUID().uuidString).tif").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try TestTIFF.encode(levels, layout: .tiles(128)).write(to: URL(fileURLWithPath: path))
        let directories = try TIFFDirectorySummary.directories(ofFileAt: path)
        #expect(directories.map(\.index) == [0, 1])
        #expect(directories.map(\.size) == levels.map(\.size))
        #expect(directories.allSatisfy { $0.tileSize == PixelSize(width: 128, height: 128) && $0.compression == 1 && $0.description.isEmpty })
        #expect(directories.map(\.subfileType) == [0, 1])
        // No TIFF: a typed error, and no slide.
        try Data("not a tiff at all".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ImageDecodingError.self) { try TIFFDirectorySummary.directories(ofFileAt: path) }
        let input = RegionSourceInput(input: .file(path), identity: try #require(FileIdentity(path: path)), options: DecodeOptions())
        #expect(
            try AperioSlideKind(readers: TIFFReaderPool(readersPerFile: 1)).open(input, header: { throw ImageDecodingError.unknownFormat }) == nil)
    }
}
