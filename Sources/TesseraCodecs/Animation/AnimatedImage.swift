public import TesseraCore

/// One frame of an animation as it shows: the whole canvas, composed.
public struct AnimationFrame: Sendable {
    /// From 0.
    public var index: Int
    /// The canvas after this frame is drawn: RGBA, the animation's full size.
    public var pixels: PixelBuffer
    /// How long it shows, in seconds (see ``AnimationTiming/frameDurations``).
    public var duration: Double
}

/// Makes an animation's frames in order, one at a time.
protocol AnimationFrameDecoding: AnyObject {
    var canvasSize: PixelSize { get }
    /// The next frame composed onto the canvas, or nil after the last.
    func nextFrame() throws(ImageDecodingError) -> AnimationFrame?
}

/// An animated GIF, WebP, APNG or JPEG XL, read frame by frame on demand.
///
/// Opening one reads the headers only. Frames are decoded in order by an ``AnimationFrameReader``,
/// each composed onto the canvas by the format's own disposal and blending rules, so a frame costs
/// the canvas, not the whole animation: ``workingByteCount`` bytes at most, whatever the number of
/// frames. A still image is an animation of one frame.
public struct AnimatedImage: Sendable {
    /// Where the bytes are read from; each reader reads them again from the start.
    public let source: ImageSource
    /// The header facts; ``ImageProperties/animation`` holds the timing (nil for a still).
    public let properties: ImageProperties
    /// The limits and colour handling every frame is decoded with.
    public let options: DecodeOptions

    /// - Throws: ``ImageDecodingError`` when the headers are unreadable or the canvas is over
    ///   ``DecodeOptions/maximumPixelCount``.
    public init(_ source: ImageSource, options: DecodeOptions = DecodeOptions()) throws(ImageDecodingError) {
        let header = try Header(source, options: options)
        self.source = source
        properties = header.properties
        self.options = options
        if isAnimated { try options.limits.check(properties.size, .rgba8) }
    }

    /// More than one frame, and a format Tessera animates (GIF, WebP, APNG).
    public var isAnimated: Bool { properties.animation != nil }

    /// The canvas size, in pixels.
    public var size: PixelSize { properties.size }

    /// Frames in one play, as the headers state; 1 for a still image.
    public var frameCount: Int { isAnimated ? properties.frameCount : 1 }

    /// The most bytes a reader's buffers hold at once while it makes a frame, the frame it hands
    /// out included: four canvases (`width × height × 4` bytes each) for an animation — the canvas,
    /// the area a frame restores (GIF, APNG) or libwebp's second canvas, the frame being decoded
    /// (APNG) and the copy returned. A still costs its decode (``ImageProperties/decodedByteCount``).
    public var workingByteCount: Int {
        isAnimated ? 4 * size.byteCount(in: .rgba8) : properties.decodedByteCount
    }

    /// A reader that decodes the frames from the first.
    public func makeFrameReader() throws(ImageDecodingError) -> AnimationFrameReader {
        let header = try Header(source, options: options)
        guard let timing = header.properties.animation else {
            return AnimationFrameReader(still: source, options: options)
        }
        let decoder: any AnimationFrameDecoding =
            switch header.kind {
            case .gif(let gif): try GIFFrameDecoder(source: source, header: gif, timing: timing.frameDurations, options: options)
            case .webp(let webp):
                try WebPFrameDecoder(
                    source: source, header: webp, timing: timing.frameDurations, profile: header.properties.iccProfile, options: options)
            case .png(let png): try APNGFrameDecoder(source: header.source, header: png, timing: timing.frameDurations, options: options)
            case .jxl(let jxl): try JXLFrameDecoder(jxl, profile: header.properties.iccProfile, options: options)
            default: preconditionFailure("only GIF, WebP, PNG and JPEG XL headers report an animation")
            }
        return AnimationFrameReader(decoder)
    }

    /// Frame `index` (from 0), composed: the frames before it are decoded on the way, one at a time.
    /// - Throws: ``ImageDecodingError/noSuchFrame(index:count:)`` when there is no such frame.
    public func frame(at index: Int) throws(ImageDecodingError) -> AnimationFrame {
        let reader = try makeFrameReader()
        while let frame = try reader.next() {
            if frame.index == index { return frame }
        }
        throw .noSuchFrame(index: index, count: frameCount)
    }
}

/// Decodes an animation's frames in order; one per ``next()``. Not for sharing between tasks.
public final class AnimationFrameReader {
    private enum Kind {
        case animation(any AnimationFrameDecoding)
        case still(ImageSource, DecodeOptions, done: Bool)
    }

    private var kind: Kind

    init(_ decoder: any AnimationFrameDecoding) { kind = .animation(decoder) }

    init(still source: ImageSource, options: DecodeOptions) { kind = .still(source, options, done: false) }

    /// The next frame, or nil after the last. A still image gives its only frame, RGBA, lasting 0 s.
    public func next() throws(ImageDecodingError) -> AnimationFrame? {
        switch kind {
        case .animation(let decoder):
            return try decoder.nextFrame()
        case .still(let source, let options, let done):
            guard !done else { return nil }
            kind = .still(source, options, done: true)
            let decoded = try ImageDecoder(options: options).decode(source)
            return AnimationFrame(index: 0, pixels: decoded.pixels.converted(to: .rgba8), duration: 0)
        }
    }
}
