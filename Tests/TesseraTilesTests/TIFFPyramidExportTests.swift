import Foundation
import RegionTestSupport
import TesseraCodecs
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraTiles

/// A source written as a pyramidal TIFF (`tessera convert … out.tif`) reads back, through the
/// kinds that serve such files, as the levels the source gives: OME-TIFF with the scale kept, or a
/// pyramid in the main chain.
@Suite struct TIFFPyramidExportTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).tif").path
    }

    /// `path` opened by `kind`, and every level of it equal to `levels`' level of the same reduction.
    static func expectSameLevels(_ path: String, kind: any RegionSourceKind, as levels: RegionLevels, count: Int) throws -> any RegionSource {
        let identity = try #require(FileIdentity(path: path))
        let input = RegionSourceInput(input: .file(path), identity: identity, options: DecodeOptions())
        let opened = try #require(try kind.open(input) { try ImageDecoder().probe(.file(path)) })
        #expect(opened.nativeLevels.map(\.size) == levels.levelSizes(count: count))
        #expect(opened.nativeLevels.map(\.downsample) == (0..<count).map { 1 << $0 })
        for reduction in 0..<count {
            #expect(try RegionLevels(opened).level(reduction) == levels.level(reduction), "level \(reduction)")
        }
        return opened
    }

    @Test func aSourceWithAScaleBecomesAnOMETIFFThatKeepsIt() throws {
        let source = SteppedSource(size: PixelSize(width: 1000, height: 700), step: 4, levelCount: 3, tileSide: 128, micronsPerPixel: 0.5)
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try TIFFPyramidExport.write(RegionLevels(source), to: path, compression: .deflate)
        // 1000 → 500 → 250: the first level within one tile ends it.
        let opened = try Self.expectSameLevels(
            path, kind: OMETIFFKind(readers: TIFFReaderPool(readersPerFile: 1)), as: RegionLevels(source), count: 3)
        #expect(opened.micronsPerPixel == 0.5)
        // One image in the main chain; the reduced levels are its SubIFDs.
        #expect(try TIFFDirectorySummary.directories(ofFileAt: path).count == 1)
    }

    @Test func aSourceWithoutOneBecomesAPyramidInTheMainChain() throws {
        let source = SteppedSource(size: PixelSize(width: 600, height: 1100), step: 3, levelCount: 2, tileSide: 256)
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try TIFFPyramidExport.write(RegionLevels(source), to: path, tileSide: 128, compression: .deflate)
        _ = try Self.expectSameLevels(path, kind: TIFFPyramidKind(readers: TIFFReaderPool(readersPerFile: 1)), as: RegionLevels(source), count: 5)
        let directories = try TIFFDirectorySummary.directories(ofFileAt: path)
        #expect(directories.map(\.subfileType) == [0, 1, 1, 1, 1])
        #expect(
            directories.allSatisfy { $0.tileSize == PixelSize(width: 128, height: 128) && $0.compression == 8 && !$0.description.contains("OME") })
    }

    @Test func aDecodedImageIsWrittenFromItsWholeLevelsAndJPEGIsClose() throws {
        let image = SteppedSource(size: PixelSize(width: 700, height: 500), step: 2, levelCount: 1, tileSide: 700).levelPixels(0)
        let png = Self.temporaryPath() + ".png", path = Self.temporaryPath()
        defer { for file in [png, path] { try? FileManager.default.removeItem(atPath: file) } }
        try ImageEncoder.encode(image, as: .png(compressionLevel: 1)).write(to: URL(fileURLWithPath: png))
        let levels = try RegionSourceKinds.levels(ofFileAt: png, kinds: [])
        // A PNG passes over the rows above a band: read whole, once per level.
        #expect(levels.cost(of: PixelRect(x: 0, y: 256, width: 700, height: 244), reduction: 0).rowsPassedOver > 0)
        try TIFFPyramidExport.write(levels, to: path, compression: .jpeg(quality: 90))
        let pyramid = try #require(try TIFFPyramid(path: path))
        #expect(pyramid.levelSizes == levels.levelSizes(count: 3))
        let tile = try pyramid.tile(level: 0, column: 1, row: 1)
        let expected = try #require(image.cropped(to: PixelRect(x: 256, y: 256, width: 256, height: 244)))
        #expect(psnr(tile, expected) >= 30)  // 4:2:0 takes the blue hash's finest detail
    }

    @Test func whatATIFFCannotHoldIsRefusedBeforeAnyIsWritten() throws {
        let path = Self.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sizes = [PixelSize(width: 300, height: 200), PixelSize(width: 150, height: 100)]
        #expect(throws: ImageEncodingError.self) {
            try TIFFPyramidWriter(path: path, levelSizes: sizes, format: .rgba8, compression: .jpeg(quality: 80), layout: .chain)
        }
        #expect(throws: ImageEncodingError.self) {
            try TIFFPyramidWriter(path: path, levelSizes: sizes.reversed(), format: .rgb8, compression: .deflate, layout: .chain)
        }
        #expect(throws: ImageEncodingError.self) {
            try TIFFPyramidWriter(path: path, levelSizes: sizes, format: .rgb8, tileSide: 100, compression: .deflate, layout: .chain)
        }
        #expect(throws: ImageEncodingError.self) {
            try TIFFPyramidWriter(path: path, levelSizes: sizes, format: .rgb8, compression: .deflate, layout: .ome(micronsPerPixel: .nan))
        }
        // Tiles out of order or of the wrong size; a file finished before its levels.
        let writer = try TIFFPyramidWriter(path: path, levelSizes: sizes, format: .gray8, compression: .deflate, layout: .chain)
        #expect(throws: ImageEncodingError.self) {
            try writer.write(PixelBuffer(width: 150, height: 100, format: .gray8), level: 1, column: 0, row: 0)
        }
        #expect(throws: ImageEncodingError.self) {
            try writer.write(PixelBuffer(width: 200, height: 200, format: .gray8), level: 0, column: 0, row: 0)
        }
        #expect(throws: ImageEncodingError.self) { try writer.finish() }
    }
}
