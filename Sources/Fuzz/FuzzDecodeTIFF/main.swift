import FuzzSupport
import TesseraCodecs
import TesseraCore

// Decode, thumbnail and streamed rows of TIFF files (FuzzSupport's ImageHarness), and the reader
// `tessera serve` uses for tiled multi-resolution TIFFs: every level's directory is parsed when it
// opens, and the first and last tiles of the smallest level are read.
let scratch = ScratchDirectory()

fuzzMain { data in
    ImageHarness.run(data, formats: [.tiff]) { data in
        let path = scratch.write(data, to: "input.tif")
        let options = DecodeOptions(maximumPixelCount: ImageHarness.maximumPixelCount)
        guard let pyramid = try? TIFFPyramid(path: path, options: options), let last = pyramid.levelSizes.indices.last,
            pyramid.tileSize.width > 0, pyramid.tileSize.height > 0
        else { return }
        let size = pyramid.levelSizes[last]
        let columns = (size.width + pyramid.tileSize.width - 1) / pyramid.tileSize.width
        let rows = (size.height + pyramid.tileSize.height - 1) / pyramid.tileSize.height
        _ = try? pyramid.tile(level: last, column: 0, row: 0)
        _ = try? pyramid.tile(level: last, column: columns - 1, row: rows - 1)
    }
}
