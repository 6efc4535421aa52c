public import TesseraCodecs
public import TesseraCore

/// What reading a region from a source costs, before reading it: the bytes of pixels decoded and
/// the rows passed over to reach them. A caller compares it with other ways to the same pixels (a
/// level already in memory, a built pyramid).
public struct RegionCost: Sendable, Equatable {
    /// Pixels decoded (and converted, halved) to make the region, at the decode's reduction.
    public var decodedPixelCount: Int
    /// Rows above the region the decoder goes through first: entropy decoding only for JPEG,
    /// whole rows for the other formats.
    public var rowsPassedOver: Int

    public init(decodedPixelCount: Int, rowsPassedOver: Int) {
        self.decodedPixelCount = decodedPixelCount
        self.rowsPassedOver = rowsPassedOver
    }
}

/// How far ``RegionLevels/pixels(of:reduction:context:progress:)`` has got.
public enum RegionProgress {
    /// The first `written` rows (tightly packed, `format`) at `base` are final.
    case rows(UnsafeRawPointer, format: PixelFormat, written: Int)
    /// The read failed: the memory of earlier reports is about to be freed.
    case failed
}

/// The levels clients ask for, halvings of the full image (IIIF scale factors, Deep Zoom levels, a
/// viewer's levels), made from any ``RegionSource``'s native levels.
///
/// Level `r` is `2^r` times smaller than the stored image on each side. It is made from the
/// coarsest native level at most that small (``derivation(of:)``): that level itself when its
/// downsample is `2^r`; that level halved 2×2 (`LevelHalving`) as often as needed when the
/// downsample divides `2^r` by a power of two, each halving `(size + 1) / 2` of the one before,
/// exactly as the pyramid builder makes its levels, so a region read here and the same region cut
/// from a built pyramid are the same pixels; and resampled (Lanczos) when it does not (a source
/// with 3× steps), a region from the native pixels its filter reaches, so it is that region of the
/// whole level resampled and tiles meet without seams. For a JPEG, levels 1 to 3 are the DCT's 1/2, 1/4 and 1/8 decodes and the
/// coarser ones halvings of the 1/8 decode; for a strip TIFF every level is full-resolution rows
/// halved; for a slide with 4× steps, level 1 is level 0 halved.
///
/// A region is read demand-driven: only the rows it needs are read from the native level (the
/// source passes over the others its own cheapest way) and halved as they stream, so memory is the
/// region plus one row per halving.
public struct RegionLevels: Sendable {
    /// What the levels are read from.
    public let source: any RegionSource

    public init(_ source: any RegionSource) { self.source = source }

    /// The source's header (stored size: levels are of the stored pixels, not turned upright).
    public var properties: ImageProperties { source.properties }

    /// How level `reduction` is made: from native level `level`, halved `halvings` times, or
    /// resampled (`halvings` nil) when no native level is a power-of-two step above it.
    public func derivation(of reduction: Int) -> (level: Int, halvings: Int?) {
        let levels = source.nativeLevels
        let downsample = 1 << min(max(0, reduction), 62)
        let level = levels.lastIndex { $0.downsample <= downsample } ?? 0
        let step = levels[level].downsample
        guard step > 0, downsample % step == 0, (downsample / step).nonzeroBitCount == 1 else { return (level, nil) }
        return (level, (downsample / step).trailingZeroBitCount)
    }

    /// The size of level `reduction` of an image of `size`: `(size + 1) / 2` per level. The one
    /// rule every level size follows.
    public static func levelSize(of size: PixelSize, reduction: Int) -> PixelSize {
        var level = size
        for _ in 0..<max(0, reduction) { level = PixelSize(width: (level.width + 1) / 2, height: (level.height + 1) / 2) }
        return level
    }

    /// The size of level `reduction`, in pixels: its native level's halved, or the full size's.
    public func levelSize(reduction: Int) -> PixelSize {
        let (level, halvings) = derivation(of: reduction)
        guard let halvings else { return Self.levelSize(of: properties.size, reduction: reduction) }
        return Self.levelSize(of: source.nativeLevels[level].size, reduction: halvings)
    }

    /// The sizes of levels 0 to `count - 1`.
    public func levelSizes(count: Int) -> [PixelSize] { (0..<max(1, count)).map { levelSize(reduction: $0) } }

    /// Whether level `reduction` is native (no halving or resampling): what the source stores.
    public func isNative(_ reduction: Int) -> Bool { derivation(of: reduction).halvings == 0 }

    /// Whether level `reduction` is level `reduction - 1` halved (``halved(_:)``), which is cheaper
    /// to make from that level than from the source.
    public func halvesPreviousLevel(_ reduction: Int) -> Bool {
        guard reduction > 0, let halvings = derivation(of: reduction).halvings else { return false }
        return halvings > 0 && derivation(of: reduction - 1).level == derivation(of: reduction).level
    }

    /// Level `reduction` of the whole source (``pixels(of:reduction:context:progress:)`` of all of it).
    public func level(_ reduction: Int, context: WorkContext = .uncancellable, progress: ((RegionProgress) -> Void)? = nil) throws -> PixelBuffer {
        let size = levelSize(reduction: reduction)
        return try pixels(
            of: PixelRect(x: 0, y: 0, width: size.width, height: size.height), reduction: reduction, context: context, progress: progress)
    }

    /// A whole level halved: the next level's pixels, as ``pixels(of:reduction:context:progress:)`` would
    /// make them when ``halvesPreviousLevel(_:)``.
    public static func halved(_ level: PixelBuffer) -> PixelBuffer {
        var halver = RowHalver(size: level.size, halvings: 1, channels: level.format.bytesPerPixel)
        let size = halver.outputSize
        var output = PixelBuffer(width: size.width, height: size.height, format: level.format)
        var y = 0
        output.bytes.withUnsafeMutableBufferPointer { target in
            for row in 0..<level.height {
                level.withRow(row) { pixels in
                    halver.append(pixels) { halved in
                        (target.baseAddress! + y * halved.count).update(from: halved.baseAddress!, count: halved.count)
                        y += 1
                    }
                }
            }
        }
        return output
    }

    /// The block of the native level that makes `rect` of level `reduction`: `rect` scaled up by the
    /// halvings between them, clipped to the native level; or, resampled, every native pixel the
    /// resize of `rect` reaches (``resampling(to:level:)``), whole box-filter blocks of them.
    private func nativeBlock(of rect: PixelRect, reduction: Int) -> (level: Int, block: PixelRect, halvings: Int?) {
        let (level, halvings) = derivation(of: reduction)
        let native = source.nativeLevels[level].size
        let bounds = PixelRect(x: 0, y: 0, width: native.width, height: native.height)
        guard let halvings else {
            let (factors, shrunk) = resampling(to: levelSize(reduction: reduction), level: level)
            let read = LanczosResampler.inputRect(for: rect, of: shrunk, to: levelSize(reduction: reduction))
            let block = PixelRect(x: read.x * factors.x, y: read.y * factors.y, width: read.width * factors.x, height: read.height * factors.y)
            return (level, block.intersection(bounds), nil)
        }
        let block = PixelRect(x: rect.x << halvings, y: rect.y << halvings, width: rect.width << halvings, height: rect.height << halvings)
        return (level, block.intersection(bounds), halvings)
    }

    /// How a level no native one halves to is made from native level `level`: box-filtered by whole
    /// `factors` to within a few times its size (`shrunk`), then resized (Lanczos), as a thumbnail
    /// is; a region of it is that, windowed, so it has the whole level's pixels.
    private func resampling(to size: PixelSize, level: Int) -> (factors: (x: Int, y: Int), shrunk: PixelSize) {
        let native = source.nativeLevels[level].size
        let factors = BoxShrinker.factors(from: native, toward: size)
        return (factors, PixelSize(width: (native.width + factors.x - 1) / factors.x, height: (native.height + factors.y - 1) / factors.y))
    }

    private func clipped(_ rect: PixelRect, reduction: Int) -> PixelRect {
        let size = levelSize(reduction: reduction)
        return rect.intersection(PixelRect(x: 0, y: 0, width: size.width, height: size.height))
    }

    /// What ``pixels(of:reduction:context:progress:)`` of `rect` would decode and pass over.
    public func cost(of rect: PixelRect, reduction: Int) -> RegionCost {
        let (level, block, _) = nativeBlock(of: clipped(rect, reduction: reduction), reduction: reduction)
        return source.cost(of: block, level: level)
    }

    /// The pixels of `rect` of level `reduction` (clipped to the level), in the source's
    /// ``RegionSource/pixelFormat``: the rows and columns it needs read from its native level and
    /// halved as they stream (or resampled, for a level no native one halves to).
    ///
    /// `progress`, when given, is told where the output is and how many of its rows are written
    /// as they are (every few rows, and once all are), so that other threads can read finished
    /// rows while later ones are decoded (a viewer's tiles encoded while the level is decoded).
    /// The memory it points to becomes the returned buffer's; when the read fails, `progress` is
    /// told so (``RegionProgress/failed``) before that memory is freed.
    ///
    /// - Throws: `ImageDecodingError` (`.cancelled` soon after `context` is cancelled).
    public func pixels(
        of rect: PixelRect, reduction: Int, context: WorkContext = .uncancellable, progress: ((RegionProgress) -> Void)? = nil
    ) throws -> PixelBuffer {
        let rect = clipped(rect, reduction: reduction)
        guard rect.width > 0, rect.height > 0 else { throw ImageDecodingError.corrupt(reason: "the region lies outside the image") }
        let (level, block, halvings) = nativeBlock(of: rect, reduction: reduction)
        guard let halvings else {
            let size = levelSize(reduction: reduction), (factors, shrunk) = resampling(to: size, level: level)
            let native = BoxShrinker.reduce(try source.pixels(of: block, level: level, context: context), factorX: factors.x, factorY: factors.y)
            // Made at once, not by rows: those waiting on `progress` are answered with the result.
            return LanczosResampler.resize(native, at: (block.x / factors.x, block.y / factors.y), of: shrunk, to: size, window: rect)
        }
        let format = source.pixelFormat, channels = format.bytesPerPixel
        var halver = RowHalver(size: block.size, halvings: halvings, channels: channels)
        guard halver.outputSize == rect.size else { throw ImageDecodingError.corrupt(reason: "the level's size differs from the header") }
        let rowBytes = rect.width * channels
        // Reported every 16 rows: often enough for readers, rarely enough to cost nothing.
        let step = 16
        return try PixelBuffer(width: rect.width, height: rect.height, format: format) { target in
            var y = 0
            do {
                try source.forEachRow(in: block, level: level, context: context) { row in
                    halver.append(row) { halved in
                        guard y < rect.height else { return }
                        (target.baseAddress! + y * rowBytes).update(from: halved.baseAddress!, count: rowBytes)
                        y += 1
                        if y % step == 0 { progress?(.rows(UnsafeRawPointer(target.baseAddress!), format: format, written: y)) }
                    }
                }
                guard y == rect.height else { throw ImageDecodingError.truncated(reason: "the decoder stopped after \(y) of \(rect.height) rows") }
            } catch {
                progress?(.failed)
                throw error
            }
            progress?(.rows(UnsafeRawPointer(target.baseAddress!), format: format, written: y))
        }
    }

    /// ``pixels(of:reduction:context:progress:)`` on one of `executor`'s workers, cancelled with the
    /// calling task.
    public func pixels(of rect: PixelRect, reduction: Int, executor: WorkExecutor) async throws -> PixelBuffer {
        try await executor.run { context in try self.pixels(of: rect, reduction: reduction, context: context) }
    }
}
