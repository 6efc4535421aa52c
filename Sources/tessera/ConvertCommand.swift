import ArgumentParser
import FoundationEssentials
import Tessera

struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode an image and write it in the format the output's extension names (jpg, png, webp, avif, heic)."
    )

    @Argument(help: "The image to read.")
    var input: String

    @Argument(help: "The file to write; its extension picks the format.")
    var output: String

    @OptionGroup var encoding: EncodingOptions
    @OptionGroup var color: ColorOption

    @Flag(help: "Turn the pixels upright by the EXIF orientation (by default they are written as stored).")
    var autoOrient = false

    @Option(help: "Refuse images with more pixels than this (≥ 1).", transform: Parse.integer(1))
    var maxPixels = DecodeOptions.defaultMaximumPixelCount

    @OptionGroup var page: PageOption

    func validate() throws {
        _ = try encoding.encoding(outputPath: output)
    }

    func run() async throws {
        let failures = FailureLog()
        let encoding = try self.encoding.encoding(outputPath: output)
        let (input, autoOrient, maxPixels, management, pageIndex) = (self.input, self.autoOrient, self.maxPixels, color.management, page.index)
        do {
            let (pixels, profile) = try await WorkExecutor.shared.run { _ in
                let options = DecodeOptions(maximumPixelCount: maxPixels, colorManagement: management, pageIndex: pageIndex)
                let decoded = try ImageDecoder(options: options)
                    .decode(.file(input))
                return (autoOrient ? decoded.properties.orientation.apply(to: decoded.pixels) : decoded.pixels, decoded.iccProfile)
            }
            do {
                try ImageEncoder.encode(pixels, as: encoding, iccProfile: profile).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                failures.report(output, error)
            }
        } catch {
            failures.report(input, error)
        }
        try failures.exit()
    }
}
