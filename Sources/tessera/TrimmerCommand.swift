import ArgumentParser
import FoundationEssentials
import Tessera

struct TrimmerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trimmer",
        abstract: "Draw the trimming control for a video and a selection: frame strip, dimmed outside, handles, playhead."
    )

    @Argument(help: "The video.")
    var video: String

    @Option(help: "The control's size in points, WxH.", transform: Parse.pointSize)
    var size: PointSize

    @Option(help: "Pixels per point, > 0 (1, 2, 3 …).", transform: Parse.scale)
    var scale: DisplayScale = .x2

    @Option(help: "Selection start, in seconds, ≥ 0.", transform: Parse.number(atLeast: 0))
    var lower: Double

    @Option(help: "Selection end, in seconds, > 0.", transform: Parse.number(greaterThan: 0))
    var upper: Double

    @Option(
        help: "Playhead, in seconds, ≥ 0 (kept inside the selection; default: the selection start).",
        transform: Parse.number(atLeast: 0))
    var playhead: Double?

    @Option(help: "The PNG to write.")
    var output: String

    func validate() throws {
        guard upper > lower else { throw ValidationError("--upper must be greater than --lower") }
        let pixels = size.pixels(at: scale)
        guard pixels.width <= 16384, pixels.height <= 16384 else {
            throw ValidationError("--size × --scale must stay within 16384 pixels a side (it is \(pixels))")
        }
        guard case .png = try? EncodingFormat(outputPath: output) else { throw ValidationError("--output must be a .png file") }
    }

    func run() async throws {
        let failures = FailureLog()
        do {
            let asset = try await VideoAsset.load(path: video)
            guard upper <= asset.duration + 1e-6 else {
                throw VideoError.rangeOutsideDuration(start: lower, end: upper, duration: asset.duration)
            }
            let geometry = TrimmingSliderGeometry(width: size.width, height: size.height)
            let model = TrimmingSliderModel(duration: asset.duration, lower: lower, upper: min(upper, asset.duration), playhead: playhead)
            let frames = geometry.stripFrames(displaySize: asset.displaySize, scale: scale)
            let request = FrameStripRequest(frameCount: frames.count, sizing: .height(frames.heightPixels), mode: .fast)
            let strip = try await FrameStripGenerator.shared.strip(asset: asset, request: request)
            let image = TrimmingSliderRenderer().render(model, geometry: geometry, frames: strip.frames.map(\.image), scale: scale)
            try ImageEncoder.encode(image, as: .png()).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            failures.report(video, error)
        }
        try failures.exit()
    }
}
