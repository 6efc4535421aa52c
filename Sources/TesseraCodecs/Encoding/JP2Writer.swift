import CTesseraJP2
import FoundationEssentials
public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a JPEG 2000 file (JP2, or a raw J2K codestream) from rows, tile by tile, through
/// OpenJPEG: rows are gathered until a row of tiles is complete, each of those tiles is encoded
/// and its memory reused, so a 16000×12000 image costs one row of tiles (1024 rows × width ×
/// channels bytes with the default tiles), not the whole bitmap, plus OpenJPEG's work on one tile.
///
/// The defaults are made for serving (`tessera serve` reads the file in place, by resolution level
/// and tile): 1024-px tiles, resolution levels down to about one 256-px tile, RPCL progression,
/// 64×64 code blocks. Not thread-safe; one writer per file.
public final class JP2Writer {
    /// How the file is coded.
    public struct Settings: Sendable, Hashable {
        /// Tile side in pixels (1024: one tile is one full-resolution IIIF tile of 1024, and a
        /// few of a 512 one).
        public var tileSize: Int
        /// Resolution levels (decomposition levels + 1); nil: enough that the coarsest level of
        /// the image fits about 256 px (``defaultResolutionLevels(for:tileSize:)``).
        public var resolutionLevels: Int?
        /// Reversible 5/3 wavelet, every bit kept.
        public var isLossless: Bool
        /// For lossy files, 1–100: the target PSNR is `20 + 0.3 × quality` dB (85 → 45.5 dB).
        public var quality: Int
        /// A raw codestream (`.j2k`, `.j2c`) rather than JP2 boxes.
        public var isRawCodestream: Bool

        public init(tileSize: Int = 1024, resolutionLevels: Int? = nil, isLossless: Bool = false, quality: Int = 85, isRawCodestream: Bool = false) {
            self.tileSize = tileSize
            self.resolutionLevels = resolutionLevels
            self.isLossless = isLossless
            self.quality = quality
            self.isRawCodestream = isRawCodestream
        }

        /// The target PSNR of a lossy file, in dB.
        var psnr: Float { 20 + 0.3 * Float(min(max(quality, 1), 100)) }
    }

    /// Resolution levels that bring `size` down to about 256 px on its longest side, at most what
    /// a `tileSize` tile allows (each level halves the tile too) and the standard's 33.
    public static func defaultResolutionLevels(for size: PixelSize, tileSize: Int) -> Int {
        var levels = 1
        while levels < 33, (size.longestSide + (1 << (levels - 1)) - 1) >> (levels - 1) > 256, (tileSize >> levels) >= 1 { levels += 1 }
        return levels
    }

    public let size: PixelSize
    public let format: PixelFormat
    private let settings: Settings
    private let tileSize: PixelSize
    private let handle: CHandle<UnsafeMutablePointer<TesseraJP2Encode>>
    /// One row of tiles as it arrives, interleaved: `tileSize.height × width × channels` bytes.
    private var band: [UInt8]
    private var bandRows = 0
    private var tileRow = 0
    /// One tile, planar, as OpenJPEG takes it.
    private var tile: [UInt8]
    private var finished = false
    /// Where the file goes, and where OpenJPEG writes the codestream first when it goes in JP2
    /// boxes (nil for a raw codestream, written in place).
    private let path: String
    private let codestreamPath: String?
    private let iccProfile: ICCProfile?

    /// Starts writing `path` (created or replaced).
    /// - Parameters:
    ///   - path: the file to write.
    ///   - size: the image's size in pixels; exactly `size.height` rows must be appended.
    ///   - format: the layout of every row appended.
    ///   - settings: how the codestream is coded.
    ///   - iccProfile: embedded in the `colr` box; nil: sRGB (grey) is stated.
    /// - Throws: ``ImageEncodingError`` when the library is missing, a setting is out of range or
    ///   the file cannot be created.
    public init(path: String, size: PixelSize, format: PixelFormat, settings: Settings = Settings(), iccProfile: ICCProfile? = nil)
        throws(ImageEncodingError)
    {
        _ = try encoderTable(Libraries.openJPEG)
        guard size.width > 0, size.height > 0, size.width <= Int(Int32.max), size.height <= Int(Int32.max) else {
            throw .sizeNotSupported(size, .jpeg2000())
        }
        guard (64...16384).contains(settings.tileSize) else { throw .invalidParameter("JPEG 2000 tile size \(settings.tileSize) is not 64–16384") }
        guard (1...100).contains(settings.quality) else { throw .invalidParameter("JPEG 2000 quality \(settings.quality) is not 1–100") }
        let levels = settings.resolutionLevels ?? Self.defaultResolutionLevels(for: size, tileSize: settings.tileSize)
        guard (1...33).contains(levels), settings.tileSize >> (levels - 1) >= 1 else {
            throw .invalidParameter("\(levels) JPEG 2000 resolution levels for \(settings.tileSize)-px tiles")
        }
        self.size = size
        self.format = format
        self.settings = settings
        tileSize = PixelSize(width: min(settings.tileSize, size.width), height: min(settings.tileSize, size.height))
        let channels = format.bytesPerPixel
        band = [UInt8](repeating: 0, count: tileSize.height * size.width * channels)
        tile = [UInt8](repeating: 0, count: tileSize.area * channels)
        handle = .allocate(TesseraJP2Encode(), destroy: tessera_jp2_encode_close)
        self.path = path
        self.iccProfile = iccProfile
        // OpenJPEG 2.5.0 asserts (and aborts) when its JP2 writer is given an ICC profile: it writes
        // the codestream only, beside the output, and the boxes are written here around it.
        codestreamPath = settings.isRawCodestream ? nil : path + ".\(UUID().uuidString).j2c"
        var encodeSettings = TesseraJP2EncodeSettings(
            width: UInt32(size.width), height: UInt32(size.height), components: UInt32(channels),
            tileWidth: UInt32(tileSize.width), tileHeight: UInt32(tileSize.height), resolutions: UInt32(levels),
            lossless: settings.isLossless ? 1 : 0, psnr: settings.psnr, threads: Int32(Libraries.threadCount))
        guard tessera_jp2_encode_open(handle.pointer, codestreamPath ?? path, &encodeSettings) != 0 else {
            if let codestreamPath { unlink(codestreamPath) }
            throw failure("cannot start the JPEG 2000 file")
        }
    }

    deinit {
        // A writer dropped before it finished leaves no codestream behind (the output stays as far
        // as OpenJPEG got, as with any interrupted write).
        if !finished, let codestreamPath { unlink(codestreamPath) }
    }

    /// Adds the next row (`size.width × format.bytesPerPixel` bytes); a completed row of tiles is
    /// encoded at once.
    public func append(row: UnsafeBufferPointer<UInt8>) throws(ImageEncodingError) {
        let rowBytes = size.width * format.bytesPerPixel
        guard !finished, row.count == rowBytes, tileRow * tileSize.height + bandRows < size.height else {
            throw .invalidParameter("a row of \(row.count) bytes where \(rowBytes) were expected, or more rows than \(size.height)")
        }
        band.withUnsafeMutableBufferPointer { band in
            (band.baseAddress! + bandRows * rowBytes).update(from: row.baseAddress!, count: rowBytes)
        }
        bandRows += 1
        let rowsInBand = min(tileSize.height, size.height - tileRow * tileSize.height)
        if bandRows == rowsInBand { try writeBand(rows: rowsInBand) }
    }

    /// Writes the band's tiles, planar, in raster order.
    private func writeBand(rows: Int) throws(ImageEncodingError) {
        let channels = format.bytesPerPixel, rowBytes = size.width * channels
        let columns = (size.width + tileSize.width - 1) / tileSize.width
        for column in 0..<columns {
            let x = column * tileSize.width, width = min(tileSize.width, size.width - x)
            let count = width * rows * channels
            let written = band.withUnsafeBufferPointer { band in
                tile.withUnsafeMutableBufferPointer { tile in
                    for channel in 0..<channels {
                        let plane = tile.baseAddress! + channel * width * rows
                        for y in 0..<rows {
                            let source = band.baseAddress! + y * rowBytes + x * channels + channel
                            let target = plane + y * width
                            for index in 0..<width { target[index] = source[index * channels] }
                        }
                    }
                    return tessera_jp2_encode_tile(handle.pointer, UInt32(tileRow * columns + column), tile.baseAddress!, UInt32(count))
                }
            }
            guard written != 0 else { throw failure("cannot encode JPEG 2000 tile \(tileRow * columns + column)") }
        }
        tileRow += 1
        bandRows = 0
    }

    /// Ends the codestream and closes the file. Throws unless every row was appended.
    public func finish() throws(ImageEncodingError) {
        guard !finished else { return }
        guard tileRow * tileSize.height >= size.height else {
            throw .invalidParameter("the JPEG 2000 file got \(min(size.height, tileRow * tileSize.height + bandRows)) of \(size.height) rows")
        }
        finished = true
        guard tessera_jp2_encode_finish(handle.pointer) != 0 else {
            if let codestreamPath { unlink(codestreamPath) }
            throw failure("cannot finish the JPEG 2000 file")
        }
        if let codestreamPath {
            defer { unlink(codestreamPath) }
            try Self.wrap(codestreamPath, into: path, size: size, format: format, iccProfile: iccProfile)
        }
    }

    /// Writes `path`: the JP2 signature, file type and header boxes (image header; colour: the
    /// profile, else sRGB or greyscale by number; channel definitions when there is alpha), then
    /// the codestream at `codestreamPath` in its box, copied in 1 MB pieces.
    static func wrap(
        _ codestreamPath: String, into path: String, size: PixelSize, format: PixelFormat, iccProfile: ICCProfile?
    ) throws(ImageEncodingError) {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { bigEndian(UInt32(8 + body.count)) + Array(type.utf8) + body }
        func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func bigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        let channels = format.bytesPerPixel
        // Height, width, components, 8 bits unsigned (7), wavelet coded (7), colour known, no IPR.
        var header = box("ihdr", bigEndian(UInt32(size.height)) + bigEndian(UInt32(size.width)) + bigEndian(UInt16(channels)) + [7, 7, 0, 0])
        if let iccProfile {
            header += box("colr", [2, 0, 0] + iccProfile.data)
        } else {
            header += box("colr", [1, 0, 0] + bigEndian(UInt32(format.isGray ? 17 : 16)))
        }
        if format.hasAlpha {
            // Colour channels belong to colours 1…n; the last is opacity for the whole image (0).
            var definitions = bigEndian(UInt16(channels))
            for channel in 0..<channels {
                let isAlpha = channel == channels - 1
                definitions += bigEndian(UInt16(channel)) + bigEndian(UInt16(isAlpha ? 1 : 0)) + bigEndian(UInt16(isAlpha ? 0 : channel + 1))
            }
            header += box("cdef", definitions)
        }
        let brand = Array("jp2 ".utf8)
        var prefix = box("jP  ", [0x0D, 0x0A, 0x87, 0x0A]) + box("ftyp", brand + [0, 0, 0, 0] + brand) + box("jp2h", header)
        guard let input = fopen(codestreamPath, "rb") else { throw .encoderFailed("cannot read the codestream back") }
        defer { fclose(input) }
        fseeko(input, 0, SEEK_END)
        let length = Int(ftello(input))
        fseeko(input, 0, SEEK_SET)
        if length + 8 <= Int(UInt32.max) {
            prefix += bigEndian(UInt32(length + 8)) + Array("jp2c".utf8)
        } else {
            // XLBox: a 64-bit length after a length of 1.
            let total = UInt64(length + 16)
            prefix += bigEndian(UInt32(1)) + Array("jp2c".utf8) + bigEndian(UInt32(total >> 32)) + bigEndian(UInt32(total & 0xFFFF_FFFF))
        }
        guard let output = fopen(path, "wb") else { throw .encoderFailed("cannot create the output file") }
        var written = fwrite(prefix, 1, prefix.count, output) == prefix.count
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while written {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, input) }
            if count == 0 { break }
            written = chunk.withUnsafeBytes { fwrite($0.baseAddress, 1, count, output) } == count
        }
        written = fclose(output) == 0 && written && ferror(input) == 0
        guard written else { throw .encoderFailed("cannot write the output file") }
    }

    private func failure(_ what: String) -> ImageEncodingError {
        let message = cMessage(handle.pointer.pointee.messages.error)
        return .encoderFailed(message.isEmpty ? what : "\(what): \(message)")
    }

    /// Writes `pixels` whole to `path`.
    public static func write(
        _ pixels: PixelBuffer, to path: String, settings: Settings = Settings(), iccProfile: ICCProfile? = nil
    ) throws(ImageEncodingError) {
        let writer = try JP2Writer(path: path, size: pixels.size, format: pixels.format, settings: settings, iccProfile: iccProfile)
        var failure: ImageEncodingError?
        pixels.bytes.withUnsafeBufferPointer { bytes in
            for y in 0..<pixels.height where failure == nil {
                do throws(ImageEncodingError) {
                    try writer.append(row: UnsafeBufferPointer(rebasing: bytes[y * pixels.bytesPerRow..<(y + 1) * pixels.bytesPerRow]))
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
        try writer.finish()
    }

    /// `pixels` as the bytes of a JPEG 2000 file (OpenJPEG writes to a file: a temporary one,
    /// removed after it is read).
    static func encode(_ pixels: PixelBuffer, settings: Settings, iccProfile: ICCProfile?) throws(ImageEncodingError) -> Data {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID().uuidString).jp2").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try write(pixels, to: path, settings: settings, iccProfile: iccProfile)
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .encoderFailed("cannot read the JPEG 2000 file back")
        }
    }
}
