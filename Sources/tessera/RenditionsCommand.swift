import ArgumentParser
import FoundationEssentials
import Tessera

struct RenditionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "renditions",
        abstract: "Write an Xcode asset catalog image set: the 1x/2x/3x PNGs of an image and their Contents.json.",
        discussion: """
            Each PNG is exactly the size in points × its scale, in pixels (NAME.png, NAME@2x.png, \
            NAME@3x.png). SVG and PDF are drawn at each size. A bitmap is shrunk while decoding, and \
            refused when it is smaller than a rendition needs, unless --allow-upscale. When the \
            source's aspect ratio differs from --points, it is fitted whole and centred on a \
            transparent canvas, or with --crop fills the rendition and is cropped, centred. \
            --format pdf or svg instead copies the vector source as the set's single image, with \
            Preserve Vector Data set.
            """
    )

    enum RenditionFormat: String, ExpressibleByArgument, CaseIterable {
        case png, pdf, svg
    }

    @Argument(help: "The source: SVG or PDF, or a bitmap at least as large as the largest rendition.")
    var input: String

    @Option(
        help: "The image's size in points, WxH, each > 0 (a fraction of a pixel rounds up). Needed for png.",
        transform: Parse.pointSize)
    var points: PointSize?

    @Option(help: "The scales to write: 1, 2 and/or 3, comma-separated, each once (default 1,2,3).", transform: Parse.scales)
    var scales: [DisplayScale]?

    @Option(
        help: """
            png: one bitmap per scale. pdf, svg: the source file itself (which must be of that format), \
            copied as a single-scale image that Xcode keeps as vectors.
            """)
    var format: RenditionFormat = .png

    @Option(
        help: """
            The image set folder, DIR/NAME.imageset, inside an .xcassets catalog (created if missing; \
            files of the same names are overwritten). NAME names the files.
            """)
    var output: String

    @Flag(help: "Enlarge a bitmap source smaller than a rendition (it will look soft) instead of refusing.")
    var allowUpscale = false

    @Flag(help: "Fill each rendition and crop the overflow, centred (default: fit the whole image, centred on transparency).")
    var crop = false

    @OptionGroup var encoding: EncodingOptions
    @OptionGroup var color: ColorOption
    @OptionGroup var page: PageOption
    @OptionGroup var report: JSONOption

    /// A file of the image set: its name, bytes, its keys for `--json` besides `input, output,
    /// bytes`, and the end of its text line.
    private typealias OutputFile = (name: String, data: Data, report: [String: JSONScalar], line: String)

    /// `--output` without trailing slashes.
    private var imageSet: String {
        var path = Substring(output)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    /// NAME of `DIR/NAME.imageset`.
    private var name: String {
        String(URL(fileURLWithPath: imageSet).lastPathComponent.dropLast(".imageset".count))
    }

    func validate() throws {
        guard imageSet.hasSuffix(".imageset") else { throw ValidationError("--output must be a folder named NAME.imageset") }
        do { try AssetRenditionPlan.check(name: name) } catch {
            throw ValidationError("--output NAME.imageset: the \(error.description)")
        }
        if format == .png {
            guard points != nil else { throw ValidationError("give --points WxH, the image's size in points") }
            if encoding.quality != nil { throw ValidationError("--quality does not apply: renditions are PNG") }
            _ = try encoding.applied(to: .png())
        } else {
            let pngOnly = [
                ("--points", points != nil), ("--scales", scales != nil), ("--allow-upscale", allowUpscale), ("--crop", crop),
                ("--palette", encoding.palette), ("--quality", encoding.quality != nil), ("--speed", encoding.speed != nil),
                ("--keep-profile", color.keepProfile), ("--page", page.page != 1),
            ].filter(\.1).map(\.0)
            if let first = pngOnly.first {
                throw ValidationError("\(first) applies to --format png; --format \(format.rawValue) copies the file as it is")
            }
        }
    }

    func run() async throws {
        let failures = FailureLog()
        let source = ImageSource.file(input)
        do {
            let properties = try ImageDecoder(options: DecodeOptions(pageIndex: page.index)).probe(source)
            try write(format == .png ? try await bitmaps(of: source, properties) : try vector(properties, failures: failures))
        } catch let error as ValidationError {
            throw error  // a source of another format than --format names: a usage error
        } catch let error as WriteFailure {
            failures.report(error.path, error)
        } catch {
            failures.report(input, error)
        }
        try failures.exit()
    }

    /// The PNGs, planned first (so a refused upscale writes nothing), and the Contents.json.
    private func bitmaps(
        of source: ImageSource, _ properties: ImageProperties
    ) async throws -> [OutputFile] {
        guard let points else { throw ValidationError("give --points WxH, the image's size in points") }
        let plan: AssetRenditionPlan
        do {
            plan = try AssetRenditionPlan(
                name: name, pointSize: points, scales: scales ?? AssetRenditionPlan.catalogScales, source: properties,
                framing: crop ? .centerCrop : .fit, allowsUpscaling: allowUpscale)
        } catch {
            if case .wouldUpscale = error { throw UpscaleRefusal(error: error) }
            throw error
        }
        let encoding = try self.encoding.applied(to: .png())
        var files: [OutputFile] = []
        for rendition in plan.renditions {
            let image = try await plan.render(rendition, from: source, colorManagement: color.management, pageIndex: page.index)
            let data = try ImageEncoder.encode(image.pixels, as: encoding, iccProfile: image.iccProfile)
            let size = image.pixels.size
            let enlarged = rendition.isUpscaled ? ", enlarged from \(plan.sourceSize)" : ""
            files.append(
                (
                    rendition.filename, data,
                    [
                        "scale": .string(rendition.scaleName), "width": .int(size.width), "height": .int(size.height),
                        "upscaled": .bool(rendition.isUpscaled),
                    ],
                    "\(size) (@\(rendition.scaleName) of \(Self.format(points)) pt\(enlarged))"
                ))
        }
        let listed = plan.renditions.map { "@" + $0.scaleName }.joined(separator: ", ")
        files.append(("Contents.json", plan.contents.encoded(), [:], "lists \(listed)"))
        return files
    }

    /// The vector source copied byte for byte, then the Contents.json (after checking the source
    /// is the format asked for).
    private func vector(_ properties: ImageProperties, failures: FailureLog) throws -> [OutputFile] {
        let wanted: ImageFormat = format == .pdf ? .pdf : .svg
        guard properties.format == wanted else {
            throw ValidationError(
                "--format \(format.rawValue) needs a \(format.rawValue.uppercased()) source; \(input) is \(properties.format.rawValue)")
        }
        if wanted == .pdf && properties.frameCount > 1 {
            failures.warn(input, "Xcode shows the first of its \(properties.frameCount) pages")
        }
        let filename = name + "." + format.rawValue
        return [
            (filename, try Data(contentsOf: URL(fileURLWithPath: input)), [:], "vector, single scale"),
            ("Contents.json", AssetCatalogContents.vector(filename: filename).encoded(), [:], "single scale, preserves vector data"),
        ]
    }

    /// Writes `files` into the image set in order (`Contents.json` last), printing a line for each.
    private func write(_ files: [OutputFile]) throws {
        do { try FileManager.default.createDirectory(atPath: imageSet, withIntermediateDirectories: true) } catch {
            throw WriteFailure(path: imageSet, underlying: error)
        }
        for file in files {
            let path = URL(fileURLWithPath: imageSet).appendingPathComponent(file.name).path
            do { try file.data.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
                throw WriteFailure(path: path, underlying: error)
            }
            if report.json {
                printJSON(["input": .string(input), "output": .string(path), "bytes": .int(file.data.count)].merging(file.report) { a, _ in a })
            } else {
                print("\(input) → \(path)  \(file.line)")
            }
        }
    }

    private static func format(_ size: PointSize) -> String {
        func number(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
        return "\(number(size.width))×\(number(size.height))"
    }
}

/// The plan's refusal to enlarge a bitmap, with the option that allows it.
private struct UpscaleRefusal: TesseraError {
    var error: AssetRenditionError
    var category: ErrorCategory { error.category }
    var description: String { error.description + " (pass --allow-upscale to enlarge it anyway)" }
}

/// A file or folder of the image set that could not be written.
private struct WriteFailure: TesseraError {
    var path: String
    var underlying: any Error
    var category: ErrorCategory { .io }
    var description: String { "cannot write: " + fileSystemReason(underlying) }
}

extension Parse {
    /// Asset catalog scales: 1, 2 and/or 3 (`2x` too), comma-separated, each at most once.
    static func scales(_ text: String) throws -> [DisplayScale] {
        var scales: [DisplayScale] = []
        for part in text.lowercased().split(separator: ",", omittingEmptySubsequences: false) {
            let digits = part.hasSuffix("x") ? part.dropLast() : part
            guard let value = Int(digits), (1...3).contains(value) else {
                throw ValidationError("must be 1, 2 or 3, comma-separated, e.g. 1,2,3")
            }
            let scale = DisplayScale(Double(value))
            guard !scales.contains(scale) else { throw ValidationError("names \(value) more than once") }
            scales.append(scale)
        }
        return scales
    }
}
