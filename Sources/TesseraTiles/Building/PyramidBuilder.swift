import FoundationEssentials
public import TesseraCodecs
public import TesseraCore
public import TesseraStorage
import TesseraViewing

/// Options for building a pyramid.
public struct PyramidOptions: Sendable {
    /// The kind of pyramid and its tile size: Deep Zoom with 254-pixel tiles and 1 pixel of overlap by
    /// default.
    public var layout: PyramidLayout
    /// Tile encoding; JPEG quality 75 by default, libvips' default, so outputs compare.
    public var encoding: EncodingFormat
    /// The most tiles encoded at once on other threads of the `WorkExecutor` while decoding goes on.
    public var jobs: Int
    /// The most pixels a source that cannot stream (HEIF, WebP, SVG) may decode at full size.
    /// JPEG, PNG, GIF and TIFF stream row by row and ignore it.
    public var maximumPixelCount: Int
    /// Tiles converted to sRGB from the source's profile (the default; they are then untagged), or
    /// left in it with the profile embedded in every tile.
    public var colorManagement: ColorManagement
    /// Which page of a document to build from, from 0 (`DecodeOptions.pageIndex`).
    public var pageIndex = 0
    /// Whether a build into a directory is made durable before its descriptor appears: one
    /// `syncfs` for the whole build, so that after a power loss a pyramid that looks complete is
    /// (a cache others rely on wants it). Off by default, as for `vips dzsave` and `cp`: the
    /// kernel writes the files back in its own time, and a build on disk costs about what it costs
    /// in memory. Builds into an object store are durable when the store has answered.
    public var isDurable = false

    /// How the source is decoded: the pixel limit, colour and page of these options.
    var decodeOptions: DecodeOptions {
        DecodeOptions(maximumPixelCount: maximumPixelCount, colorManagement: colorManagement, pageIndex: pageIndex)
    }

    /// Options for a Deep Zoom pyramid of JPEG tiles at quality 75, one encoding job per core, converted
    /// to sRGB, unless told otherwise.
    public init(
        layout: PyramidLayout = .deepZoom(), encoding: EncodingFormat = .jpeg(quality: 75),
        jobs: Int = activeProcessorCount(),
        maximumPixelCount: Int = DecodeOptions.defaultMaximumPixelCount,
        colorManagement: ColorManagement = .convertToSRGB
    ) {
        self.layout = layout
        self.encoding = encoding
        self.jobs = jobs
        self.maximumPixelCount = maximumPixelCount
        self.colorManagement = colorManagement
    }
}

/// What a build produced.
public struct PyramidSummary: Sendable, Codable, Equatable {
    /// The layout's name (`dzi`, `iiif`, `xyz`, `th`).
    public var layout: String
    /// The full-resolution size, in pixels (zero in a summary decoded from JSON).
    public var imageSize: PixelSize
    /// Levels written, full resolution included.
    public var levels: Int
    /// Tile files written (IIIF's `full` aliases included).
    public var tiles: Int
    /// Bytes of tile files written.
    public var bytes: Int
    /// The most bytes of rows the levels held at once: proportional to the width, not the height.
    public var peakHeldRowBytes: Int

    // The JSON form is what `tessera tile --json` has always printed: layout, levels, tiles, bytes.
    // The size and the peak are diagnostics of one build and decode as zero.
    private enum CodingKeys: String, CodingKey { case layout, levels, tiles, bytes }

    /// A summary from its parts (the builder makes these).
    public init(layout: String, imageSize: PixelSize, levels: Int, tiles: Int, bytes: Int, peakHeldRowBytes: Int) {
        self.layout = layout
        self.imageSize = imageSize
        self.levels = levels
        self.tiles = tiles
        self.bytes = bytes
        self.peakHeldRowBytes = peakHeldRowBytes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            layout: try container.decode(String.self, forKey: .layout), imageSize: PixelSize(width: 0, height: 0),
            levels: try container.decode(Int.self, forKey: .levels), tiles: try container.decode(Int.self, forKey: .tiles),
            bytes: try container.decode(Int.self, forKey: .bytes), peakHeldRowBytes: 0)
    }
}

/// Builds a tile pyramid in one pass over the source, as libvips' `dzsave` does: rows stream from
/// the decoder (on its own thread) into the full-resolution level; each level keeps only the rows
/// its current row of tiles needs, cuts those tiles (encoded on `jobs` threads while decoding
/// continues) and shrinks each pair of rows 2×2 into the level below. Memory therefore grows with
/// the image's width, never its height.
///
/// Everything is written into a hidden temporary directory inside `outputDirectory` and moved into
/// place only when complete (the descriptor last), so a failed, interrupted or cancelled build
/// never leaves a pyramid that looks whole.
public enum PyramidBuilder {
    /// Builds the pyramid on the `WorkExecutor` at `priority`, reporting rows read to `progress`.
    ///
    /// Cancelling the task stops the build at the next chunk of rows, removes everything written,
    /// and throws `CancellationError`.
    /// - Throws: `ImageDecodingError`, `ImageEncodingError`, a file-system error, `CancellationError`,
    ///   or `WorkQueueFullError`.
    public static func build(
        _ source: ImageSource, name: String, outputDirectory: String, options: PyramidOptions,
        progress: WorkProgress? = nil, priority: WorkPriority = .normal, executor: WorkExecutor = .shared
    ) async throws -> PyramidSummary {
        try await executor.run(priority: priority) { context in
            do {
                return try build(
                    source, name: name, outputDirectory: outputDirectory, options: options,
                    progress: progress, context: context, executor: executor)
            } catch ImageDecodingError.cancelled {
                throw CancellationError()
            }
        }
    }

    static func build(
        _ source: ImageSource, name: String, outputDirectory: String, options: PyramidOptions,
        progress: WorkProgress?, context: WorkContext, executor: WorkExecutor
    ) throws -> PyramidSummary {
        let input = try Input(source, options: options.decodeOptions)
        let layout = options.layout.layout(imageSize: input.imageSize, name: name)
        let output = URL(fileURLWithPath: outputDirectory)
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let staging = output.appendingPathComponent(".tessera-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        do {
            let sink = DirectorySink(root: staging)
            let (summary, descriptors) = try write(
                source, input, layout: layout, to: sink, options: options, progress: progress, context: context, executor: executor)
            // Tiles durable before the descriptors that make them visible: one sync for the build.
            if options.isDurable { try sink.synchronize() }
            for descriptor in descriptors { try sink.store(descriptor.contents, at: descriptor.path) }
            try moveIntoPlace(layout.outputEntries, from: staging, to: output)
            try? FileManager.default.removeItem(at: staging)
            progress?.finish()
            return summary
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
    }

    /// Builds the pyramid into an object store, under `prefix` (the same paths a directory would
    /// hold), uploading `uploadConcurrency` files at once while decoding goes on.
    ///
    /// All or nothing, as in a directory: the descriptors of any pyramid already there are deleted
    /// first, so it stops being visible; tiles are uploaded next; the descriptors go up last, once
    /// every tile is stored. A failed or cancelled build deletes what it uploaded.
    /// - Throws: as ``build(_:name:outputDirectory:options:progress:priority:executor:)``, and
    ///   `ObjectStorageError`.
    public static func build(
        _ source: ImageSource, name: String, store: any ObjectStoring, prefix: String, options: PyramidOptions,
        uploadConcurrency: Int = 8, progress: WorkProgress? = nil, priority: WorkPriority = .normal,
        executor: WorkExecutor = .shared
    ) async throws -> PyramidSummary {
        try await executor.run(priority: priority) { context in
            let input = try Input(source, options: options.decodeOptions)
            let layout = options.layout.layout(imageSize: input.imageSize, name: name)
            let sink = ObjectStoreSink(store: store, prefix: prefix, concurrency: uploadConcurrency, context: context)
            let fileExtension = options.layout.fileExtension(for: options.encoding)
            try sink.removeBlocking(layout.descriptors(fileExtension: fileExtension).map { sink.key($0.path) })
            do {
                let (summary, descriptors) = try write(
                    source, input, layout: layout, to: sink, options: options, progress: progress, context: context, executor: executor)
                try sink.drain()
                for descriptor in descriptors { try sink.store(descriptor.contents, at: descriptor.path) }
                try sink.drain()
                progress?.finish()
                return summary
            } catch {
                try? sink.drain()
                try? sink.removeBlocking(sink.storedKeys)
                if case ImageDecodingError.cancelled = error { throw CancellationError() }
                throw error
            }
        }
    }

    /// What a build reads: a kind's own levels (a slide, a pyramidal TIFF, read from its stored
    /// levels as `tessera serve` reads it), or the rows of the codecs' decode.
    private enum Input {
        case levels(RegionLevels)
        case rows(ImageRowReader)

        /// A file of a kind's (offered to the kinds only when it is a TIFF or a format the codecs do
        /// not know, so a JPEG costs no second header read); any other source decoded.
        init(_ source: ImageSource, options: DecodeOptions) throws {
            if let path = source.filePath, [nil, .tiff].contains(try? source.sniffedFormat()),
                case .native(_, let native) = try RegionSourceKinds.open(
                    file: path, kinds: RegionSourceKinds.standard(readers: TIFFReaderPool(readersPerFile: 1)), options: options)
            {
                self = .levels(RegionLevels(native))
            } else {
                self = .rows(try ImageRowReader(source, options: options))
            }
        }

        var imageSize: PixelSize {
            switch self {
            case .levels(let levels): levels.levelSize(reduction: 0)
            case .rows(let rows): rows.properties.size
            }
        }
    }

    /// Writes the levels of `input` into `sink` (``write(_:_:layout:to:options:progress:context:executor:)``
    /// for rows); returns the summary and the descriptors, which the caller stores last.
    private static func write(
        _ source: ImageSource, _ input: Input, layout: any TileLayout, to sink: any TileSink, options: PyramidOptions,
        progress: WorkProgress?, context: WorkContext, executor: WorkExecutor
    ) throws -> (PyramidSummary, [(path: String, contents: Data)]) {
        let levels: RegionLevels
        switch input {
        case .rows(let rows):
            return try write(source, rows, layout: layout, to: sink, options: options, progress: progress, context: context, executor: executor)
        case .levels(let found): levels = found
        }
        let writer = TileWriter(
            sink: sink, encoding: options.encoding, iccProfile: options.colorManagement.profile(of: levels.properties), jobs: options.jobs,
            executor: executor)
        let emit = tileEmitter(layout, writer: writer, options: options)
        progress?.totalUnitCount = (0..<layout.levelCount).reduce(1) { $0 + levels.levelSize(reduction: $1).height }
        var peakHeld = 0
        do {
            for reduction in 0..<layout.levelCount {
                let rows = layout.rowSpans(reduction: reduction)
                peakHeld = max(
                    peakHeld, (rows.map(\.count).max() ?? 0) * levels.levelSize(reduction: reduction).width * levels.source.pixelFormat.bytesPerPixel)
                try levels.forEachTile(reduction: reduction, columns: layout.columnSpans(reduction: reduction), rows: rows, context: context) {
                    column, row, pixels in
                    emit(reduction, column, row, pixels)
                    if column == 0 { progress?.advance(by: rows[row].count) }
                }
            }
        } catch {
            try? writer.finish()
            throw error
        }
        try writer.finish()
        return summary(layout, writer: writer, options: options, peakHeld: peakHeld)
    }

    /// Streams the rows through the levels into `sink`; returns the summary and the descriptors,
    /// which the caller stores last.
    ///
    /// The levels are those ``RegionLevels`` makes from a ``DecodedRegionSource``, so that a region read from the source before
    /// the pyramid exists has the pixels the pyramid then gives: a JPEG's levels 1, 2 and 3 come
    /// from passes at the DCT's 1/2, 1/4 and 1/8 scales after the full-resolution one (the coarser
    /// levels are halvings of the last). Together they cost about what the first pass decodes.
    private static func write(
        _ source: ImageSource, _ rows: ImageRowReader, layout: any TileLayout, to sink: any TileSink,
        options: PyramidOptions, progress: WorkProgress?, context: WorkContext, executor: WorkExecutor
    ) throws -> (PyramidSummary, [(path: String, contents: Data)]) {
        let size = layout.imageSize
        let writer = TileWriter(
            sink: sink, encoding: options.encoding, iccProfile: rows.outputProfile, jobs: options.jobs, executor: executor)
        let format = rows.format
        let emit = tileEmitter(layout, writer: writer, options: options)
        // One pass per native level of the decoded source, each making its levels down to the next
        // pass's (every layout's levels are (size + 1) / 2 of the one above, as RegionLevels' are).
        let lastPass = min(rows.properties.decoderReductions, layout.levelCount - 1)
        let passes = (0...max(0, lastPass)).map { reduction in
            PyramidLevel(
                reduction: reduction, layout: layout, format: format,
                levelCount: reduction == lastPass ? layout.levelCount : reduction + 1, emitTile: emit)
        }
        let top = passes[0]
        let bandHeight = layout.rowSpans(reduction: 0).map(\.count).max() ?? 0
        let scaledPasses = ScaledPasses(
            try passes.dropFirst().map { level in
                (level, try ImageRowReader(source, options: rows.options, reduction: level.reduction))
            }, context: context, lookaheadRows: bandHeight)
        // The scaled passes (a JPEG's 1/2, 1/4 and 1/8) run beside the full-resolution one on a
        // thread that is idle, else after it on this one.
        let handedOff = !scaledPasses.isEmpty && executor.runIfIdle { scaledPasses.run() }
        var peakHeld = 0
        var delivered = 0
        // One unit per row, and one more for the descriptors, so the build shows complete only when it is.
        progress?.totalUnitCount = size.height + 1
        do {
            // A band of tiles is cut and encoded at once, on this thread when no other is idle: with a
            // band of look-ahead the decoder goes on meanwhile (16000×12000 on 2 cores: 3.0 → 2.5 s).
            try rows.forEachRow(context: context, lookaheadRows: bandHeight) { row in
                top.append(Array(row))
                delivered += 1
                if delivered % 64 == 0 { peakHeld = max(peakHeld, top.heldByteCount) }
                progress?.advance()
            }
            if !handedOff { scaledPasses.run() }
            try scaledPasses.finish()
        } catch {
            // A pass handed off ends soon after the context is cancelled; one never started is not waited for.
            if handedOff { try? scaledPasses.finish() }
            try? writer.finish()
            throw error
        }
        try writer.finish()
        return summary(layout, writer: writer, options: options, peakHeld: peakHeld)
    }

    /// What hands a tile of `layout` to `writer`: padded when the layout's tiles are, under its
    /// path and aliases.
    private static func tileEmitter(_ layout: any TileLayout, writer: TileWriter, options: PyramidOptions) -> (Int, Int, Int, PixelBuffer) -> Void {
        let fileExtension = options.layout.fileExtension(for: options.encoding), padded = layout.paddedTileSize
        return { reduction, column, row, pixels in
            var paths = [layout.tilePath(reduction: reduction, column: column, row: row, fileExtension: fileExtension)]
            paths += layout.aliasPaths(reduction: reduction, column: column, row: row, fileExtension: fileExtension)
            writer.submit(padded.map { Self.pad(pixels, to: $0) } ?? pixels, paths: paths)
        }
    }

    /// The build's summary and its descriptors.
    private static func summary(
        _ layout: any TileLayout, writer: TileWriter, options: PyramidOptions, peakHeld: Int
    ) -> (PyramidSummary, [(path: String, contents: Data)]) {
        let summary = PyramidSummary(
            layout: options.layout.name, imageSize: layout.imageSize, levels: layout.levelCount,
            tiles: writer.tileCount, bytes: writer.byteCount, peakHeldRowBytes: peakHeld)
        let fileExtension = options.layout.fileExtension(for: options.encoding)
        return (summary, layout.descriptors(fileExtension: fileExtension).map { ($0.path, $0.contents) })
    }

    /// The passes of a build at the decoder's reductions, run in order on one thread, and waited for.
    private final class ScaledPasses: @unchecked Sendable {
        // @unchecked: the passes are touched by one thread at a time: the one that runs them; the
        // outcome is handed over under `lock`.
        private let passes: [(level: PyramidLevel, rows: ImageRowReader)]
        private let context: WorkContext
        private let lookaheadRows: Int
        private let lock = ConditionLock()
        private var finished = false
        private var failure: (any Error)?

        init(_ passes: [(PyramidLevel, ImageRowReader)], context: WorkContext, lookaheadRows: Int) {
            self.passes = passes
            self.context = context
            self.lookaheadRows = lookaheadRows
            finished = passes.isEmpty
        }

        var isEmpty: Bool { passes.isEmpty }

        func run() {
            var failure: (any Error)?
            do {
                for (level, rows) in passes {
                    try rows.forEachRow(context: context, lookaheadRows: lookaheadRows) { row in level.append(Array(row)) }
                }
            } catch {
                failure = error
            }
            lock.withLock {
                self.failure = failure
                finished = true
                lock.broadcast()
            }
        }

        /// Waits for ``run()`` to end; throws what stopped it.
        func finish() throws {
            let failure = lock.withLock { () -> (any Error)? in
                while !finished { lock.wait() }
                return self.failure
            }
            if let failure { throw failure }
        }
    }

    /// A tile placed at the top-left of a `size` canvas of background (white, transparent if there is alpha).
    static func pad(_ pixels: PixelBuffer, to size: PixelSize) -> PixelBuffer {
        guard pixels.size != size else { return pixels }
        let channels = pixels.format.bytesPerPixel
        var background = [UInt8](repeating: 255, count: channels)
        if let alpha = pixels.format.alphaChannelIndex { background[alpha] = 0 }
        var canvas = PixelBuffer(
            width: size.width, height: size.height, format: pixels.format,
            bytes: Array([[UInt8]](repeating: background, count: size.area).joined()))
        for y in 0..<pixels.height {
            let source = y * pixels.bytesPerRow
            canvas.bytes.replaceSubrange(
                y * canvas.bytesPerRow..<y * canvas.bytesPerRow + pixels.bytesPerRow,
                with: pixels.bytes[source..<source + pixels.bytesPerRow])
        }
        return canvas
    }

    /// Replaces any previous pyramid of the same name, entry by entry, descriptor last.
    private static func moveIntoPlace(_ entries: [String], from staging: URL, to output: URL) throws {
        let manager = FileManager.default
        for entry in entries {
            let destination = output.appendingPathComponent(entry)
            if manager.fileExists(atPath: destination.path) { try manager.removeItem(at: destination) }
            try manager.moveItem(at: staging.appendingPathComponent(entry), to: destination)
        }
    }
}
