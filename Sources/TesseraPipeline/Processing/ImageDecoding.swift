import FoundationEssentials
public import TesseraCodecs
public import TesseraCore

/// Turns encoded bytes into the image a request asked for.
public protocol ImageDecoding: Sendable {
    func decode(_ source: ImageSource, for request: ImageRequest) throws -> PixelBuffer
}

/// The default ``ImageDecoding``: Tessera's thumbnailer, so the image is shrunk while decoding to
/// the request's size and turned upright.
public struct ThumbnailDecoder: ImageDecoding {
    public init() {}

    public func decode(_ source: ImageSource, for request: ImageRequest) throws -> PixelBuffer {
        let sizing: ThumbnailOptions.Sizing = switch request.target {
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
