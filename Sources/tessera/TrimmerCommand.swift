import ArgumentParser
import Foundation
import Tessera

struct TrimmerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trimmer",
        abstract: "Draw the trimming control for a video and a selection: frame strip, dimmed outside, handles, playhead."
    )

    @Argument(help: "The video.")
    var video: String

    @Option(help: "Control width in points.")
    var width: Double

    @Option(help: "Control height in points.")
    var height: Double

    @Option(help: "Pixels per point (1, 2, 3, ...).")
    var scale: Double = 2

    @Option(help: "Selection start, in seconds.")
    var lower: Double

    @Option(help: "Selection end, in seconds.")
    var upper: Double

    @Option(help: "Playhead, in seconds (kept inside the selection; default: the selection start).")
    var playhead: Double?

    @Option(help: "The PNG to write.")
    var output: String

    func validate() throws {
        guard width > 0, height > 0, width.isFinite, height.isFinite else { throw ValidationError("--width and --height must be positive") }
        guard scale > 0, scale <= 8 else { throw ValidationError("--scale must be between 0 and 8") }
        guard width * scale <= 16384, height * scale <= 16384 else { throw ValidationError("the control must stay within 16384 pixels a side") }
        guard (output as NSString).pathExtension.lowercased() == "png" else { throw ValidationError("--output must be a .png file") }
    }

    func run() async throws {
        do {
            let asset = try await VideoAsset.load(path: video)
            guard lower >= 0, upper > lower, upper <= asset.duration + 1e-6 else {
                throw VideoError.rangeOutsideDuration(start: lower, end: upper, duration: asset.duration)
            }
            let geometry = TrimmingSliderGeometry(width: width, height: height)
            let model = TrimmingSliderModel(duration: asset.duration, lower: lower, upper: min(upper, asset.duration), playhead: playhead)
            let strip = try await FrameStripGenerator.shared.strip(asset: asset, request: stripRequest(asset: asset, geometry: geometry))
            let image = TrimmingSliderRenderer().render(model, geometry: geometry, frames: strip.frames.map(\.image), scale: DisplayScale(scale))
            try ImageEncoder.encode(image, as: .png()).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            reportFailure(video, error)
            throw ExitCode.failure
        }
    }

    /// As many frames as fit the strip at the video's aspect ratio, each as tall as the strip in
    /// pixels, so the renderer only crops the last partial one rather than scaling anything up.
    private func stripRequest(asset: VideoAsset, geometry: TrimmingSliderGeometry) -> FrameStripRequest {
        let strip = geometry.stripRect
        let heightPixels = max(1, Int(((strip.maxY - strip.minY) * scale).rounded(.up)))
        let aspect = Double(asset.displaySize.width) / Double(asset.displaySize.height)
        let count = max(1, Int(((strip.maxX - strip.minX) / ((strip.maxY - strip.minY) * aspect)).rounded(.up)))
        return FrameStripRequest(frameCount: min(count, 500), sizing: .height(heightPixels), mode: .fast)
    }
}
