import TesseraCore

/// Reads a PNG's IHDR and walks its chunk list by seeking (IDAT payloads are skipped, not read)
/// to find transparency, an eXIf orientation and an APNG frame count.
struct PNGHeader {
    var size: PixelSize
    var bitDepth: Int
    var colorType: Int
    var isInterlaced: Bool
    var hasTransparencyChunk = false
    var orientation: Orientation = .up
    var frameCount = 1

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    init(reading stream: ByteStream) throws(ImageDecodingError) {
        stream.seek(to: 0)
        guard try stream.readExactly(8) == Self.signature else { throw .corrupt(reason: "missing PNG signature") }
        let ihdrLength = try stream.readBigEndian32()
        guard ihdrLength == 13, try stream.readExactly(4) == Array("IHDR".utf8) else {
            throw .corrupt(reason: "the first PNG chunk is not IHDR")
        }
        let width = try stream.readBigEndian32()
        let height = try stream.readBigEndian32()
        let header = try stream.readExactly(5)
        bitDepth = Int(header[0])
        colorType = Int(header[1])
        isInterlaced = header[4] == 1
        let validDepths: [Int: [Int]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF,
            validDepths[colorType]?.contains(bitDepth) == true, header[4] <= 1
        else { throw .corrupt(reason: "invalid PNG header") }
        size = PixelSize(width: width, height: height)
        stream.skip(4)  // CRC
        // Ancillary chunks; a file cut short here still probes, since decoding reports truncation.
        for _ in 0..<10_000 {
            guard let length = try? stream.readBigEndian32(), let type = try? stream.readExactly(4) else { break }
            let dataStart = stream.offset
            switch String(decoding: type, as: UTF8.self) {
            case "tRNS": hasTransparencyChunk = true
            case "eXIf": orientation = EXIFMetadata(stream.read(min(length, 1 << 20))).orientation
            case "acTL": frameCount = max(1, (try? stream.readBigEndian32()) ?? 1)
            case "IEND": return
            default: break
            }
            stream.seek(to: dataStart + length + 4)
        }
    }

    var hasAlpha: Bool { colorType == 4 || colorType == 6 || hasTransparencyChunk }

    var decodedFormat: PixelFormat {
        let gray = colorType == 0 || colorType == 4
        return gray ? (hasAlpha ? .grayAlpha8 : .gray8) : (hasAlpha ? .rgba8 : .rgb8)
    }

    func properties(fileByteCount: Int) -> ImageProperties {
        ImageProperties(
            format: .png, size: size, orientation: orientation, hasAlpha: hasAlpha, bitsPerComponent: bitDepth,
            colorModel: colorType == 3 ? .palette : (colorType == 0 || colorType == 4) ? .gray : .rgb,
            frameCount: frameCount, isProgressive: isInterlaced, fileByteCount: fileByteCount,
            decodedFormat: decodedFormat)
    }
}
