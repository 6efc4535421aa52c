import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

@Suite("Decoding every fixture")
struct DecodeTests {
    let decoder = ImageDecoder()

    @Test("probe reads the header facts the manifest records", arguments: Fixtures.images)
    func probeMatchesManifest(entry: Fixtures.Entry) throws {
        let properties = try decoder.probe(.file(entry.path))
        #expect(properties.format.rawValue == entry.format)
        #expect(properties.size == PixelSize(width: entry.width!, height: entry.height!))
        #expect(properties.orientation.rawValue == entry.orientation)
        #expect(properties.hasAlpha == entry.hasAlpha)
        #expect(properties.bitsPerComponent == entry.bitsPerComponent)
        #expect(properties.colorModel.rawValue == entry.colorModel)
        #expect(properties.frameCount == entry.frameCount)
        #expect(properties.isProgressive == entry.progressive)
        #expect(properties.fileByteCount == (try FileManager.default.attributesOfItem(atPath: entry.path)[.size] as! Int))
        #expect(properties.decodedByteCount == entry.width! * entry.height! * properties.decodedFormat.bytesPerPixel)
    }

    @Test("decoded pixels match Pillow's decode of the same file", arguments: Fixtures.referenced)
    func decodeMatchesPillow(entry: Fixtures.Entry) throws {
        let decoded = try decoder.decode(.file(entry.path))
        // Pillow turns CMYK into RGB by the naive formula; Tessera goes through a CMYK profile,
        // checked against LittleCMS's own transform in ColourManagementTests.
        guard entry.colorModel != "cmyk" else { return }
        let reference = try Fixtures.pam(entry.reference!)
        #expect(decoded.pixels.format == reference.format)
        #expect(decoded.pixels.size == reference.size)
        #expect(decoded.properties.decodedFormat == decoded.pixels.format)
        #expect(decoded.decodeScale == 1)
        #expect(!decoded.isTruncated)
        guard decoded.pixels.format == reference.format, decoded.pixels.size == reference.size else { return }
        let difference = PixelDifference(decoded.pixels, reference)
        switch entry.tolerance {
        case "exact":
            #expect(difference.maximum == 0, "\(difference)")
        case "jpeg":
            // Same libjpeg-turbo IDCT and upsampling as Pillow, but different builds may round differently.
            #expect(difference.maximum <= 4 && difference.mean <= 0.5, "\(difference)")
        default:
            // Pillow decodes AVIF with libavif, which upsamples chroma smoothly; libheif repeats the
            // nearest chroma sample, so sharp colour edges differ locally. The images must still agree
            // as a whole, far above what a wrong matrix, range or channel order would give (< 20 dB).
            #expect(difference.psnr >= 30 && difference.mean <= 5, "\(difference)")
        }
    }

    @Test("in-memory data decodes exactly like the file", arguments: Fixtures.referenced)
    func memoryMatchesFile(entry: Fixtures.Entry) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: entry.path))
        let fromFile = try decoder.decode(.file(entry.path))
        let fromMemory = try decoder.decode(.data(data))
        #expect(fromMemory.pixels == fromFile.pixels)
        #expect(try decoder.probe(.data(data)) == fromFile.properties)
    }

    @Test("broken files give their typed error", arguments: Fixtures.broken)
    func brokenFiles(entry: Fixtures.Entry) throws {
        let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(.file(entry.path)) }
        #expect(error?.kind == entry.expectedError, "\(String(describing: error))")
    }

    @Test("the 40000×40000 bomb probes without decoding and a full decode is refused, naming both numbers")
    func bomb() throws {
        let path = Fixtures.path("bomb-40000.png")
        let properties = try decoder.probe(.file(path))
        #expect(properties.size == PixelSize(width: 40000, height: 40000))
        #expect(properties.decodedByteCount == 1_600_000_000)
        let error = #expect(throws: ImageDecodingError.self) { try decoder.decode(.file(path)) }
        #expect(error == .tooLarge(pixels: 1_600_000_000, limit: DecodeOptions.defaultMaximumPixelCount))
        #expect(error?.description.contains("1600000000") == true)
        #expect(error?.description.contains("268402689") == true)
    }

    @Test("a lower pixel limit refuses an image just above it and accepts one at it")
    func pixelLimit() throws {
        let path = Fixtures.path("png-rgb-8.png")
        let tight = ImageDecoder(options: DecodeOptions(maximumPixelCount: 64 * 48 - 1))
        #expect(throws: ImageDecodingError.tooLarge(pixels: 3072, limit: 3071)) { try tight.decode(.file(path)) }
        let exact = ImageDecoder(options: DecodeOptions(maximumPixelCount: 64 * 48))
        #expect(try exact.decode(.file(path)).pixels.size == PixelSize(width: 64, height: 48))
    }

    @Test(
        "a truncated file is an error by default and a partial image when allowed",
        arguments: ["broken-truncated.jpg", "broken-truncated.png"])
    func truncationOption(name: String) throws {
        let path = Fixtures.path(name)
        #expect(throws: ImageDecodingError.self) { try decoder.decode(.file(path)) }
        let lenient = ImageDecoder(options: DecodeOptions(allowsTruncatedData: true))
        let partial = try lenient.decode(.file(path))
        #expect(partial.isTruncated)
        #expect(partial.pixels.size == partial.properties.size)
        // The top rows decoded for real: they match the intact image closely.
        let intact = try decoder.decode(.file(Fixtures.path(name.hasSuffix("jpg") ? "jpeg-baseline.jpg" : "png-rgb-8.png")))
        let top = partial.pixels.bytes.prefix(intact.pixels.bytesPerRow * 4)
        let intactTop = intact.pixels.bytes.prefix(intact.pixels.bytesPerRow * 4)
        #expect(zip(top, intactTop).allSatisfy { abs(Int($0) - Int($1)) <= 2 })
    }

    @Test("a missing file is not found and a directory unreadable, not crashes")
    func unreadable() {
        #expect(throws: ImageDecodingError.notFound) { try decoder.probe(.file("/nonexistent/image.png")) }
        let error = #expect(throws: ImageDecodingError.self) { try decoder.probe(.file(Fixtures.directory.path)) }
        #expect(error?.kind == "unreadable")
    }

    @Test("file-system errors read as the C library words them, without Foundation's descriptions")
    func fileSystemReasons() {
        let missing = #expect(throws: (any Error).self) { try Data(contentsOf: URL(fileURLWithPath: "/nonexistent/x")) }
        #expect(missing.map(fileSystemReason) == "No such file or directory")
        #expect(fileSystemReason(POSIXError(.EACCES)) == "Permission denied")
        #expect(fileSystemReason(CocoaError(.fileWriteOutOfSpace)) == "No space left on device")
    }
}
