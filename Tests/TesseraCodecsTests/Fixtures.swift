import Foundation
import TesseraCore
import Testing

@testable import TesseraCodecs

/// The committed fixtures (made by scripts/make-fixtures.py) and what the manifest says of them.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    struct Entry: Decodable, Sendable, CustomTestStringConvertible {
        let file: String
        let format: String?
        let width: Int?
        let height: Int?
        let orientation: Int
        let hasAlpha: Bool
        let bitsPerComponent: Int?
        let colorModel: String?
        let frameCount: Int?
        let progressive: Bool
        let reference: String?
        let tolerance: String?
        let expectedError: String?

        var path: String { Fixtures.path(file) }
        var testDescription: String { file }
    }

    static let manifest: [Entry] = {
        let data = try! Data(contentsOf: directory.appendingPathComponent("manifest.json"))
        return try! JSONDecoder().decode([Entry].self, from: data)
    }()

    static var images: [Entry] { manifest.filter { $0.expectedError == nil } }
    static var referenced: [Entry] { images.filter { $0.reference != nil } }
    static var broken: [Entry] { manifest.filter { $0.expectedError != nil } }

    /// Reads a binary PAM (P7) reference written by Pillow.
    static func pam(_ name: String) throws -> PixelBuffer {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        let marker = Data("ENDHDR\n".utf8)
        guard let end = data.range(of: marker) else { throw CocoaError(.fileReadCorruptFile) }
        let header = String(decoding: data[..<end.lowerBound], as: UTF8.self)
        var fields: [String: String] = [:]
        for line in header.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        let formats: [String: PixelFormat] = ["1": .gray8, "2": .grayAlpha8, "3": .rgb8, "4": .rgba8]
        guard let width = Int(fields["WIDTH"] ?? ""), let height = Int(fields["HEIGHT"] ?? ""),
            let format = formats[fields["DEPTH"] ?? ""]
        else { throw CocoaError(.fileReadCorruptFile) }
        return PixelBuffer(width: width, height: height, format: format, bytes: [UInt8](data[end.upperBound...]))
    }
}

/// How far two bitmaps of the same size and format are apart. Colour under fully transparent
/// pixels is ignored: it is invisible and encoders are free to discard it.
struct PixelDifference: CustomStringConvertible {
    var maximum = 0
    var mean = 0.0
    /// Peak signal-to-noise ratio in dB (infinite when identical).
    var psnr = Double.infinity

    init(_ a: PixelBuffer, _ b: PixelBuffer) {
        precondition(a.size == b.size && a.format == b.format)
        let channels = a.format.bytesPerPixel
        var total = 0
        var squares = 0
        var counted = 0
        for index in 0..<(a.width * a.height) {
            let base = index * channels
            let transparent = a.format.hasAlpha && a.bytes[base + channels - 1] == 0 && b.bytes[base + channels - 1] == 0
            for channel in 0..<channels {
                if transparent && channel != channels - 1 { continue }
                let difference = abs(Int(a.bytes[base + channel]) - Int(b.bytes[base + channel]))
                maximum = max(maximum, difference)
                total += difference
                squares += difference * difference
                counted += 1
            }
        }
        mean = counted > 0 ? Double(total) / Double(counted) : 0
        if squares > 0 { psnr = 10 * log10(255 * 255 / (Double(squares) / Double(counted))) }
    }

    var description: String {
        "max \(maximum), mean \(String(format: "%.3f", mean)), PSNR \(String(format: "%.1f", psnr)) dB"
    }
}
