import Foundation
import TesseraCodecs
import TesseraCore
import Testing

/// Animated GIF, APNG and WebP against Pillow's frame-by-frame decode of the same files
/// (`scripts/animation-reference.py`, which composes APNG frames by the specification where Pillow
/// does not; run with the Pillow that `make test`'s bootstrap installs in
/// `.build/browser-venv`). The fixtures (`scripts/make-animation-fixtures.py`) each exercise a rule:
/// disposal to background and to previous, blending over translucent frames, frames smaller than the
/// canvas at offsets, zero and 10 ms delays, a colour table per frame, an APNG default image that is
/// not part of the animation.
@Suite("Animation") struct AnimationTests {
    struct Reference: Decodable {
        let width: Int, height: Int, frames: Int
        let durations: [Double]
        let loop: Int?
    }

    static let fixtures = [
        "gif-dispose-background.gif", "gif-dispose-previous.gif", "gif-local-palettes.gif",
        "apng-dispose-blend.png", "apng-hidden-default-image.png", "webp-lossless-blend.webp",
    ]

    /// Pillow's frames of `file`, and its header facts.
    static func reference(_ file: String) throws -> (Reference, [[UInt8]]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("animation-reference-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let repository = Fixtures.directory.deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = repository.appendingPathComponent(".build/browser-venv/bin/python")
        process.arguments = [
            repository.appendingPathComponent("scripts/animation-reference.py").path, Fixtures.path("animation/" + file), directory.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let json = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let reference = try JSONDecoder().decode(Reference.self, from: json)
        let frames = try (0..<reference.frames).map { index in
            [UInt8](try Data(contentsOf: directory.appendingPathComponent("frame-\(index).rgba")))
        }
        return (reference, frames)
    }

    /// Pixels that differ, transparent pixels being equal whatever their colour.
    static func differingPixels(_ ours: PixelBuffer, _ theirs: [UInt8]) -> Int {
        precondition(ours.format == .rgba8)
        var count = 0
        for pixel in stride(from: 0, to: theirs.count, by: 4) {
            if ours.bytes[pixel + 3] == 0 && theirs[pixel + 3] == 0 { continue }
            if ours.bytes[pixel..<pixel + 4] != theirs[pixel..<pixel + 4] { count += 1 }
        }
        return count
    }

    /// Colour scaled by alpha, and alpha: what shows, whatever a transparent pixel's colour.
    static func premultiplied(_ pixels: PixelBuffer) -> [Int] {
        let rgba = pixels.converted(to: .rgba8).bytes
        return rgba.enumerated().map { index, value in
            index % 4 == 3 ? Int(value) : Int(value) * Int(rgba[index - index % 4 + 3]) / 255
        }
    }

    /// An APNG whose acTL claims a frame count the format does not allow (0, or over 2³¹−1) is
    /// shown as its default image, with a warning, as browsers and the peers show it.
    @Test(arguments: [UInt32(0), 2_147_483_649])
    func anImpossibleFrameCountShowsTheDefaultImage(_ claimed: UInt32) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("animation/apng-dispose-blend.png"))))
        let start = try #require(bytes.indices.first { Array(bytes[$0..<($0 + 4)]) == Array("acTL".utf8) })
        for (index, shift) in [24, 16, 8, 0].enumerated() { bytes[start + 4 + index] = UInt8(truncatingIfNeeded: claimed >> UInt32(shift)) }
        // The chunk's CRC-32 over its type and data, recomputed.
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes[start..<(start + 12)] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        for (index, shift) in [24, 16, 8, 0].enumerated() { bytes[start + 12 + index] = UInt8(truncatingIfNeeded: crc >> UInt32(shift)) }
        let properties = try ImageDecoder().probe(.data(Data(bytes)))
        #expect(properties.frameCount == 1 && properties.animation == nil)
        #expect(properties.warnings.contains { $0.contains("claims \(claimed) frames") }, "\(properties.warnings)")
        let original = try ImageDecoder().decode(.file(Fixtures.path("animation/apng-dispose-blend.png"))).pixels
        #expect(try ImageDecoder().decode(.data(Data(bytes))).pixels == original)
    }

    @Test(arguments: fixtures) func framesMatchPillowExactly(_ file: String) throws {
        let (reference, expected) = try Self.reference(file)
        let animation = try AnimatedImage(.file(Fixtures.path("animation/" + file)))
        #expect(animation.isAnimated)
        #expect(animation.size == PixelSize(width: reference.width, height: reference.height))
        let pillowFrames = expected
        #expect(animation.frameCount == pillowFrames.count)
        let reader = try animation.makeFrameReader()
        var index = 0
        while let frame = try reader.next() {
            try #require(index < pillowFrames.count)
            #expect(frame.index == index)
            #expect(frame.pixels.size == animation.size)
            #expect(Self.differingPixels(frame.pixels, pillowFrames[index]) == 0, "frame \(index) of \(file)")
            index += 1
        }
        #expect(index == pillowFrames.count)
    }

    @Test(arguments: fixtures) func timingIsWhatBrowsersShow(_ file: String) throws {
        let (reference, _) = try Self.reference(file)
        let properties = try ImageDecoder().probe(.file(Fixtures.path("animation/" + file)))
        let timing = try #require(properties.animation)
        let stored = reference.durations
        // Delays of 10 ms or less show for 100 ms, as in Chromium and Firefox.
        #expect(timing.frameDurations == stored.map { $0 <= 10 ? 0.1 : $0 / 1000 })
        #expect(stored.contains { $0 <= 10 } || file.hasPrefix("gif-dispose-previous") || file.hasPrefix("gif-local"))
        // Pillow reports a GIF's loop extension as stored (repetitions after the first play; absent,
        // one play) and WebP's and APNG's as plays.
        let plays = file.hasSuffix(".gif") ? reference.loop.map { $0 == 0 ? 0 : $0 + 1 } ?? 1 : reference.loop ?? 0
        #expect(timing.loopCount == plays)
    }

    /// Frames are composed on demand: a reader holds the canvas, not the animation.
    @Test func aLongAnimationIsReadFrameByFrameInBoundedMemory() throws {
        let animation = try AnimatedImage(.file(Fixtures.path("animation/gif-dispose-previous.gif")))
        #expect(animation.workingByteCount == 4 * animation.size.byteCount(in: .rgba8))
        let third = try animation.frame(at: 2)
        #expect(third.index == 2)
        #expect { try animation.frame(at: 4) } throws: { error in
            (error as? ImageDecodingError) == .noSuchFrame(index: 4, count: 4)
        }
    }

    /// An animated thumbnail keeps the frames, their durations and the loop count, in WebP and GIF.
    @Test(arguments: [EncodingFormat.webpLossless, .gif()]) func animatedThumbnailsKeepTheAnimation(_ encoding: EncodingFormat) throws {
        let source = ImageSource.file(Fixtures.path("animation/gif-dispose-previous.gif"))
        let thumbnail = try Thumbnailer().animatedThumbnail(source, options: ThumbnailOptions(maxPixelSize: 24), encoding: encoding)
        #expect(thumbnail.size == PixelSize(width: 24, height: 20))
        #expect(thumbnail.frameCount == 4)
        let written = try AnimatedImage(.data(thumbnail.data))
        #expect(written.properties.format == (encoding == .gif() ? .gif : .webp))
        #expect(written.frameCount == 4)
        #expect(written.properties.animation == thumbnail.sourceProperties.animation)
        // Each frame is the source frame shrunk: compare with a still thumbnail of that frame.
        let reader = try written.makeFrameReader()
        while let frame = try reader.next() {
            let still = try Thumbnailer().thumbnail(source, options: ThumbnailOptions(maxPixelSize: 24), frameIndex: frame.index)
            let differences = zip(Self.premultiplied(frame.pixels), Self.premultiplied(still.pixels)).map { abs($0 - $1) }
            if encoding == .gif() {
                // GIF's palette and one-bit alpha (edges the shrink made translucent flip) cost a little.
                #expect(Double(differences.reduce(0, +)) / Double(differences.count) < 6, "frame \(frame.index)")
            } else {
                #expect(differences.max() == 0, "frame \(frame.index)")
            }
        }
    }
}
