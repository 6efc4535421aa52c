import ArgumentParser
import FoundationEssentials
import Tessera

struct TrimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trim",
        abstract: "Write part of a video to a new file: copied from the keyframe before the start, or re-encoded to start exactly."
    )

    @Argument(help: "The video.")
    var video: String

    @Option(help: "Start, in seconds, ≥ 0.", transform: Parse.number(atLeast: 0))
    var from: Double

    @Option(help: "End, in seconds, > 0.", transform: Parse.number(greaterThan: 0))
    var to: Double

    @Option(help: "The clip to write (.mp4, .mov or .mkv; .webm or .ts when they hold the codec); it appears only when complete.")
    var output: String

    @Flag(help: "Re-encode the video (libx264) so the clip starts on the requested frame.")
    var exact = false

    @Flag(help: "Print the requested and real start, the end and the duration as JSON.")
    var json = false

    func validate() throws {
        guard to > from else { throw ValidationError("--to must be greater than --from") }
    }

    func run() async throws {
        let failures = FailureLog()
        do {
            let result = try await ClipExporter.trim(
                path: video, from: from, to: to, output: output, method: exact ? .exact() : .streamCopy)
            if json { printJSON([:], result) }
        } catch {
            failures.report(video, error)
        }
        try failures.exit()
    }
}
