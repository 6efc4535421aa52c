import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraCodecs

/// JPEG 2000 through OpenJPEG: the fixtures of scripts/make-jp2-fixtures.py, decoded whole, at every
/// resolution level and by region, against OpenJPEG's own `opj_decompress`.
@Suite struct JPEG2000Tests {
    static func path(_ name: String) -> String { Fixtures.path("jpeg2000/" + name) }

    /// `opj_decompress` of `file` (at `reduction`, of `area` on the full-resolution grid), as PNG,
    /// decoded by Tessera's PNG reader (16-bit samples to their high byte, as the JPEG 2000 reader
    /// reduces them).
    static func reference(_ file: String, reduction: Int = 0, area: PixelRect? = nil) throws -> PixelBuffer {
        try reference(atPath: path(file), reduction: reduction, area: area)
    }

    static func reference(atPath input: String, reduction: Int = 0, area: PixelRect? = nil) throws -> PixelBuffer {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("opj-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/opj_decompress")
        var arguments = ["-i", input, "-o", output, "-r", String(reduction), "-quiet"]
        // Subsampled components stretched to the image's grid (the tool refuses that with a reduction).
        if reduction == 0 { arguments.append("-upsample") }
        if let area { arguments += ["-d", "\(area.x),\(area.y),\(area.x + area.width),\(area.y + area.height)"] }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "opj_decompress failed on \(input)")
        var options = DecodeOptions()
        options.colorManagement = .keepSourceProfile
        return try ImageDecoder(options: options).decode(.file(output)).pixels
    }

    /// The rows of `window` (all of the level when nil) at `reduction`, as Tessera's row reader gives them.
    static func rows(_ file: String, reduction: Int = 0, window: PixelRect? = nil) throws -> PixelBuffer {
        var options = DecodeOptions()
        options.colorManagement = .keepSourceProfile
        let reader = try ImageRowReader(.file(path(file)), options: options, reduction: reduction)
        #expect(reader.rowReduction == reduction)
        let rect = window ?? PixelRect(x: 0, y: 0, width: reader.rowSize.width, height: reader.rowSize.height)
        var buffer = PixelBuffer(width: rect.width, height: rect.height, format: reader.format)
        var y = 0
        let rowBytes = rect.width * reader.format.bytesPerPixel
        try buffer.bytes.withUnsafeMutableBufferPointer { target in
            try reader.forEachRow(in: rect) { row in
                #expect(row.count == rowBytes)
                (target.baseAddress! + y * rowBytes).update(from: row.baseAddress!, count: rowBytes)
                y += 1
            }
        }
        #expect(y == rect.height)
        return buffer
    }

    @Test func probesTheCodestreamsLayoutFromItsHeaders() throws {
        let tiled = try ImageDecoder().probe(.file(Self.path("lossy-tiled.jp2")))
        #expect(tiled.format == .jp2)
        #expect(tiled.size == PixelSize(width: 256, height: 192))
        #expect(tiled.decodedFormat == .rgb8)
        let layout = try #require(tiled.jpeg2000)
        #expect(layout.tileSize == PixelSize(width: 64, height: 64))
        #expect(layout.tileColumns == 4 && layout.tileRows == 3)
        #expect(layout.resolutionLevels == 5)
        #expect(layout.progressionOrder == "RPCL")
        #expect(!layout.isReversible && !layout.isRawCodestream && !layout.isHighThroughput)
        #expect(tiled.decoderReductions == 4)

        let precincts = try #require(try ImageDecoder().probe(.file(Self.path("precincts.j2k"))).jpeg2000)
        #expect(precincts.isRawCodestream)
        #expect(precincts.qualityLayers == 3)
        #expect(precincts.progressionOrder == "LRCP")
        // Coarsest resolution first: `-c [64,64],[32,32]` gives the finest two, halved for each coarser one.
        #expect(precincts.precinctSizes.last == PixelSize(width: 64, height: 64))
        #expect(precincts.precinctSizes.first == PixelSize(width: 8, height: 8))

        let gray = try ImageDecoder().probe(.file(Self.path("gray16.jp2")))
        #expect(gray.bitsPerComponent == 16 && gray.colorModel == .gray && gray.decodedFormat == .gray8)
        #expect(try ImageDecoder().probe(.file(Self.path("rgba.jp2"))).decodedFormat == .rgba8)
        let ht = try ImageDecoder().probe(.file(Self.path("htj2k.j2c")))
        #expect(ht.format == .j2k && ht.jpeg2000?.isHighThroughput == true)
        let icc = try ImageDecoder().probe(.file(Self.path("icc.jp2")))
        #expect(icc.iccProfile != nil)
    }

    /// The same library decodes both, so Tessera's conversion of its samples must add nothing.
    @Test(arguments: ["lossless-rgb.jp2", "lossy-tiled.jp2", "precincts.j2k", "gray16.jp2", "rgba.jp2", "htj2k.j2c"])
    func decodesAsOpenJPEGsOwnToolDoes(_ file: String) throws {
        let ours = try Self.rows(file)
        let theirs = try Self.reference(file)
        #expect(ours.size == theirs.size)
        #expect(ours.format == theirs.format)
        #expect(maximumDifference(ours, theirs) == 0)
    }

    @Test func turnsSubsampledYCCIntoRGB() throws {
        let ours = try Self.rows("subsampled.j2k")
        let theirs = try Self.reference("subsampled.j2k")
        // opj_decompress rounds its YCC conversion in integers, Tessera in floating point.
        #expect(maximumDifference(ours, theirs) <= 1)
    }

    @Test func convertsAnEmbeddedProfileToSRGB() throws {
        let converted = try ImageDecoder().decode(.file(Self.path("icc.jp2")))
        let stored = try Self.rows("icc.jp2")
        #expect(converted.iccProfile == nil)
        // Adobe RGB to sRGB moves saturated colours: the conversion happened…
        #expect(maximumDifference(converted.pixels, stored) > 8)
        // …and matches OpenJPEG's tool, which applies the profile through LittleCMS too.
        #expect(psnr(converted.pixels, try Self.reference("icc.jp2")) >= 45)
    }

    /// Every resolution level decoded by the codestream itself, and regions of each, tile-aligned
    /// or not, equal to the whole level cropped and to opj_decompress's decode of that area.
    @Test(arguments: ["lossy-tiled.jp2", "precincts.j2k", "htj2k.j2c"])
    func decodesRegionsAtEveryResolutionLevel(_ file: String) throws {
        let properties = try ImageDecoder().probe(.file(Self.path(file)))
        for reduction in 0...properties.decoderReductions {
            let level = try Self.rows(file, reduction: reduction)
            let step = 1 << reduction
            #expect(level.size == PixelSize(width: (properties.size.width + step - 1) / step, height: (properties.size.height + step - 1) / step))
            #expect(maximumDifference(level, try Self.reference(file, reduction: reduction)) == 0, "level \(reduction)")
            let windows = [
                PixelRect(x: 0, y: 0, width: max(1, level.width / 2), height: max(1, level.height / 3)),
                PixelRect(x: level.width / 3, y: level.height / 4, width: max(1, level.width / 2), height: max(1, level.height / 2)),
                PixelRect(x: level.width - 1, y: level.height - 1, width: 1, height: 1),
            ]
            for window in windows {
                let region = try Self.rows(file, reduction: reduction, window: window)
                let cut = try #require(level.cropped(to: window))
                #expect(maximumDifference(region, cut) == 0, "level \(reduction), \(window)")
            }
        }
        // A full-resolution area, as `opj_decompress -d` decodes it (but for HTJ2K, whose area
        // decode is wrong in OpenJPEG 2.5.0: Tessera decodes its whole levels and cuts them).
        guard properties.jpeg2000?.isHighThroughput == false else { return }
        let area = PixelRect(x: 37, y: 21, width: 90, height: 70)
        #expect(maximumDifference(try Self.rows(file, window: area), try Self.reference(file, area: area)) == 0)
    }

    /// A window read in several bands (each its own decode) is the same as one read in one.
    @Test(arguments: ["lossy-tiled.jp2", "precincts.j2k"])
    func readsInBandsAsInOne(_ file: String) throws {
        let source = ImageSource.file(Self.path(file))
        let stream = try source.openStream()
        let header = try JP2Header(reading: stream, limits: DecodeOptions().limits)
        var options = DecodeOptions()
        options.colorManagement = .keepSourceProfile
        let window = PixelRect(x: 10, y: 5, width: 150, height: 140)
        let banded = try JP2ScanlineReader(source: source, header: header, profile: nil, options: options, window: window, bandByteBudget: 1)
        let whole = try JP2ScanlineReader(source: source, header: header, profile: nil, options: options, window: window)
        #expect(maximumDifference(try banded.readAll(), try whole.readAll()) == 0)
    }

    /// Layouts of OpenJPEG's conformance suite that Tessera once refused: every component
    /// subsampled with the image off the grid's origin (as e2_colr, zoo2), one gray component at
    /// half width (p1_01), sixteen 3×3 tiles (p1_06), a reserved lone marker in the main header
    /// (p0_02). Each decodes as `opj_decompress -upsample` does, and its regions are its crops.
    @Test(arguments: ["subsampled-offset.j2k", "subsampled-gray.j2k", "tiny-tiles.j2k", "lone-marker.j2k"])
    func decodesTheConformanceSuitesRarerLayouts(_ file: String) throws {
        let ours = try Self.rows(file)
        let theirs = try Self.reference(file)
        #expect(ours.size == theirs.size && ours.format == theirs.format)
        // The image starting at 3 on a grid of 2-wide samples, its first column has no sample of
        // its own: opj_decompress leaves it black, Tessera gives it the nearest (the first).
        let skip = file == "subsampled-offset.j2k" ? 1 : 0
        let compared = PixelRect(x: skip, y: 0, width: ours.width - skip, height: ours.height)
        #expect(maximumDifference(try #require(ours.cropped(to: compared)), try #require(theirs.cropped(to: compared))) == 0)
        #expect(skip == 0 || ours.bytes[0..<3] == ours.bytes[3..<6])
        let window = PixelRect(x: 5, y: 3, width: ours.width / 2, height: ours.height / 2)
        #expect(maximumDifference(try Self.rows(file, window: window), try #require(ours.cropped(to: window))) == 0)
        // A thumbnail of an image off the grid's origin has no reduction to use: it is made from level 0.
        let thumbnail = try Thumbnailer().thumbnail(.file(Self.path(file)), options: ThumbnailOptions(maxPixelSize: 8))
        #expect(max(thumbnail.pixels.width, thumbnail.pixels.height) == 8)
    }

    /// A component at half width is stretched on every level: column c of a level takes sample
    /// ⌊c / 2⌋ of that level's component, as OpenJPEG decodes it.
    @Test func stretchesASubsampledComponentOnEveryLevel() throws {
        for reduction in 1...2 {
            let level = try Self.rows("subsampled-gray.j2k", reduction: reduction)
            let component = try Self.reference("subsampled-gray.j2k", reduction: reduction)
            #expect(level.width == (62 + (1 << reduction) - 1) >> reduction && component.width == (level.width + 1) / 2)
            #expect(level.height == component.height)
            var differences = 0
            for y in 0..<level.height {
                for x in 0..<level.width where level.bytes[y * level.width + x] != component.bytes[y * component.width + x / 2] {
                    differences += 1
                }
            }
            #expect(differences == 0, "level \(reduction)")
        }
    }

    @Test func thumbnailsDecodeAtTheCoarsestLevelThatCoversThem() throws {
        let thumbnail = try Thumbnailer().thumbnail(.file(Self.path("lossy-tiled.jp2")), options: ThumbnailOptions(maxPixelSize: 24))
        #expect(thumbnail.pixels.size == PixelSize(width: 24, height: 18))
        // 256×192 → level 3 (32×24) is the coarsest that still covers 24×18.
        #expect(thumbnail.decodeScale == 8)
    }

    @Test func decodesFromMemoryAsFromAFile() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.path("precincts.j2k")))
        let fromMemory = try ImageDecoder().decode(.data(data)).pixels
        let fromFile = try ImageDecoder().decode(.file(Self.path("precincts.j2k"))).pixels
        #expect(fromMemory == fromFile)
    }

    /// A deterministic image with detail everywhere, in `format`.
    static func pattern(_ size: PixelSize, _ format: PixelFormat) -> PixelBuffer {
        var bytes = [UInt8]()
        var seed: UInt32 = 7
        for y in 0..<size.height {
            for x in 0..<size.width {
                seed = seed &* 1_103_515_245 &+ 12345
                let noise = Int(seed >> 28)
                for channel in 0..<format.bytesPerPixel {
                    bytes.append(UInt8(truncatingIfNeeded: (x * (channel + 1) + y * (3 - channel) + noise) & 0xFF))
                }
            }
        }
        return PixelBuffer(width: size.width, height: size.height, format: format, bytes: bytes)
    }

    func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("jp2-\(UUID().uuidString)-\(name)").path
    }

    /// Written tile by tile and read back: lossless is every bit, in every layout it is written in.
    @Test(arguments: [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8])
    func writesLosslessFilesThatReadBackExactly(_ format: PixelFormat) throws {
        let pixels = Self.pattern(PixelSize(width: 200, height: 150), format)
        let path = temporaryPath("lossless.jp2")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try JP2Writer.write(pixels, to: path, settings: JP2Writer.Settings(tileSize: 64, isLossless: true))
        let decoded = try ImageDecoder().decode(.file(path))
        #expect(decoded.pixels == pixels)
        let layout = try #require(decoded.properties.jpeg2000)
        #expect(layout.tileSize == PixelSize(width: 64, height: 64) && layout.tileColumns == 4 && layout.tileRows == 3)
        #expect(layout.isReversible && layout.progressionOrder == "RPCL" && !layout.isRawCodestream)
        // OpenJPEG's own tool reads it the same.
        #expect(try Self.reference(atPath: path) == pixels)
    }

    @Test func writesLossyFilesAtTheirQualityAndRawCodestreams() throws {
        let pixels = Self.pattern(PixelSize(width: 300, height: 200), .rgb8)
        var sizes: [Int] = []
        for quality in [50, 90] {
            let path = temporaryPath("q\(quality).j2k")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try JP2Writer.write(pixels, to: path, settings: JP2Writer.Settings(quality: quality, isRawCodestream: true))
            let decoded = try ImageDecoder().decode(.file(path))
            #expect(decoded.properties.format == .j2k)
            #expect(decoded.properties.jpeg2000?.isReversible == false)
            // Resolution levels down to about 256 px: 300 → 150 in two.
            #expect(decoded.properties.jpeg2000?.resolutionLevels == 2)
            // The PSNR asked for (20 + 0.3 × quality dB), within a dB.
            #expect(psnr(decoded.pixels, pixels) >= 19 + 0.3 * Double(quality), "quality \(quality)")
            sizes.append(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int)
        }
        #expect(sizes[0] < sizes[1])
    }

    @Test func embedsTheProfileItIsGiven() throws {
        let profile = try #require(try ImageDecoder().probe(.file(Fixtures.path("colour/adobe-rgb.png"))).iccProfile)
        let pixels = Self.pattern(PixelSize(width: 40, height: 30), .rgb8)
        let path = temporaryPath("tagged.jp2")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try JP2Writer.write(pixels, to: path, settings: JP2Writer.Settings(isLossless: true), iccProfile: profile)
        #expect(try ImageDecoder().probe(.file(path)).iccProfile == profile)
        var keep = DecodeOptions()
        keep.colorManagement = .keepSourceProfile
        #expect(try ImageDecoder(options: keep).decode(.file(path)).pixels == pixels)
    }

    @Test func refusesBadSettingsAndShortInput() throws {
        let path = temporaryPath("bad.jp2")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ImageEncodingError.self) {
            try JP2Writer(path: path, size: PixelSize(width: 10, height: 10), format: .rgb8, settings: JP2Writer.Settings(quality: 0))
        }
        #expect(throws: ImageEncodingError.self) {
            try JP2Writer(path: path, size: PixelSize(width: 10, height: 10), format: .rgb8, settings: JP2Writer.Settings(tileSize: 8))
        }
        let writer = try JP2Writer(path: path, size: PixelSize(width: 10, height: 10), format: .rgb8)
        #expect(throws: ImageEncodingError.self) { try writer.finish() }
        #expect(throws: ImageEncodingError.self) { try [UInt8](repeating: 0, count: 29).withUnsafeBufferPointer { try writer.append(row: $0) } }
        #expect(JP2Writer.defaultResolutionLevels(for: PixelSize(width: 16000, height: 12000), tileSize: 1024) == 7)
    }

    /// Headers whose numbers would make OpenJPEG allocate without bound are refused before it runs.
    @Test func refusesHostileHeadersWithTypedErrors() throws {
        func error(_ file: String) -> ImageDecodingError? {
            do {
                _ = try ImageDecoder().decode(.file(Self.path(file)))
                return nil
            } catch {
                return error
            }
        }
        guard case .tooLarge = error("hostile-huge-grid.j2k") else {
            Issue.record("huge grid: \(String(describing: error("hostile-huge-grid.j2k")))"); return
        }
        guard case .corrupt(let tiles) = error("hostile-tile-count.j2k"), tiles.contains("tiles") else {
            Issue.record("tile count: \(String(describing: error("hostile-tile-count.j2k")))")
            return
        }
        guard case .corrupt(let components) = error("hostile-components.j2k"), components.contains("components") else {
            Issue.record("components: \(String(describing: error("hostile-components.j2k")))")
            return
        }
        guard case .truncated = error("hostile-box-length.jp2") else {
            Issue.record("box length: \(String(describing: error("hostile-box-length.jp2")))")
            return
        }
        // Cut anywhere, a file fails with a typed error, never a crash.
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.path("lossy-tiled.jp2")))
        for length in stride(from: 1, to: data.count, by: 331) {
            _ = try? ImageDecoder().decode(.data(data.prefix(length)))
        }
    }
}
