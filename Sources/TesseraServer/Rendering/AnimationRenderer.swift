import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF

/// Renders an animated source (GIF, WebP, APNG, JPEG XL) asked for as WebP as an animated WebP:
/// every frame cut, scaled, turned and converted as the request asks, with the source's durations
/// and loop count.
struct AnimationRenderer: Sendable {
    /// The most canvas pixels an animated answer composes, all frames counted (as
    /// ``ThumbnailOptions/maximumAnimationPixelCount``); a longer animation is answered with its
    /// first frame.
    static let maximumAnimationPixelCount = 1 << 30

    let configuration: ServerConfiguration
    let decodeOptions: DecodeOptions
    let executor: WorkExecutor

    /// Whether the answer to `request` is an animation: an animated source asked for as WebP,
    /// within ``maximumAnimationPixelCount``.
    static func answers(_ request: ResolvedIIIFRequest, properties: ImageProperties) -> Bool {
        guard properties.animation != nil, request.format == .webp else { return false }
        let (pixels, overflow) = properties.size.area.multipliedReportingOverflow(by: properties.frameCount)
        return !overflow && pixels <= maximumAnimationPixelCount
    }

    /// The animated WebP `request` asks for of `source`. Frames are composed one at a time: memory
    /// is a few canvases (``AnimatedImage/workingByteCount``) and the encoder's output.
    func render(_ request: ResolvedIIIFRequest, of source: ResolvedSource, properties: ImageProperties) async throws -> ByteBuffer {
        let quality = max(configuration.jpegQuality, 80), options = decodeOptions
        return try await executor.run { context in
            let animation = try AnimatedImage(source.input, options: options)
            let reader = try animation.makeFrameReader()
            var encoder: AnimationEncoder?
            while let frame = try reader.next() {
                try context.checkCancellation()
                let upright = properties.orientation.apply(to: frame.pixels)
                let finished = RegionRenderer.finish(upright.cropped(to: request.region) ?? upright, request: request)
                let frames =
                    try encoder
                    ?? AnimationEncoder(
                        size: finished.size, format: .webp(quality: quality), loopCount: animation.properties.animation?.loopCount ?? 0)
                try frames.add(finished, duration: frame.duration)
                encoder = frames
            }
            guard let encoder else { throw ServerError(.internal, "an animation without frames") }
            return ByteBuffer(bytes: try encoder.finish())
        }
    }
}
