import FoundationEssentials
import FuzzSupport
import TesseraCore
import TesseraPipeline
import TesseraTiles
import TesseraViewing

// What `tessera render URL` does with a pyramid descriptor from a server: the bytes are read once
// as a Deep Zoom `.dzi` and once as an IIIF `info.json` (the URL's name picks the reader), and a
// descriptor that is accepted is then viewed as the renderer views it: fitted, then at full
// resolution in its centre, each time listing the tiles to load with their paths and drawing the
// placeholder frame. No tile is loaded.

/// Hands the fuzz input over as the descriptor's body, as a server would.
struct DescriptorLoader: DataLoading {
    let body: Data

    func loadData(for url: URL, validators: HTTPValidators?) async throws -> FetchedData {
        FetchedData(outcome: .data(body))
    }
}

// Never asked for a tile here; no disk cache, so nothing is written.
let pipeline = ImagePipeline(configuration: ImagePipeline.Configuration(dataCache: nil))
let descriptorURLs = ["fuzz.dzi", "info.json"].map { URL(string: "http://127.0.0.1/pyramid/\($0)")! }

fuzzMain { data in
    let loader = DescriptorLoader(body: data)
    for url in descriptorURLs {
        guard let source = blockingAwait({ try? await RemotePyramidSource(url: url, pipeline: pipeline, loader: loader) }) else {
            continue
        }
        var view = Viewport(size: PointSize(width: 64, height: 48), zoom: 1, center: PixelPoint(x: 0, y: 0))
        view.fit(source.imageSize)
        var fullResolution = view
        fullResolution.zoom(to: 1)
        for viewport in [view, fullResolution] {
            blockingAwait {
                let engine = TiledViewEngine(source: source, viewport: viewport)
                for (tile, _) in await engine.neededTiles {
                    _ = source.layout.tilePath(
                        reduction: tile.reduction, column: tile.column, row: tile.row, fileExtension: source.fileExtension)
                }
                _ = await engine.render()
                await engine.finish()
            }
        }
    }
    return .tried
}
