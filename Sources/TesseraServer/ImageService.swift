#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoundationEssentials
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraPipeline
import TesseraTiles
import TesseraIIIF

/// What the routes ask of the library, with no HTTP in it: resolve an identifier, describe an
/// image, render an IIIF request, give a Deep Zoom descriptor or tile. Every answer is an encoded
/// body plus what HTTP caching needs.
///
/// Small sources are decoded with shrink-on-load at the coarsest power-of-two scale that serves the
/// request and kept in the decoded-image cache; large ones get pyramids (``PyramidStore``), from
/// which aligned IIIF tiles are served as the stored bytes and any other region is composed from
/// the tiles of the level that serves it. Tiled multi-resolution TIFFs are read tile by tile from
/// their own levels, with nothing derived. Blocking work runs on the server's bounded executor.
final class ImageService: Sendable {
    let configuration: ServerConfiguration
    /// The root: a directory's resolver, or a store's.
    let resolver: IdentifierResolver?
    let objects: ObjectSourceResolver?
    let executor: WorkExecutor
    /// This server's pyramid directory (also with a shared cache: its size is reported).
    let pyramids: PyramidStore
    /// Where pyramids are found and built: the shared store when there is one, else ``pyramids``.
    let pyramidSource: any PyramidStoring
    let tiffPyramids: TIFFPyramidPool
    let metrics: ServerMetrics
    private let decoded: MemoryImageCache
    private let responses: ResponseCache
    private let probes = Locked(LRUCache<FileIdentity, ImageProperties>(costLimit: 4096))
    private let resolutions = Locked(LRUCache<String, (source: ResolvedSource, checked: ContinuousClock.Instant)>(costLimit: 4096))
    /// Renders and whole-level decodes, each done once for all who ask at the same time, and
    /// cancelled when all of them have gone (closed their connections, or passed their deadline).
    private let renders: SingleFlight<ByteBuffer>
    private let levels: LevelFlights
    /// Pyramids being built in the background (``buildInBackground(_:source:imageSize:)``), by source and kind.
    private let backgroundBuilds = Locked([String: Task<Void, Never>]())
    /// How every source is decoded: the pixel limit, and whether colour is converted or kept.
    private let decodeOptions: DecodeOptions

    init(configuration: ServerConfiguration, metrics: ServerMetrics) throws {
        self.configuration = configuration
        self.metrics = metrics
        if let store = configuration.rootStore {
            resolver = nil
            objects = ObjectSourceResolver(store: store, freshness: configuration.rootFreshness)
        } else {
            resolver = try IdentifierResolver(root: configuration.root)
            objects = nil
        }
        executor = WorkExecutor(threadCount: configuration.workerCount, queueLimit: configuration.queueLimit)
        // Pyramids whose tiles keep the sources' profiles live apart (a dot directory, which the
        // default store passes over), so a server restarted with the other setting never serves
        // tiles made under this one.
        let keepsProfiles = configuration.colorManagement == .keepSourceProfile
        pyramids = try PyramidStore(
            directory: configuration.cacheDirectory + (keepsProfiles ? "/.kept-profiles" : ""), byteLimit: configuration.cacheByteLimit,
            tileSize: configuration.tileSize, jpegQuality: configuration.jpegQuality,
            sourcePixelLimit: configuration.sourcePixelLimit, colorManagement: configuration.colorManagement,
            executor: executor, metrics: metrics)
        if let shared = configuration.sharedCache {
            let recipe = PyramidRecipe(
                tileSize: configuration.tileSize, jpegQuality: configuration.jpegQuality,
                sourcePixelLimit: configuration.sourcePixelLimit, colorManagement: configuration.colorManagement,
                jobs: executor.threadCount)
            pyramidSource = SharedPyramidStore(
                store: shared, prefix: keepsProfiles ? "kept-profiles/" : "", recipe: recipe,
                leaseDuration: configuration.leaseDuration, pollInterval: configuration.leaseDuration / 30,
                executor: executor, metrics: metrics)
        } else {
            pyramidSource = pyramids
        }
        decodeOptions = DecodeOptions(maximumPixelCount: configuration.sourcePixelLimit, colorManagement: configuration.colorManagement)
        tiffPyramids = TIFFPyramidPool(idleReadersPerSource: configuration.workerCount, options: decodeOptions)
        decoded = MemoryImageCache(
            costLimit: configuration.decodedCacheByteLimit, countLimit: 100_000,
            entryCostLimit: configuration.decodedCacheByteLimit / 2)
        responses = ResponseCache(byteLimit: configuration.responseCacheByteLimit)
        renders = SingleFlight(cancelsAbandonedWork: true, onAbandoned: metrics.recordAbandonedWork)
        levels = LevelFlights(onAbandoned: metrics.recordAbandonedWork)
    }

    /// The source `identifier` names: a file under the root, or an object in the root store.
    func resolve(_ identifier: String) async throws -> ResolvedSource {
        if let objects { return try await objects.resolve(identifier) }
        return try resolver!.resolve(identifier)
    }

    /// The source's header, probed once per identity and checked against what reading it costs: a
    /// source read by rows (baseline JPEG, non-interlaced PNG, TIFF) is never held whole (levels
    /// are made whole only up to ``ServerConfiguration/wholeLevelPixelLimit``, regions are held to
    /// the IIIF limits), so only its rows are limited (``ServerConfiguration/streamedRowPixelLimit``);
    /// any other is decoded whole somewhere and held to the source pixel limit.
    func properties(of source: ResolvedSource) async throws -> ImageProperties {
        if let known = probes.withLock({ $0.value(for: source.identity) }) { return known }
        let limit = configuration.sourcePixelLimit
        let properties = try await executor.run(priority: .high) { _ in
            try ImageDecoder(options: DecodeOptions(maximumPixelCount: limit)).probe(source.input)
        }
        if Self.readsByRows(properties) {
            guard properties.size.width <= configuration.streamedRowPixelLimit else {
                throw ServerError(.tooLarge, "too wide: rows of \(properties.size.width) pixels, over the limit of \(configuration.streamedRowPixelLimit)")
            }
        } else if properties.size.area > limit {
            throw ImageDecodingError.tooLarge(pixels: properties.size.area, limit: limit)
        }
        probes.withLock { _ = $0.insert(properties, for: source.identity, cost: 1) }
        return properties
    }

    /// Whether every path reads `properties`' source by rows, never holding it whole: baseline
    /// JPEG, non-interlaced PNG and TIFF, still images. (A progressive JPEG keeps every coefficient
    /// until its last scan; an interlaced PNG is decoded whole.)
    static func readsByRows(_ properties: ImageProperties) -> Bool {
        [.jpeg, .png, .tiff].contains(properties.format) && !properties.isProgressive && properties.frameCount == 1
    }

    // MARK: IIIF

    /// The info.json body for `source`, whose service `id` is `id`.
    func info(for source: ResolvedSource, id: String) async throws -> ByteBuffer {
        try await answer("info|" + id, source: source) {
            let properties = try await self.properties(of: source)
            let tiling = try await self.tiling(of: source, properties: properties)
            // Sizes a client may ask for whole (thumbnails, overviews): the levels from about 64 px
            // up to 2048 px on the longest side (the coarsest always), so a tile or a few each.
            var sizes = Array(tiling.levelSizes.filter { $0.longestSide <= 2048 }.reversed())
            if sizes.isEmpty, let coarsest = tiling.levelSizes.last { sizes = [coarsest] }
            let info = IIIFImageInfo(
                id: id, size: properties.displaySize,
                tiles: [IIIFImageInfo.Tile(width: tiling.tileSize.width, height: tiling.tileSize.height, scaleFactors: tiling.scaleFactors)],
                sizes: sizes, limits: self.configuration.limits)
            return ByteBuffer(string: info.json())
        }
    }

    /// The tiles info.json advertises and the power-of-two levels (full size first) down to about
    /// 64 px: a TIFF pyramid's own, or those of the IIIF pyramid the server builds (small sources are
    /// described as if they had one).
    private func tiling(
        of source: ResolvedSource, properties: ImageProperties
    ) async throws -> (tileSize: PixelSize, scaleFactors: [Int], levelSizes: [PixelSize]) {
        if let shape = try await tiffShape(of: source, properties: properties) {
            let count = shape.levelSizes.count
            let last = shape.levelSizes.firstIndex { $0.longestSide <= 64 } ?? count - 1
            return (shape.tileSize, (0..<count).map { 1 << $0 }, Array(shape.levelSizes[...last]))
        }
        let size = properties.displaySize
        let layout = IIIFLayout(imageSize: size, name: "", tileSize: configuration.tileSize)
        var levelSizes = [size]
        while let last = levelSizes.last, last.longestSide > 64 {
            levelSizes.append(IIIFLayout.levelSize(of: size, reduction: levelSizes.count))
        }
        return (PixelSize(width: layout.tileSize, height: layout.tileSize), layout.scaleFactors, levelSizes)
    }

    /// The shape of `source` when it is a large tiled multi-resolution TIFF the server reads directly.
    private func tiffShape(of source: ResolvedSource, properties: ImageProperties) async throws -> TIFFPyramidShape? {
        guard properties.format == .tiff, !configuration.isSmall(properties.size) else { return nil }
        return try await executor.run(priority: .high) { _ in try self.tiffPyramids.shape(of: source) }
    }

    /// The encoded image an IIIF request asks for, and the request resolved (for its canonical form).
    func image(for source: ResolvedSource, request: IIIFImageRequest) async throws -> (body: ByteBuffer, resolved: ResolvedIIIFRequest) {
        let properties = try await properties(of: source)
        let resolved = try request.resolved(imageSize: properties.displaySize, limits: configuration.limits)
        if let path = storedTilePath(resolved, of: source, properties: properties), let stored = try? Self.readFile(path) {
            return (stored, resolved)
        }
        let body = try await answer("iiif|" + resolved.canonicalPath, source: source) {
            if Self.answersAnimated(resolved, properties: properties) {
                return try await self.renderAnimation(resolved, of: source, properties: properties)
            }
            return try await self.render(resolved, of: source, properties: properties)
        }
        return (body, resolved)
    }

    /// The most canvas pixels an animated answer composes, all frames counted (as
    /// ``ThumbnailOptions/maximumAnimationPixelCount``); a longer animation is answered with its
    /// first frame.
    static let maximumAnimationPixelCount = 1 << 30

    /// Whether the answer is an animation: an animated GIF, WebP or APNG asked for as WebP, within
    /// ``maximumAnimationPixelCount``.
    static func answersAnimated(_ request: ResolvedIIIFRequest, properties: ImageProperties) -> Bool {
        guard properties.animation != nil, request.format == .webp else { return false }
        let (pixels, overflow) = properties.size.area.multipliedReportingOverflow(by: properties.frameCount)
        return !overflow && pixels <= maximumAnimationPixelCount
    }

    /// An animated WebP of every frame, each cut, scaled, turned and converted as the request asks,
    /// with the source's durations and loop count. Frames are composed one at a time: memory is
    /// a few canvases (``AnimatedImage/workingByteCount``) and the encoder's output.
    private func renderAnimation(_ request: ResolvedIIIFRequest, of source: ResolvedSource, properties: ImageProperties) async throws -> ByteBuffer {
        let quality = max(configuration.jpegQuality, 80)
        let options = decodeOptions
        return try await executor.run { context in
            let animation = try AnimatedImage(source.input, options: options)
            let reader = try animation.makeFrameReader()
            var encoder: AnimationEncoder?
            while let frame = try reader.next() {
                try context.checkCancellation()
                let upright = properties.orientation.apply(to: frame.pixels)
                let finished = RegionRenderer.finish(upright.cropped(to: request.region) ?? upright, request: request)
                let frames = try encoder ?? AnimationEncoder(
                    size: finished.size, format: .webp(quality: quality), loopCount: animation.properties.animation?.loopCount ?? 0)
                try frames.add(finished, duration: frame.duration)
                encoder = frames
            }
            guard let encoder else { throw ServerError(.internal, "an animation without frames") }
            return ByteBuffer(bytes: try encoder.finish())
        }
    }

    /// The stored bytes that answer `request` for `identifier` at once, when they are there: the
    /// source is a file whose header is already known, and the request is an aligned tile of its
    /// pyramid, already built. Nil otherwise, and on any failure (``image(for:request:)`` then
    /// answers, or reports it). Synchronous, for the event loop: a few `stat`s and one small read.
    func storedTile(
        identifier: String, request: IIIFImageRequest
    ) -> (source: ResolvedSource, body: ByteBuffer, resolved: ResolvedIIIFRequest, tilePath: String)? {
        guard let source = recentlyResolved(identifier),
            let properties = probes.withLock({ $0.value(for: source.identity) }),
            let resolved = try? request.resolved(imageSize: properties.displaySize, limits: configuration.limits),
            let path = storedTilePath(resolved, of: source, properties: properties), let body = try? Self.readFile(path)
        else { return nil }
        return (source, body, resolved, path)
    }

    /// `identifier`'s source for ``storedTile(identifier:request:)``: the real path a full resolution
    /// found within the root's freshness (its realpath walk costs a `readlink` per path
    /// component), with the file's identity read now, so a changed file is never served old tiles.
    /// Nothing outside the root is read through a reused path: an identity that is not a built
    /// pyramid's sends the request to the route, which resolves it in full.
    private func recentlyResolved(_ identifier: String) -> ResolvedSource? {
        guard let resolver else { return nil }
        let now = ContinuousClock.now
        if let (source, checked) = resolutions.withLock({ $0.value(for: identifier) }), now - checked < configuration.rootFreshness {
            guard let path = source.path, let identity = FileIdentity(path: path) else { return nil }
            return identity == source.identity ? source : ResolvedSource(relativePath: source.relativePath, path: path, identity: identity)
        }
        guard let source = try? resolver.resolve(identifier) else { return nil }
        resolutions.withLock { _ = $0.insert((source, now), for: identifier, cost: 1) }
        return source
    }

    /// The file of an aligned tile of a pyramid already built, whose bytes are the answer: read on
    /// the calling thread, as nginx serves files (a small read, from the page cache once warm), with
    /// no hop to a worker and no copy in the memory cache, which is kept for what costs work to make.
    /// Nil when the request is anything else, or the pyramid is not there.
    private func storedTilePath(_ request: ResolvedIIIFRequest, of source: ResolvedSource, properties: ImageProperties) -> String? {
        // TIFF pyramids are read from their own levels; turned sources are composed and turned.
        guard !configuration.isSmall(properties.size), properties.format != .tiff, properties.orientation == .up,
            let pyramid = pyramidSource.builtPyramid(.iiif, for: source, imageSize: properties.size),
            let layout = pyramid.layout as? IIIFLayout, let tile = AlignedTile(request, layout: layout),
            let path = pyramid.tilePath(reduction: tile.reduction, column: tile.column, row: tile.row)
        else { return nil }
        return path
    }

    /// The pixels an IIIF request asks for, encoded. Tiled multi-resolution TIFFs are read from their
    /// own levels; every other source through ``SourceLevels`` (the region core), level by level:
    ///
    /// - a level small enough to hold (``ServerConfiguration/wholeLevelPixelLimit``: thumbnails,
    ///   `sizes`, a viewer's first screens) is made whole with the source's cheapest decode (JPEG's
    ///   DCT scaling), once for every request that needs it, and kept in the decoded cache;
    /// - a finer level is read from the built pyramid when there is one, else from the source (only
    ///   the rows and columns the region needs), and a pyramid is built in the background, since the
    ///   source is being zoomed into.
    ///
    /// Either way the answer's bytes are the same before and after the pyramid exists: its tiles
    /// are the same levels encoded the same way.
    private func render(_ request: ResolvedIIIFRequest, of source: ResolvedSource, properties: ImageProperties) async throws -> ByteBuffer {
        let quality = configuration.jpegQuality
        let kept = configuration.colorManagement.profile(of: properties)
        if let shape = try await tiffShape(of: source, properties: properties) {
            let reduction = RegionRenderer.reduction(region: request.region, scaledSize: request.scaledSize, levelCount: shape.levelSizes.count)
            return try await executor.run { context in
                let rect = RegionRenderer.levelRect(of: request.region, reduction: reduction, levelSize: shape.levelSizes[reduction])
                let composed = try TileComposer.regionPixels(
                    rect, tileSize: shape.tileSize, format: shape.pixelFormat, scaledSize: request.scaledSize
                ) { column, row in
                    try context.checkCancellation()
                    return try self.decodedTile(key: "\(source.key)/tiff/\(reduction)/\(column)_\(row)") {
                        try self.tiffPyramids.withReader(source, shape: shape) { try $0.tile(level: reduction, column: column, row: row) }
                    }
                }
                return ByteBuffer(bytes: try RegionRenderer.render(composed, profile: kept, request: request, jpegQuality: quality))
            }
        }
        // Levels are of the stored pixels; a turned source's regions are cut from them and turned.
        let levels = SourceLevels(source.input, properties: properties, options: decodeOptions)
        let orientation = properties.orientation
        let layout = IIIFLayout(imageSize: properties.size, name: "", tileSize: configuration.tileSize)
        let small = configuration.isSmall(properties.size)
        // A tile of the pyramid is its level's pixels, whatever level the size alone would pick
        // (`full/163,125` of 2600×2000 is level 4's one tile: 2600/163 rounds below 16).
        let aligned = orientation == .up && !small ? AlignedTile(request, layout: layout) : nil
        let levelCount = 1 + Int(log2(Double(max(properties.size.longestSide, 1))).rounded(.up))
        let reduction = aligned?.reduction
            ?? RegionRenderer.reduction(region: request.region, scaledSize: request.scaledSize, levelCount: levelCount)
        let levelSize = levels.levelSize(reduction: reduction)
        let storedRegion = orientation.storedRect(ofDisplayed: request.region, storedSize: properties.size)
        let rect = RegionRenderer.levelRect(of: storedRegion, reduction: reduction, levelSize: levelSize)
        if small || levelSize.area <= configuration.wholeLevelPixelLimit {
            let cut: PixelBuffer
            if small {
                // A small source's level is resampled to about the level's size, not exactly it.
                let level = try await wholeLevel(source, levels: levels, reduction: reduction, small: true)
                cut = level.cropped(to: RegionRenderer.levelRect(of: storedRegion, fullSize: properties.size, levelSize: level.size)) ?? level
            } else {
                cut = try await wholeLevel(source, levels: levels, reduction: reduction, small: false, cut: rect)
            }
            return try await executor.run { context in
                try context.checkCancellation()
                // A tile of the pyramid, encoded as the builder encodes it.
                if aligned != nil { return ByteBuffer(bytes: try self.encodedTile(cut, profile: kept)) }
                return ByteBuffer(bytes: try RegionRenderer.render(orientation.apply(to: cut), profile: kept, request: request, jpegQuality: quality))
            }
        }
        let tileSize = PixelSize(width: layout.tileSize, height: layout.tileSize)
        // A pyramid stops at the level one tile holds; a level coarser than that (asked for when
        // levels are held whole only when tiny, `--level-pixels`) is read from the source, as
        // before the pyramid existed, and is no reason to build one.
        let inPyramid = reduction < layout.levelCount
        guard inPyramid, let pyramid = pyramidSource.builtPyramid(.iiif, for: source, imageSize: properties.size) else {
            guard inPyramid else {
                // No stored tile will ever hold this level: the region's pixels as they are.
                return try await executor.run { context in
                    let pixels = try levels.pixels(of: rect, reduction: reduction, context: context)
                    return ByteBuffer(bytes: try RegionRenderer.render(
                        orientation.apply(to: pixels), profile: kept, request: request, jpegQuality: quality))
                }
            }
            buildInBackground(.iiif, source: source, imageSize: properties.size)
            // The tiles the pyramid will hold, made from the source: the rows and columns of the
            // ones the region touches, read at once, then each tile encoded (and for a region that
            // is not one tile, decoded again) exactly as a stored tile is.
            return try await executor.run { context in
                let covering = Self.tileAlignedRect(covering: rect, tileSize: tileSize, levelSize: levelSize)
                let pixels = try levels.pixels(of: covering, reduction: reduction, context: context)
                func encodedTile(_ column: Int, _ row: Int) throws -> Data {
                    let tile = PixelRect(x: column * tileSize.width, y: row * tileSize.height, width: tileSize.width, height: tileSize.height)
                        .intersection(PixelRect(x: 0, y: 0, width: levelSize.width, height: levelSize.height))
                    let place = PixelRect(x: tile.x - covering.x, y: tile.y - covering.y, width: tile.width, height: tile.height)
                    guard let cut = pixels.cropped(to: place) else { throw ServerError(.internal, "a tile outside the region read") }
                    return try self.encodedTile(cut, profile: kept)
                }
                if let aligned { return ByteBuffer(bytes: try encodedTile(aligned.column, aligned.row)) }
                return try self.composeTiles(rect, tileSize: tileSize, orientation: orientation, request: request, profile: kept) { column, row in
                    try context.checkCancellation()
                    return try ImageDecoder(options: self.decodeOptions).decode(.data(try encodedTile(column, row))).pixels
                }
            }
        }
        if let aligned {
            return try await pyramid.body(reduction: aligned.reduction, column: aligned.column, row: aligned.row)
        }
        // Tiles in a store are fetched first, all at once, so no worker thread waits on the network.
        let fetched = try await fetchTiles(of: pyramid, covering: rect, tileSize: tileSize, reduction: reduction, source: source)
        return try await executor.run { context in
            try self.composeTiles(rect, tileSize: tileSize, orientation: orientation, request: request, profile: kept) { column, row in
                try context.checkCancellation()
                let key = self.tileCacheKey(pyramid, source: source, reduction: reduction, column: column, row: row)
                return try self.decodedTile(key: key) {
                    let input = fetched[key].map { ImageSource.data($0) }
                        ?? .file(pyramid.tilePath(reduction: reduction, column: column, row: row) ?? "")
                    return try ImageDecoder(options: self.decodeOptions).decode(input).pixels
                }
            }
        }
    }

    /// `rect` of a level composed from its decoded tiles (RGB), turned upright, finished and encoded:
    /// the same for tiles read from a pyramid and tiles made from the source, so both give the
    /// same bytes.
    private func composeTiles(
        _ rect: PixelRect, tileSize: PixelSize, orientation: Orientation, request: ResolvedIIIFRequest, profile: ICCProfile?,
        tile: (_ column: Int, _ row: Int) throws -> PixelBuffer
    ) throws -> ByteBuffer {
        let composed = try TileComposer.regionPixels(
            rect, tileSize: tileSize, format: .rgb8, scaledSize: orientation == .up ? request.scaledSize : nil, tile: tile)
        let upright = orientation.apply(to: composed)
        return ByteBuffer(bytes: try RegionRenderer.render(upright, profile: profile, request: request, jpegQuality: configuration.jpegQuality))
    }

    /// A pyramid tile's bytes made from the source: `pixels` encoded as the builder encodes its
    /// tiles (``PyramidRecipe/tileEncoding(jpegQuality:)``), `profile` embedded as it embeds it.
    private func encodedTile(_ pixels: PixelBuffer, profile: ICCProfile?) throws -> Data {
        try ImageEncoder.encode(pixels, as: PyramidRecipe.tileEncoding(jpegQuality: configuration.jpegQuality), iccProfile: profile)
    }

    /// The smallest rectangle of whole tiles (clipped to the level) that covers `rect`.
    static func tileAlignedRect(covering rect: PixelRect, tileSize: PixelSize, levelSize: PixelSize) -> PixelRect {
        let x = rect.x / tileSize.width * tileSize.width, y = rect.y / tileSize.height * tileSize.height
        let right = min(levelSize.width, (rect.x + rect.width + tileSize.width - 1) / tileSize.width * tileSize.width)
        let bottom = min(levelSize.height, (rect.y + rect.height + tileSize.height - 1) / tileSize.height * tileSize.height)
        return PixelRect(x: x, y: y, width: right - x, height: bottom - y)
    }

    /// Level `reduction` of `source`, whole, or the part `cut` of it: the level made once however
    /// many requests want it at the same time, and kept in the decoded cache. A level that is the
    /// one above it halved is made from that one when it too is held whole (so a viewer's first
    /// screen decodes the source once); any other from the source, by streaming only what it
    /// needs, and each `cut` is answered as soon as its rows are decoded (``LevelFlights``). A
    /// small source, which never gets a pyramid whose tiles its answers must match, is instead
    /// shrunk on load to the level's size and resampled (``Thumbnailer``), as sharp as a thumbnail.
    private func wholeLevel(
        _ source: ResolvedSource, levels: SourceLevels, reduction: Int, small: Bool, cut: PixelRect? = nil
    ) async throws -> PixelBuffer {
        let key = source.key + (small ? "/resampled/" : "/level/") + String(reduction)
        if let level = decoded.image(for: key) {
            metrics.recordCache(tier: "decoded", hit: true)
            return cut.flatMap { level.cropped(to: $0) } ?? level
        }
        metrics.recordCache(tier: "decoded", hit: false)
        let executor = self.executor
        return try await self.levels.region(cut, of: key, size: levels.levelSize(reduction: reduction)) { writer in
            let pixels: PixelBuffer
            if small {
                self.metrics.recordSourceDecode()
                var options = ThumbnailOptions(
                    sizing: .fit(maxPixelSize: reduction == 0 ? nil : levels.levelSize(reduction: reduction).longestSide),
                    createThumbnailWithTransform: false, maximumPixelCount: self.configuration.sourcePixelLimit)
                options.colorManagement = self.configuration.colorManagement
                pixels = try await Thumbnailer().thumbnail(source.input, options: options, executor: executor).pixels
            } else if levels.halvesPreviousLevel(reduction),
                levels.levelSize(reduction: reduction - 1).area <= self.configuration.wholeLevelPixelLimit {
                let above = try await self.wholeLevel(source, levels: levels, reduction: reduction - 1, small: false)
                pixels = try await executor.run { _ in SourceLevels.halved(above) }
            } else {
                self.metrics.recordSourceDecode()
                pixels = try await executor.run { context in try levels.level(reduction, context: context, progress: writer.report) }
            }
            self.decoded.store(pixels, for: key)
            return pixels
        }
    }

    /// Starts building `kind`'s pyramid for `source` if it is not built or being built, without
    /// waiting for it: the requests that asked go on being answered from the source meanwhile.
    private func buildInBackground(_ kind: PyramidKind, source: ResolvedSource, imageSize: PixelSize) {
        let key = source.key + "/" + kind.rawValue
        let pyramids = pyramidSource
        backgroundBuilds.withLock { builds in
            guard builds[key] == nil else { return }
            builds[key] = Task.detached(priority: .background) {
                _ = try? await pyramids.pyramid(kind, for: source, imageSize: imageSize)
                self.backgroundBuilds.withLock { _ = $0.removeValue(forKey: key) }
            }
        }
    }

    /// Returns once no pyramid is being built in the background (for tests and orderly shutdown).
    func backgroundBuildsFinished() async {
        while let build = backgroundBuilds.withLock({ $0.values.first }) { await build.value }
    }

    /// The decoded-tile cache's key for a tile of `pyramid`: its file's path, or for a pyramid in a
    /// store, the source's identity and the tile's place.
    private func tileCacheKey(_ pyramid: BuiltPyramid, source: ResolvedSource, reduction: Int, column: Int, row: Int) -> String {
        pyramid.tilePath(reduction: reduction, column: column, row: row)
            ?? source.key + "/" + pyramid.tileRelativePath(reduction: reduction, column: column, row: row)
    }

    /// The encoded tiles of a pyramid in a store that composing `rect` of level `reduction` needs and
    /// the decoded-tile cache lacks, fetched concurrently, by ``tileCacheKey``; empty for a
    /// pyramid in a directory, whose tiles are read as they are decoded.
    private func fetchTiles(
        of pyramid: BuiltPyramid, covering rect: PixelRect, tileSize: PixelSize, reduction: Int, source: ResolvedSource
    ) async throws -> [String: Data] {
        guard case .objects = pyramid.location else { return [:] }
        let wanted = TileComposer.tiles(covering: rect, tileSize: tileSize).map { tile in
            (key: tileCacheKey(pyramid, source: source, reduction: reduction, column: tile.column, row: tile.row),
             column: tile.column, row: tile.row)
        }.filter { decoded.image(for: $0.key) == nil }
        return try await withThrowingTaskGroup(of: (String, Data).self) { group in
            for tile in wanted {
                group.addTask {
                    return (tile.key, try await pyramid.encodedTile(reduction: reduction, column: tile.column, row: tile.row))
                }
            }
            var fetched: [String: Data] = [:]
            for try await (key, data) in group { fetched[key] = data }
            return fetched
        }
    }

    /// A tile decoded by `decode`, through the decoded-image cache under `key`.
    private func decodedTile(key: String, decode: () throws -> PixelBuffer) throws -> PixelBuffer {
        if let tile = decoded.image(for: key) {
            metrics.recordCache(tier: "decoded", hit: true)
            return tile
        }
        metrics.recordCache(tier: "decoded", hit: false)
        let tile = try decode()
        decoded.store(tile, for: key)
        return tile
    }

    // MARK: Deep Zoom

    /// The `.dzi` descriptor: the one the builder writes, made from the size alone so a viewer can
    /// start before the pyramid exists.
    func deepZoomDescriptor(for source: ResolvedSource) async throws -> ByteBuffer {
        let size = try await properties(of: source).displaySize
        let descriptor = DeepZoomLayout(imageSize: size, name: "dzi").descriptors(fileExtension: "jpeg")[0].contents
        return ByteBuffer(bytes: descriptor)
    }

    /// A Deep Zoom tile as `vips dzsave` numbers them (level 0 is 1×1), from the built pyramid; for
    /// a source turned by its orientation tag, rendered like an IIIF region of the upright image.
    func deepZoomTile(for source: ResolvedSource, level: Int, column: Int, row: Int) async throws -> ByteBuffer {
        try await answer("dzi|\(level)/\(column)_\(row)", source: source) {
            let properties = try await self.properties(of: source)
            let layout = DeepZoomLayout(imageSize: properties.displaySize, name: "dzi")
            let reduction = layout.maxLevel - level
            guard (0...layout.maxLevel).contains(level), column >= 0, row >= 0,
                case let columns = layout.columnSpans(reduction: reduction), column < columns.count,
                case let rows = layout.rowSpans(reduction: reduction), row < rows.count
            else { throw ServerError(.notFound, "no Deep Zoom tile \(level)/\(column)_\(row)") }
            guard properties.orientation == .up else {
                // The tile's pixels (overlap included) at full resolution, scaled to the tile.
                let size = properties.displaySize, step = 1 << reduction
                let x = columns[column].lowerBound * step, y = rows[row].lowerBound * step
                let width = min(size.width, columns[column].upperBound * step) - x
                let height = min(size.height, rows[row].upperBound * step) - y
                let request = try IIIFImageRequest(
                    region: "\(x),\(y),\(width),\(height)", size: "\(columns[column].count),\(rows[row].count)",
                    rotation: "0", qualityAndFormat: "default.jpg"
                ).resolved(imageSize: size, limits: IIIFLimits(maxWidth: nil, maxHeight: nil, maxArea: nil))
                return try await self.render(request, of: source, properties: properties)
            }
            if let pyramid = self.pyramidSource.builtPyramid(.deepZoom, for: source, imageSize: properties.size) {
                return try await pyramid.body(reduction: reduction, column: column, row: row)
            }
            // Until the pyramid exists, the tile (overlap included) from the source's levels, encoded
            // as the builder encodes it: the same bytes the pyramid will hold.
            let levels = SourceLevels(source.input, properties: properties, options: self.decodeOptions)
            let rect = PixelRect(x: columns[column].lowerBound, y: rows[row].lowerBound, width: columns[column].count, height: rows[row].count)
            let kept = self.configuration.colorManagement.profile(of: properties)
            if levels.levelSize(reduction: reduction).area <= self.configuration.wholeLevelPixelLimit {
                let cut = try await self.wholeLevel(source, levels: levels, reduction: reduction, small: false, cut: rect)
                return try await self.executor.run { _ in ByteBuffer(bytes: try self.encodedTile(cut, profile: kept)) }
            }
            self.buildInBackground(.deepZoom, source: source, imageSize: properties.size)
            return try await self.executor.run { context in
                let pixels = try levels.pixels(of: rect, reduction: reduction, context: context)
                return ByteBuffer(bytes: try self.encodedTile(pixels, profile: kept))
            }
        }
    }

    // MARK: Support

    /// The body for `key` of `source`: from the response cache when it is there, answered on the
    /// calling task (no child task, no other thread); else made by `make` under the request
    /// deadline, identical concurrent misses sharing one `make`.
    func answer(
        _ key: String, source: ResolvedSource, make: @escaping @Sendable () async throws -> ByteBuffer
    ) async throws -> ByteBuffer {
        let fullKey = source.key + "|" + key
        if let body = responses.body(for: fullKey) {
            metrics.recordCache(tier: "response", hit: true)
            return body
        }
        return try await withDeadline(configuration.requestTimeout) {
            // Looked up again: another request may have stored it meanwhile.
            if let body = self.responses.body(for: fullKey) {
                self.metrics.recordCache(tier: "response", hit: true)
                return body
            }
            self.metrics.recordCache(tier: "response", hit: false)
            return try await self.renders.value(for: fullKey) {
                let body = try await make()
                self.responses.store(body, for: fullKey)
                return body
            }
        }
    }

    /// The strong validator of a response: the source's identity, the colour setting (the same
    /// request answers with other pixels when profiles are kept) and the canonical request, hashed
    /// (a change of any changes it).
    func entityTag(_ source: ResolvedSource, _ key: String) -> String {
        let colour = configuration.colorManagement == .keepSourceProfile ? "kept-profile" : "srgb"
        return EntityTag.make((source.key + "|" + colour + "|" + key).utf8)
    }

    /// A whole file's bytes (a stored tile): `byteCount` of them when the length is known (no
    /// `fstat`; a file of another length fails), else as many as `fstat` says. The message of a
    /// failure names no path.
    static func readFile(_ path: String, byteCount: Int? = nil) throws -> ByteBuffer {
        func failure(_ code: Int32) -> ServerError {
            ServerError(.io, "a stored tile could not be read: \(String(cString: strerror(code)))")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ServerError(.io, "a stored tile could not be opened: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let length: Int
        if let byteCount {
            length = byteCount
        } else {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw failure(errno) }
            length = Int(info.st_size)
        }
        // One byte more than expected is asked for, so a longer file shows as one; reading stops
        // at the expected length without a read that finds the end.
        var buffer = ByteBufferAllocator().buffer(capacity: length + 1)
        var error: Int32 = 0
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length + 1) { space in
            var done = 0
            while done < length || length == 0 {
                let count = read(descriptor, space.baseAddress! + done, length + 1 - done)
                if count < 0, errno == EINTR { continue }
                if count < 0 { error = errno }
                if count <= 0 { break }
                done += count
                if done > length { break }
            }
            return done
        }
        guard error == 0 else { throw failure(error) }
        guard buffer.readableBytes == length else { throw failure(EIO) }
        return buffer
    }

    /// Requests waiting for a render now (each shared render counted once per request).
    var waitingRenders: Int { renders.waitingCallers }

    /// Renders and decodes cancelled because their clients went, not ended yet.
    var workBeingStopped: Int { renders.stoppingCount + levels.stoppingCount }

    /// Jobs waiting for a worker thread now.
    var queuedJobs: Int { executor.queuedCount }
}
