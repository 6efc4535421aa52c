public import ArgumentParser
import FoundationEssentials
import Tessera

struct StripCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strip",
        abstract: "Sample N frames across a video, one per equal slot, scaled while decoding."
    )

    enum Layout: String, ExpressibleByArgument, CaseIterable {
        case strip, sprite, frames
    }

    @Argument(help: "The video.")
    var video: String

    @Option(help: "Number of frames, 1–10000 (equal slots of the duration).", transform: Parse.integer(1, 10_000))
    var frames: Int

    @Option(help: "Frame height in pixels, 1–4096 (default 90 unless --width is given).", transform: Parse.integer(1, 4096))
    var height: Int?

    @Option(help: "Frame width in pixels, 1–4096, instead of a height.", transform: Parse.integer(1, 4096))
    var width: Int?

    @Option(
        help: """
            fast: keyframes where they fall in the slot, else the slot start; exact: the frame at each \
            slot centre; keyframe: the keyframe nearest each centre (slots may repeat a frame).
            """)
    var mode: FrameSamplingMode = .fast

    @Option(help: "strip: one row; sprite: a grid of --columns; frames: a directory of frame-NNN.png.")
    var layout: Layout = .strip

    @Option(help: "Frames per row of a sprite sheet, ≥ 1 (default: about square).", transform: Parse.integer(1))
    var columns: Int?

    @Option(help: "The image to write (jpg, png or webp), or the directory for --layout frames.")
    var output: String

    @Option(help: "Also write a WebVTT thumbnail track pointing into the image.")
    var vtt: String?

    @Flag(help: "Print the frames' slots, times and places as JSON.")
    var json = false

    func validate() throws {
        if height != nil && width != nil { throw ValidationError("give --height or --width, not both") }
        if layout != .frames {
            do { _ = try EncodingFormat(outputPath: output) } catch { throw ValidationError(error.description) }
        }
        if vtt != nil && layout == .frames { throw ValidationError("--vtt needs --layout strip or sprite") }
    }

    func run() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let sizing: FrameSizing = width.map { .width($0) } ?? .height(height ?? 90)
        let request = FrameStripRequest(frameCount: frames, sizing: sizing, mode: mode)
        let failures = FailureLog()
        do {
            let strip = try await FrameStripGenerator.shared.strip(path: video, request: request)
            for failure in strip.failures { failures.warn(video, "\(failure); filled from a neighbour") }
            let placements = try write(strip)
            if json {
                printJSON(
                    [:], FrameStripSummary(strip, placements: placements),
                    ["ms": .double((clock.now - started).milliseconds)])
            }
        } catch {
            failures.report(video, error)
        }
        try failures.exit()
    }

    private func write(_ strip: FrameStrip) throws -> [FrameSheet.Placement] {
        if layout == .frames {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            for (index, frame) in strip.frames.enumerated() {
                let name = "frame-" + String(cFormat: "%03d", index) + ".png"
                try ImageEncoder.encode(frame.image, as: .png()).write(
                    to: URL(fileURLWithPath: output).appendingPathComponent(name), options: .atomic)
            }
            let size = strip.frameSize
            return strip.frames.map { _ in FrameSheet.Placement(x: 0, y: 0, width: size.width, height: size.height) }
        }
        let columns = layout == .sprite ? (columns ?? Int(Double(strip.frames.count).squareRoot().rounded(.up))) : nil
        let sheet = FrameSheet(strip: strip, columns: columns)
        let encoding = try EncodingFormat(outputPath: output)
        try ImageEncoder.encode(sheet.image, as: encoding).write(to: URL(fileURLWithPath: output), options: .atomic)
        if let vtt {
            let track = WebVTTThumbnails.track(strip: strip, sheet: sheet, imageURL: Self.reference(to: output, from: vtt))
            try Data(track.utf8).write(to: URL(fileURLWithPath: vtt), options: .atomic)
        }
        return sheet.placements
    }

    /// The image's path as the track should name it: relative when both sit in one directory.
    private static func reference(to image: String, from track: String) -> String {
        let imageURL = URL(fileURLWithPath: image).standardizedFileURL
        let trackDirectory = URL(fileURLWithPath: track).standardizedFileURL.deletingLastPathComponent()
        return imageURL.deletingLastPathComponent() == trackDirectory ? imageURL.lastPathComponent : imageURL.path
    }
}

extension FrameSamplingMode: ExpressibleByArgument {}
