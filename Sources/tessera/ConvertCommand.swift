import ArgumentParser
import FoundationEssentials
import Tessera

#if canImport(Glibc)
    import Glibc
#endif

struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode an image and write it in the format the output's extension names (jpg, png, webp, avif, heic, jp2, jxl, tif).",
        discussion: """
            A .tif or .tiff output is a tiled pyramidal TIFF (256-px JPEG tiles at --quality, Deflate with --lossless or             alpha), read level by level from the input's own levels (a slide's, a pyramid's) with the pixels `tessera serve`             gives. A whole-slide image with a microscope's scale is written as OME-TIFF (levels in SubIFDs, PhysicalSizeX             kept); any other image as a pyramid in the main chain, as vips writes one.
            """
    )

    @Argument(help: "The image to read.")
    var input: String

    @Argument(help: "The file to write; its extension picks the format.")
    var output: String

    @OptionGroup var encoding: EncodingOptions
    @OptionGroup var color: ColorOption

    @Flag(help: "JPEG input to .jxl output: recompress the JPEG losslessly (djxl rebuilds the original file exactly).")
    var losslessJPEG = false

    @Flag(help: "Turn the pixels upright by the EXIF orientation (by default they are written as stored).")
    var autoOrient = false

    @Option(help: "Refuse images with more pixels than this (≥ 1).", transform: Parse.integer(1))
    var maxPixels = DecodeOptions.defaultMaximumPixelCount

    @OptionGroup var page: PageOption

    /// A tiled pyramidal TIFF is asked for (`.tif`, `.tiff`).
    private var writesPyramid: Bool { ["tif", "tiff"].contains(URL(fileURLWithPath: output).pathExtension.lowercased()) }

    func validate() throws {
        if writesPyramid {
            guard !losslessJPEG, !autoOrient, !encoding.palette, encoding.speed == nil else {
                throw ValidationError(
                    "a pyramidal TIFF takes --quality or --lossless (its pixels are kept as stored, with their orientation tag)")
            }
            return
        }
        let encoding = try encoding.encoding(outputPath: output)
        if losslessJPEG {
            guard case .jxl = encoding else { throw ValidationError("--lossless-jpeg writes .jxl output, not \(encoding.fileExtension)") }
            if autoOrient || color.keepProfile || self.encoding.quality != nil || self.encoding.lossless {
                throw ValidationError("--lossless-jpeg keeps the JPEG as it is: no --auto-orient, --keep-profile, --quality or --lossless")
            }
        }
    }

    func run() async throws {
        let failures = FailureLog()
        do {
            try await convert(failures: failures)
        } catch let failure as OutputFailure {
            failures.report(output, failure.underlying)
        } catch {
            failures.report(input, error)
        }
        try failures.exit()
    }

    /// A failure to write the output (named by the output's path), as opposed to one of reading
    /// the input (named by the input's).
    private struct OutputFailure: Error {
        let underlying: any Error
    }

    /// Runs `body`, its failures counted as the output's.
    private static func writing<Result>(_ body: () throws -> Result) throws -> Result {
        do { return try body() } catch { throw OutputFailure(underlying: error) }
    }

    /// Decodes and writes; what the decoder worked around (damaged data shown as far as it decodes,
    /// a profile ignored) is printed as warnings, which do not fail the command.
    private func convert(failures: FailureLog) async throws {
        let (input, output, autoOrient) = (self.input, self.output, self.autoOrient)
        let options = DecodeOptions(maximumPixelCount: maxPixels, colorManagement: color.management, pageIndex: page.index)
        if writesPyramid {
            try await writePyramid(options: options)
            return
        }
        let encoding = try self.encoding.encoding(outputPath: output)
        if losslessJPEG {
            let jpeg = try Data(contentsOf: URL(fileURLWithPath: input))
            guard ImageFormat(sniffing: jpeg.prefix(ImageFormat.sniffLength)) == .jpeg else {
                throw ImageDecodingError.unsupported(reason: "--lossless-jpeg needs a JPEG input")
            }
            try Self.writing { try ImageEncoder.recompressJPEGAsJPEGXL(jpeg).write(to: URL(fileURLWithPath: output), options: .atomic) }
            return
        }
        if case .jpeg2000(let quality, let lossless, let raw) = encoding {
            // Streamed: rows from the decoder, tiles to the file, never the whole bitmap.
            let settings = JP2Writer.Settings(isLossless: lossless, quality: quality, isRawCodestream: raw)
            try await WorkExecutor.shared.run { context in
                try Self.streamJPEG2000(input, to: output, options: options, settings: settings, autoOrient: autoOrient, context: context)
            }
            return
        }
        let (pixels, profile, warnings) = try await WorkExecutor.shared.run { _ in
            let decoded = try ImageDecoder(options: options).decode(.file(input))
            let pixels = autoOrient ? decoded.properties.orientation.apply(to: decoded.pixels) : decoded.pixels
            return (pixels, decoded.iccProfile, decoded.properties.warnings)
        }
        for warning in warnings { failures.warn(input, "warning: " + warning) }
        try Self.writing {
            try ImageEncoder.encode(pixels, as: encoding, iccProfile: profile).write(to: URL(fileURLWithPath: output), options: .atomic)
        }
    }

    /// `input` written to `output` as a tiled pyramidal TIFF (`TIFFPyramidExport`), through a
    /// file beside it moved into place when whole.
    private func writePyramid(options: DecodeOptions) async throws {
        let (input, output) = (self.input, self.output)
        let quality = encoding.quality ?? 85, lossless = encoding.lossless, keepsProfile = color.keepProfile
        try await WorkExecutor.shared.run { context in
            let levels = try RegionSourceKinds.levels(
                ofFileAt: input, kinds: RegionSourceKinds.standard(readers: TIFFReaderPool(readersPerFile: 1)), options: options)
            let compression: TIFFPyramidWriter.Compression =
                lossless || levels.source.pixelFormat.alphaChannelIndex != nil ? .deflate : .jpeg(quality: quality)
            let partial = output + ".partial-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: partial) }
            do {
                try TIFFPyramidExport.write(
                    levels, to: partial, compression: compression, iccProfile: keepsProfile ? levels.properties.iccProfile : nil,
                    context: context)
            } catch let error as ImageEncodingError {
                throw OutputFailure(underlying: error)
            }
            // rename(2) replaces any file there at once: a reader sees the old file or the whole new one.
            guard rename(partial, output) == 0 else {
                throw OutputFailure(underlying: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
            }
        }
    }

    /// `input`'s rows written to `output` as JPEG 2000 as they are decoded. A turned image (with
    /// `--auto-orient`) is decoded whole and turned first: its rows come out in another order.
    static func streamJPEG2000(
        _ input: String, to output: String, options: DecodeOptions, settings: JP2Writer.Settings, autoOrient: Bool, context: WorkContext
    ) throws {
        let rows = try ImageRowReader(.file(input), options: options)
        if autoOrient && rows.properties.orientation != .up {
            let decoded = try ImageDecoder(options: options).decode(.file(input))
            try writing {
                try JP2Writer.write(
                    decoded.properties.orientation.apply(to: decoded.pixels), to: output, settings: settings, iccProfile: decoded.iccProfile)
            }
            return
        }
        let writer = try writing {
            try JP2Writer(path: output, size: rows.rowSize, format: rows.format, settings: settings, iccProfile: rows.outputProfile)
        }
        var failure: ImageEncodingError?
        try rows.forEachRow(context: context) { row in
            guard failure == nil else { return }
            do throws(ImageEncodingError) { try writer.append(row: row) } catch { failure = error }
        }
        try writing {
            if let failure { throw failure }
            try writer.finish()
        }
    }
}
