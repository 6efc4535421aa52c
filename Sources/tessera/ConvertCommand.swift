import ArgumentParser
import Foundation
import Tessera

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode an image and write it in the format the output's extension names (jpg, png, webp)."
    )

    @Argument(help: "The image to read.")
    var input: String

    @Argument(help: "The file to write; its extension picks the format.")
    var output: String

    @Option(help: "JPEG or WebP quality, 1–100.")
    var quality: Int?

    @Flag(help: "Turn the pixels upright by the EXIF orientation (by default they are written as stored).")
    var autoOrient = false

    @Option(help: "Refuse images with more pixels than this.")
    var maxPixels = DecodeOptions.defaultMaximumPixelCount

    func run() throws {
        let outputExtension = URL(fileURLWithPath: output).pathExtension
        guard let encoding = ImageEncoding(fileExtension: outputExtension, quality: quality) else {
            throw ValidationError("\(output): cannot write .\(outputExtension) files (use .jpg, .png or .webp)")
        }
        do {
            let decoded = try ImageDecoder(options: DecodeOptions(maximumPixelCount: maxPixels)).decode(.file(input))
            let pixels = autoOrient ? decoded.properties.orientation.apply(to: decoded.pixels) : decoded.pixels
            let data = try ImageEncoder.encode(pixels, as: encoding)
            try data.write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch let error as ImageDecodingError {
            reportFailure(input, error)
            throw ExitCode.failure
        } catch {
            reportFailure(output, error)
            throw ExitCode.failure
        }
    }
}
