import Foundation
import RegionTestSupport
import TesseraCodecs
import TesseraCore
import TesseraViewing
import Testing

@testable import TesseraTiles

/// The region core's promise: a level's pixels read from the source, whole or any rectangle of
/// them, are the pixels the pyramid builder stores, so a URL answered before a pyramid exists has
/// the bytes it has after.
@Suite("Reading levels from the source")
struct RegionLevelsTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// A 1203×901 picture with detail everywhere (gradients crossed with a hash), so a wrong row,
    /// column or rounding anywhere shows.
    static func detailedPixels(width: Int = 1203, height: Int = 901) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let hash = (x &* 73_856_093) ^ (y &* 19_349_663)
                bytes[(y * width + x) * 3] = UInt8(truncatingIfNeeded: x * 255 / width + (hash & 31))
                bytes[(y * width + x) * 3 + 1] = UInt8(truncatingIfNeeded: y * 255 / height + ((hash >> 5) & 31))
                bytes[(y * width + x) * 3 + 2] = UInt8(truncatingIfNeeded: (x + y) & 255 ^ ((hash >> 10) & 63))
            }
        }
        return PixelBuffer(width: width, height: height, format: .rgb8, bytes: bytes)
    }

    /// The detailed picture as a JPEG file (4:2:0, so iMCUs are 16×16 and fancy upsampling reads
    /// neighbours across every window edge), baseline or progressive.
    static func detailedJPEG(progressive: Bool) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tessera-levels-\(progressive ? "progressive" : "baseline")-\(UUID().uuidString).jpg"
        ).path
        try ImageEncoder.encode(detailedPixels(), as: .jpeg(quality: 80, progressive: progressive)).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func source(_ name: String) throws -> (ImageSource, cleanup: String?) {
        switch name {
        case "generated-baseline.jpg": let path = try detailedJPEG(progressive: false); return (.file(path), path)
        case "generated-progressive.jpg": let path = try detailedJPEG(progressive: true); return (.file(path), path)
        default: return (.file(fixtures.appendingPathComponent(name).path), nil)
        }
    }

    static let sources = [
        "generated-baseline.jpg", "generated-progressive.jpg", "jpeg-cmyk.jpg", "jpeg-grayscale.jpg", "jpeg-progressive.jpg",
        "photo-400x300.png", "photo-alpha-400x300.png", "png-adam7-rgb-8.png", "png-rgb-16.png", "gif-single.gif",
        "tiff-rgb-strips.tif", "tiff-rgb-tiled.tif", "webp-lossy.webp",
    ]

    @Test("every tile and every rectangle of every level read from the source equals what the builder stores", arguments: sources)
    func agreesWithTheBuilder(name: String) async throws {
        let (source, cleanup) = try Self.source(name)
        defer { cleanup.map { try? FileManager.default.removeItem(atPath: $0) } }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-levels-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let summary = try await PyramidBuilder.build(
            source, name: "p", outputDirectory: output.path,
            options: PyramidOptions(layout: .iiif(tileSize: 64, baseURL: ""), encoding: .png(compressionLevel: 1), jobs: 2))
        let layout = IIIFLayout(imageSize: summary.imageSize, name: "p", tileSize: 64, baseURL: "")
        let properties = try ImageDecoder().probe(source)
        let levels = RegionLevels(DecodedRegionSource(source, properties: properties, options: DecodeOptions()))
        #expect(levels.levelSize(reduction: 0) == summary.imageSize)
        for reduction in 0..<layout.levelCount {
            let whole = try levels.level(reduction)
            #expect(whole.size == layout.levelSize(reduction: reduction))
            if levels.halvesPreviousLevel(reduction) {
                #expect(RegionLevels.halved(try levels.level(reduction - 1)) == whole, "level \(reduction) as a halving")
            }
            for (row, rows) in layout.rowSpans(reduction: reduction).enumerated() {
                for (column, columns) in layout.columnSpans(reduction: reduction).enumerated() {
                    let path = output.appendingPathComponent(layout.tilePath(reduction: reduction, column: column, row: row, fileExtension: "png"))
                        .path
                    let stored = try ImageDecoder().decode(.file(path)).pixels
                    let rect = PixelRect(x: columns.lowerBound, y: rows.lowerBound, width: columns.count, height: rows.count)
                    #expect(whole.cropped(to: rect) == stored, "\(name) level \(reduction) tile \(column),\(row) from the whole level")
                    // Reading every tile of the finest levels alone is the slow part; a diagonal shows a shift.
                    guard reduction > 1 || row == column || row == 0 || column == 0 else { continue }
                    #expect(try levels.pixels(of: rect, reduction: reduction) == stored, "\(name) level \(reduction) tile \(column),\(row)")
                }
            }
            // Rectangles at odd places and of odd sizes, inside and over the edges.
            let size = whole.size
            for (fx, fy, fw, fh) in [(0.37, 0.61, 0.23, 0.17), (0.0, 0.9, 1.0, 0.2), (0.71, 0.0, 0.4, 0.05), (0.5, 0.5, 0.01, 0.01)] {
                let rect = PixelRect(
                    x: Int(fx * Double(size.width)) | 1, y: Int(fy * Double(size.height)) | 1,
                    width: max(1, Int(fw * Double(size.width))), height: max(1, Int(fh * Double(size.height))))
                let clipped = rect.intersection(PixelRect(x: 0, y: 0, width: size.width, height: size.height))
                guard clipped.width > 0, clipped.height > 0 else { continue }
                #expect(try levels.pixels(of: rect, reduction: reduction) == whole.cropped(to: clipped), "\(name) level \(reduction) \(rect)")
            }
        }
    }

    /// An independent 2×2 mean, the last row and column repeated.
    static func halve(_ image: PixelBuffer) -> PixelBuffer {
        let width = (image.width + 1) / 2, height = (image.height + 1) / 2, channels = image.format.bytesPerPixel
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<channels {
                    var sum = 2
                    for sy in [2 * y, min(2 * y + 1, image.height - 1)] {
                        for sx in [2 * x, min(2 * x + 1, image.width - 1)] { sum += Int(image.bytes[(sy * image.width + sx) * channels + channel]) }
                    }
                    bytes[(y * width + x) * channels + channel] = UInt8(sum / 4)
                }
            }
        }
        return PixelBuffer(width: width, height: height, format: image.format, bytes: bytes)
    }

    @Test(
        "a JPEG's levels are its DCT-scaled decodes (1/2, 1/4, 1/8), halved below 1/8; other formats' are halvings of the full decode",
        arguments: ["generated-baseline.jpg", "jpeg-cmyk.jpg", "photo-400x300.png"])
    func levelDefinition(name: String) throws {
        let (source, cleanup) = try Self.source(name)
        defer { cleanup.map { try? FileManager.default.removeItem(atPath: $0) } }
        let properties = try ImageDecoder().probe(source)
        let levels = RegionLevels(DecodedRegionSource(source, properties: properties, options: DecodeOptions()))
        var halved = try ImageDecoder().decode(source).pixels
        for reduction in 0...6 {
            let size = levels.levelSize(reduction: reduction)
            var expected: PixelBuffer
            if name.hasSuffix(".jpg") && reduction <= 3 {
                expected = try ImageDecoder(options: DecodeOptions(minimumSize: size)).decode(source).pixels
                halved = expected
            } else {
                expected = halved
            }
            #expect(expected.size == size)
            #expect(try levels.level(reduction) == expected, "\(name) level \(reduction)")
            halved = Self.halve(halved)
        }
    }

    @Test("the cost of a region says what a read decodes: JPEG passes over the rows above, PNG decodes them")
    func costs() throws {
        let (jpeg, cleanup) = try Self.source("generated-baseline.jpg")
        defer { cleanup.map { try? FileManager.default.removeItem(atPath: $0) } }
        let jpegLevels = RegionLevels(DecodedRegionSource(jpeg, properties: try ImageDecoder().probe(jpeg), options: DecodeOptions()))
        let corner = PixelRect(x: 1100, y: 800, width: 103, height: 101)
        #expect(jpegLevels.cost(of: corner, reduction: 0) == RegionCost(decodedPixelCount: 103 * 101, rowsPassedOver: 800))
        // Level 4 is the 1/8 decode halved once: its rectangle doubles.
        #expect(
            jpegLevels.cost(of: PixelRect(x: 10, y: 10, width: 5, height: 5), reduction: 4)
                == RegionCost(decodedPixelCount: 100, rowsPassedOver: 20))
        let png = ImageSource.file(Self.fixtures.appendingPathComponent("photo-400x300.png").path)
        let pngLevels = RegionLevels(DecodedRegionSource(png, properties: try ImageDecoder().probe(png), options: DecodeOptions()))
        #expect(
            pngLevels.cost(of: PixelRect(x: 0, y: 100, width: 10, height: 50), reduction: 0)
                == RegionCost(decodedPixelCount: 400 * 150, rowsPassedOver: 100))
    }

    /// Levels of a source whose native levels are not halvings: with 4× steps (an Aperio slide)
    /// levels 2 and 4 are stored and 1 and 3 are them halved; with 3× steps (an OME-TIFF written
    /// so) only level 1 is a halving, the others resampled from the finest native level at most
    /// as small, never from a coarser one.
    @Test("levels of 3× and 4× native steps: which native level makes each, their sizes and pixels")
    func levelsOfOtherSteps() throws {
        let size = PixelSize(width: 1500, height: 1000)
        let fours = RegionLevels(SteppedSource(size: size, step: 4, levelCount: 3, tileSide: 128))
        #expect((0...5).map { fours.derivation(of: $0).level } == [0, 0, 1, 1, 2, 2])
        #expect((0...5).map { fours.derivation(of: $0).halvings } == [0, 1, 0, 1, 0, 1])
        #expect((0...5).map { fours.isNative($0) } == [true, false, true, false, true, false])
        #expect(fours.halvesPreviousLevel(3) && !fours.halvesPreviousLevel(2))
        #expect(fours.levelSizes(count: 6) == (0...5).map { RegionLevels.levelSize(of: size, reduction: $0) })
        let quarter = (fours.source as? SteppedSource)?.levelPixels(1)
        let rect = PixelRect(x: 100, y: 60, width: 150, height: 100)
        #expect(try fours.pixels(of: rect, reduction: 2) == quarter?.cropped(to: rect))
        let eighth = PixelRect(x: 30, y: 20, width: 120, height: 90)
        #expect(try fours.pixels(of: eighth, reduction: 3) == quarter.map(RegionLevels.halved)?.cropped(to: eighth))

        let threes = RegionLevels(SteppedSource(size: size, step: 3, levelCount: 3, tileSide: 128))
        #expect((0...5).map { threes.derivation(of: $0).level } == [0, 0, 1, 1, 2, 2])
        #expect((0...5).map { threes.derivation(of: $0).halvings } == [0, 1, nil, nil, nil, nil])
        // A resampled level has the size of the rule, not of its native level's.
        #expect(threes.levelSize(reduction: 2) == PixelSize(width: 375, height: 250))
        #expect(threes.levelSize(reduction: 4) == PixelSize(width: 94, height: 63))
        let whole = try threes.level(2)
        let third = try #require((threes.source as? SteppedSource)?.levelPixels(1))
        #expect(whole == LanczosResampler.resize(BoxShrinker.reduce(third, toward: whole.size), to: whole.size))
        // A region of it, and each tile, is read from the block of the native level its filter
        // reaches: exactly that part of the whole level, so tiles meet without a seam.
        #expect(try threes.pixels(of: rect, reduction: 2) == whole.cropped(to: rect))
        for (x, y) in [(0, 0), (128, 0), (256, 128)] {
            let tile = PixelRect(x: x, y: y, width: min(128, whole.width - x), height: min(128, whole.height - y))
            #expect(try threes.pixels(of: tile, reduction: 2) == whole.cropped(to: tile), "tile at \(x),\(y)")
        }
        // Level 6 is 7× smaller than the ninth: box-filtered by 3 first, whole and in part.
        let coarse = try threes.level(6)
        let ninth = try #require((threes.source as? SteppedSource)?.levelPixels(2))
        #expect(coarse == LanczosResampler.resize(BoxShrinker.reduce(ninth, toward: coarse.size), to: coarse.size))
        #expect(BoxShrinker.factors(from: ninth.size, toward: coarse.size) == (3, 3))
        let corner = PixelRect(x: 5, y: 3, width: 12, height: 9)
        #expect(try threes.pixels(of: corner, reduction: 6) == coarse.cropped(to: corner))
        // Native 3× levels have no halving between them: a region passes over nothing to reach its rows.
        #expect(threes.cost(of: rect, reduction: 3).rowsPassedOver == 0)
    }
}
