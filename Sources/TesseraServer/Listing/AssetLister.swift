import FoundationEssentials
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles
import TesseraVideo

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Lists the directories, images and videos under the root a page at a time (`/api/assets`).
///
/// A directory is read and sorted on each request, which costs one `stat` per entry; only the
/// entries of the page asked for are probed (image header, or video container and index), and
/// what a probe found is kept per file version, so paging through a large directory again is cheap.
final class AssetLister: Sendable {
    /// What a file turned out to be.
    enum Media: Sendable {
        case image(ImageProperties)
        /// A still image (its bytes are an image format, or one Tessera recognises and does not
        /// read) that could not be probed: listed with its error, never handed to ffmpeg as a video.
        case unreadableImage(ImageDecodingError)
        case video(VideoProperties)
        /// A file of a source that another file names in listings (a DICOM slide's instances but
        /// its first level's): neither listed nor counted as skipped.
        case member
        case neither
    }

    /// The root directory's resolver; nil for a root in a store, which is not listed.
    let resolver: IdentifierResolver?
    let executor: WorkExecutor
    /// The kinds that read what the codecs' probe refuses or does not know (a slide with missing
    /// tiles, a DICOM slide): the server's own (``SourcePlanner/kinds``).
    let kinds: [any RegionSourceKind]
    private let probes = Locked(LRUCache<FileIdentity, Media>(costLimit: 16_384))

    init(resolver: IdentifierResolver?, executor: WorkExecutor, kinds: [any RegionSourceKind]) {
        self.resolver = resolver
        self.executor = executor
        self.kinds = kinds
    }

    /// The page of `dir` (relative to the root, decoded; "" for the root) after `cursor`, at most
    /// `limit` entries.
    /// - Throws: `IdentifierError` for a directory that is not there or not allowed; ``ServerError``
    ///   (bad input) for a malformed cursor.
    func list(dir: String, cursor: String?, limit: Int) async throws -> AssetListing {
        let position = try cursor.map(Position.init(cursor:))
        let positions = try snapshot(dir).positions
        let start = position.map { after in positions.firstIndex { after < $0 } ?? positions.endIndex } ?? positions.startIndex
        let page = positions[start...].prefix(limit)
        let (entries, skipped) = try await entries(page, dir: dir)
        let next = start + page.count < positions.endIndex ? page.last.map(\.cursor) : nil
        let parent: String? = dir.isEmpty ? nil : dir.split(separator: "/").dropLast().joined(separator: "/")
        return AssetListing(dir: dir, parent: parent, entries: entries, next: next, skipped: skipped)
    }

    /// The entries of one batch of ``forEachBatch(_:dir:limit:_:)``.
    static let batchSize = 1000

    /// Every entry of `snapshot` (of `dir`) up to `limit`, in the listing's order (what a
    /// Presentation collection lists), handed to `body` a thousand at a time. Files are probed a
    /// batch per core at once, ahead of the batch `body` has, so memory holds a few batches rather
    /// than the folder, and a cancelled request stops between batches.
    func forEachBatch(
        _ snapshot: Snapshot, dir: String, limit: Int, _ body: ([AssetListing.Entry]) async throws -> Void
    ) async throws {
        let listed = snapshot.positions.prefix(limit)
        let starts = Array(stride(from: listed.startIndex, to: listed.endIndex, by: Self.batchSize))
        try await withThrowingTaskGroup(of: (Int, [AssetListing.Entry]).self) { group in
            var next = 0
            var delivered = 0
            var ready: [Int: [AssetListing.Entry]] = [:]
            func add() {
                let index = next
                next += 1
                let batch = listed[starts[index]..<min(starts[index] + Self.batchSize, listed.endIndex)]
                group.addTask { (index, try await self.entries(batch, dir: dir).entries) }
            }
            for _ in 0..<min(activeProcessorCount(), starts.count) { add() }
            while let (index, entries) = try await group.next() {
                ready[index] = entries
                // In order: a batch probed early waits for those before it, and no new one starts
                // until one is handed on, which bounds what is held.
                while let batch = ready.removeValue(forKey: delivered) {
                    try await body(batch)
                    delivered += 1
                    if next < starts.count { add() }
                }
            }
        }
    }

    /// A directory as read once: its entries sorted, and a name for this version of it.
    struct Snapshot: Sendable {
        /// The directories and regular files, in the listing's order.
        let positions: [Position]
        /// Changes when an entry is added, removed, renamed or changed (each entry's inode, size
        /// and modification time), without reading a file.
        let fingerprint: String
        /// The latest modification of the directory (an entry added, removed or renamed) and of
        /// its entries, in seconds since 1970: the listing's `Last-Modified`.
        let lastModified: Int64
    }

    /// The directories and regular files of `dir` (relative to the root, decoded), sorted, and the
    /// listing's fingerprint: one `stat` per entry.
    func snapshot(_ dir: String) throws -> Snapshot {
        guard let resolver else { throw ServerError(.unsupported, "a root in object storage is not listed") }
        let directory = try resolver.resolveDirectory(dir)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var own = stat()
        var lastModified = stat(directory, &own) == 0 ? Int64(own.st_mtim.tv_sec) : 0
        var positions: [Position] = []
        var versions: [(name: String, version: String)] = []
        for name in names where !name.hasPrefix(".") {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: positions.append(Position(isFile: false, name: name))
            case S_IFREG: positions.append(Position(isFile: true, name: name))
            default: continue
            }
            versions.append((name, "\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"))
            lastModified = max(lastModified, Int64(info.st_mtim.tv_sec))
        }
        positions.sort()
        // In name order, so the same listing hashes the same whatever order readdir gave.
        let fingerprint = EntityTag.hash(versions.sorted { $0.name < $1.name }.map { $0.name + "\u{0}" + $0.version + "\u{0}" }.joined().utf8)
        return Snapshot(positions: positions, fingerprint: String(fingerprint, radix: 16), lastModified: lastModified)
    }

    /// The entries of `page` (positions in `dir`), files probed; and how many files were neither an
    /// image nor a video.
    private func entries(_ page: some Collection<Position>, dir: String) async throws -> (entries: [AssetListing.Entry], skipped: Int) {
        guard let resolver else { throw ServerError(.unsupported, "a root in object storage is not listed") }
        let prefix = dir.isEmpty ? "" : dir + "/"
        var entries: [AssetListing.Entry] = []
        var skipped = 0
        let files = page.filter(\.isFile).map { prefix + $0.name }
        let media = try await probe(files)
        for item in page {
            let path = prefix + item.name
            let id = PercentEncoding.encode(path)
            guard item.isFile else {
                // A directory that resolves outside the root (a symlink) is not listed.
                guard (try? resolver.resolveDirectory(path)) != nil else { continue }
                entries.append(.init(kind: .directory, name: item.name, path: path, id: id))
                continue
            }
            switch media[path]?.media ?? .neither {
            case .image(let image):
                let size = image.displaySize
                entries.append(
                    .init(
                        kind: .image, name: item.name, path: path, id: id, bytes: image.fileByteCount,
                        width: size.width, height: size.height, format: image.format.rawValue))
            case .unreadableImage(let error):
                entries.append(.init(kind: .image, name: item.name, path: path, id: id, bytes: media[path]?.bytes, error: error.description))
            case .video(let video):
                entries.append(
                    .init(
                        kind: .video, name: item.name, path: path, id: id, bytes: media[path]?.bytes,
                        width: video.displayWidth, height: video.displayHeight, format: video.codec,
                        duration: video.duration))
            case .member:
                continue
            case .neither:
                skipped += 1
            }
        }
        return (entries, skipped)
    }

    /// What each of `paths` (relative to the root) is: images probed from their headers on the
    /// executor, the rest then as videos.
    private func probe(_ paths: [String]) async throws -> [String: (media: Media, bytes: Int)] {
        let sources = paths.compactMap { try? resolver?.resolve(PercentEncoding.encode($0)) }
        var found: [String: (media: Media, bytes: Int)] = [:]
        var unknown: [ResolvedSource] = []
        for source in sources {
            if let known = probes.withLock({ $0.value(for: source.identity) }) {
                found[source.relativePath] = (known, source.identity.byteCount)
            } else {
                unknown.append(source)
            }
        }
        guard !unknown.isEmpty else { return found }
        let pending = unknown
        let images = try await executor.run(priority: .high) { context in
            try pending.map { source -> Result<Media, ImageDecodingError> in
                try context.checkCancellation()
                return self.probeImage(source)
            }
        }
        for (source, image) in zip(unknown, images) {
            let media: Media
            switch image {
            case .success(let known):
                media = known
            case .failure(let error) where Self.isStillImage(error):
                media = .unreadableImage(error)
            case .failure:
                // Only bytes that are no image format go on to the video probe.
                if let path = source.path, let video = try? await VideoAsset.load(path: path) {
                    media = .video(VideoProperties(video))
                } else {
                    media = .neither
                }
            }
            found[source.relativePath] = (media, source.identity.byteCount)
            probes.withLock { _ = $0.insert(media, for: source.identity, cost: 1) }
        }
        return found
    }

    /// `source` as an image (or a member of one): the codecs' probe, else, when it fails, the kinds
    /// (a slide the probe refuses or does not read, shown with its own header). Blocking.
    private func probeImage(_ source: ResolvedSource) -> Result<Media, ImageDecodingError> {
        let probed = Result { () throws(ImageDecodingError) in try ImageDecoder().probe(source.input) }
        guard case .failure(let error) = probed else { return probed.map(Media.image) }
        let input = RegionSourceInput(input: source.input, identity: source.identity, options: DecodeOptions())
        guard let opened = try? RegionSourceKinds.open(input, kinds: kinds, header: { throw error }) else { return .failure(error) }
        let listed = opened.source.listedFilePath.map { $0 == source.path } ?? true
        return .success(listed ? .image(opened.source.properties) : .member)
    }

    /// Whether a probe that failed so had sniffed a still image (or one Tessera recognises and does
    /// not read): every error but those about the bytes' kind or the file itself.
    static func isStillImage(_ error: ImageDecodingError) -> Bool {
        switch error {
        case .unknownFormat, .empty, .unreadable, .notFound, .transferFailed, .cancelled: false
        default: true
        }
    }

    /// Where an entry sorts: directories first, then files, each in natural name order. A cursor
    /// is the position of the last entry returned, written `d:NAME` or `f:NAME`.
    struct Position: Comparable, Sendable {
        var isFile: Bool
        var name: String
        /// `name`'s scalars, split once for every comparison a sort makes.
        private var scalars: [Unicode.Scalar]

        init(isFile: Bool, name: String) {
            self.isFile = isFile
            self.name = name
            scalars = Array(name.unicodeScalars)
        }

        init(cursor: String) throws(ServerError) {
            guard cursor.hasPrefix("d:") || cursor.hasPrefix("f:"), cursor.utf8.count > 2, cursor.utf8.count <= 1024 else {
                throw ServerError(.badInput, "malformed cursor")
            }
            self.init(isFile: cursor.hasPrefix("f:"), name: String(cursor.dropFirst(2)))
        }

        var cursor: String { (isFile ? "f:" : "d:") + name }

        static func < (a: Position, b: Position) -> Bool {
            if a.isFile != b.isFile { return !a.isFile }
            return AssetListing.naturallyBefore(a.scalars, b.scalars)
        }
    }
}
