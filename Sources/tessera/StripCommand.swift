import ArgumentParser
import Foundation
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

    @Option(help: "Number of frames (equal slots of the duration).")
    var frames: Int

    @Option(help: "Frame height in pixels (default 90 unless --width is given).")
    var height: Int?

    @Option(help: "Frame width in pixels, instead of a height.")
    var width: Int?

    @Option(help: """
        fast: keyframes where they fall in the slot, else the slot start; exact: the frame at each \
        slot centre; keyframe: the keyframe nearest each centre (slots may repeat a frame).
        """)
    var mode: FrameSamplingMode = .fast

    @Option(help: "strip: one row; sprite: a grid of --columns; frames: a directory of frame-NNN.png.")
    var layout: Layout = .strip

    @Option(help: "Frames per row of a sprite sheet (default: about square).")
    var columns: Int?

    @Option(help: "The image to write (jpg, png or webp), or the directory for --layout frames.")
    var output: String

    @Option(help: "Also write a WebVTT thumbnail track pointing into the image.")
    var vtt: String?

    @Flag(help: "Print the frames' slots, times and places as JSON.")
    var json = false

    func validate() throws {
        guard frames >= 1 else { throw ValidationError("--frames must be at least 1") }
        if height != nil && width != nil { throw ValidationError("give --height or --width, not both") }
        if let side = height ?? width, side < 1 { throw ValidationError("frame sides must be at least 1 pixel") }
        if let columns, columns < 1 { throw ValidationError("--columns must be at least 1") }
        if layout != .frames, ImageEncoding(fileExtension: (output as NSString).pathExtension) == nil {
            throw ValidationError("--output must end in .jpg, .png or .webp")
        }
        if vtt != nil && layout == .frames { throw ValidationError("--vtt needs --layout strip or sprite") }
    }

    func run() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let sizing: FrameSizing = width.map { .width($0) } ?? .height(height ?? 90)
        let request = FrameStripRequest(frameCount: frames, sizing: sizing, mode: mode)
        let strip: FrameStrip
        do {
            strip = try await FrameStripGenerator.shared.strip(path: video, request: request)
            for failure in strip.failures {
                reportFailure(video, "frame \(failure.slot): \(failure.error); filled from a neighbour")
            }
            let placements = try write(strip)
            if json { print(report(strip, placements: placements, milliseconds: (clock.now - started).milliseconds)) }
        } catch {
            reportFailure(video, error)
            throw ExitCode.failure
        }
    }

    private func write(_ strip: FrameStrip) throws -> [FrameSheet.Placement] {
        if layout == .frames {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            for (index, frame) in strip.frames.enumerated() {
                let name = "frame-" + String(format: "%03d", index) + ".png"
                try ImageEncoder.encode(frame.image, as: .png()).write(to: URL(fileURLWithPath: output).appendingPathComponent(name), options: .atomic)
            }
            let size = strip.frameSize
            return strip.frames.map { _ in FrameSheet.Placement(x: 0, y: 0, width: size.width, height: size.height) }
        }
        let columns = layout == .sprite ? (columns ?? Int(Double(strip.frames.count).squareRoot().rounded(.up))) : nil
        let sheet = FrameSheet(strip: strip, columns: columns)
        let encoding = ImageEncoding(fileExtension: (output as NSString).pathExtension)!
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

    private func report(_ strip: FrameStrip, placements: [FrameSheet.Placement], milliseconds: Double) -> String {
        let frames = zip(strip.frames, placements).map { frame, placement in
            JSONLine([
                ("index", .int(frame.slot.index)), ("target", .double(frame.slot.target)), ("time", .double(frame.time)),
                ("x", .int(placement.x)), ("y", .int(placement.y)),
                ("width", .int(placement.width)), ("height", .int(placement.height)),
                ("filledFrom", frame.filledFrom.map { .int($0) } ?? .null),
            ]).rendered
        }
        return JSONLine([
            ("duration", .double(strip.asset.duration)), ("frames", .raw("[" + frames.joined(separator: ",") + "]")),
            ("ms", .double(milliseconds)),
        ]).rendered
    }
}

extension FrameSamplingMode: ExpressibleByArgument {}
