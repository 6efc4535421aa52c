public import FoundationEssentials
import TesseraCodecs
public import TesseraCore
public import TesseraPipeline
public import TesseraViewing

/// A pyramid served over HTTP(S), from the URL of its `.dzi` or IIIF `info.json`. Tiles load
/// through an `ImagePipeline`, so they are cached in memory and on disk like any image and
/// identical requests share one download.
public struct RemotePyramidSource: TiledImageSource {
    public let layout: any TileLayout
    /// The URL tile paths are resolved against.
    public let baseURL: URL
    /// The tiles' file extension, from the descriptor.
    public let fileExtension: String
    /// The pipeline tiles load through.
    public let pipeline: ImagePipeline

    /// Fetches and reads the descriptor at `url`.
    public init(url: URL, pipeline: ImagePipeline, loader: any DataLoading = HTTPDataLoader()) async throws {
        guard case .data(let data) = try await loader.loadData(for: url, validators: nil).outcome else {
            throw TiledSourceError.notAPyramid(url.absoluteString)
        }
        self.pipeline = pipeline
        (layout, baseURL, fileExtension) = try PyramidDescriptor.parse(data, at: url)
    }

    public func tile(reduction: Int, column: Int, row: Int) async throws -> PixelBuffer {
        let path = layout.tilePath(reduction: reduction, column: column, row: row, fileExtension: fileExtension)
        guard let url = URL(string: path, relativeTo: baseURL)?.absoluteURL else {
            throw TiledSourceError.notAPyramid(path)
        }
        return try await pipeline.image(for: ImageRequest(url: url)).pixels
    }
}
