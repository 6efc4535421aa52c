import FoundationEssentials
import Logging
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles
import TesseraVideo

/// IIIF Presentation 3.0 documents made from what is under the root, with no scripts: a manifest
/// of every image (one canvas), document (a canvas per page, `paged`) and video (a canvas with
/// its duration); a manifest of a folder's images (a book of page files); and a collection of
/// every folder, whose items are its subfolders and files in the listing's order.
///
/// Only headers are read: an image's probe, a document's page sizes in one pass, a video's
/// container. A file's manifest is kept in the response cache by the file's version.
struct PresentationService: Sendable {
    let images: ImageService
    let videos: VideoService
    let lister: AssetLister
    /// Small folders' documents by what they were made from (the listing's fingerprint, the
    /// folder's sidecar, the URLs): a folder unchanged since is answered without probing a file
    /// again. A larger one is made again as it is sent (its probes are kept by the lister).
    let folderDocuments = Locked(LRUCache<String, Data>(costLimit: 64 << 20))
    /// The largest folder document kept whole, in bytes (a quarter of the cache: about 16,000
    /// canvases); a larger one is made again for each request, in bounded memory.
    static let keptDocumentBytes = 16 << 20

    init(images: ImageService, videos: VideoService, lister: AssetLister) {
        self.images = images
        self.videos = videos
        self.lister = lister
    }

    /// What a folder is described as.
    enum FolderDocument: String, Sendable {
        /// Its subfolders and files.
        case collection
        /// One manifest of its images and videos.
        case manifest
    }

    /// A folder's document as an answer: a version from what it is made of (so an unchanged folder
    /// costs a 304 without a file probed), and its bytes written as they are made.
    struct FolderAnswer: Sendable {
        /// The same folder listing, sidecar and URLs always make the same bytes: an entity tag
        /// made from it is strong.
        let version: String
        /// The folder's and its entries' latest modification, in seconds since 1970.
        let lastModified: Int64
        /// Writes the document to `write` a piece at a time; what is held at once is a batch of
        /// entries, not the folder.
        let send: @Sendable (_ write: (Data) async throws -> Void) async throws -> Void
    }

    /// `directory`'s `kind` of document (relative to the root, decoded; "" for the root). The
    /// directory is read once; its sidecar is read only when the document is made.
    func folderAnswer(_ kind: FolderDocument, of directory: String, urls: PresentationURLs, logger: Logger) throws -> FolderAnswer {
        let snapshot = try lister.snapshot(directory)
        let sidecarFile = self.sidecarFile(directory.isEmpty ? Self.folderSidecarName : directory + "/" + Self.folderSidecarName)
        let key = [
            kind.rawValue, directory, snapshot.fingerprint, sidecarFile?.version ?? "none", urls.presentation, urls.iiif, urls.media,
        ].joined(separator: "\u{0}")
        return FolderAnswer(version: key, lastModified: snapshot.lastModified) { write in
            if let known = folderDocuments.withLock({ $0.value(for: key) }) { return try await write(known) }
            // Copied as it is written while it stays small enough to keep.
            var kept = Data()
            var keeps = true
            try await writeFolderDocument(kind, of: directory, snapshot, sidecar: read(sidecarFile, logger: logger), urls: urls) { piece in
                keeps = keeps && kept.count + piece.count <= Self.keptDocumentBytes
                if keeps { kept.append(piece) }
                try await write(piece)
            }
            if keeps { folderDocuments.withLock { _ = $0.insert(kept, for: key, cost: kept.count) } }
        }
    }

    /// The most entries a collection or folder manifest lists (a folder of more is cut there,
    /// and says so in its `summary`).
    static let maximumEntries = 100_000
    /// The longest side of the thumbnails the documents name, in pixels.
    static let thumbnailSide = 256

    /// The manifest of the image, document or video `source`, with its sidecar
    /// (`{file name}.iiif.json`) if it has one; and the version of what it was made from (the
    /// file's and the sidecar's), for its entity tag.
    func manifest(of source: ResolvedSource, urls: PresentationURLs, logger: Logger) async throws -> (body: ByteBuffer, version: String) {
        guard source.page == nil else {
            throw ServerError(.notFound, "a page has no manifest of its own: the document's lists it")
        }
        let sidecarFile = self.sidecarFile(source.relativePath + ".iiif.json")
        let version = "manifest|" + (sidecarFile?.version ?? "none") + "|" + urls.presentation + "|" + urls.iiif + "|" + urls.media
        let body = try await images.answers.answer(version, source: source) {
            var body = ByteBuffer()
            try await writeManifest(of: source, urls: urls, sidecar: read(sidecarFile, logger: logger)) { body.writeBytes($0) }
            return body
        }
        return (body, version)
    }

    /// A sidecar that is there, not yet read.
    struct SidecarFile {
        /// Relative to the root, decoded: what a warning names.
        let relativePath: String
        let path: String
        let byteCount: Int
        /// Changes when the file does: part of the key of every document made with it.
        let version: String
    }

    /// The sidecar at `relativePath` under the root, if there is one; nothing is read. Resolved as
    /// any identifier is: inside the root, through no symlink out of it.
    func sidecarFile(_ relativePath: String) -> SidecarFile? {
        guard let resolver = lister.resolver, let file = try? resolver.resolve(PercentEncoding.encode(relativePath)), let path = file.path
        else { return nil }
        return SidecarFile(relativePath: relativePath, path: path, byteCount: file.identity.byteCount, version: file.key)
    }

    /// `file` read and checked. One that is wrong is left out, and the reason logged (the document
    /// is still served: a curator's typo does not take the images offline).
    func read(_ file: SidecarFile?, logger: Logger) -> PresentationSidecar? {
        guard let file else { return nil }
        guard file.byteCount <= PresentationSidecar.maximumByteCount, let data = FileManager.default.contents(atPath: file.path) else {
            logger.warning("\(file.relativePath): sidecar over \(PresentationSidecar.maximumByteCount) bytes or unreadable; not used")
            return nil
        }
        do {
            return try PresentationSidecar(json: data)
        } catch {
            logger.warning("\(file.relativePath): \(error); not used")
            return nil
        }
    }

    /// A folder's sidecar's file name.
    static let folderSidecarName = "_folder.iiif.json"

    /// Writes the manifest of the image, document or video `source` to `write` a piece at a time:
    /// a document's canvases are made and encoded a thousand pages at a time, so a 10,000-page PDF
    /// holds its page sizes and one batch, not 10,000 canvases.
    func writeManifest(
        of source: ResolvedSource, urls: PresentationURLs, sidecar: PresentationSidecar?, to write: (Data) async throws -> Void
    ) async throws {
        let (directory, name) = PresentationPieces.split(source.relativePath)
        let encoded = PercentEncoding.encode(source.relativePath)
        let id = urls.manifest(encoded)
        var description = ResourceDescription(label: LanguageMap([name]))
        description.partOf = [PresentationPieces.folderReference(directory, urls: urls)]
        let count: Int
        let canvas: (Int) -> IIIFCanvas?
        do {
            let plan = try await images.planner.plan(for: source)
            let properties = plan.properties, micronsPerPixel = plan.source.micronsPerPixel
            let sizes = properties.pageCount > 1 ? try await pageSizes(of: source) : [properties.displaySize]
            // A slide's label, macro photo and thumbnail follow it, when the server serves them.
            let associated = images.configuration.servesAssociatedImages ? plan.source.associatedImages : []
            count = sizes.count + associated.count
            let side = thumbnailSide(for: source.relativePath)
            canvas = { index in
                if index >= sizes.count {
                    let image = associated[index - sizes.count]
                    return PresentationPieces.imageCanvas(
                        id: id + "/canvas/\(image.name)", service: urls.imageService(encoded + ";" + image.name),
                        size: PixelSize(width: image.width, height: image.height), label: LanguageMap([image.name]), side: side, urls: urls)
                }
                let size = sizes[index]
                guard size.width > 0, size.height > 0 else { return nil }
                let page = sizes.count > 1 ? ";\(index + 1)" : ""
                var canvas = PresentationPieces.imageCanvas(
                    id: id + "/canvas/\(index + 1)", service: urls.imageService(encoded + page), size: size,
                    label: sizes.count > 1 ? LanguageMap([String(index + 1)]) : nil, side: side, urls: urls)
                canvas.physicalDimensions = micronsPerPixel.map {
                    PhysicalDimensionsService(imageService: canvas.content.service[0].id, micronsPerPixel: $0)
                }
                return canvas
            }
            description.metadata = PresentationPieces.imageMetadata(properties)
            if properties.pageCount > 1 {
                description.behavior = ["paged"]
                description.metadata.insert(PresentationPieces.entry("Pages", String(properties.pageCount)), at: 1)
            }
            description.rendering =
                PresentationPieces.original(properties.format, encoded: encoded, bytes: properties.fileByteCount, urls: urls).map { [$0] } ?? []
        } catch let error as ImageDecodingError where error == .unknownFormat {
            let asset = try await videos.asset(source)
            let video = VideoProperties(asset)
            let only = PresentationPieces.videoCanvas(id: id + "/canvas/1", video: video, encoded: encoded, path: source.path ?? "", urls: urls)
            (count, canvas) = (1, { _ in only })
            description.metadata = PresentationPieces.videoMetadata(video, bytes: source.identity.byteCount)
        }
        description.thumbnail = (0..<count).lazy.compactMap(canvas).first?.thumbnail ?? []
        sidecar?.apply(to: &description)
        let (head, tail) = try IIIFManifest(id: id, description: description, items: []).envelope()
        try await write(head)
        var written = 0
        for start in stride(from: 0, to: count, by: AssetLister.batchSize) {
            try Task.checkCancellation()
            let batch = (start..<min(start + AssetLister.batchSize, count)).compactMap(canvas)
            guard !batch.isEmpty else { continue }
            var piece = written > 0 ? Data([UInt8(ascii: ",")]) : Data()
            piece.append(try IIIFManifest.json(of: batch))
            written += batch.count
            try await write(piece)
        }
        try await write(tail)
    }

    /// Every page's upright size, from the headers in one pass.
    private func pageSizes(of source: ResolvedSource) async throws -> [PixelSize] {
        let limit = images.configuration.sourcePixelLimit
        return try await images.executor.run(priority: .high) { _ in
            try ImageDecoder(options: DecodeOptions(maximumPixelCount: limit)).pageSizes(source.input)
        }
    }

    /// Writes `directory`'s `kind` of document (relative to the root, decoded; `snapshot` its
    /// listing) to `write` a piece at a time, in the listing's order, and returns how many items it
    /// has. A collection: the subfolders as collections, then the images, documents and videos as
    /// manifests. A manifest: a canvas per image and video (a book or a gallery kept as one file
    /// per page; a document adds its first page). Memory holds a batch of entries, not the folder;
    /// the bytes are those of the whole document encoded at once.
    ///
    /// `seen` gets each batch of entries as it is listed (what a caller walking the folder needs,
    /// without listing it again).
    @discardableResult
    func writeFolderDocument(
        _ kind: FolderDocument, of directory: String, _ snapshot: AssetLister.Snapshot, sidecar: PresentationSidecar?,
        urls: PresentationURLs, seen: ([AssetListing.Entry]) -> Void = { _ in }, to write: (Data) async throws -> Void
    ) async throws -> Int {
        let (parent, name) = PresentationPieces.split(directory)
        var description = ResourceDescription(label: LanguageMap([directory.isEmpty ? "/" : name]))
        if snapshot.positions.count > Self.maximumEntries { description.summary = Self.cutSummary }
        switch kind {
        case .collection:
            if !directory.isEmpty { description.partOf = [PresentationPieces.folderReference(parent, urls: urls)] }
            let document = IIIFCollection(id: urls.collection(directory), description: description, items: [])
            return try await stream(document, of: directory, snapshot, sidecar: sidecar, to: write) { entries, _ in
                seen(entries)
                return entries.filter(isListed).map { Self.collectionItem($0, side: thumbnailSide(for: $0.path), urls: urls) }
            }
        case .manifest:
            description.partOf = [PresentationPieces.folderReference(directory.isEmpty ? "" : parent, urls: urls)]
            let id = urls.manifest(PercentEncoding.encode(directory))
            let document = IIIFManifest(id: id, description: description, items: [])
            return try await stream(document, of: directory, snapshot, sidecar: sidecar, thumbnail: \.thumbnail, to: write) { entries, start in
                seen(entries)
                var canvases: [IIIFCanvas] = []
                for entry in entries where isListed(entry) {
                    if let canvas = Self.folderCanvas(
                        entry, id: id + "/canvas/\(start + canvases.count + 1)", side: thumbnailSide(for: entry.path), urls: urls)
                    {
                        canvases.append(canvas)
                    }
                }
                return canvases
            }
        }
    }

    /// Writes `document` with the items `items` makes of each batch of the listing (given how many
    /// came before): its head once the first item is known (a manifest's thumbnail is its first
    /// canvas's), the items, then its tail.
    private func stream<Item: PresentationItem>(
        _ document: IIIFDocument<Item>, of directory: String, _ snapshot: AssetLister.Snapshot, sidecar: PresentationSidecar?,
        thumbnail: ((Item) -> [ContentResource])? = nil, to write: (Data) async throws -> Void,
        items: ([AssetListing.Entry], Int) -> [Item]
    ) async throws -> Int {
        var document = document
        var tail: Data?
        var count = 0
        func begin(_ first: Item?) async throws {
            if let thumbnail, let first { document.description.thumbnail = thumbnail(first) }
            sidecar?.apply(to: &document.description)
            let (head, rest) = try document.envelope()
            try await write(head)
            tail = rest
        }
        try await lister.forEachBatch(snapshot, dir: directory, limit: Self.maximumEntries) { entries in
            let batch = items(entries, count)
            guard let first = batch.first else { return }
            if tail == nil { try await begin(first) }
            var piece = count > 0 ? Data([UInt8(ascii: ",")]) : Data()
            piece.append(try IIIFDocument<Item>.json(of: batch))
            count += batch.count
            try await write(piece)
        }
        if tail == nil { try await begin(nil) }
        try await write(tail ?? Data())
        return count
    }

    /// A folder manifest's canvas of an image or video entry; nil for a folder or a file without a size.
    private static func folderCanvas(_ entry: AssetListing.Entry, id: String, side: Int, urls: PresentationURLs) -> IIIFCanvas? {
        guard let width = entry.width, let height = entry.height, width > 0, height > 0 else { return nil }
        switch entry.kind {
        case .image:
            return PresentationPieces.imageCanvas(
                id: id, service: urls.imageService(entry.id), size: PixelSize(width: width, height: height), label: LanguageMap([entry.name]),
                side: side, urls: urls)
        case .video:
            let content = ContentResource(
                id: urls.video(entry.id), type: "Video", format: VideoService.mediaType(of: entry.name), width: width, height: height,
                duration: entry.duration)
            return IIIFCanvas(id: id, content: content, label: LanguageMap([entry.name]))
        case .directory:
            return nil
        }
    }

    /// A collection's item for an entry: a subfolder's collection, or a file's manifest (an image's
    /// with a thumbnail).
    private static func collectionItem(_ entry: AssetListing.Entry, side: Int, urls: PresentationURLs) -> ResourceReference {
        switch entry.kind {
        case .directory:
            return ResourceReference(id: urls.collection(entry.path), type: "Collection", label: LanguageMap([entry.name]))
        case .image, .video:
            var thumbnail: [ContentResource] = []
            if entry.kind == .image, let width = entry.width, let height = entry.height, width > 0, height > 0 {
                thumbnail = [
                    urls.thumbnail(service: urls.imageService(entry.id), size: PixelSize(width: width, height: height), side: side)
                ]
            }
            return ResourceReference(id: urls.manifest(entry.id), type: "Manifest", label: LanguageMap([entry.name]), thumbnail: thumbnail)
        }
    }

    /// The longest side of the thumbnails documents name for the image at `path`: at most its
    /// substitute's size where a policy gives everyone only that, so that every thumbnail in a
    /// document everyone shares is one everyone may fetch.
    private func thumbnailSide(for path: String) -> Int {
        guard let access = images.configuration.access else { return Self.thumbnailSide }
        let rule = access.policy.rule(for: path)
        guard rule.tier != .public, let substitute = rule.substitute else { return Self.thumbnailSide }
        return min(Self.thumbnailSide, substitute.maxSize)
    }

    /// Whether a folder's documents list `entry`: folders, and images and videos of which everyone
    /// may see something (a substitute at least). The documents are the same for every requester
    /// (one cached copy, validators by the folder's version), so an image only some may see is
    /// left out for all; its own manifest answers those who may see it.
    private func isListed(_ entry: AssetListing.Entry) -> Bool {
        guard entry.kind != .directory, let access = images.configuration.access else { return true }
        let rule = access.policy.rule(for: entry.path)
        return rule.tier == .public || rule.substitute != nil
    }

    private static let cutSummary = LanguageMap(["This folder has more entries than are listed (\(maximumEntries) at most)."], language: "en")
}
