import ArgumentParser
import Foundation
import Tessera

struct ThumbnailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make display-sized images, shrinking while decoding so the full-size bitmap is never allocated."
    )

    @Argument(help: "Images to thumbnail.")
    var inputs: [String]

    @Option(help: "The longest side of each result, in pixels (results are never upscaled).")
    var maxPixelSize: Int?

    @Option(help: "Aspect-fill this box (WxH pixels) instead: the short side covers it.")
    var fill: String?

    @Flag(help: "With --fill, crop the overflow to exactly the box, centred.")
    var crop = false

    @Option(help: "The output file (one input only).")
    var output: String?

    @Option(help: "The output directory (any number of inputs; names are kept).")
    var outputDir: String?

    @Option(help: "Output format: jpeg, png or webp (default: the output's or input's extension).")
    var format: String?

    @Option(help: "JPEG or WebP quality, 1–100.")
    var quality: Int?

    @Flag(help: "Keep pixels as stored: no EXIF rotation, and the size bound applies to the stored image.")
    var noTransform = false

    @Flag(help: "Use an embedded thumbnail when it is at least the requested size.")
    var ifAbsent = false

    @Option(help: "Thumbnails made at once (default: active cores).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "One JSON object per input.")
    var json = false

    func validate() throws {
        guard maxPixelSize != nil || fill != nil else { throw ValidationError("give --max-pixel-size N or --fill WxH") }
        if let maxPixelSize, maxPixelSize < 1 { throw ValidationError("--max-pixel-size must be at least 1") }
        if fill != nil, parsedFill == nil { throw ValidationError("--fill takes WxH, e.g. 300x200") }
        if output != nil && inputs.count > 1 { throw ValidationError("--output takes one input; use --output-dir for many") }
        if output == nil && outputDir == nil { throw ValidationError("give --output FILE or --output-dir DIR") }
        if let format, ImageEncoding(fileExtension: format == "jpeg" ? "jpg" : format) == nil {
            throw ValidationError("--format must be jpeg, png or webp")
        }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
    }

    private var parsedFill: PixelSize? {
        guard let parts = fill?.lowercased().split(separator: "x"), parts.count == 2,
            let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0
        else { return nil }
        return PixelSize(width: width, height: height)
    }

    private var options: ThumbnailOptions {
        let sizing: ThumbnailOptions.Sizing = parsedFill.map { .fill(box: $0, crop: crop) } ?? .fit(maxPixelSize: maxPixelSize)
        return ThumbnailOptions(
            sizing: sizing, createThumbnailWithTransform: !noTransform,
            embeddedThumbnail: ifAbsent ? .ifAbsent : .fromImageAlways)
    }

    func run() async throws {
        if let outputDir { try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true) }
        let job = ThumbnailJob(options: options, output: output, outputDir: outputDir, format: format, quality: quality)
        let progress = ProgressBar(total: inputs.count, enabled: isatty(STDERR_FILENO) != 0)
        var failures = 0
        if inputs.count == 1 {
            // One input: no worker tasks to schedule, so no extra threads to start.
            switch job.run(inputs[0]) {
            case .success(let line, let summary):
                print(json ? line : summary)
                return
            case .failure(let input, let line, let error):
                if json { print(line) }
                reportFailure(input, error)
                throw ExitCode.failure
            }
        }
        await withTaskGroup(of: ThumbnailJob.Outcome.self) { group in
            var pending = inputs[...]
            func startNext() {
                guard let input = pending.popFirst() else { return }
                group.addTask { job.run(input) }
            }
            for _ in 0..<min(jobs, inputs.count) { startNext() }
            for await outcome in group {
                progress.clear()
                switch outcome {
                case .success(let line, let summary):
                    print(json ? line : summary)
                case .failure(let input, let line, let error):
                    failures += 1
                    if json { print(line) }
                    reportFailure(input, error)
                }
                progress.advance()
                startNext()
            }
        }
        progress.finish()
        if failures > 0 { throw ExitCode.failure }
    }
}

/// One input's work: thumbnail, encode, write atomically.
struct ThumbnailJob: Sendable {
    enum Outcome: Sendable {
        case success(json: String, summary: String)
        case failure(input: String, json: String, error: String)
    }

    let options: ThumbnailOptions
    let output: String?
    let outputDir: String?
    let format: String?
    let quality: Int?

    func run(_ input: String) -> Outcome {
        let start = ContinuousClock.now
        do {
            let thumbnail = try Thumbnailer().thumbnail(.file(input), options: options)
            let destination = outputPath(for: input, hasAlpha: thumbnail.pixels.format.hasAlpha)
            let outputExtension = URL(fileURLWithPath: destination).pathExtension
            guard let encoding = ImageEncoding(fileExtension: outputExtension, quality: quality) else {
                throw ValidationError("cannot write .\(outputExtension) files")
            }
            let data = try ImageEncoder.encode(thumbnail.pixels, as: encoding)
            try data.write(to: URL(fileURLWithPath: destination), options: .atomic)
            let milliseconds = (ContinuousClock.now - start).milliseconds
            let source = thumbnail.sourceProperties.size
            let json = JSONLine([
                ("input", .string(input)), ("output", .string(destination)),
                ("sourceWidth", .int(source.width)), ("sourceHeight", .int(source.height)),
                ("width", .int(thumbnail.pixels.width)), ("height", .int(thumbnail.pixels.height)),
                ("decodeScale", .double(thumbnail.decodeScale)), ("decodedBytes", .int(thumbnail.decodedByteCount)),
                ("ms", .double(milliseconds)),
            ]).rendered
            let scale = thumbnail.decodeScale
            let scaleText = scale == scale.rounded() ? String(Int(scale)) : String(format: "%.2f", scale)
            let summary = "\(input) → \(destination)  \(source) → \(thumbnail.pixels.size)  "
                + "(decoded at 1/\(scaleText), \(ByteCount.formatted(thumbnail.decodedByteCount)))"
            return .success(json: json, summary: summary)
        } catch {
            let message = String(describing: error)
            return .failure(input: input, json: JSONLine([("input", .string(input)), ("error", .string(message))]).rendered,
                            error: message)
        }
    }

    /// `--output`, or the input's name in `--output-dir` with the extension of `--format`, else the
    /// input's when Tessera writes it, else PNG for images with alpha and JPEG for the rest.
    func outputPath(for input: String, hasAlpha: Bool) -> String {
        if let output { return output }
        let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        let inputExtension = URL(fileURLWithPath: input).pathExtension.lowercased()
        let chosen: String
        if let format {
            chosen = format == "jpeg" ? "jpg" : format
        } else if ImageEncoding(fileExtension: inputExtension) != nil {
            chosen = inputExtension
        } else {
            chosen = hasAlpha ? "png" : "jpg"
        }
        return ((outputDir ?? ".") as NSString).appendingPathComponent(name + "." + chosen)
    }
}
