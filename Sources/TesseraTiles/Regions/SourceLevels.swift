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
}

/// How far ``SourceLevels/pixels(of:reduction:context:progress:)`` has got.
public enum RegionProgress {
    /// The first `written` rows (tightly packed, `format`) at `base` are final.
    case rows(UnsafeRawPointer, format: PixelFormat, written: Int)
    /// The read failed: the memory of earlier reports is about to be freed.
    case failed
}

/// A source's pyramid levels made straight from the source, pixel for pixel as the pyramid builder
/// makes them: a region of a level read here and the same region cut from a built pyramid are the
/// same pixels, so a URL answered before its pyramid exists and after has the same bytes.
///
/// Level `r` is `2^r` times smaller than the stored image on each side, each level `(size + 1) / 2`
/// of the one above. Each level is made by the cheapest decode that gives it
/// (``decodeReduction(for:)``), then halved 2×2 (`LevelHalving`) as often as still needed: for
/// JPEG, levels 1 to 3 are the DCT's 1/2, 1/4 and 1/8 scaled decodes and the coarser ones halvings
/// of the 1/8 decode; for the other formats every level is full-resolution rows halved. The 1/8
/// decode costs about a third of a full one (entropy decoding stays), so every coarse level of a
/// JPEG (thumbnails, a viewer's first screen) costs about that.
///
/// A region is read demand-driven: only the rows it needs are decoded (for JPEG also only its
/// columns, and the rows above are passed over without being produced), halved as they stream, so
/// memory is the region plus one row per halving.
public struct SourceLevels: Sendable {
    /// Where the image's bytes are read from, again for every read.
    public let source: ImageSource
    /// The source's header (stored size: levels are of the stored pixels, not turned upright).
    public let properties: ImageProperties
    /// The limits and colour handling every decode uses.
    public let options: DecodeOptions
    /// The most reduction the format's decoder gives by itself (`ImageProperties.decoderReductions`:
    /// JPEG 3, the DCT's 1/8; JPEG 2000 its resolution levels; the others 0).
    public let maximumDecodeReduction: Int

    /// The levels of `source`, whose header `properties` is (`ImageDecoder.probe(_:)`); nothing is
    /// decoded until a level or region is asked for.
    public init(_ source: ImageSource, properties: ImageProperties, options: DecodeOptions) {
        self.source = source
        self.properties = properties
        self.options = options
        maximumDecodeReduction = properties.decoderReductions
    }

    /// The size of level `reduction` of an image of `size`: `(size + 1) / 2` per level.
    public static func levelSize(of size: PixelSize, reduction: Int) -> PixelSize {
        var level = size
        for _ in 0..<max(0, reduction) { level = PixelSize(width: (level.width + 1) / 2, height: (level.height + 1) / 2) }
        return level
    }

    /// The size of level `reduction` of the stored image, in pixels.
    public func levelSize(reduction: Int) -> PixelSize { Self.levelSize(of: properties.size, reduction: reduction) }

    /// The reduction the source is decoded at to make level `reduction`.
    public func decodeReduction(for reduction: Int) -> Int { min(max(0, reduction), maximumDecodeReduction) }

    /// Whether level `reduction` is level `reduction - 1` halved (``halved(_:)``), which is cheaper
    /// to make from that level than from the source.
    public func halvesPreviousLevel(_ reduction: Int) -> Bool {
        reduction > 0 && decodeReduction(for: reduction) == decodeReduction(for: reduction - 1)
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

    /// The block of the decoded image (at ``decodeReduction(for:)``) that makes `rect` of level
    /// `reduction`: `rect` scaled up by the halvings between them, clipped to the decoded image.
    private func decodedBlock(of rect: PixelRect, reduction: Int) -> (block: PixelRect, halvings: Int) {
        let base = decodeReduction(for: reduction), halvings = reduction - base
        let decoded = levelSize(reduction: base)
        let x = rect.x << halvings, y = rect.y << halvings
        let right = min(decoded.width, (rect.x + rect.width) << halvings)
        let bottom = min(decoded.height, (rect.y + rect.height) << halvings)
        return (PixelRect(x: x, y: y, width: right - x, height: bottom - y), halvings)
    }

    /// What ``pixels(of:reduction:context:progress:)`` of `rect` would decode and pass over.
    public func cost(of rect: PixelRect, reduction: Int) -> RegionCost {
        let (block, _) = decodedBlock(of: clipped(rect, reduction: reduction), reduction: reduction)
        if properties.format == .jpeg {
            return RegionCost(decodedPixelCount: block.width * block.height, rowsPassedOver: block.y)
        }
        // A JPEG 2000 region is decoded from its own code blocks: nothing above it is read.
        if properties.format.isJPEG2000 { return RegionCost(decodedPixelCount: block.width * block.height, rowsPassedOver: 0) }
        let width = levelSize(reduction: decodeReduction(for: reduction)).width
        return RegionCost(decodedPixelCount: width * (block.y + block.height), rowsPassedOver: block.y)
    }

    private func clipped(_ rect: PixelRect, reduction: Int) -> PixelRect {
        let size = levelSize(reduction: reduction)
        return rect.intersection(PixelRect(x: 0, y: 0, width: size.width, height: size.height))
    }

    /// The pixels of `rect` of level `reduction` (clipped to the level), in the source's decoded
    /// format, converted as ``options`` say: the rows and columns it needs decoded at the level's
    /// decode reduction and halved as they stream.
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
        let base = decodeReduction(for: reduction)
        let reader = try ImageRowReader(source, options: options, reduction: base)
        guard reader.rowReduction == base else { throw ImageDecodingError.unsupported(reason: "the decoder cannot shrink as asked") }
        let (block, halvings) = decodedBlock(of: rect, reduction: reduction)
        let format = reader.format, channels = format.bytesPerPixel
        var halver = RowHalver(size: block.size, halvings: halvings, channels: channels)
        guard halver.outputSize == rect.size else { throw ImageDecodingError.corrupt(reason: "the level's size differs from the header") }
        let rowBytes = rect.width * channels
        // Reported every 16 rows: often enough for readers, rarely enough to cost nothing.
        let step = 16
        return try PixelBuffer(width: rect.width, height: rect.height, format: format) { target in
            var y = 0
            do {
                try reader.forEachRow(in: block, context: context) { row in
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
}
