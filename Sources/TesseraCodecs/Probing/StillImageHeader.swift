import TesseraCore

/// The header of a BMP, ICO/CUR (a BMP entry; PNG entries are read as PNGs), PNM/PAM or TGA file,
/// read in Swift so that its size is checked against the limits, and its data against the file's
/// length, before ffmpeg's decoder (which allocates its frame from the header) sees a byte.
struct StillImageHeader {
    /// ffmpeg's decoder for the bytes (an `AVCodecID`).
    let codec: StillCodec
    let format: ImageFormat
    let size: PixelSize
    /// What the rows come out as: RGB(A) for BMP and icons, as stored for the others.
    let decodedFormat: PixelFormat
    let bitsPerComponent: Int
    let colorModel: ColorModel
    /// The bytes to decode when they are not the file's (an icon's entry made into a BMP file).
    let payload: [UInt8]?
    /// An icon's AND mask (1 bit a pixel, rows bottom-up, 4-byte aligned) in ``payload``, which
    /// makes a pixel transparent where the entry's colours carry no alpha.
    let mask: IconMask?

    struct IconMask {
        let offset: Int
        let bytesPerRow: Int
    }

    /// The decoders used, by the `AVCodecID` values of libavcodec 59 (`codec_id.h`).
    enum StillCodec: Int32 {
        case ppm = 62
        case pbm = 63
        case pgm = 64
        case pam = 66
        case bmp = 78
        case targa = 93
    }

    func properties(fileByteCount: Int) -> ImageProperties {
        ImageProperties(
            format: format, size: size, orientation: .up, hasAlpha: decodedFormat.hasAlpha, bitsPerComponent: bitsPerComponent,
            colorModel: colorModel, frameCount: 1, isProgressive: false, fileByteCount: fileByteCount, decodedFormat: decodedFormat)
    }

    /// Memberwise, for the readers below.
    private init(
        _ codec: StillCodec, _ format: ImageFormat, _ size: PixelSize, _ decodedFormat: PixelFormat, bits: Int, _ colorModel: ColorModel,
        payload: [UInt8]? = nil, mask: IconMask? = nil
    ) {
        (self.codec, self.format, self.size, self.decodedFormat) = (codec, format, size, decodedFormat)
        (bitsPerComponent, self.colorModel, self.payload, self.mask) = (bits, colorModel, payload, mask)
    }

    /// Checks `size` against the limits for both the rows and ffmpeg's frame (`storedBytesPerPixel`
    /// a pixel), and that `needed` bytes of pixel data can be there.
    private static func checked(
        _ size: PixelSize, _ format: PixelFormat, storedBytesPerPixel: Int, needed: Int, available: Int, limits: AllocationLimits,
        name: String
    ) throws(ImageDecodingError) {
        guard size.width > 0, size.height > 0 else { throw .corrupt(reason: "a \(name) image of \(size.width)×\(size.height)") }
        try limits.check(size, format)
        _ = try limits.byteCount(width: size.width, rows: size.height, bytesPerPixel: storedBytesPerPixel)
        guard needed <= available else { throw .truncated(reason: "the \(name) data ends at byte \(available) of at least \(needed)") }
    }
}

// MARK: - BMP and icons

extension StillImageHeader {
    /// A BMP file: BITMAPFILEHEADER, then a core (12-byte) or info (40 to 124-byte) header.
    static func bmp(_ stream: ByteStream, limits: AllocationLimits) throws(ImageDecodingError) -> StillImageHeader {
        stream.seek(to: 0)
        let bytes = try stream.readExactly(min(stream.length, 14 + 124))
        let dib = try DIBHeader(bytes, at: 14)
        let dataOffset = Int(le32(bytes, 10))
        let needed = dib.isCompressed ? dataOffset : dataOffset.addingClamped(dib.packedRowBytes.multipliedClamped(by: dib.size.height))
        try checked(
            dib.size, dib.decodedFormat, storedBytesPerPixel: max(1, dib.bitsPerPixel / 8), needed: needed, available: stream.length,
            limits: limits, name: "BMP")
        return StillImageHeader(.bmp, .bmp, dib.size, dib.decodedFormat, bits: dib.bitsPerComponent, dib.colorModel)
    }

    /// The ICO/CUR entry with the most pixels (then bits per pixel) as a BMP payload, or nil (with
    /// its bytes) when that entry is a PNG, which the PNG reader takes.
    static func icon(_ stream: ByteStream, limits: AllocationLimits) throws(ImageDecodingError) -> (header: StillImageHeader?, png: [UInt8]?) {
        stream.seek(to: 0)
        let directory = try stream.readExactly(6)
        let count = Int(le16(directory, 4))
        var best: (area: Int, bits: Int, offset: Int, length: Int)?
        for index in 0..<count {
            stream.seek(to: 6 + 16 * index + 8)
            let length = try stream.readLittleEndian32(), offset = try stream.readLittleEndian32()
            guard length >= 40, offset >= 6, offset <= stream.length - length else { continue }
            stream.seek(to: offset)
            let start = try stream.readExactly(40)
            let isPNG = start.starts(with: [0x89, 0x50, 0x4E, 0x47])
            let width = isPNG ? Int(be32(start, 16)) : Int(le32(start, 4))
            let height = isPNG ? Int(be32(start, 20)) : abs(Int(Int32(bitPattern: le32(start, 8)))) / 2
            let bits = isPNG ? 32 : Int(start[14]) | Int(start[15]) << 8
            let area = width.multipliedClamped(by: height)
            if best.map({ (area, bits) > ($0.area, $0.bits) }) ?? true { best = (area, bits, offset, length) }
        }
        guard let best else { throw .corrupt(reason: "an icon with no readable image in its directory") }
        stream.seek(to: best.offset)
        let entry = try stream.readExactly(best.length)
        if entry.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return (nil, entry) }
        return (try iconBitmap(entry, isCursor: directory[2] == 2, limits: limits), nil)
    }

    /// An icon's DIB entry (colours, then the AND mask; the height counts both) made into a BMP file.
    private static func iconBitmap(_ entry: [UInt8], isCursor: Bool, limits: AllocationLimits) throws(ImageDecodingError) -> StillImageHeader {
        var dib = try DIBHeader(entry, at: 0)
        guard !dib.isCompressed, dib.headerSize >= 40 else { throw .unsupported(reason: "an icon entry in BMP compression \(dib.compression)") }
        dib.size.height /= 2
        let paletteBytes = dib.bitsPerPixel <= 8 ? 4 * (dib.colorsUsed == 0 ? 1 << dib.bitsPerPixel : min(dib.colorsUsed, 256)) : 0
        let colourBytes = dib.paddedRowBytes.multipliedClamped(by: dib.size.height)
        let maskStart = 14 + dib.headerSize + paletteBytes + colourBytes
        let maskRowBytes = (dib.size.width + 31) / 32 * 4
        try checked(
            dib.size, .rgba8, storedBytesPerPixel: 4, needed: maskStart - 14, available: entry.count, limits: limits,
            name: isCursor ? "CUR" : "ICO")
        // The file header BMP has and icons lack; the height halved (the colours only); the
        // stored image size cleared, since it counted the mask.
        var payload: [UInt8] = Array("BM".utf8) + le32Bytes(14 + entry.count) + [0, 0, 0, 0] + le32Bytes(14 + dib.headerSize + paletteBytes)
        payload += entry
        payload.replaceSubrange((14 + 8)..<(14 + 12), with: le32Bytes(dib.size.height))
        payload.replaceSubrange((14 + 20)..<(14 + 24), with: [0, 0, 0, 0])
        let hasMask = maskStart + maskRowBytes * dib.size.height <= payload.count
        return StillImageHeader(
            .bmp, .ico, dib.size, .rgba8, bits: dib.bitsPerComponent, dib.colorModel, payload: payload,
            mask: hasMask ? IconMask(offset: maskStart, bytesPerRow: maskRowBytes) : nil)
    }

    /// A BITMAPCOREHEADER or BITMAPINFOHEADER (and its later versions) at `offset` of `bytes`.
    private struct DIBHeader {
        var headerSize: Int, size: PixelSize, bitsPerPixel: Int, compression: Int, colorsUsed: Int

        init(_ bytes: [UInt8], at offset: Int) throws(ImageDecodingError) {
            guard bytes.count >= offset + 16 else { throw .truncated(reason: "a BMP header cut short") }
            headerSize = Int(le32(bytes, offset))
            if headerSize == 12 {
                size = PixelSize(width: Int(le16(bytes, offset + 4)), height: Int(le16(bytes, offset + 6)))
                (bitsPerPixel, compression, colorsUsed) = (Int(le16(bytes, offset + 10)), 0, 0)
            } else {
                guard headerSize >= 40, bytes.count >= offset + 36 else { throw .corrupt(reason: "a BMP header of \(headerSize) bytes") }
                let height = Int(Int32(bitPattern: le32(bytes, offset + 8)))
                size = PixelSize(width: Int(Int32(bitPattern: le32(bytes, offset + 4))), height: abs(height))
                bitsPerPixel = Int(le16(bytes, offset + 14))
                (compression, colorsUsed) = (Int(le32(bytes, offset + 16)), Int(le32(bytes, offset + 32)))
            }
            guard [1, 2, 4, 8, 16, 24, 32, 64].contains(bitsPerPixel) else { throw .corrupt(reason: "a BMP of \(bitsPerPixel) bits a pixel") }
            guard [0, 1, 2, 3, 6].contains(compression) else {
                throw .unsupported(reason: compression == 4 || compression == 5 ? "a BMP holding a JPEG or PNG" : "BMP compression \(compression)")
            }
        }

        /// RLE (1, 2): the data's length says nothing of the size.
        var isCompressed: Bool { compression == 1 || compression == 2 }
        var packedRowBytes: Int { (size.width.multipliedClamped(by: bitsPerPixel) + 7) / 8 }
        var paddedRowBytes: Int { (size.width.multipliedClamped(by: bitsPerPixel) + 31) / 32 * 4 }
        var decodedFormat: PixelFormat { bitsPerPixel >= 32 ? .rgba8 : .rgb8 }
        var bitsPerComponent: Int { bitsPerPixel <= 8 ? bitsPerPixel : bitsPerPixel == 16 ? 5 : bitsPerPixel == 64 ? 16 : 8 }
        var colorModel: ColorModel { bitsPerPixel <= 8 ? .palette : .rgb }
    }
}

// MARK: - PNM, PAM and TGA

extension StillImageHeader {
    /// A Netpbm file, plain or binary (P1–P6), or a PAM (P7).
    static func pnm(_ stream: ByteStream, limits: AllocationLimits) throws(ImageDecodingError) -> StillImageHeader {
        stream.seek(to: 0)
        var tokens = PNMTokens(stream.read(4096))
        guard tokens.bytes.count > 2, let kind = Int(String(UnicodeScalar(tokens.bytes[1]))), (1...7).contains(kind) else {
            throw .corrupt(reason: "a PNM without its magic number")
        }
        tokens.position = 2
        var width = 0, height = 0, maximum = 1, channels = kind == 3 || kind == 6 ? 3 : 1
        if kind == 7 {
            var fields: [String: Int] = [:]
            var ended = false
            while let line = tokens.line() {
                if line == "ENDHDR" {
                    ended = true
                    break
                }
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                if parts.count >= 2, let value = Int(parts[1]), value >= 0 { fields[String(parts[0])] = value }
            }
            (width, height, channels, maximum) = (fields["WIDTH"] ?? 0, fields["HEIGHT"] ?? 0, fields["DEPTH"] ?? 0, fields["MAXVAL"] ?? 0)
            guard ended else { throw .corrupt(reason: "a PAM header without ENDHDR in its first 4096 bytes") }
            guard (1...4).contains(channels) else { throw .unsupported(reason: "a PAM of depth \(channels)") }
        } else {
            width = tokens.number() ?? 0
            height = tokens.number() ?? 0
            if kind != 1 && kind != 4 { maximum = tokens.number() ?? 0 }
            tokens.position += 1  // the one whitespace byte before the samples
        }
        guard tokens.position <= tokens.bytes.count, (1...65535).contains(maximum) else { throw .corrupt(reason: "a PNM header unread") }
        let format: PixelFormat = [.gray8, .grayAlpha8, .rgb8, .rgba8][channels - 1]
        let sampleBytes = maximum > 255 ? 2 : 1
        let rowBytes = kind == 4 ? (width + 7) / 8 : width.multipliedClamped(by: channels * sampleBytes)
        // A plain file's samples are at least a digit each.
        let needed = tokens.position.addingClamped(rowBytes.multipliedClamped(by: height))
        let size = PixelSize(width: width, height: height)
        try checked(size, format, storedBytesPerPixel: channels * sampleBytes, needed: needed, available: stream.length, limits: limits, name: "PNM")
        let codec: StillCodec = [.pbm, .pgm, .ppm, .pbm, .pgm, .ppm, .pam][kind - 1]
        let bits = kind == 1 || kind == 4 ? 1 : maximum > 255 ? 16 : 8
        return StillImageHeader(codec, .pnm, size, format, bits: bits, channels >= 3 ? .rgb : .gray)
    }

    /// A Truevision TGA file's 18-byte header (``ImageFormat/isPlausibleTGAHeader(_:)`` holds).
    static func tga(_ stream: ByteStream, limits: AllocationLimits) throws(ImageDecodingError) -> StillImageHeader {
        stream.seek(to: 0)
        let header = try stream.readExactly(18)
        guard ImageFormat.isPlausibleTGAHeader(header) else { throw .corrupt(reason: "a TGA header out of range") }
        let type = Int(header[2]) & 7, depth = Int(header[16])
        let mapBytes = header[1] == 1 ? Int(le16(header, 5)) * ((Int(header[7]) + 7) / 8) : 0
        let size = PixelSize(width: Int(le16(header, 12)), height: Int(le16(header, 14)))
        guard !(type == 3 && depth != 8) else { throw .unsupported(reason: "a \(depth)-bit grey TGA") }
        let hasAlpha = type == 1 ? header[7] == 32 : depth == 32
        let format: PixelFormat = type == 3 ? .gray8 : hasAlpha ? .rgba8 : .rgb8
        let start = 18 + Int(header[0]) + mapBytes
        let pixelBytes = size.area.multipliedClamped(by: (depth + 7) / 8)
        // A run-length packet covers at most 128 pixels.
        let needed = start.addingClamped(header[2] & 8 != 0 ? size.area / 128 : pixelBytes)
        try checked(size, format, storedBytesPerPixel: 4, needed: needed, available: stream.length, limits: limits, name: "TGA")
        let model: ColorModel = type == 1 ? .palette : type == 3 ? .gray : .rgb
        return StillImageHeader(.targa, .tga, size, format, bits: depth == 15 || depth == 16 ? 5 : 8, model)
    }

    /// Netpbm's header grammar: numbers separated by whitespace, `#` comments to the line's end.
    private struct PNMTokens {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

        mutating func number() -> Int? {
            while position < bytes.count, Self.isSpace(bytes[position]) || bytes[position] == UInt8(ascii: "#") {
                if bytes[position] == UInt8(ascii: "#") {
                    while position < bytes.count, bytes[position] != 0x0A, bytes[position] != 0x0D { position += 1 }
                } else {
                    position += 1
                }
            }
            var value = 0, digits = 0
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]), digits < 9 {
                value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                (position, digits) = (position + 1, digits + 1)
            }
            return digits > 0 ? value : nil
        }

        /// The next line of a PAM header, trimmed; comments and blank lines skipped.
        mutating func line() -> String? {
            while position < bytes.count {
                let start = position
                while position < bytes.count, bytes[position] != 0x0A { position += 1 }
                let text = String(decoding: bytes[start..<position], as: UTF8.self).trimmingSpaces
                position += 1
                if !text.isEmpty, !text.hasPrefix("#") { return text }
            }
            return nil
        }
    }
}

private func le16(_ bytes: [UInt8], _ offset: Int) -> UInt16 { UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 }
private func le32(_ bytes: [UInt8], _ offset: Int) -> UInt32 { UInt32(le16(bytes, offset)) | UInt32(le16(bytes, offset + 2)) << 16 }
private func be32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
}
private func le32Bytes(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

extension Int {
    fileprivate func multipliedClamped(by other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? .max : product
    }

    fileprivate func addingClamped(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" || first == "\r" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" || last == "\r" { scalars.removeLast() }
        return String(scalars)
    }
}
