import TesseraCore

/// Walks a GIF's block structure without decompressing anything: screen size, frame count,
/// and whether the first frame is transparent or interlaced.
struct GIFHeader {
    var size: PixelSize
    var frameCount = 0
    var firstFrameHasTransparency = false
    var firstFrameCoversScreen = true
    var firstFrameIsInterlaced = false

    init(reading stream: ByteStream) throws(ImageDecodingError) {
        stream.seek(to: 6)
        let width = try stream.readLittleEndian16()
        let height = try stream.readLittleEndian16()
        let flags = try stream.readUInt8()
        stream.skip(2)
        guard width > 0, height > 0 else { throw .corrupt(reason: "GIF screen of zero size") }
        size = PixelSize(width: width, height: height)
        if flags & 0x80 != 0 { stream.skip(3 << (Int(flags & 0x07) + 1)) }
        var pendingTransparency = false
        walking: while let introducer = try? stream.readUInt8() {
            switch introducer {
            case 0x21:
                let label = try stream.readUInt8()
                if label == 0xF9, frameCount == 0 {
                    let start = stream.offset
                    let block = stream.read(2)  // block size (4), then the packed flags
                    pendingTransparency = block.count == 2 && block[0] == 4 && block[1] & 0x01 != 0
                    stream.seek(to: start)
                }
                try Self.skipSubBlocks(stream)
            case 0x2C:
                let descriptor = try stream.readExactly(9)
                if frameCount == 0 {
                    let left = Int(descriptor[0]) | Int(descriptor[1]) << 8
                    let top = Int(descriptor[2]) | Int(descriptor[3]) << 8
                    let frameWidth = Int(descriptor[4]) | Int(descriptor[5]) << 8
                    let frameHeight = Int(descriptor[6]) | Int(descriptor[7]) << 8
                    firstFrameHasTransparency = pendingTransparency
                    firstFrameIsInterlaced = descriptor[8] & 0x40 != 0
                    firstFrameCoversScreen = left == 0 && top == 0 && frameWidth >= width && frameHeight >= height
                }
                frameCount += 1
                if descriptor[8] & 0x80 != 0 { stream.skip(3 << (Int(descriptor[8] & 0x07) + 1)) }
                stream.skip(1)  // LZW minimum code size
                try Self.skipSubBlocks(stream)
            case 0x3B:
                break walking
            default:
                if frameCount == 0 { throw .corrupt(reason: "unexpected GIF block 0x\(String(introducer, radix: 16))") }
                break walking
            }
        }
        guard frameCount > 0 else { throw .corrupt(reason: "GIF without an image") }
    }

    private static func skipSubBlocks(_ stream: ByteStream) throws(ImageDecodingError) {
        while true {
            let count = Int(try stream.readUInt8())
            if count == 0 { return }
            stream.skip(count)
            if stream.isAtEnd { throw .truncated(reason: "the GIF ends inside a data block") }
        }
    }

    /// Transparent where the first frame says so, or where it leaves part of the screen uncovered.
    var hasAlpha: Bool { firstFrameHasTransparency || !firstFrameCoversScreen }

    func properties(fileByteCount: Int) -> ImageProperties {
        ImageProperties(
            format: .gif, size: size, orientation: .up, hasAlpha: hasAlpha, bitsPerComponent: 8,
            colorModel: .palette, frameCount: frameCount, isProgressive: firstFrameIsInterlaced,
            fileByteCount: fileByteCount, decodedFormat: hasAlpha ? .rgba8 : .rgb8)
    }
}
