import FoundationEssentials
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// IIIF: info.json, and image requests answered from stored tiles, pyramids or the source.
extension ImageService {

    /// The info.json body for `source`, whose service `id` is `id`.
    /// - Parameters:
    ///   - partOf: the manifest that shows the image, when the Presentation routes are mounted.
    ///   - grant: what the requester may see: a substitute's info.json promises no more than it
    ///     (`maxWidth`/`maxHeight`, its sizes and scale factors).
    ///   - auth: the probe service of an image not everyone may see whole.
    func info(
        for source: ResolvedSource, id: String, partOf: ResourceReference? = nil, grant: AccessControl.Grant = .open,
        auth: IIIFAuthService? = nil
    ) async throws -> ByteBuffer {
        try await answers.answer(grant.cacheKeyPrefix + "info|" + id + "|" + (partOf?.id ?? "") + "|" + (auth?.id ?? ""), source: source) {
            let tiling = try await self.planner.plan(for: source)
            let full = tiling.properties.displaySize
            var limits = self.configuration.limits
            // A scale factor per level, each level the image at it: whatever clients make of the
            // two lists, a size is where its factor is. (OpenSeadragon 5, in Mirador 4 and TIFY,
            // takes `sizes` for its levels, paired from the coarsest, whenever there are as many
            // as its levels or one fewer: sizes listed to 63 px beside factors to 64 on a
            // 16000-px image gave each level another's size.)
            var scaleFactors = tiling.levelSizes.indices.map { 1 << $0 }
            // Sizes a client may ask for whole (thumbnails, overviews): the levels from about 64 px
            // up to 2048 px on the longest side (the coarsest always), so a tile or a few each.
            var sizes = Array(tiling.levelSizes.filter { $0.longestSide <= 2048 }.reversed())
            if sizes.isEmpty, let coarsest = tiling.levelSizes.last { sizes = [coarsest] }
            if case .substitute(let substitute) = grant {
                // No more than it will answer: the levels and tiles within the substitute's size,
                // and that size itself, the largest (a client's pairing of sizes with levels meets
                // it at a level it may not have).
                let fitted = substitute.fittedSize(of: full)
                (limits.maxWidth, limits.maxHeight) = (fitted.width, fitted.height)
                sizes = sizes.filter { $0.width < fitted.width && $0.height < fitted.height } + [fitted]
                scaleFactors = scaleFactors.filter { substitute.allows(scaleFactor: $0, full: full) }
            }
            let qualities = grant.marks?.grayOnly == true ? ["gray", "bitonal"] : IIIFImageInfo.defaultExtraQualities
            let tiles =
                scaleFactors.isEmpty
                ? [] : [IIIFImageInfo.Tile(width: tiling.tileSize.width, height: tiling.tileSize.height, scaleFactors: scaleFactors)]
            var info = IIIFImageInfo(id: id, size: full, tiles: tiles, sizes: sizes, limits: limits, extraQualities: qualities)
            info.partOf = partOf.map { [$0] } ?? []
            info.service = auth.map { [$0] } ?? []
            return ByteBuffer(string: info.json())
        }
    }

    /// The encoded image an IIIF request asks for, and the request resolved (for its canonical form).
    /// - Parameter grant: what the requester may see; a substitute's requests are held to its size
    ///   (``AccessDenied`` for a finer one) and `max` is its largest.
    func image(
        for source: ResolvedSource, request: IIIFImageRequest, grant: AccessControl.Grant = .open
    ) async throws -> (body: ByteBuffer, resolved: ResolvedIIIFRequest) {
        let plan = try await planner.plan(for: source)
        let properties = plan.properties
        var limits = configuration.limits
        let full = properties.displaySize
        if case .substitute(let substitute) = grant {
            let fitted = substitute.fittedSize(of: full)
            (limits.maxWidth, limits.maxHeight) = (fitted.width, fitted.height)
        }
        let resolved = try request.resolved(imageSize: full, limits: limits)
        if case .substitute(let substitute) = grant {
            guard substitute.allows(region: resolved.region, scaledTo: resolved.scaledSize, full: full) else { throw AccessDenied.beyond(substitute) }
            if substitute.grayOnly && resolved.quality == .color { throw AccessDenied.colour }
        }
        // A marked substitute's tiles are not the stored ones.
        let marks = grant.marks
        if marks == nil, let path = storedTilePath(resolved, of: source, plan: plan), let stored = try? Self.readFile(path) {
            return (stored, resolved)
        }
        let body = try await answers.answer(grant.cacheKeyPrefix + "iiif|" + resolved.canonicalPath, source: source) {
            // What a render costs its client (per-client limits): the region's pixels at the level that serves it.
            let shrink = max(1, resolved.region.width / max(resolved.scaledSize.width, 1))
            let reduction = 1 << (Int.bitWidth - 1 - shrink.leadingZeroBitCount)
            ClientLimits.charge(pixels: resolved.region.width / reduction * (resolved.region.height / reduction))
            let body =
                try await Self.answersAnimated(resolved, properties: properties)
                ? self.renderAnimation(resolved, of: source, properties: properties) : self.render(resolved, of: source, plan: plan)
            guard let marks else { return body }
            let quality = self.configuration.jpegQuality
            return try await self.executor.run { _ in try SubstituteMarking.apply(marks, to: body, format: resolved.format, jpegQuality: quality) }
        }
        return (body, resolved)
    }

    /// The most canvas pixels an animated answer composes, all frames counted (as
    /// ``ThumbnailOptions/maximumAnimationPixelCount``); a longer animation is answered with its
    /// first frame.
    static let maximumAnimationPixelCount = 1 << 30

    /// Whether the answer is an animation: an animated GIF, WebP, APNG or JPEG XL asked for as WebP, within
    /// ``maximumAnimationPixelCount``.
    static func answersAnimated(_ request: ResolvedIIIFRequest, properties: ImageProperties) -> Bool {
        guard properties.animation != nil, request.format == .webp else { return false }
        let (pixels, overflow) = properties.size.area.multipliedReportingOverflow(by: properties.frameCount)
        return !overflow && pixels <= maximumAnimationPixelCount
    }

    /// An animated WebP of every frame, each cut, scaled, turned and converted as the request asks,
    /// with the source's durations and loop count. Frames are composed one at a time: memory is
    /// a few canvases (``AnimatedImage/workingByteCount``) and the encoder's output.
    func renderAnimation(_ request: ResolvedIIIFRequest, of source: ResolvedSource, properties: ImageProperties) async throws -> ByteBuffer {
        let quality = max(configuration.jpegQuality, 80)
        let options = planner.decodeOptions
        return try await executor.run { context in
            let animation = try AnimatedImage(source.input, options: options)
            let reader = try animation.makeFrameReader()
            var encoder: AnimationEncoder?
            while let frame = try reader.next() {
                try context.checkCancellation()
                let upright = properties.orientation.apply(to: frame.pixels)
                let finished = RegionRenderer.finish(upright.cropped(to: request.region) ?? upright, request: request)
                let frames =
                    try encoder
                    ?? AnimationEncoder(
                        size: finished.size, format: .webp(quality: quality), loopCount: animation.properties.animation?.loopCount ?? 0)
                try frames.add(finished, duration: frame.duration)
                encoder = frames
            }
            guard let encoder else { throw ServerError(.internal, "an animation without frames") }
            return ByteBuffer(bytes: try encoder.finish())
        }
    }

    /// The pixels an IIIF request asks for, encoded, as `plan` says: read in place
    /// (``renderInPlace(_:of:plan:)``), or level by level from the source's ``RegionLevels``:
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
    func render(_ request: ResolvedIIIFRequest, of source: ResolvedSource, plan: SourcePlan) async throws -> ByteBuffer {
        if plan.mode == .inPlace { return try await renderInPlace(request, of: source, plan: plan) }
        let quality = configuration.jpegQuality
        let properties = plan.properties, levels = plan.levels
        let kept = configuration.colorManagement.profile(of: properties)
        let orientation = properties.orientation
        let layout = IIIFLayout(imageSize: properties.size, name: "", tileSize: configuration.tileSize)
        let small = plan.mode == .resampled
        // A tile of the pyramid is its level's pixels, whatever level the size alone would pick
        // (`full/163,125` of 2600×2000 is level 4's one tile: 2600/163 rounds below 16).
        let aligned = orientation == .up && !small ? AlignedTile(request, layout: layout) : nil
        let levelCount = 1 + Int(log2(Double(max(properties.size.longestSide, 1))).rounded(.up))
        let reduction =
            aligned?.reduction
            ?? RegionRenderer.reduction(region: request.region, scaledSize: request.scaledSize, levelCount: levelCount)
        let levelSize = levels.levelSize(reduction: reduction)
        let storedRegion = orientation.storedRect(ofDisplayed: request.region, storedSize: properties.size)
        let rect = RegionRenderer.levelRect(of: storedRegion, reduction: reduction, levelSize: levelSize)
        if small || levelSize.area <= configuration.wholeLevelPixelLimit {
            let cut: PixelBuffer
            if small {
                // A small source's level is resampled to about the level's size, not exactly it.
                let level = try await decodedLevels.whole(source, levels: levels, reduction: reduction, small: true)
                cut = level.cropped(to: RegionRenderer.levelRect(of: storedRegion, fullSize: properties.size, levelSize: level.size)) ?? level
            } else {
                cut = try await decodedLevels.whole(source, levels: levels, reduction: reduction, small: false, cut: rect)
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
                    return ByteBuffer(
                        bytes: try RegionRenderer.render(
                            orientation.apply(to: pixels), profile: kept, request: request, jpegQuality: quality))
                }
            }
            builds.start(.iiif, source: source, imageSize: properties.size)
            return try await renderAsStored(
                request, levels: levels, rect: rect, reduction: reduction, tileSize: tileSize, aligned: aligned, profile: kept)
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
                return try self.decodedLevels.tile(key: key) {
                    let input =
                        fetched[key].map { ImageSource.data($0) }
                        ?? .file(pyramid.tilePath(reduction: reduction, column: column, row: row) ?? "")
                    return try ImageDecoder(options: self.planner.decodeOptions).decode(input).pixels
                }
            }
        }
    }

    /// `rect` of level `reduction` made from the tiles the pyramid will hold, before it exists: the
    /// rows and columns of the ones the region touches read from the source at once, then each tile
    /// encoded (and, for a region that is not one tile, decoded again) exactly as a stored tile is,
    /// so the answer's bytes are those it will have once the pyramid is built.
    private func renderAsStored(
        _ request: ResolvedIIIFRequest, levels: RegionLevels, rect: PixelRect, reduction: Int, tileSize: PixelSize,
        aligned: AlignedTile?, profile kept: ICCProfile?
    ) async throws -> ByteBuffer {
        let levelSize = levels.levelSize(reduction: reduction), orientation = levels.properties.orientation
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
                return try ImageDecoder(options: self.planner.decodeOptions).decode(.data(try encodedTile(column, row))).pixels
            }
        }
    }
}
