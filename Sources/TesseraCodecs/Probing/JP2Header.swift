public import TesseraCore

/// How a JPEG 2000 codestream is laid out: what decides which regions and reductions are cheap to
/// decode from it (ISO/IEC 15444-1, annex A: the SIZ and COD markers of the main header).
public struct JPEG2000Layout: Sendable, Hashable, Codable {
    /// The size of one tile on the full-resolution grid; the image's size when it is one tile.
    public var tileSize: PixelSize
    /// Tiles across and down.
    public var tileColumns: Int
    public var tileRows: Int
    /// Resolution levels (decomposition levels + 1): the codestream holds the image at 1/2ⁿ for
    /// every n below this, each decodable without the finer ones.
    public var resolutionLevels: Int
    /// The packet order: `LRCP`, `RLCP`, `RPCL`, `PCRL` or `CPRL`.
    public var progressionOrder: String
    /// Quality layers.
    public var qualityLayers: Int
    /// Code-block size in samples.
    public var codeBlockSize: PixelSize
    /// Precinct sizes on each resolution's grid, coarsest resolution first; empty when the default
    /// (one precinct of 2¹⁵ per resolution) is used.
    public var precinctSizes: [PixelSize]
    /// The reversible 5/3 wavelet (lossless possible) rather than the irreversible 9/7.
    public var isReversible: Bool
    /// High-throughput block coding (HTJ2K, ISO/IEC 15444-15).
    public var isHighThroughput: Bool
    /// A raw codestream (`.j2k`, `.j2c`) rather than one in JP2 boxes.
    public var isRawCodestream: Bool
    /// Where the image area starts on the reference grid (XOsiz, YOsiz), in pixels: 0×0 but in
    /// rare files, whose reduced levels then do not halve as other images' do.
    public var imageOffset = PixelSize(width: 0, height: 0)

    /// The reductions a decode gives by itself, each level `(size + 1) / 2` of the one above: one
    /// fewer than the resolution levels; none when the image does not start at the grid's origin.
    public var decoderReductions: Int { imageOffset == PixelSize(width: 0, height: 0) ? resolutionLevels - 1 : 0 }

    /// Tiles in all.
    public var tileCount: Int { tileColumns * tileRows }
}

/// Reads a JPEG 2000 file's headers by seeking, without OpenJPEG: the JP2 boxes (`ihdr`, `colr`,
/// `cdef`, `pclr`) and the codestream's main header (SIZ, COD, COC, CAP) up to its first tile.
///
/// OpenJPEG sizes its allocations from these numbers, so they are checked here first: against
/// the file, against the standard's own bounds, and against the limits, before any decode.
struct JP2Header {
    /// The image area's size on the reference grid.
    var size = PixelSize(width: 0, height: 0)
    /// Where the image area starts on the reference grid (usually 0, 0).
    var origin = (x: 0, y: 0)
    var layout: JPEG2000Layout
    /// Each component as the codestream stores it.
    var components: [Component] = []
    /// The enumerated colour space of a `colr` box (16 sRGB, 17 greyscale, 18 sYCC…); nil without one.
    var enumeratedColorSpace: Int?
    /// A `colr` box's ICC profile.
    var iccProfileData: [UInt8]?
    /// Components after a palette (`pclr`) is applied; nil without one.
    var paletteColumnCount: Int?
    /// The component a `cdef` box names as opacity.
    var alphaComponent: Int?
    /// Where the codestream starts in the file.
    var codestreamOffset = 0

    struct Component: Hashable {
        /// Bits per sample (1…38).
        var depth: Int
        var isSigned: Bool
        /// Subsampling on the reference grid (1 for every component of most files).
        var dx: Int
        var dy: Int
    }

    /// The widest sample Tessera reads: 16 bits.
    static let maximumDepth = 16
    /// The most tiles the standard allows a codestream (Isot is 16 bits).
    static let maximumTileCount = 65_535

    /// - Parameter limits: the decoded image's size is checked against them.
    init(reading stream: ByteStream, limits: AllocationLimits) throws(ImageDecodingError) {
        layout = JPEG2000Layout(
            tileSize: PixelSize(width: 0, height: 0), tileColumns: 0, tileRows: 0, resolutionLevels: 1, progressionOrder: "LRCP",
            qualityLayers: 1, codeBlockSize: PixelSize(width: 64, height: 64), precinctSizes: [], isReversible: false,
            isHighThroughput: false, isRawCodestream: true)
        stream.seek(to: 0)
        let start = try stream.readExactly(4)
        if start == [0xFF, 0x4F, 0xFF, 0x51] {
            codestreamOffset = 0
        } else {
            layout.isRawCodestream = false
            try readBoxes(stream, from: 0, to: stream.length, depth: 0)
            guard codestreamOffset > 0 else { throw .corrupt(reason: "a JP2 file without a codestream (jp2c) box") }
        }
        try readMainHeader(stream)
        try limits.check(size, decodedFormat)
    }

    // MARK: - Boxes

    private mutating func readBoxes(_ stream: ByteStream, from start: Int, to end: Int, depth: Int) throws(ImageDecodingError) {
        var offset = start
        while offset + 8 <= end {
            stream.seek(to: offset)
            var length = try stream.readBigEndian32()
            let type = String(decoding: try stream.readExactly(4), as: UTF8.self)
            var headerLength = 8
            if length == 1 {
                let high = try stream.readBigEndian32(), low = try stream.readBigEndian32()
                guard high < 1 << 20 else { throw .corrupt(reason: "a JP2 \(type) box longer than the file") }
                length = high << 32 | low
                headerLength = 16
            } else if length == 0 {
                length = end - offset
            }
            guard length >= headerLength, length <= end - offset else {
                if type == "jp2c" && length > end - offset {
                    throw .truncated(reason: "the JP2 codestream box runs past the end of the file")
                }
                throw .corrupt(reason: "a JP2 \(type) box of \(length) bytes at byte \(offset)")
            }
            let body = offset + headerLength, bodyEnd = offset + length
            switch type {
            case "jp2h" where depth == 0:
                try readBoxes(stream, from: body, to: bodyEnd, depth: 1)
            case "colr" where depth == 1:
                try readColor(stream, at: body, count: bodyEnd - body)
            case "cdef" where depth == 1:
                try readChannelDefinitions(stream, at: body, count: bodyEnd - body)
            case "pclr" where depth == 1:
                stream.seek(to: body)
                guard bodyEnd - body >= 3 else { throw .corrupt(reason: "a JP2 pclr box of \(bodyEnd - body) bytes") }
                _ = try stream.readBigEndian16()
                paletteColumnCount = Int(try stream.readUInt8())
            case "jp2c" where depth == 0:
                if codestreamOffset == 0 { codestreamOffset = body }
            default:
                break
            }
            offset = bodyEnd
        }
    }

    /// The first `colr` box counts (a reader may ignore the others, 15444-1 I.5.3.3): an
    /// enumerated space (method 1) or an ICC profile (methods 2, 3).
    private mutating func readColor(_ stream: ByteStream, at offset: Int, count: Int) throws(ImageDecodingError) {
        guard enumeratedColorSpace == nil, iccProfileData == nil, count >= 3 else { return }
        stream.seek(to: offset)
        let method = try stream.readUInt8()
        stream.skip(2)
        switch method {
        case 1 where count >= 7:
            enumeratedColorSpace = try stream.readBigEndian32()
        case 2, 3:
            guard count - 3 <= AllocationLimits.maximumMetadataByteCount else { return }
            iccProfileData = try stream.readExactly(count - 3)
        default:
            break
        }
    }

    private mutating func readChannelDefinitions(_ stream: ByteStream, at offset: Int, count: Int) throws(ImageDecodingError) {
        stream.seek(to: offset)
        guard count >= 2 else { return }
        let entries = try stream.readBigEndian16()
        guard entries * 6 <= count - 2 else { throw .corrupt(reason: "a JP2 cdef box shorter than its \(entries) entries") }
        for _ in 0..<entries {
            let channel = try stream.readBigEndian16(), type = try stream.readBigEndian16()
            _ = try stream.readBigEndian16()
            // 1: opacity, 2: premultiplied opacity.
            if type == 1 || type == 2 { alphaComponent = channel }
        }
    }

    // MARK: - Codestream main header

    private mutating func readMainHeader(_ stream: ByteStream) throws(ImageDecodingError) {
        stream.seek(to: codestreamOffset)
        guard try stream.readExactly(2) == [0xFF, 0x4F] else { throw .corrupt(reason: "the JPEG 2000 codestream does not start with SOC") }
        var sawSIZ = false, sawCOD = false
        var componentLevels: [Int: Int] = [:]
        while true {
            let marker = try stream.readBigEndian16()
            // SOT (a tile starts) or SOD ends the main header.
            if marker == 0xFF90 || marker == 0xFF93 { break }
            guard marker >> 8 == 0xFF else { throw .corrupt(reason: "expected a JPEG 2000 marker at byte \(stream.offset - 2)") }
            // 0xFF30–0xFF3F are markers without a segment (15444-1 A.1.4): skipped, as OpenJPEG does.
            if (0xFF30...0xFF3F).contains(marker) { continue }
            let length = try stream.readBigEndian16()
            guard length >= 2 else { throw .corrupt(reason: "a JPEG 2000 marker segment of \(length) bytes") }
            let next = stream.offset + length - 2
            guard next <= stream.length else { throw .truncated(reason: "the JPEG 2000 main header ends early") }
            switch marker {
            case 0xFF51:
                try readSIZ(stream, length: length)
                sawSIZ = true
            case 0xFF52:
                guard sawSIZ else { throw .corrupt(reason: "a JPEG 2000 COD before SIZ") }
                try readCOD(stream, length: length)
                sawCOD = true
            case 0xFF53:
                guard sawSIZ else { throw .corrupt(reason: "a JPEG 2000 COC before SIZ") }
                let index = components.count < 257 ? Int(try stream.readUInt8()) : try stream.readBigEndian16()
                _ = try stream.readUInt8()
                componentLevels[index] = Int(try stream.readUInt8())
            case 0xFF50:
                layout.isHighThroughput = true
            default:
                break
            }
            stream.seek(to: next)
        }
        guard sawSIZ else { throw .corrupt(reason: "a JPEG 2000 codestream without SIZ") }
        guard sawCOD else { throw .corrupt(reason: "a JPEG 2000 codestream without COD") }
        // A component's own decomposition count (COC) may be smaller than the default's: a
        // reduction must be one every component has.
        for levels in componentLevels.values where levels + 1 < layout.resolutionLevels { layout.resolutionLevels = levels + 1 }
        guard layout.resolutionLevels <= 33 else { throw .corrupt(reason: "\(layout.resolutionLevels - 1) decomposition levels (at most 32)") }
    }

    private mutating func readSIZ(_ stream: ByteStream, length: Int) throws(ImageDecodingError) {
        let capabilities = try stream.readBigEndian16()
        if capabilities & 0x4000 != 0 { layout.isHighThroughput = true }
        let width = try stream.readBigEndian32(), height = try stream.readBigEndian32()
        let x0 = try stream.readBigEndian32(), y0 = try stream.readBigEndian32()
        let tileWidth = try stream.readBigEndian32(), tileHeight = try stream.readBigEndian32()
        let tileX0 = try stream.readBigEndian32(), tileY0 = try stream.readBigEndian32()
        let count = try stream.readBigEndian16()
        // OpenJPEG takes grid coordinates as 32-bit signed integers.
        guard width <= Int(Int32.max), height <= Int(Int32.max) else { throw .corrupt(reason: "a JPEG 2000 grid of \(width)×\(height)") }
        guard width > x0, height > y0 else { throw .corrupt(reason: "a JPEG 2000 image area of \(width - x0)×\(height - y0)") }
        guard tileWidth > 0, tileHeight > 0, tileX0 <= x0, tileY0 <= y0, tileX0 + tileWidth > x0, tileY0 + tileHeight > y0 else {
            throw .corrupt(reason: "JPEG 2000 tiles that do not cover the image")
        }
        guard count >= 1, count <= 16_384, length == 38 + 3 * count else {
            throw .corrupt(reason: "a JPEG 2000 SIZ of \(length) bytes for \(count) components")
        }
        size = PixelSize(width: width - x0, height: height - y0)
        origin = (x0, y0)
        layout.imageOffset = PixelSize(width: x0, height: y0)
        layout.tileSize = PixelSize(width: tileWidth, height: tileHeight)
        layout.tileColumns = (width - tileX0 + tileWidth - 1) / tileWidth
        layout.tileRows = (height - tileY0 + tileHeight - 1) / tileHeight
        // OpenJPEG keeps a few kilobytes of coding parameters per tile from the header on: many
        // tiles must not be tiny (a 32×32 tile is smaller than any encoder's default by far), so
        // that their count stays in proportion to the image (the conformance suite's 12×12 image
        // in 3×3 tiles is fine).
        let tileCount = layout.tileColumns * layout.tileRows
        guard tileCount <= Self.maximumTileCount, tileCount <= 4096 || tileWidth * tileHeight >= 1024 else {
            throw .corrupt(
                reason: "\(layout.tileColumns)×\(layout.tileRows) JPEG 2000 tiles of \(tileWidth)×\(tileHeight) "
                    + "(at most \(Self.maximumTileCount), and at most 4096 smaller than 32×32)")
        }
        for _ in 0..<count {
            let depth = Int(try stream.readUInt8()), dx = Int(try stream.readUInt8()), dy = Int(try stream.readUInt8())
            guard dx > 0, dy > 0 else { throw .corrupt(reason: "a JPEG 2000 component subsampled by 0") }
            components.append(Component(depth: (depth & 0x7F) + 1, isSigned: depth & 0x80 != 0, dx: dx, dy: dy))
        }
    }

    private mutating func readCOD(_ stream: ByteStream, length: Int) throws(ImageDecodingError) {
        guard length >= 12 else { throw .corrupt(reason: "a JPEG 2000 COD of \(length) bytes") }
        let style = try stream.readUInt8()
        let order = Int(try stream.readUInt8())
        let orders = ["LRCP", "RLCP", "RPCL", "PCRL", "CPRL"]
        guard order < orders.count else { throw .corrupt(reason: "JPEG 2000 progression order \(order)") }
        layout.progressionOrder = orders[order]
        layout.qualityLayers = try stream.readBigEndian16()
        guard layout.qualityLayers > 0 else { throw .corrupt(reason: "a JPEG 2000 codestream with no quality layers") }
        _ = try stream.readUInt8()
        let levels = Int(try stream.readUInt8())
        guard levels <= 32 else { throw .corrupt(reason: "\(levels) JPEG 2000 decomposition levels (at most 32)") }
        layout.resolutionLevels = levels + 1
        let blockWidth = Int(try stream.readUInt8()), blockHeight = Int(try stream.readUInt8())
        guard blockWidth <= 8, blockHeight <= 8, blockWidth + blockHeight <= 8 else {
            throw .corrupt(reason: "JPEG 2000 code blocks of 2^\(blockWidth + 2)×2^\(blockHeight + 2)")
        }
        layout.codeBlockSize = PixelSize(width: 1 << (blockWidth + 2), height: 1 << (blockHeight + 2))
        let blockStyle = try stream.readUInt8()
        if blockStyle & 0x40 != 0 { layout.isHighThroughput = true }
        layout.isReversible = try stream.readUInt8() == 1
        if style & 0x01 != 0 {
            guard length >= 12 + levels + 1 else { throw .corrupt(reason: "a JPEG 2000 COD shorter than its precinct sizes") }
            layout.precinctSizes = []
            for _ in 0...levels {
                let byte = Int(try stream.readUInt8())
                layout.precinctSizes.append(PixelSize(width: 1 << (byte & 0x0F), height: 1 << (byte >> 4)))
            }
        }
    }

    // MARK: - What the decode gives

    /// The components the decoder hands out: after a palette, and without any beyond an alpha.
    var outputComponentCount: Int { paletteColumnCount ?? components.count }

    /// Whether the pixels are grey levels.
    var isGray: Bool {
        if enumeratedColorSpace == 17 { return true }
        // A profile that fails its checks is ignored, here as everywhere else.
        if let profile = iccProfileData.flatMap({ try? ICCProfile(validating: $0) }) { return profile.colorSpace == .gray }
        return outputComponentCount < 3
    }

    /// Whether the samples are sYCC: said so by a `colr` box, or (without one) a luma component at
    /// full resolution with chroma subsampled, which only YCbCr is stored as (OpenJPEG's own tool
    /// takes it so too).
    var isYCC: Bool {
        if let enumeratedColorSpace { return enumeratedColorSpace == 18 }
        guard iccProfileData == nil, paletteColumnCount == nil, components.count >= 3 else { return false }
        return components[0].dx == 1 && components[0].dy == 1 && (components[1].dx > 1 || components[1].dy > 1)
    }

    var hasAlpha: Bool {
        if let alphaComponent { return alphaComponent < outputComponentCount }
        // Without a cdef box, the component after the colour ones is taken for alpha, as OpenJPEG's
        // tools and libvips take it.
        return outputComponentCount == (isGray ? 2 : 4)
    }

    var decodedFormat: PixelFormat { (isGray ? PixelFormat.gray8 : .rgb8).withAlpha(hasAlpha) }

    /// The deepest component.
    var depth: Int { components.map(\.depth).max() ?? 8 }

    /// How many times 2 the decoder can shrink by itself: one fewer than the resolution levels,
    /// and none when the image does not start at the grid's origin (its levels would then not be
    /// `(size + 1) / 2` of each other, as every other source's are).
    var maximumReduction: Int { layout.decoderReductions }

    func properties(fileByteCount: Int) -> ImageProperties {
        var properties = ImageProperties(
            format: layout.isRawCodestream ? .j2k : .jp2, size: size, orientation: .up, hasAlpha: hasAlpha,
            bitsPerComponent: depth, colorModel: isGray ? .gray : (paletteColumnCount != nil ? .palette : .rgb), frameCount: 1,
            isProgressive: false, fileByteCount: fileByteCount, decodedFormat: decodedFormat)
        properties.attachProfile(iccProfileData)
        properties.jpeg2000 = layout
        if let space = enumeratedColorSpace, ![16, 17, 18].contains(space) {
            properties.warnings.append("JPEG 2000 colour space \(space) is shown as sRGB")
        }
        return properties
    }
}
