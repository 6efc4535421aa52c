import FoundationEssentials
public import TesseraCodecs
public import TesseraCore

/// An animated GIF, WebP, APNG or JPEG XL loaded through an ``ImagePipeline``: its bytes came through the
/// disk cache or the network like any image's, and its frames, at the request's size, are decoded
/// when asked for.
///
/// Frames are decoded in order by one reader (a frame is the canvas after every frame before it),
/// each shrunk as soon as it is composed, and every frame decoded on the way is kept in the
/// pipeline's memory cache under its own key with its own cost (`bytesPerRow × height` of the
/// shrunk frame), so playback reads them back and the cache's limits evict them one by one: a long
/// animation is never held whole. Decoding holds a few source canvases
/// (`AnimatedImage.workingByteCount`) while it runs. A still image is an animation of one frame.
public final class LoadedAnimation: Sendable {
    /// The source's header facts; `ImageProperties.animation` holds the timing (nil for a still).
    public let properties: ImageProperties
    /// Every frame's size, in pixels: the request's target, as ``ImageRequest/target`` and
    /// ``ImageRequest/contentMode`` make it.
    public let frameSize: PixelSize
    private let request: ImageRequest
    private let source: ImageSource
    private let options: ThumbnailOptions
    private let cache: (any ImageCaching)?
    private let executor: WorkExecutor
    private let reading: Locked<ReaderState>

    /// Touched only under ``reading``'s lock, by one decode at a time.
    private struct ReaderState: @unchecked Sendable {
        var reader: ThumbnailFrameReader?
        var nextIndex = 0
    }

    init(
        request: ImageRequest, source: ImageSource, options: ThumbnailOptions, first: ThumbnailFrameReader,
        cache: (any ImageCaching)?, executor: WorkExecutor
    ) {
        self.request = request
        self.source = source
        self.options = options
        self.cache = cache
        self.executor = executor
        properties = first.animation.properties
        frameSize = first.size
        reading = Locked(ReaderState(reader: first))
    }

    /// Frames in one play; 1 for a still image.
    public var frameCount: Int { properties.animation == nil ? 1 : properties.frameCount }

    /// Each frame's duration in seconds and the loop count; nil for a still.
    public var timing: AnimationTiming? { properties.animation }

    /// The memory cache's key for frame `index`.
    public func cacheKey(frame index: Int) -> String { request.imageKey + "|frame\(index)" }

    /// Frame `index` (from 0) at ``frameSize``: from the memory cache, or decoded (with the frames
    /// between the last one decoded and it) on the pipeline's executor. Going back to an earlier
    /// frame that has left the cache decodes again from the first.
    ///
    /// - Throws: ``ImagePipelineError/decodingFailed(_:)``; `CancellationError` when the task is
    ///   cancelled (between frames).
    public func frame(at index: Int) async throws -> PixelBuffer {
        guard (0..<frameCount).contains(index) else {
            throw ImagePipelineError.decodingFailed(ImageDecodingError.noSuchFrame(index: index, count: frameCount))
        }
        if let cached = cache?.image(for: cacheKey(frame: index)) { return cached }
        return try await executor.run(priority: request.priority) { context in
            try self.reading.withLock { state -> PixelBuffer in
                do {
                    if state.reader == nil || state.nextIndex > index {
                        state.reader = try Thumbnailer().thumbnailFrames(self.source, options: self.options)
                        state.nextIndex = 0
                    }
                    while let frame = try state.reader!.next() {
                        state.nextIndex = frame.index + 1
                        self.cache?.store(frame.pixels, for: self.cacheKey(frame: frame.index))
                        if frame.index == index { return frame.pixels }
                        try context.checkCancellation()
                    }
                    throw ImageDecodingError.noSuchFrame(index: index, count: state.nextIndex)
                } catch let error as ImageDecodingError {
                    state.reader = nil
                    throw ImagePipelineError.decodingFailed(error)
                }
            }
        }
    }
}

extension ImagePipeline {
    /// The animation `request` names, its bytes loaded through the disk cache and the network as
    /// ``image(for:)`` loads them (and shared with it), its header read; frames are decoded when
    /// ``LoadedAnimation/frame(at:)`` asks. ``ImageRequest/processors`` do not apply to frames.
    public func animation(for request: ImageRequest) async throws -> LoadedAnimation {
        let loaded = try await data(for: request).value
        let source: ImageSource =
            switch loaded.location {
            case .file(let url): .file(url.path)
            case .memory(let data): .data(data)
            }
        let sizing: ThumbnailOptions.Sizing =
            switch request.target {
            case .original: .fit(maxPixelSize: nil)
            case .maxPixelSize(let pixels): .fit(maxPixelSize: pixels)
            case .size(let points, let scale): .box(points.pixels(at: scale), mode: request.contentMode)
            }
        let options = ThumbnailOptions(sizing: sizing)
        let cache = configuration.imageCache
        let first = try await configuration.executor.run(priority: request.priority) { _ in
            let made = Result { () throws(ImageDecodingError) in try Thumbnailer().thumbnailFrames(source, options: options) }
            switch made {
            case .success(let reader): return UnsafeTransfer(reader)
            case .failure(let error): throw ImagePipelineError.decodingFailed(error)
            }
        }
        return LoadedAnimation(
            request: request, source: source, options: options, first: first.value, cache: cache, executor: configuration.executor)
    }
}

/// Hands a reader made on a worker thread to the task that asked for it; nothing else holds it.
private struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
