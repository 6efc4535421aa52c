import ArgumentParser
import FoundationEssentials
import Tessera

struct ThumbnailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make display-sized images, shrinking while decoding so the full-size bitmap is never allocated."
    )

    @Argument(help: "Images to thumbnail.")
    var inputs: [String]

    @Option(help: "The longest side of each result, in pixels, ≥ 1 (results are never upscaled).", transform: Parse.integer(1))
    var maxPixelSize: Int?

    @Option(help: "Aspect-fill this box (WxH pixels) instead: the short side covers it.", transform: Parse.pixelSize)
    var fill: PixelSize?

    @Flag(help: "With --fill, crop the overflow to exactly the box, centred.")
    var crop = false

    @Option(help: "The output file (one input only).")
    var output: String?

    @Option(help: "The output directory (any number of inputs; names are kept).")
    var outputDir: String?

    @Option(help: "Output format: jpeg, png, webp, avif or heic (default: the output's extension, else the input's if it is JPEG, PNG or WebP; PNG with --palette).", transform: Parse.formatName)
    var format: String?

    @OptionGroup var encoding: EncodingOptions
    @OptionGroup var color: ColorOption

    @Flag(help: "Keep pixels as stored: no EXIF rotation, and the size bound applies to the stored image.")
    var noTransform = false

    @Flag(help: "Use an embedded thumbnail when it is at least the requested size.")
    var ifAbsent = false

    @OptionGroup var page: PageOption

    @OptionGroup var jobs: JobsOption

    @OptionGroup var report: JSONOption

    func validate() throws {
        guard maxPixelSize != nil || fill != nil else { throw ValidationError("give --max-pixel-size N or --fill WxH") }
        if output != nil && inputs.count > 1 { throw ValidationError("--output takes one input; use --output-dir for many") }
        if output == nil && outputDir == nil { throw ValidationError("give --output FILE or --output-dir DIR") }
        if let format {
            _ = try encoding.encoding(formatName: format)
        } else if let output {
            _ = try encoding.encoding(outputPath: output)
        } else if encoding.speed != nil {
            throw ValidationError("--speed needs --format avif or heic")
        }
    }

    private var options: ThumbnailOptions {
        let sizing: ThumbnailOptions.Sizing = fill.map { .box($0, mode: crop ? .centerCrop : .fill) } ?? .fit(maxPixelSize: maxPixelSize)
        return ThumbnailOptions(
            sizing: sizing, createThumbnailWithTransform: !noTransform,
            embeddedThumbnail: ifAbsent ? .ifAbsent : .fromImageAlways, colorManagement: color.management,
            pageIndex: page.index)
    }

    func run() async throws {
        if let outputDir { try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true) }
        let failures = FailureLog()
        let progress = ProgressBar(total: inputs.count, enabled: standardErrorIsTerminal)
        let (options, json) = (self.options, report.json)
        await withTaskGroup(of: Void.self) { group in
            var pending = inputs[...]
            func startNext() {
                guard let input = pending.popFirst() else { return }
                group.addTask {
                    let start = ContinuousClock.now
                    do {
                        let thumbnail = try await Thumbnailer().thumbnail(.file(input), options: options)
                        let (path, encoding) = destination(for: input, hasAlpha: thumbnail.pixels.format.hasAlpha)
                        try ImageEncoder.encode(thumbnail.pixels, as: encoding, iccProfile: thumbnail.iccProfile).write(to: URL(fileURLWithPath: path), options: .atomic)
                        progress.clear()
                        if json {
                            printJSON(["input": .string(input), "output": .string(path)], thumbnail.summary,
                                      ["ms": .double((ContinuousClock.now - start).milliseconds)])
                        } else {
                            print(Self.summaryLine(input: input, output: path, thumbnail))
                        }
                    } catch {
                        progress.clear()
                        if json { printJSON(["input": .string(input), "error": .string(oneLine(Self.reason(error)))]) }
                        failures.report(input, error)
                    }
                    progress.advance()
                }
            }
            for _ in 0..<min(jobs.jobs, inputs.count) { startNext() }
            for await _ in group { startNext() }
        }
        progress.finish()
        try failures.exit()
    }

    /// `--output`, or the input's name in `--output-dir` with the extension of `--format`, else of
    /// the format the library picks for a derivative of the input.
    private func destination(for input: String, hasAlpha: Bool) -> (path: String, encoding: EncodingFormat) {
        // Each was checked in validate().
        let encoding: EncodingFormat
        if let format {
            encoding = (try? self.encoding.encoding(formatName: format)) ?? .png()
        } else if let output {
            encoding = (try? self.encoding.encoding(outputPath: output)) ?? .png()
        } else if self.encoding.palette {
            encoding = (try? self.encoding.applied(to: .png())) ?? .png()
        } else {
            encoding = .derivative(ofInput: input, hasAlpha: hasAlpha, quality: self.encoding.quality)
        }
        if let output { return (output, encoding) }
        let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent + "." + encoding.fileExtension
        return (URL(fileURLWithPath: outputDir ?? ".").appendingPathComponent(name).path, encoding)
    }

    private static func summaryLine(input: String, output: String, _ thumbnail: Thumbnail) -> String {
        let scale = thumbnail.decodeScale
        let scaleText = scale == scale.rounded() ? String(Int(scale)) : String(cFormat: "%.2f", scale)
        return "\(input) → \(output)  \(thumbnail.sourceProperties.size) → \(thumbnail.pixels.size)  "
            + "(decoded at 1/\(scaleText), \(ByteCount.formatted(thumbnail.decodedByteCount)))"
    }

    private static func reason(_ error: any Error) -> String {
        (error as? any TesseraError)?.description ?? String(describing: error)
    }
}
