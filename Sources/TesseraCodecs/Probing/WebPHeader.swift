import TesseraCore

/// Walks a WebP's RIFF chunks by seeking: canvas size, alpha, animation frames, EXIF orientation.
///
/// Sizes are checked as libwebp checks them before decoding: every chunk inside the RIFF and the
/// RIFF inside the file, a VP8X canvas under 2³² pixels and equal to the size of a still image's
/// bitstream, animation frames inside the canvas.
struct WebPHeader {
    var size = PixelSize(width: 0, height: 0)
    var hasAlpha = false
    var isLossless = false
    var frameCount = 0
    var isAnimated = false
    var orientation: Orientation = .up
    /// The ICCP chunk's profile; nil without one.
    var iccProfileData: [UInt8]?
    /// Each animation frame's duration as stored, in milliseconds.
    var frameDurations: [Int] = []
    /// The ANIM chunk's loop count: how many times the animation plays, 0 forever.
    var loopCount = 0

    /// libwebp's bound on a canvas, in pixels (`MAX_IMAGE_AREA`): a larger one is refused.
    static let canvasAreaLimit = 1 << 32

    /// - Parameter limits: what an animation canvas its first frame does not cover is held to.
    init(reading stream: ByteStream, limits: AllocationLimits) throws(ImageDecodingError) {
        stream.seek(to: 4)
        let riffSize = try stream.readLittleEndian32()
        guard riffSize >= 12 else { throw .corrupt(reason: "a WebP RIFF of \(riffSize) bytes") }
        let riffEnd = 8 + riffSize
        guard riffEnd <= stream.length else {
            throw .truncated(reason: "the WebP ends \(riffEnd - stream.length) bytes before its RIFF does")
        }
        stream.seek(to: 12)
        var canvas: PixelSize?
        var image: PixelSize?
        var firstFrameCoversCanvas = false
        while stream.offset + 8 <= riffEnd {
            let name = String(decoding: try stream.readExactly(4), as: UTF8.self)
            let length = try stream.readLittleEndian32()
            let dataStart = stream.offset
            guard length <= riffEnd - dataStart else {
                throw .corrupt(reason: "a WebP \(name) chunk of \(length) bytes runs past the end of its RIFF")
            }
            switch name {
            case "VP8X":
                guard length == 10 else { throw .corrupt(reason: "a WebP VP8X chunk of \(length) bytes") }
                let flags = try stream.readUInt8()
                stream.skip(3)
                let declared = PixelSize(width: try stream.readLittleEndian24() + 1, height: try stream.readLittleEndian24() + 1)
                guard declared.area < Self.canvasAreaLimit else { throw .corrupt(reason: "a WebP canvas of \(declared) pixels") }
                canvas = declared
                hasAlpha = flags & 0x10 != 0
                isAnimated = flags & 0x02 != 0
            case "VP8 ":
                image = try Self.lossySize(stream, length: length)
            case "VP8L":
                let (size, alpha) = try Self.losslessHeader(stream, length: length)
                image = size
                if canvas == nil { hasAlpha = alpha }
                isLossless = true
            case "ANMF":
                guard length >= 16 else { throw .corrupt(reason: "a WebP ANMF chunk of \(length) bytes") }
                let x = try stream.readLittleEndian24() * 2, y = try stream.readLittleEndian24() * 2
                let frame = PixelSize(width: try stream.readLittleEndian24() + 1, height: try stream.readLittleEndian24() + 1)
                guard let canvas, x + frame.width <= canvas.width, y + frame.height <= canvas.height else {
                    throw .corrupt(reason: "a WebP animation frame of \(frame) pixels at \(x),\(y) outside its canvas")
                }
                if frameCount == 0 { firstFrameCoversCanvas = frame == canvas }
                frameCount += 1
                frameDurations.append(try stream.readLittleEndian24())
            case "ANIM":
                guard length >= 6 else { throw .corrupt(reason: "a WebP ANIM chunk of \(length) bytes") }
                stream.skip(4)  // the background colour, which browsers ignore (libwebp's decoder too)
                loopCount = try stream.readLittleEndian16()
            case "EXIF":
                if let block = stream.readMetadata(length) { orientation = EXIFMetadata(block).orientation }
            case "ICCP" where iccProfileData == nil:
                // Too long for metadata: an empty profile, which validation turns into a warning.
                iccProfileData = stream.readMetadata(length) ?? []
            default:
                break
            }
            stream.seek(to: dataStart + length + (length & 1))
        }
        if isAnimated {
            guard let canvas, frameCount > 0 else { throw .corrupt(reason: "an animated WebP without frames") }
            size = canvas
            // Canvas the first frame leaves uncovered is background no data describes, yet the
            // animation decoder allocates all of it: beyond the pixel limit it is refused now.
            if !firstFrameCoversCanvas { try limits.check(size, decodedFormat) }
        } else {
            guard let image else { throw .corrupt(reason: "WebP without an image") }
            if let canvas, canvas != image {
                throw .corrupt(reason: "a WebP whose VP8X canvas of \(canvas) pixels holds an image of \(image)")
            }
            size = image
        }
        frameCount = max(frameCount, 1)
    }

    /// The size a VP8 (lossy) chunk's frame header at the stream's offset declares.
    private static func lossySize(_ stream: ByteStream, length: Int) throws(ImageDecodingError) -> PixelSize {
        guard length >= 10 else { throw .corrupt(reason: "a WebP VP8 chunk of \(length) bytes") }
        let frame = try stream.readExactly(10)
        guard frame[3...5] == [0x9D, 0x01, 0x2A] else { throw .corrupt(reason: "bad VP8 start code") }
        let declared = PixelSize(width: (Int(frame[6]) | Int(frame[7]) << 8) & 0x3FFF, height: (Int(frame[8]) | Int(frame[9]) << 8) & 0x3FFF)
        guard declared.width > 0, declared.height > 0 else { throw .corrupt(reason: "a VP8 frame of \(declared) pixels") }
        return declared
    }

    /// The size and alpha hint a VP8L (lossless) chunk's header at the stream's offset declares.
    private static func losslessHeader(_ stream: ByteStream, length: Int) throws(ImageDecodingError) -> (PixelSize, hasAlpha: Bool) {
        guard length >= 5 else { throw .corrupt(reason: "a WebP VP8L chunk of \(length) bytes") }
        let header = try stream.readExactly(5)
        guard header[0] == 0x2F else { throw .corrupt(reason: "bad VP8L signature") }
        let bits = Int(header[1]) | Int(header[2]) << 8 | Int(header[3]) << 16 | Int(header[4]) << 24
        return (PixelSize(width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1), (bits >> 28) & 1 == 1)
    }

    /// libwebp's animation decoder always composites into RGBA.
    var decodedFormat: PixelFormat { hasAlpha || isAnimated ? .rgba8 : .rgb8 }

    func properties(fileByteCount: Int) -> ImageProperties {
        var properties = ImageProperties(
            format: .webp, size: size, orientation: orientation, hasAlpha: hasAlpha || isAnimated,
            bitsPerComponent: 8, colorModel: .rgb, frameCount: frameCount, isProgressive: false,
            fileByteCount: fileByteCount, decodedFormat: decodedFormat)
        properties.attachProfile(iccProfileData)
        if isAnimated && frameCount > 1 {
            properties.animation = AnimationTiming(
                frameDurations: frameDurations.map(AnimationTiming.displayedDuration(milliseconds:)), loopCount: loopCount)
        }
        return properties
    }
}
