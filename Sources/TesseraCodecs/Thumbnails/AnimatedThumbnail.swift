public import FoundationEssentials
public import TesseraCore

/// A display-sized animation, encoded, and how it was made.
public struct AnimatedThumbnail: Sendable {
    /// The encoded animation (animated WebP or GIF).
    public var data: Data
    /// The format of ``data``: ``EncodingFormat/webp(quality:)``, ``EncodingFormat/webpLossless`` or
    /// ``EncodingFormat/gif(dithering:)``.
    public var encoding: EncodingFormat
    /// Every frame's size, in pixels.
    public var size: PixelSize
    /// Frames in the animation: the source's, each with its duration; 1 for a still source.
    public var frameCount: Int
    /// The source's header facts; ``ImageProperties/animation`` holds its timing, which the
    /// thumbnail keeps.
    public var sourceProperties: ImageProperties
    /// The most bytes Tessera's own buffers held at once: the source's frame decoding
    /// (``AnimatedImage/workingByteCount``) and one shrunk frame on its way to the encoder.
    public var peakWorkingByteCount: Int

    /// What was made, as `tessera thumbnail --json` prints it.
    public var summary: ThumbnailSummary {
        ThumbnailSummary(
            sourceWidth: sourceProperties.size.width, sourceHeight: sourceProperties.size.height,
            width: size.width, height: size.height, decodeScale: 1, decodedBytes: size.byteCount(in: .rgba8),
            frameCount: frameCount)
    }
}

extension Thumbnailer {
    /// Shrinks every frame of an animated GIF, WebP, APNG or JPEG XL as it is decoded and encodes the frames
    /// as they come into an animation of `encoding` (``EncodingFormat/webp(quality:)``,
    /// ``EncodingFormat/webpLossless`` or ``EncodingFormat/gif(dithering:)``), keeping each frame's
    /// duration and the loop count. Frames are never all held: memory is bounded by the source's
    /// canvas (see ``AnimatedImage/workingByteCount``), not its length. A still source gives an
    /// animation of one frame.
    ///
    /// - Throws: ``ImageDecodingError/tooLarge(pixels:limit:)`` when the frames' canvas pixels add up
    ///   to more than ``ThumbnailOptions/maximumAnimationPixelCount``: a still of the first frame
    ///   (``thumbnail(_:options:)``) is the usual answer.
    ///
    /// Runs on the `WorkExecutor`; cancelling the task stops it between frames.
    public func animatedThumbnail(
        _ source: ImageSource, options: ThumbnailOptions, encoding: EncodingFormat, priority: WorkPriority = .normal,
        executor: WorkExecutor = .shared
    ) async throws -> AnimatedThumbnail {
        try await executor.run(priority: priority) { context in
            do {
                return try animatedThumbnail(source, options: options, encoding: encoding, context: context)
            } catch ImageDecodingError.cancelled {
                throw CancellationError()
            }
        }
    }

    /// Makes the animated thumbnail on the calling thread.
    /// - Throws: ``ImageDecodingError`` or ``ImageEncodingError``.
    public func animatedThumbnail(
        _ source: ImageSource, options: ThumbnailOptions, encoding: EncodingFormat
    ) throws -> AnimatedThumbnail {
        try animatedThumbnail(source, options: options, encoding: encoding, context: .uncancellable)
    }

    func animatedThumbnail(
        _ source: ImageSource, options: ThumbnailOptions, encoding: EncodingFormat, context: WorkContext
    ) throws -> AnimatedThumbnail {
        let animation = try AnimatedImage(source, options: decodeOptions(options))
        try checkWork(animation, frames: animation.frameCount, options: options)
        let shrinker = FrameShrinker(animation.properties, options: options)
        let encoder = try AnimationEncoder(
            size: shrinker.outputSize, format: encoding, loopCount: animation.properties.animation?.loopCount ?? 1)
        var frameCount = 0
        // Frames are decoded and composed on a second thread when one is idle, shrunk and encoded here.
        try AnimationFramePipeline(try animation.makeFrameReader()).forEachFrame(context: context) { frame in
            try encoder.add(shrinker.shrink(frame.pixels), duration: frame.duration)
            frameCount += 1
        }
        return AnimatedThumbnail(
            data: try encoder.finish(), encoding: encoding, size: shrinker.outputSize, frameCount: frameCount,
            sourceProperties: animation.properties,
            peakWorkingByteCount: animation.workingByteCount + 2 * animation.size.byteCount(in: .rgba8)
                + 2 * shrinker.outputSize.byteCount(in: .rgba8))
    }

    /// A still thumbnail of frame `index` (from 0) of an animation, the frames before it decoded on
    /// the way one at a time. Frame 0 of a still image is the image.
    /// - Throws: ``ImageDecodingError``; ``ImageDecodingError/noSuchFrame(index:count:)`` past the last frame.
    public func thumbnail(_ source: ImageSource, options: ThumbnailOptions, frameIndex: Int) throws(ImageDecodingError) -> Thumbnail {
        let animation = try AnimatedImage(source, options: decodeOptions(options))
        try checkWork(animation, frames: min(frameIndex + 1, animation.frameCount), options: options)
        let frame = try animation.frame(at: frameIndex)
        let pixels = FrameShrinker(animation.properties, options: options).shrink(frame.pixels)
        return Thumbnail(
            pixels: pixels, sourceProperties: animation.properties, decodeScale: 1, usedEmbeddedThumbnail: false,
            peakWorkingByteCount: animation.workingByteCount + pixels.byteCount, isTruncated: false, iccProfile: nil)
    }

    /// An animation's frames, each shrunk (and turned and cropped) as ``thumbnail(_:options:)``
    /// shrinks a still, decoded in order as ``ThumbnailFrameReader/next()`` asks.
    /// - Throws: ``ImageDecodingError``; ``ImageDecodingError/tooLarge(pixels:limit:)`` as for
    ///   ``animatedThumbnail(_:options:encoding:)``.
    public func thumbnailFrames(_ source: ImageSource, options: ThumbnailOptions) throws(ImageDecodingError) -> ThumbnailFrameReader {
        let animation = try AnimatedImage(source, options: decodeOptions(options))
        try checkWork(animation, frames: animation.frameCount, options: options)
        return ThumbnailFrameReader(animation, reader: try animation.makeFrameReader(), options: options)
    }

    /// Throws ``ImageDecodingError/tooLarge(pixels:limit:)`` when composing `frames` frames would
    /// be over ``ThumbnailOptions/maximumAnimationPixelCount``.
    private func checkWork(_ animation: AnimatedImage, frames: Int, options: ThumbnailOptions) throws(ImageDecodingError) {
        let (pixels, overflow) = animation.size.area.multipliedReportingOverflow(by: frames)
        guard !overflow, pixels <= options.maximumAnimationPixelCount else {
            throw .tooLarge(pixels: overflow ? .max : pixels, limit: options.maximumAnimationPixelCount)
        }
    }

    private func decodeOptions(_ options: ThumbnailOptions) -> DecodeOptions {
        DecodeOptions(
            maximumPixelCount: options.maximumPixelCount, allowsTruncatedData: options.allowsTruncatedData,
            colorManagement: .convertToSRGB)
    }
}

/// An animation's frames at a thumbnail's size, decoded in order, one per ``next()``
/// (``Thumbnailer/thumbnailFrames(_:options:)``). Not for sharing between tasks.
public final class ThumbnailFrameReader {
    /// The animation the frames are read from.
    public let animation: AnimatedImage
    private let reader: AnimationFrameReader
    private let shrinker: FrameShrinker

    init(_ animation: AnimatedImage, reader: AnimationFrameReader, options: ThumbnailOptions) {
        self.animation = animation
        self.reader = reader
        shrinker = FrameShrinker(animation.properties, options: options)
    }

    /// Every frame's size, in pixels.
    public var size: PixelSize { shrinker.outputSize }

    /// The next frame, shrunk, or nil after the last.
    public func next() throws(ImageDecodingError) -> AnimationFrame? {
        guard var frame = try reader.next() else { return nil }
        frame.pixels = shrinker.shrink(frame.pixels)
        return frame
    }
}

/// Brings a composed frame to the thumbnail's size: box filter, then Lanczos-3, upright, cropped.
private struct FrameShrinker {
    let orientation: Orientation
    let storedTarget: PixelSize
    let crop: PixelSize?

    init(_ properties: ImageProperties, options: ThumbnailOptions) {
        orientation = options.createThumbnailWithTransform ? properties.orientation : .up
        let target = options.targetSize(for: orientation.displaySize(ofStored: properties.size))
        storedTarget = orientation.swapsDimensions ? target.transposed : target
        if case .box(let box, .centerCrop) = options.sizing { crop = box } else { crop = nil }
    }

    var outputSize: PixelSize {
        let upright = orientation.swapsDimensions ? storedTarget.transposed : storedTarget
        guard let crop else { return upright }
        return PixelSize(width: min(crop.width, upright.width), height: min(crop.height, upright.height))
    }

    func shrink(_ frame: PixelBuffer) -> PixelBuffer {
        // The box filter takes every whole factor (to within 1–2× of the target, not the 2–4× a
        // still gets): a frame is small and about to be encoded lossily, and the Lanczos pass over
        // a frame 4× the target cost three times the rest of the frame's work.
        var pixels = frame
        var box = BoxShrinker(
            inputSize: frame.size, format: frame.format, factorX: max(1, frame.width / storedTarget.width),
            factorY: max(1, frame.height / storedTarget.height))
        if box.reduces {
            for y in 0..<frame.height { frame.withRow(y) { box.append(row: $0) } }
            pixels = box.result()
        }
        if pixels.size != storedTarget { pixels = LanczosResampler.resize(pixels, to: storedTarget) }
        if orientation != .up { pixels = orientation.apply(to: pixels) }
        if let crop { pixels = pixels.centerCropped(to: crop) }
        return pixels
    }
}
