import TesseraCore

/// Reads a PNG's IHDR and walks its chunk list by seeking (IDAT payloads are skipped, not read)
/// to find transparency, an eXIf orientation and an APNG frame count.
///
/// What it reads it checks, so that a file libpng would refuse is refused here too: the CRC of every
/// chunk it parses, IHDR's values, acTL's frame count, and that the image data could inflate to the
/// size IHDR claims at all.
struct PNGHeader {
    var size: PixelSize
    var bitDepth: Int
    var colorType: Int
    var isInterlaced: Bool
    var hasTransparencyChunk = false
    var orientation: Orientation = .up
    var frameCount = 1
    /// An acTL frame count outside 1…2³¹−1, ignored (the file is shown as a still).
    var ignoredFrameCount: Int?
    /// APNG: acTL's play count (0 forever), each fcTL's delay in milliseconds, and whether the
    /// default image (IDAT) is the animation's first frame rather than a still for other viewers.
    var playCount = 0
    var frameDelays: [Int] = []
    var defaultImageIsFrame = false
    /// The inflated profile of the iCCP chunk; nil without one. A chunk that does not inflate
    /// gives bytes that fail validation (and so a warning).
    var iccProfileData: [UInt8]?
    /// The colour space stated without a profile, in PNG's order of precedence: `cICP` code points
    /// (PNG 3rd edition) over `iCCP`, which is over `sRGB`, which is over `cHRM`/`gAMA`.
    var codePoints: (primaries: Int, transfer: Int)?
    var hasSRGBChunk = false
    var gamma: Int?
    var chromaticities: [Int]?
    /// After the image data came bytes that are no chunk (a length over 2³¹ − 1, a type that is not
    /// four letters): the walk stopped there, as libpng never reads past the image data it needs.
    var hasJunkAfterImageData = false

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The longest side libpng decodes, in pixels: its default `PNG_USER_WIDTH_MAX` and
    /// `PNG_USER_HEIGHT_MAX`, which the reader leaves as they are.
    static let maximumSide = 1_000_000

    /// - Parameter allowsTruncatedData: whether a file that ends before its IEND chunk may still be
    ///   decoded; then the image data it has need not cover the size IHDR claims.
    init(reading stream: ByteStream, allowsTruncatedData: Bool) throws(ImageDecodingError) {
        stream.seek(to: 0)
        guard try stream.readExactly(8) == Self.signature else { throw .corrupt(reason: "missing PNG signature") }
        let ihdrLength = try stream.readBigEndian32()
        let ihdr = try stream.readExactly(4 + 13 + 4)
        guard ihdrLength == 13, ihdr.starts(with: Array("IHDR".utf8)) else {
            throw .corrupt(reason: "the first PNG chunk is not IHDR")
        }
        guard Self.crcMatches(ihdr) else { throw .corrupt(reason: "the PNG's IHDR chunk fails its CRC") }
        let width = Self.bigEndian32(ihdr[4..<8])
        let height = Self.bigEndian32(ihdr[8..<12])
        bitDepth = Int(ihdr[12])
        colorType = Int(ihdr[13])
        isInterlaced = ihdr[16] == 1
        let validDepths: [Int: [Int]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF,
            validDepths[colorType]?.contains(bitDepth) == true, ihdr[14] == 0, ihdr[15] == 0, ihdr[16] <= 1
        else { throw .corrupt(reason: "invalid PNG header") }
        size = PixelSize(width: width, height: height)
        guard size.longestSide <= Self.maximumSide else {
            throw .unsupported(reason: "a PNG of \(size) pixels: libpng decodes at most \(Self.maximumSide) a side")
        }
        var imageDataByteCount = 0
        var reachedEnd = false
        walking: while let length = try? stream.readBigEndian32(), let type = try? stream.readExactly(4) {
            let isChunk = length <= 0x7FFF_FFFF && type.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
            if !isChunk && imageDataByteCount > 0 {
                hasJunkAfterImageData = true
                break walking
            }
            guard length <= 0x7FFF_FFFF else { throw .corrupt(reason: "a PNG chunk of \(length) bytes") }
            let dataStart = stream.offset
            switch String(decoding: type, as: UTF8.self) {
            case "IDAT":
                if imageDataByteCount == 0 { defaultImageIsFrame = !frameDelays.isEmpty }
                imageDataByteCount += min(length, stream.length - dataStart)
            case "IEND":
                reachedEnd = true
                break walking
            default:
                readAncillaryChunk(type, length: length, from: stream)
            }
            stream.seek(to: dataStart + length + 4)
        }
        // The filtered rows the image data must inflate to, without their filter bytes.
        let samplesPerPixel = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType]!
        let leastInflated = height * (width * bitDepth * samplesPerPixel / 8)
        if !ExpansionBound.deflate.allows(decodedCount: leastInflated, from: imageDataByteCount) {
            let shortage = "\(imageDataByteCount) bytes of PNG image data cannot inflate to \(size) pixels"
            if reachedEnd { throw .corrupt(reason: shortage) }
            // A file cut short may still be decoded, as far as it goes, when that is allowed.
            if !allowsTruncatedData { throw .truncated(reason: "the file ends early: " + shortage) }
        }
    }

    /// What an ancillary chunk of `type` and `length` bytes at the stream's offset says of the
    /// image: transparency, orientation, colour, animation. A damaged one is dropped, as libpng
    /// drops it.
    private mutating func readAncillaryChunk(_ type: [UInt8], length: Int, from stream: ByteStream) {
        switch String(decoding: type, as: UTF8.self) {
        case "tRNS":
            if Self.readChunk(type, length: length, from: stream) != nil { hasTransparencyChunk = true }
        case "eXIf":
            if let block = Self.readChunk(type, length: length, from: stream) {
                orientation = EXIFMetadata(block).orientation
            }
        case "iCCP" where iccProfileData == nil:
            // Name (1–79 bytes), NUL, compression method 0, the zlib stream.
            if let chunk = Self.readChunk(type, length: length, from: stream), let nul = chunk.prefix(80).firstIndex(of: 0),
                nul + 1 < chunk.count, chunk[nul + 1] == 0
            {
                iccProfileData = Inflate.bounded(chunk[(nul + 2)...], limit: ICCProfile.maximumByteCount) ?? []
            }
        case "cICP":
            // Primaries, transfer, matrix (0: RGB, the only kind PNG stores), full range.
            if let chunk = Self.readChunk(type, length: length, from: stream), chunk.count == 4, chunk[2] == 0 {
                codePoints = (Int(chunk[0]), Int(chunk[1]))
            }
        case "sRGB":
            hasSRGBChunk = Self.readChunk(type, length: length, from: stream) != nil
        case "gAMA":
            if let chunk = Self.readChunk(type, length: length, from: stream), chunk.count == 4 {
                gamma = Self.bigEndian32(chunk[...])
            }
        case "cHRM":
            if let chunk = Self.readChunk(type, length: length, from: stream), chunk.count == 32 {
                chromaticities = (0..<8).map { Self.bigEndian32(chunk[$0 * 4..<$0 * 4 + 4]) }
            }
        case "acTL":
            if let control = Self.readChunk(type, length: length, from: stream), control.count == 8 {
                let frames = Self.bigEndian32(control[0..<4])
                // A count the format does not allow: the animation is ignored and the
                // default image shown, as browsers and the peers do.
                guard frames > 0, frames <= 0x7FFF_FFFF else {
                    ignoredFrameCount = frames
                    break
                }
                frameCount = frames
                playCount = Self.bigEndian32(control[4..<8])
            }
        case "fcTL":
            // Sequence, size, offset (4 bytes each), delay numerator and denominator (2 each), ops.
            if let control = Self.readChunk(type, length: length, from: stream), control.count == 26 {
                let numerator = Int(control[20]) << 8 | Int(control[21])
                let denominator = Int(control[22]) << 8 | Int(control[23])
                frameDelays.append(numerator * 1000 / (denominator == 0 ? 100 : denominator))
            }
        default:
            break
        }
    }

    /// An APNG browsers animate: more than one frame, and a frame control chunk for each.
    var isAnimated: Bool { frameCount > 1 && frameDelays.count == frameCount }

    var hasAlpha: Bool { colorType == 4 || colorType == 6 || hasTransparencyChunk }

    var decodedFormat: PixelFormat {
        let gray = colorType == 0 || colorType == 4
        return gray ? (hasAlpha ? .grayAlpha8 : .gray8) : (hasAlpha ? .rgba8 : .rgb8)
    }

    func properties(fileByteCount: Int) -> ImageProperties {
        var properties = ImageProperties(
            format: .png, size: size, orientation: orientation, hasAlpha: hasAlpha, bitsPerComponent: bitDepth,
            colorModel: colorType == 3 ? .palette : (colorType == 0 || colorType == 4) ? .gray : .rgb,
            frameCount: frameCount, isProgressive: isInterlaced, fileByteCount: fileByteCount,
            decodedFormat: decodedFormat)
        if isAnimated {
            properties.animation = AnimationTiming(
                frameDurations: frameDelays.map(AnimationTiming.displayedDuration(milliseconds:)), loopCount: playCount)
        } else if let ignoredFrameCount {
            properties.warnings.append("APNG whose acTL claims \(ignoredFrameCount) frames: shown as a still, as browsers do")
        } else if frameCount > 1 {
            properties.frameCount = 1
            properties.warnings.append(
                "APNG whose acTL announces \(frameCount) frames has \(frameDelays.count) fcTL chunks: shown as a still, as browsers do")
        }
        if hasJunkAfterImageData {
            properties.warnings.append("the PNG has bytes that are no chunk after its image data: ignored, as libpng ignores them")
        }
        let isGray = colorType == 0 || colorType == 4
        if let codePoints {
            do throws(CodedColorSpace.Unsupported) {
                let space = try CodedColorSpace(primaries: codePoints.primaries, transfer: codePoints.transfer)
                properties.attachColorSpace(space.gray(isGray))
            } catch {
                properties.warnings.append(error.description)
            }
        } else if iccProfileData != nil {
            properties.attachProfile(iccProfileData)
        } else if !hasSRGBChunk, let space = CodedColorSpace(pngGamma: gamma, chromaticities: chromaticities) {
            properties.attachColorSpace(space.gray(isGray))
        }
        return properties
    }

    /// The data of the chunk whose length and type were just read, or nil when it is longer than
    /// the metadata limit, cut short by the end of the file, or fails its CRC.
    private static func readChunk(_ type: [UInt8], length: Int, from stream: ByteStream) -> [UInt8]? {
        guard let data = stream.readMetadata(length), let crc = try? stream.readExactly(4) else { return nil }
        return crcMatches(type + data + crc) ? data : nil
    }

    /// Whether the last 4 bytes of `chunk` (type, data, CRC) are the CRC-32 of the rest.
    private static func crcMatches(_ chunk: [UInt8]) -> Bool {
        let body = chunk.dropLast(4)
        let crc = body.reduce(UInt32.max) { crc, byte in crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc == UInt32(bigEndian32(chunk.suffix(4)))
    }

    /// The CRC-32 (ISO 3309, reflected polynomial 0xEDB88320) of every byte value.
    private static let crcTable: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }

    private static func bigEndian32(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}
