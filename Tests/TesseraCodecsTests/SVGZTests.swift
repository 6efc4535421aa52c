import Foundation
import TesseraCore
import TesseraTestSupport
import Testing

@testable import TesseraCodecs

/// Gzipped SVG (.svgz), as librsvg and browsers read it: sniffed by its inflated start, drawn as
/// the SVG it holds, and inflated by Tessera with a bound (librsvg would inflate all of it).
@Suite struct SVGZTests {
    static func gzip(_ data: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c", "-9"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Written on another thread: gzip's output pipe must be read while the input is written.
        let writer = Thread {
            input.fileHandleForWriting.write(data); try? input.fileHandleForWriting.close()
        }
        writer.start()
        let compressed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return compressed
    }

    @Test func anSVGZIsDrawnAsTheSVGItHolds() throws {
        let svg = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("svg-size.svg")))
        let svgz = try Self.gzip(svg)
        #expect(ImageFormat(sniffing: svgz) == .svg)
        let plain = try ImageDecoder().decode(.data(svg))
        let zipped = try ImageDecoder().decode(.data(svgz))
        #expect(zipped.properties.format == .svg && zipped.pixels.size == plain.pixels.size)
        #expect(maximumDifference(zipped.pixels, plain.pixels) == 0)
    }

    @Test func otherGzippedFilesAndBombsAreRefused() throws {
        // Gzipped text that is no drawing: recognised as gzip, never read, never a video.
        let text = try Self.gzip(Data(String(repeating: "not a drawing\n", count: 100).utf8))
        #expect(ImageFormat(sniffing: text) == nil)
        #expect(UnreadImageFormat(prefix: Array(text.prefix(ImageFormat.sniffLength)))?.name == "gzip-compressed")
        // An SVG that inflates to 80 MB (of spaces, 78 KB gzipped): refused before librsvg sees it.
        var bomb = Data("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\">".utf8)
        bomb.append(Data(repeating: 0x20, count: 80 << 20))
        bomb.append(Data("</svg>".utf8))
        let compressed = try Self.gzip(bomb)
        #expect(compressed.count < 200_000)
        #expect(ImageFormat(sniffing: compressed) == .svg)
        #expect(throws: ImageDecodingError.self) { try ImageDecoder().decode(.data(compressed)) }
    }
}
