import TesseraCore

/// Walks a GIF's block structure without decompressing anything: screen size, frame count,
/// and whether the first frame is transparent or interlaced. The sizes it reads are checked against
/// the data that has to back them.
///
/// A file that ends inside a frame is shown as browsers show it: inside the first, that frame as
/// far as its data goes, the rest transparent (``firstFrameIsCut``); inside a later one, the whole
/// frames before it (``cutFrame``).
struct GIFHeader {
    var size: PixelSize
    var frameCount = 0
    var firstFrameHasTransparency = false
    var firstFrameCoversScreen = true
    var firstFrameIsInterlaced = false
    /// The first frame's place on the screen.
    var firstFrameRect = PixelRect(x: 0, y: 0, width: 0, height: 0)
    /// The first frame's transparent palette index (-1: none) and colour table (3 bytes an entry;
    /// the screen's when it has none of its own; nil when neither has one).
    var firstFrameTransparentIndex = -1
    var firstFrameColorTable: [UInt8]?
    /// The LZW minimum code size the first frame's data starts with, and where its first sub-block is.
    var firstFrameCodeSize = 0
    var firstFrameDataOffset = 0
    /// Bytes of LZW data in the first frame's sub-blocks.
    private var firstFrameDataByteCount = 0
    /// The file ends inside the first frame's image data: its rows are shown as far as they go.
    var firstFrameIsCut = false
    /// The file ends inside this frame (from 0, after the first), which is not counted: the frames
    /// before it are shown.
    var cutFrame: Int?
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
        let screenTable = flags & 0x80 != 0 ? try stream.readExactly(3 << (Int(flags & 0x07) + 1)) : nil
        var control = (transparentIndex: -1, delay: 0)
        walking: while let introducer = try? stream.readUInt8() {
            do throws(ImageDecodingError) {
                switch introducer {
                case 0x21:
                    control = try readExtension(stream, control: control)
                case 0x2C:
                    try readImage(stream, control: control, screenTable: screenTable)
                    control = (-1, 0)
                    if firstFrameIsCut || cutFrame != nil { break walking }
                case 0x3B:
                    break walking
                default:
                    if frameCount == 0 { throw .corrupt(reason: "unexpected GIF block 0x\(String(introducer, radix: 16))") }
                    break walking
                }
            } catch {
                // Cut after a whole frame (in an extension or the next frame's header): what came before is shown.
                guard case .truncated = error, frameCount > 0 else { throw error }
                if !firstFrameIsCut && cutFrame == nil && introducer == 0x2C { cutFrame = frameCount }
                break walking
            }
        }
        guard frameCount > 0 else { throw .corrupt(reason: "GIF without an image") }
        // The first frame is the one decoded: its pixels have to come out of its LZW data, unless
        // the file ends inside it (then its rows are shown as far as the data goes).
        let frameSize = PixelSize(width: firstFrameRect.width, height: firstFrameRect.height)
        guard firstFrameIsCut || ExpansionBound.gifLZW.allows(decodedCount: frameSize.area, from: firstFrameDataByteCount) else {
            throw .corrupt(reason: "\(firstFrameDataByteCount) bytes of GIF image data cannot fill a frame of \(frameSize)")
        }
        // Screen the first frame leaves uncovered is transparency no data describes. Streaming it
        // would still cost time for every pixel, so beyond the pixel limit it is refused.
        if !firstFrameCoversScreen || firstFrameIsCut { try limits.check(size, decodedFormat) }
    }

    /// Reads an extension (after its introducer); the graphic control it holds for the next image,
    /// or `control` unchanged when it is another kind.
    private mutating func readExtension(
        _ stream: ByteStream, control: (transparentIndex: Int, delay: Int)
    ) throws(ImageDecodingError) -> (transparentIndex: Int, delay: Int) {
        var control = control
        let label = try stream.readUInt8()
        let start = stream.offset
        if label == 0xF9 {
            // Block size (4), the packed flags, the delay (little-endian), the transparent index.
            let block = stream.read(5)
            if block.count == 5, block[0] == 4 {
                control = (block[1] & 0x01 != 0 ? Int(block[4]) : -1, Int(block[2]) | Int(block[3]) << 8)
            }
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
        guard Self.skipSubBlocks(stream).isWhole else { throw .truncated(reason: "the GIF ends inside a data block") }
        return control
    }

    /// Reads an image (after its separator) and skips its data; a file that ends inside the data
    /// marks the frame cut.
    private mutating func readImage(
        _ stream: ByteStream, control: (transparentIndex: Int, delay: Int), screenTable: [UInt8]?
    ) throws(ImageDecodingError) {
        let descriptor = try stream.readExactly(9)
        let ownTable = descriptor[8] & 0x80 != 0 ? try stream.readExactly(3 << (Int(descriptor[8] & 0x07) + 1)) : nil
        let codeSize = Int(try stream.readUInt8())
        if frameCount == 0 {
            func field(_ at: Int) -> Int { Int(descriptor[at]) | Int(descriptor[at + 1]) << 8 }
            firstFrameRect = PixelRect(x: field(0), y: field(2), width: field(4), height: field(6))
            guard firstFrameRect.width > 0, firstFrameRect.height > 0 else { throw .corrupt(reason: "GIF frame of zero size") }
            firstFrameTransparentIndex = control.transparentIndex
            firstFrameHasTransparency = control.transparentIndex >= 0
            firstFrameIsInterlaced = descriptor[8] & 0x40 != 0
            firstFrameCoversScreen =
                firstFrameRect.x == 0 && firstFrameRect.y == 0 && firstFrameRect.width >= size.width && firstFrameRect.height >= size.height
            firstFrameColorTable = ownTable ?? screenTable
            firstFrameCodeSize = codeSize
            firstFrameDataOffset = stream.offset
        }
        let data = Self.skipSubBlocks(stream)
        guard data.isWhole else {
            if frameCount == 0 {
                frameCount = 1
                frameDelays.append(control.delay)
                firstFrameIsCut = true
                firstFrameDataByteCount = data.byteCount
            } else {
                cutFrame = frameCount
            }
            return
        }
        if frameCount == 0 { firstFrameDataByteCount = data.byteCount }
        frameCount += 1
        frameDelays.append(control.delay)
    }

    /// Skips a chain of data sub-blocks: the bytes of data they held, and whether their terminator
    /// was reached before the end of the file.
    private static func skipSubBlocks(_ stream: ByteStream) -> (byteCount: Int, isWhole: Bool) {
        var total = 0
        while let count = try? stream.readUInt8() {
            if count == 0 { return (total, true) }
            let available = min(Int(count), stream.length - stream.offset)
            stream.skip(Int(count))
            total += available
            if available < Int(count) { break }
        }
        return (total, false)
    }

    /// Transparent where the first frame says so, where it leaves part of the screen uncovered, or
    /// where its data, cut short, does not reach.
    var hasAlpha: Bool { firstFrameHasTransparency || !firstFrameCoversScreen || firstFrameIsCut }

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
        if firstFrameIsCut {
            properties.warnings.append("the GIF ends inside its image data: the rows it holds are shown, the rest is transparent")
        } else if let cutFrame {
            properties.warnings.append("the GIF ends inside frame \(cutFrame + 1): the \(cutFrame) before it are shown")
        }
        return properties
    }
}
