import TesseraCore

/// Walks a WebP's RIFF chunks by seeking: canvas size, alpha, animation frames, EXIF orientation.
struct WebPHeader {
    var size = PixelSize(width: 0, height: 0)
    var hasAlpha = false
    var isLossless = false
    var frameCount = 0
    var isAnimated = false
    var orientation: Orientation = .up

    init(reading stream: ByteStream) throws(ImageDecodingError) {
        stream.seek(to: 12)
        var sawImage = false
        for _ in 0..<100_000 {
            guard let fourCC = try? stream.readExactly(4) else { break }
            let length = try stream.readLittleEndian32()
            let dataStart = stream.offset
            switch String(decoding: fourCC, as: UTF8.self) {
            case "VP8X":
                let flags = try stream.readUInt8()
                stream.skip(3)
                let width = try stream.readLittleEndian24() + 1
                let height = try stream.readLittleEndian24() + 1
                size = PixelSize(width: width, height: height)
                hasAlpha = flags & 0x10 != 0
                isAnimated = flags & 0x02 != 0
            case "VP8 ":
                let frame = try stream.readExactly(10)
                guard frame[3...5] == [0x9D, 0x01, 0x2A] else { throw .corrupt(reason: "bad VP8 start code") }
                if size.width == 0 {
                    size = PixelSize(width: (Int(frame[6]) | Int(frame[7]) << 8) & 0x3FFF,
                                     height: (Int(frame[8]) | Int(frame[9]) << 8) & 0x3FFF)
                }
                sawImage = true
            case "VP8L":
                let header = try stream.readExactly(5)
                guard header[0] == 0x2F else { throw .corrupt(reason: "bad VP8L signature") }
                let bits = Int(header[1]) | Int(header[2]) << 8 | Int(header[3]) << 16 | Int(header[4]) << 24
                if size.width == 0 {
                    size = PixelSize(width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
                    hasAlpha = (bits >> 28) & 1 == 1
                }
                isLossless = true
                sawImage = true
            case "ANMF":
                frameCount += 1
                sawImage = true
            case "EXIF":
                orientation = EXIFMetadata(stream.read(min(length, 1 << 20))).orientation
            default:
                break
            }
            stream.seek(to: dataStart + length + (length & 1))
            if stream.isAtEnd { break }
        }
        guard sawImage, size.width > 0, size.height > 0 else { throw .corrupt(reason: "WebP without an image") }
        frameCount = max(frameCount, 1)
    }

    /// libwebp's animation decoder always composites into RGBA.
    var decodedFormat: PixelFormat { hasAlpha || isAnimated ? .rgba8 : .rgb8 }

    func properties(fileByteCount: Int) -> ImageProperties {
        ImageProperties(
            format: .webp, size: size, orientation: orientation, hasAlpha: hasAlpha || isAnimated,
            bitsPerComponent: 8, colorModel: .rgb, frameCount: frameCount, isProgressive: false,
            fileByteCount: fileByteCount, decodedFormat: decodedFormat)
    }
}
