import TesseraCore

/// Walks a GIF's block structure without decompressing anything: screen size, frame count,
/// and whether the first frame is transparent or interlaced. The sizes it reads are checked against
/// the data that has to back them.
struct GIFHeader {
    var size: PixelSize
    var frameCount = 0
    var firstFrameHasTransparency = false
    var firstFrameCoversScreen = true
    var firstFrameIsInterlaced = false
    /// Each frame's delay as stored, in hundredths of a second (0 without a graphic control extension).
    var frameDelays: [Int] = []
    /// The NETSCAPE2.0 (or ANIMEXTS1.0) loop count as stored: repetitions after the first play,
    /// 0 forever; nil without the extension (play once).
    var storedLoopCount: Int?

    /// - Parameter limits: what a screen its first frame does not cover is held to.
    init(reading stream: ByteStream, limits: AllocationLimits) throws(ImageDecodingError) {
        stream.seek(to: 6)
        let width = try stream.readLittleEndian16()
        let height = try stream.readLittleEndian16()
        let flags = try stream.readUInt8()
        stream.skip(2)
        guard width > 0, height > 0 else { throw .corrupt(reason: "GIF screen of zero size") }
        size = PixelSize(width: width, height: height)
        if flags & 0x80 != 0 { stream.skip(3 << (Int(flags & 0x07) + 1)) }
        var pendingTransparency = false
        var pendingDelay = 0
        var firstFrame = (size: PixelSize(width: 0, height: 0), dataByteCount: 0)
        walking: while let introducer = try? stream.readUInt8() {
            switch introducer {
            case 0x21:
                let label = try stream.readUInt8()
                let start = stream.offset
                if label == 0xF9 {
                    let block = stream.read(4)  // block size (4), the packed flags, the delay
                    if frameCount == 0 {
                        pendingTransparency = block.count >= 2 && block[0] == 4 && block[1] & 0x01 != 0
                    }
                    pendingDelay = block.count == 4 && block[0] == 4 ? Int(block[2]) | Int(block[3]) << 8 : 0
                    stream.seek(to: start)
                } else if label == 0xFF {
                    // The application identifier, then the loop sub-block: 3, 1, count (little-endian).
                    let block = stream.read(17)
                    if block.count == 17, block[0] == 11,
                        Array(block[1..<12]) == Array("NETSCAPE2.0".utf8) || Array(block[1..<12]) == Array("ANIMEXTS1.0".utf8),
                        block[12] == 3, block[13] == 1
                    {
                        storedLoopCount = Int(block[14]) | Int(block[15]) << 8
                    }
                    stream.seek(to: start)
                }
                _ = try Self.skipSubBlocks(stream)
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
                    guard frameWidth > 0, frameHeight > 0 else { throw .corrupt(reason: "GIF frame of zero size") }
                    firstFrame.size = PixelSize(width: frameWidth, height: frameHeight)
                }
                frameCount += 1
                frameDelays.append(pendingDelay)
                pendingDelay = 0
                if descriptor[8] & 0x80 != 0 { stream.skip(3 << (Int(descriptor[8] & 0x07) + 1)) }
                stream.skip(1)  // LZW minimum code size
                let dataByteCount = try Self.skipSubBlocks(stream)
                if frameCount == 1 { firstFrame.dataByteCount = dataByteCount }
            case 0x3B:
                break walking
            default:
                if frameCount == 0 { throw .corrupt(reason: "unexpected GIF block 0x\(String(introducer, radix: 16))") }
                break walking
            }
        }
        guard frameCount > 0 else { throw .corrupt(reason: "GIF without an image") }
        // The first frame is the one decoded: its pixels have to come out of its LZW data.
        guard ExpansionBound.gifLZW.allows(decodedCount: firstFrame.size.area, from: firstFrame.dataByteCount) else {
            throw .corrupt(reason: "\(firstFrame.dataByteCount) bytes of GIF image data cannot fill a frame of \(firstFrame.size)")
        }
        // Screen the first frame leaves uncovered is transparency no data describes. Streaming it
        // would still cost time for every pixel, so beyond the pixel limit it is refused.
        if !firstFrameCoversScreen { try limits.check(size, decodedFormat) }
    }

    /// Skips a chain of data sub-blocks; the bytes of data they held.
    private static func skipSubBlocks(_ stream: ByteStream) throws(ImageDecodingError) -> Int {
        var total = 0
        while true {
            let count = Int(try stream.readUInt8())
            if count == 0 { return total }
            stream.skip(count)
            total += count
            if stream.isAtEnd { throw .truncated(reason: "the GIF ends inside a data block") }
        }
    }

    /// Transparent where the first frame says so, or where it leaves part of the screen uncovered.
    var hasAlpha: Bool { firstFrameHasTransparency || !firstFrameCoversScreen }

    var decodedFormat: PixelFormat { hasAlpha ? .rgba8 : .rgb8 }

    /// How many times the animation plays (0: forever), as browsers read the loop extension: absent,
    /// once; 0, forever; otherwise the stored count of repetitions plus the first play.
    var loopCount: Int { storedLoopCount.map { $0 == 0 ? 0 : $0 + 1 } ?? 1 }

    func properties(fileByteCount: Int) -> ImageProperties {
        var properties = ImageProperties(
            format: .gif, size: size, orientation: .up, hasAlpha: hasAlpha, bitsPerComponent: 8,
            colorModel: .palette, frameCount: frameCount, isProgressive: firstFrameIsInterlaced,
            fileByteCount: fileByteCount, decodedFormat: decodedFormat)
        if frameCount > 1 {
            properties.animation = AnimationTiming(
                frameDurations: frameDelays.map { AnimationTiming.displayedDuration(milliseconds: $0 * 10) }, loopCount: loopCount)
        }
        return properties
    }
}
