import Foundation
import TesseraCore
import Testing

@testable import TesseraVideo

/// The committed videos (made by scripts/make-video-fixtures.py) and what ffmpeg said of them.
enum VideoFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/video")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    struct Frame: Decodable, Sendable {
        let time: Double
        let key: Bool
    }

    struct Entry: Decodable, Sendable {
        let file: String
        let fps: Int
        let frames: [Frame]
        let displayWidth: Int
        let displayHeight: Int
        let redCentre: [Double]
        /// Probe time (6 decimals) → the frame index `ffmpeg -ss T` decodes.
        let exactAt: [String: Int]?
        /// Probe time → the keyframe index `ffmpeg -noaccurate_seek -ss T` decodes.
        let keyframeAt: [String: Int]?

        var keyframeTimes: [Double] { frames.filter(\.key).map(\.time) }

        /// Crashing on a time the manifest lacks would take the whole test run down; -1 fails one test.
        func exact(at time: Double) -> Int { exactAt?[Self.key(time)] ?? -1 }
        func keyframe(at time: Double) -> Int { keyframeAt?[Self.key(time)] ?? -1 }

        /// The index of the first frame ffprobe lists at or after `time`.
        func firstFrame(atOrAfter time: Double) -> Int { frames.firstIndex { $0.time >= time - 1e-6 } ?? -1 }

        private static func key(_ time: Double) -> String { String(format: "%.6f", (time * 1e6).rounded() / 1e6) }
    }

    static let manifest: [String: Entry] = {
        let data = try! Data(contentsOf: directory.appendingPathComponent("manifest.json"))
        let entries = try! JSONDecoder().decode([Entry].self, from: data)
        return Dictionary(uniqueKeysWithValues: entries.map { ($0.file, $0) })
    }()

    /// The frame index drawn into an upright fixture frame: 8 bars across the top 60%, bit 7 first.
    static func index(of image: PixelBuffer) -> Int {
        (0..<8).reduce(0) { value, bit in
            let pixel = image.pixel(x: Int((Double(bit) + 0.5) * Double(image.width) / 8), y: Int(Double(image.height) * 0.3))
            let luma = (Int(pixel[pixel.startIndex]) + Int(pixel[pixel.startIndex + 1]) + Int(pixel[pixel.startIndex + 2])) / 3
            return value * 2 + (luma > 127 ? 1 : 0)
        }
    }

    /// Where the red area's centre lies in `image`, as fractions of its width and height.
    static func redCentre(of image: PixelBuffer) -> (x: Double, y: Double) {
        var sumX = 0, sumY = 0, count = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                if p[p.startIndex] > 200 && p[p.startIndex + 1] < 80 && p[p.startIndex + 2] < 80 {
                    sumX += x; sumY += y; count += 1
                }
            }
        }
        return (Double(sumX) / Double(max(count, 1)) / Double(image.width), Double(sumY) / Double(max(count, 1)) / Double(image.height))
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-video-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
