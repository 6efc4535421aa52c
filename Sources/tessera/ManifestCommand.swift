import ArgumentParser
import FoundationEssentials
import Tessera
import TesseraServer

struct ManifestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Write IIIF Presentation 3.0 manifests and collections of folders and files as static files, with level-0 tiles.",
        discussion: """
            The documents `tessera serve` makes (a manifest per image, document and video, a collection and \
            a manifest per folder, sidecars merged), for a static host: NAME/…/FILE/manifest.json, \
            NAME/…/collection.json, the image service NAME/…/FILE (info.json and tiles; a document's pages \
            are FILE;1, FILE;2…), and collection.json listing the inputs.
            """)

    @Argument(help: "Folders and files to publish.")
    var inputs: [String]

    @Option(help: "Where the output directory will be served from; every URL in the documents starts with it.", transform: Parse.httpURL)
    var baseURL: String

    @Option(help: "The directory to write into.")
    var output: String

    @Option(help: "Tile size in pixels, 64–4096.", transform: Parse.integer(64, 4096))
    var tileSize = 512

    @Option(help: "JPEG quality of the tiles, 1–100.", transform: Parse.quality)
    var quality = 85

    @Flag(help: "Print {\"documents\", \"ms\", \"pyramids\", \"tileBytes\", \"tiles\", \"videos\"} as JSON.")
    var json = false

    func run() async throws {
        let failures = FailureLog()
        let start = ContinuousClock.now
        let publisher = StaticPresentation(baseURL: baseURL, outputDirectory: output, tileSize: tileSize, encoding: .jpeg(quality: quality))
        do {
            let summary = try await publisher.write(inputs) { path, error in
                if let error { failures.report(path, error) }
            }
            let milliseconds = (ContinuousClock.now - start).milliseconds
            if json {
                printJSON(
                    [
                        "documents": .int(summary.documents), "pyramids": .int(summary.pyramids), "tiles": .int(summary.tiles),
                        "tileBytes": .int(summary.tileBytes), "videos": .int(summary.videos), "ms": .double(milliseconds),
                    ])
            } else {
                print(
                    "\(output): \(summary.documents) documents, \(summary.pyramids) image services, \(summary.tiles) tiles "
                        + "(\(ByteCount.formatted(summary.tileBytes))), \(summary.videos) videos in "
                        + "\(String(cFormat: "%.1f", milliseconds / 1000)) s; open \(baseURL)/collection.json")
            }
        } catch {
            failures.report(output, error)
        }
        try failures.exit()
    }
}
