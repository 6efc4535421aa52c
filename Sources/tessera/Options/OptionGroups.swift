import ArgumentParser
import Tessera

/// `--json`: what every command that reports results offers.
struct JSONOption: ParsableArguments {
    @Flag(help: "One JSON object per line (keys sorted) instead of text.")
    var json = false
}

/// `--quality`, `--speed`, `--palette`, `--dither`: how commands that write images encode them.
struct EncodingOptions: ParsableArguments {
    @Option(help: "JPEG, WebP, AVIF, HEIC or JPEG 2000 quality, 1–100 (defaults 85, 80, 50, 50, 85).", transform: Parse.quality)
    var quality: Int?

    @Option(help: "AVIF or HEIC encoder speed, 0 (slowest, smallest) to 9 (fastest).", transform: Parse.integer(0, 9))
    var speed: Int?

    @Flag(help: "Write PNG indexed, with at most 256 colours chosen by libimagequant (for graphics).")
    var palette = false

    @Option(
        help: "With --palette: dithering strength, 0 (none) to 1 (full Floyd–Steinberg, the default).",
        transform: Parse.fraction)
    var dither: Double?

    @Flag(help: "Write JPEG 2000 or JPEG XL losslessly (every bit kept).")
    var lossless = false

    func validate() throws {
        if dither != nil && !palette { throw ValidationError("--dither applies with --palette only") }
        if lossless && quality != nil { throw ValidationError("--lossless and --quality exclude each other") }
    }

    /// The encoding a file name's extension asks for, with these settings.
    func encoding(outputPath path: String) throws -> EncodingFormat {
        do { return try applied(to: try EncodingFormat(outputPath: path, quality: quality)) } catch let error as InvalidArgumentError {
            throw ValidationError(error.description)
        }
    }

    /// The encoding a format name asks for (already checked by `Parse.formatName`), with these settings.
    func encoding(formatName name: String) throws -> EncodingFormat {
        try applied(to: EncodingFormat(formatName: name, quality: quality)!)
    }

    /// `format` with `--speed` and `--palette` applied, or a usage error when it cannot take them.
    func applied(to format: EncodingFormat) throws -> EncodingFormat {
        var format = format
        if let speed {
            switch format {
            case .avif(let quality, _): format = .avif(quality: quality, speed: speed)
            case .heic(let quality, _): format = .heic(quality: quality, speed: speed)
            default: throw ValidationError("--speed applies to AVIF and HEIC output, not \(format.fileExtension)")
            }
        }
        if lossless {
            switch format {
            case .jpeg2000(let quality, _, let raw): format = .jpeg2000(quality: quality, lossless: true, rawCodestream: raw)
            case .jxl(let quality, _): format = .jxl(quality: quality, lossless: true)
            default: throw ValidationError("--lossless applies to JPEG 2000 and JPEG XL output, not \(format.fileExtension)")
            }
        }
        if palette {
            guard case .png = format else { throw ValidationError("--palette applies to PNG output, not \(format.fileExtension)") }
            format = .palettePNG(dithering: dither ?? 1)
        }
        return format
    }
}

/// `--keep-profile`: the source's colour profile embedded in the output instead of the pixels
/// converted to sRGB.
struct ColorOption: ParsableArguments {
    @Flag(help: "Keep an embedded colour profile: pixels as stored, the profile embedded in the output (default: converted to sRGB, untagged).")
    var keepProfile = false

    var management: ColorManagement { keepProfile ? .keepSourceProfile : .convertToSRGB }
}

/// `--page`: which page of a PDF.
struct PageOption: ParsableArguments {
    @Option(help: "The page of a PDF to render, from 1 (other formats ignore it).", transform: Parse.integer(1))
    var page = 1

    /// The page from 0, as the library counts.
    var index: Int { page - 1 }
}

/// `--jobs`: how much runs at once.
struct JobsOption: ParsableArguments {
    @Option(help: "How many run at once (default: active cores).", transform: Parse.integer(1, 1024))
    var jobs: Int = activeProcessorCount()
}
