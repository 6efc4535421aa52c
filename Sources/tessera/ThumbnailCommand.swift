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

    @Option(
        help:
            "Output format: jpeg, png, webp, gif, avif, heic, jp2 or jxl (default: the output's extension, else the input's if it is JPEG, PNG or WebP; PNG with --palette). An animated GIF, WebP, APNG or JPEG XL stays animated as webp or gif.",
        transform: Parse.formatName)
    var format: String?

    @Option(help: "Of an animation, this frame only (from 0), composed as it shows, as a still.", transform: Parse.integer(0))
    var frame: Int?

    @Flag(help: "Of an animation, the first frame only, as a still, whatever the output format.")
    var firstFrame = false

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
        if frame != nil && firstFrame { throw ValidationError("give --frame N or --first-frame, not both") }
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
                        let (path, line, summary) = try await make(input, options: options)
                        progress.clear()
                        if json {
                            printJSON(
                                ["input": .string(input), "output": .string(path)], summary,
                                ["ms": .double((ContinuousClock.now - start).milliseconds)])
                        } else {
                            print(line)
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

    /// Makes and writes one thumbnail: animated when the source is an animation, the output format
    /// holds one and no single frame is asked for; else a still (of `--frame`, or the first).
    private func make(_ input: String, options: ThumbnailOptions) async throws -> (path: String, line: String, ThumbnailSummary) {
        let source = ImageSource.file(input)
        let thumbnailer = Thumbnailer()
        if frame == nil && !firstFrame, let animatedEncoding = animatedEncoding(for: input),
            try await WorkExecutor.shared.run(
                priority: .normal, { _ in try AnimatedImage(source, options: DecodeOptions(maximumPixelCount: options.maximumPixelCount)).isAnimated }
            )
        {
            let animation: AnimatedThumbnail
            do {
                animation = try await thumbnailer.animatedThumbnail(source, options: options, encoding: animatedEncoding)
            } catch let error as ImageDecodingError {
                // Too many frames of too large a canvas to compose: the first frame, still, as
                // browsers show an animation they will not play.
                guard case .tooLarge(let pixels, let limit) = error else { throw error }
                writeToStandardError(
                    "tessera: \(oneLine(input)): animation not kept: its frames are \(pixels) pixels to compose, over the limit of \(limit); first frame only\n"
                )
                return try await still(input, source: source, options: options)
            }
            let (path, _) = destination(for: input, hasAlpha: true)
            try animation.data.write(to: URL(fileURLWithPath: path), options: .atomic)
            let line =
                "\(input) → \(path)  \(animation.sourceProperties.size) → \(animation.size)  (\(animation.frameCount) frames, "
                + String(cFormat: "%.2f s", animation.sourceProperties.animation?.duration ?? 0) + ")"
            return (path, line, animation.summary)
        }
        return try await still(input, source: source, options: options)
    }

    /// A still thumbnail: of `--frame`, or the first frame.
    private func still(_ input: String, source: ImageSource, options: ThumbnailOptions) async throws -> (path: String, line: String, ThumbnailSummary)
    {
        let thumbnailer = Thumbnailer()
        let thumbnail: Thumbnail
        if frame == nil, let levels = try Self.slideLevels(input, options: options) {
            thumbnail = try await WorkExecutor.shared.run(priority: .normal) { context in try levels.thumbnail(options: options, context: context) }
        } else if let frame {
            thumbnail = try await WorkExecutor.shared.run(priority: .normal) { _ in
                try thumbnailer.thumbnail(source, options: options, frameIndex: frame)
            }
        } else {
            thumbnail = try await thumbnailer.thumbnail(source, options: options)
        }
        let (path, encoding) = destination(for: input, hasAlpha: thumbnail.pixels.format.hasAlpha)
        try ImageEncoder.encode(thumbnail.pixels, as: encoding, iccProfile: thumbnail.iccProfile).write(
            to: URL(fileURLWithPath: path), options: .atomic)
        return (path, Self.summaryLine(input: input, output: path, thumbnail), thumbnail.summary)
    }

    /// `input`'s own levels when a kind reads it natively (a slide, a pyramidal TIFF: read at the
    /// level near the target, never decoded whole); nil for any other image. Only TIFFs and files
    /// the codecs do not know are offered to the kinds, so a JPEG or PNG costs no second header read.
    private static func slideLevels(_ input: String, options: ThumbnailOptions) throws -> RegionLevels? {
        let sniffed = try? ImageSource.file(input).sniffedFormat()
        guard sniffed == nil || sniffed == .tiff else { return nil }
        let decoding = DecodeOptions(maximumPixelCount: options.maximumPixelCount, colorManagement: options.colorManagement)
        guard
            case .native(_, let source) = try RegionSourceKinds.open(
                file: input, kinds: RegionSourceKinds.standard(readers: TIFFReaderPool(readersPerFile: 1)), options: decoding)
        else { return nil }
        return RegionLevels(source)
    }

    /// The encoding an animated thumbnail of `input` would be written in: the output's, when it is
    /// WebP or GIF; nil when it cannot hold an animation.
    private func animatedEncoding(for input: String) -> EncodingFormat? {
        let encoding = destination(for: input, hasAlpha: true).encoding
        switch encoding {
        case .webp, .webpLossless, .gif: return encoding
        default: return nil
        }
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
