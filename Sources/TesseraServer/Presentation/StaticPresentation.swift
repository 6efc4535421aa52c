import FoundationEssentials
import Logging
public import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

#if canImport(Glibc)
    import Glibc
#endif

/// `tessera manifest`: the IIIF Presentation 3.0 documents `tessera serve` makes (a manifest per
/// image, document and video; a collection and a manifest per folder; sidecars merged) written as
/// static files for a static host, with level-0 IIIF tiles beside them, the tiles
/// `tessera tile --layout iiif` writes. A collection is then published with no server running.
///
/// Under the output directory, for an input named `NAME` (a folder, or a file):
/// - `NAME/…/{file}/manifest.json`, and the image service `NAME/…/{file}` (its `info.json` and
///   tiles); a document's pages are the services `{file};1`, `{file};2`…;
/// - `NAME/…/collection.json` for every folder, and `NAME/…/manifest.json` (the folder as one
///   manifest, a book kept as page files) for a folder with images or videos;
/// - a video copied to `NAME/…/{file}/{file}` (the only original copied);
/// - `collection.json`, the inputs' collection.
///
/// Every URL in them starts with the base URL the files will be served from. Files are read as
/// `tessera serve` reads them: only headers to describe, row by row to tile, and nothing outside
/// an input is followed (symlinks out of it are refused).
public struct StaticPresentation: Sendable {
    /// What was written.
    public struct Summary: Sendable, Equatable {
        /// Manifests and collections.
        public var documents = 0
        /// Image services (a pyramid each: an image, or a page of a document).
        public var pyramids = 0
        /// Tile files, `full` ones included.
        public var tiles = 0
        /// Bytes of every tile.
        public var tileBytes = 0
        /// Videos copied.
        public var videos = 0
    }

    /// Where the output directory will be served from: `https://example.org/collection`.
    public let baseURL: String
    /// Where the files go; made when missing.
    public let outputDirectory: String
    /// The tiles' side in pixels.
    public let tileSize: Int
    /// How the tiles are encoded.
    public let encoding: EncodingFormat
    /// The most pixels a source decoded whole may have (as `tessera serve`'s source limit).
    public let maximumPixelCount: Int

    /// - Parameters:
    ///   - baseURL: where `outputDirectory` will be served from (a trailing `/` is dropped).
    ///   - outputDirectory: where the files go.
    ///   - tileSize: the tiles' side in pixels, 512 by default.
    ///   - encoding: the tiles' encoding, JPEG at quality 85 by default.
    ///   - maximumPixelCount: the largest source decoded whole, in pixels.
    public init(
        baseURL: String, outputDirectory: String, tileSize: Int = 512, encoding: EncodingFormat = .jpeg(quality: 85),
        maximumPixelCount: Int = DecodeOptions.defaultMaximumPixelCount
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.outputDirectory = outputDirectory
        self.tileSize = tileSize
        self.encoding = encoding
        self.maximumPixelCount = maximumPixelCount
    }

    /// Writes the documents and tiles of `inputs` (folders and files), and the collection of them.
    /// `report(path, error)` is called after each file under an input (error nil when written); a
    /// file that fails is left out of the documents' tiles and the rest goes on.
    ///
    /// - Throws: a file-system error writing the output, a not-found error for an input that is
    ///   not there, `CancellationError`.
    public func write(_ inputs: [String], report: @Sendable (String, (any Error)?) -> Void = { _, _ in }) async throws -> Summary {
        try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
        let scratch = outputDirectory + "/.tessera-scratch-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var summary = Summary()
        var items: [ResourceReference] = []
        for input in inputs {
            let path = input.count > 1 && input.hasSuffix("/") ? String(input.dropLast()) : input
            var isFolder = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw ServerError(.notFound, "no such file or folder")
            }
            let name = URL(fileURLWithPath: path).lastPathComponent
            let root = isFolder ? path : URL(fileURLWithPath: path).deletingLastPathComponent().path
            let publisher = try Publisher(
                root: root, scratch: scratch + "/" + String(items.count), maximumPixelCount: maximumPixelCount,
                urls: PresentationURLs(staticBase: baseURL + (isFolder ? "/" + PercentEncoding.encode(name) : ""), tileSize: tileSize),
                output: outputDirectory + (isFolder ? "/" + name : ""), tileSize: tileSize, encoding: encoding)
            if isFolder {
                try await publisher.folders(summary: &summary, report: report)
                items.append(ResourceReference(id: publisher.urls.collection(""), type: "Collection", label: LanguageMap([name])))
            } else {
                try await publisher.file(PercentEncoding.encode(name), summary: &summary, report: report)
                items.append(
                    ResourceReference(id: publisher.urls.manifest(PercentEncoding.encode(name)), type: "Manifest", label: LanguageMap([name])))
            }
        }
        let top = PresentationURLs(staticBase: baseURL, tileSize: tileSize)
        let collection = IIIFCollection(id: top.collection(""), description: ResourceDescription(label: LanguageMap(["/"])), items: items)
        try await Publisher.streaming(to: outputDirectory + "/collection.json") { write in try await write(try collection.json()) }
        summary.documents += 1
        return summary
    }
}

/// One input's documents: the server's own Presentation code over a root, with static URLs.
private struct Publisher {
    let presentation: PresentationService
    let urls: PresentationURLs
    let output: String
    let tileSize: Int
    let encoding: EncodingFormat
    let logger = Logger(label: "tessera.manifest")

    init(
        root: String, scratch: String, maximumPixelCount: Int, urls: PresentationURLs, output: String, tileSize: Int,
        encoding: EncodingFormat
    ) throws {
        var configuration = ServerConfiguration(root: root, cacheDirectory: scratch)
        configuration.sourcePixelLimit = maximumPixelCount
        let images = try ImageService(configuration: configuration, metrics: ServerMetrics())
        presentation = PresentationService(
            images: images, videos: VideoService(answers: images.answers, executor: images.executor, jpegQuality: images.configuration.jpegQuality),
            lister: AssetLister(resolver: images.resolver, executor: images.executor, kinds: images.planner.kinds))
        self.urls = urls
        self.output = output
        self.tileSize = tileSize
        self.encoding = encoding
    }

    /// Every folder under the root: its collection and manifest, and every file in it.
    func folders(summary: inout Summary, report: (String, (any Error)?) -> Void) async throws {
        var pending = [""]
        while let directory = pending.popLast() {
            try Task.checkCancellation()
            let lister = presentation.lister
            let snapshot = try lister.snapshot(directory)
            let sidecar = presentation.read(
                presentation.sidecarFile(
                    directory.isEmpty ? PresentationService.folderSidecarName : directory + "/" + PresentationService.folderSidecarName),
                logger: logger)
            let folder = output + (directory.isEmpty ? "" : "/" + directory)
            // The collection's pass lists the folder; its entries are walked after.
            var found: [AssetListing.Entry] = []
            for kind in [PresentationService.FolderDocument.collection, .manifest] {
                let path = folder + "/" + kind.rawValue + ".json"
                let items = try await Self.streaming(to: path) { write in
                    try await presentation.writeFolderDocument(
                        kind, of: directory, snapshot, sidecar: sidecar, urls: urls, seen: { if kind == .collection { found += $0 } },
                        to: write)
                }
                // A folder with no image or video is a collection only.
                if kind == .manifest && items == 0 { try FileManager.default.removeItem(atPath: path) } else { summary.documents += 1 }
            }
            for entry in found {
                switch entry.kind {
                case .directory: pending.append(entry.path)
                case .image, .video: try await file(entry.id, summary: &summary, report: report)
                }
            }
        }
    }

    /// One file's manifest and image services (a pyramid per page), or its copy (a video).
    func file(_ encodedIdentifier: String, summary: inout Summary, report: (String, (any Error)?) -> Void) async throws {
        let images = presentation.images
        let source = try await images.resolve(encodedIdentifier)
        let relativePath = source.relativePath
        do {
            let (folder, name) = PresentationPieces.split(relativePath)
            let directory = output + (folder.isEmpty ? "" : "/" + folder)
            // An image's failure is its own; a file that is no image may be a video.
            let properties: ImageProperties?
            do {
                properties = try await images.planner.properties(of: source)
            } catch let error as ImageDecodingError where error == .unknownFormat {
                properties = nil
            }
            if let properties {
                for page in 0..<properties.pageCount {
                    try Task.checkCancellation()
                    let service = name + (properties.pageCount > 1 ? ";\(page + 1)" : "")
                    let built = try await pyramid(source, properties: properties, page: page, name: service, directory: directory, folder: folder)
                    summary.pyramids += 1
                    summary.tiles += built.tiles
                    summary.tileBytes += built.bytes
                }
            } else if let path = source.path {
                // Not an image Tessera reads: a video, or an error saying what it is.
                _ = try await presentation.videos.asset(source)
                try FileManager.default.createDirectory(atPath: output + "/" + relativePath, withIntermediateDirectories: true)
                let copy = output + "/" + relativePath + "/" + name
                try? FileManager.default.removeItem(atPath: copy)
                try FileManager.default.copyItem(atPath: path, toPath: copy)
                summary.videos += 1
            }
            // After the pyramid, whose directory replaces any of the same name.
            let sidecar = presentation.read(presentation.sidecarFile(relativePath + ".iiif.json"), logger: logger)
            try await Self.streaming(to: output + "/" + relativePath + "/manifest.json") { write in
                try await presentation.writeManifest(of: source, urls: urls, sidecar: sidecar, to: write)
            }
            summary.documents += 1
            report(relativePath, nil)
        } catch let error as CancellationError {
            throw error
        } catch {
            report(relativePath, error)
        }
    }

    /// The level-0 pyramid of one page, upright (a source turned by its orientation tag is turned
    /// first, in memory, as the server turns its regions).
    private func pyramid(
        _ source: ResolvedSource, properties: ImageProperties, page: Int, name: String, directory: String, folder: String
    ) async throws -> PyramidSummary {
        var options = PyramidOptions(
            layout: .iiif(tileSize: tileSize, baseURL: folder.isEmpty ? urls.iiif : urls.imageService(PercentEncoding.encode(folder))),
            encoding: encoding, maximumPixelCount: presentation.images.configuration.sourcePixelLimit)
        options.pageIndex = page
        var input = source.input
        if properties.orientation != .up {
            let decoded = try ImageDecoder(options: DecodeOptions(maximumPixelCount: options.maximumPixelCount, pageIndex: page)).decode(input)
            input = .data(
                try ImageEncoder.encode(
                    properties.orientation.apply(to: decoded.pixels), as: .png(compressionLevel: 1), iccProfile: decoded.iccProfile))
            options.pageIndex = 0
        }
        return try await PyramidBuilder.build(input, name: name, outputDirectory: directory, options: options)
    }

    typealias Summary = StaticPresentation.Summary

    /// What `make` writes, written to `path` as it comes (its folders made, replaced whole at the
    /// end); `make`'s result.
    static func streaming<T>(to path: String, _ make: ((Data) async throws -> Void) async throws -> T) async throws -> T {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let partial = path + ".partial"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [:]) }
        do {
            let result = try await make { piece in
                try piece.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                        guard written > 0 else { throw CocoaError(.fileWriteOutOfSpace, userInfo: [:]) }
                        offset += written
                    }
                }
            }
            close(descriptor)
            _ = try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.moveItem(atPath: partial, toPath: path)
            return result
        } catch {
            close(descriptor)
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }
}
