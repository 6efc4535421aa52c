import FoundationEssentials
public import TesseraCodecs
public import TesseraCore

/// Turns encoded bytes into the image a request asked for.
public protocol ImageDecoding: Sendable {
    /// The image `request` asks for, from `source`'s bytes: at the request's target size, before its
    /// processors. Runs on the pipeline's executor; what it throws fails the request as it is.
    func decode(_ source: ImageSource, for request: ImageRequest) throws -> PixelBuffer
}

/// The default ``ImageDecoding``: Tessera's thumbnailer, so the image is shrunk while decoding to
/// the request's size and turned upright.
public struct ThumbnailDecoder: ImageDecoding {
    /// The default decoder; it holds no state.
    public init() {}

    /// A thumbnail of `source` for `request`'s target (full size for ``ImageRequest/Target/original``,
    /// the box and content mode for ``ImageRequest/Target/size(_:scale:)``), upright, in sRGB.
    /// - Throws: ``ImagePipelineError/decodingFailed(_:)`` with the decoder's error.
    public func decode(_ source: ImageSource, for request: ImageRequest) throws -> PixelBuffer {
        let sizing: ThumbnailOptions.Sizing =
            switch request.target {
            case .original: .fit(maxPixelSize: nil)
            case .maxPixelSize(let pixels): .fit(maxPixelSize: pixels)
            case .size(let points, let scale): .box(points.pixels(at: scale), mode: request.contentMode)
            }
        do {
            return try Thumbnailer().thumbnail(source, options: ThumbnailOptions(sizing: sizing)).pixels
        } catch {
            throw ImagePipelineError.decodingFailed(error)
        }
    }
}
