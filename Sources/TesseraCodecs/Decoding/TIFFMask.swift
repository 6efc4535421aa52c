import CTesseraTIFF
import TesseraCore

/// A level's transparency mask, as GDAL writes one into a GeoTIFF or COG (an image of NewSubfileType
/// 4, or 5 for an overview's; photometric 4; 1 or 8 bits): tiled as its level, each of its pixels
/// saying whether the level's pixel has data. It is what makes a warped map's corners transparent,
/// and what keeps a stored tile with holes from being passed through as if it had none.
final class TIFFMask {
    private let file: TIFFFile
    private let tileSize: PixelSize
    private let rowBytes: Int
    private var buffer: [UInt8]

    /// The mask in directory `directory` of the TIFF at `path`, for a level of `size` in tiles of
    /// `tileSize`; nil when that directory is no such mask (another size or tiling, more than one
    /// sample, a depth other than 1 or 8 bits).
    init?(path: String, fileByteCount: Int, directory: Int, size: PixelSize, tileSize: PixelSize, limits: AllocationLimits) throws(ImageDecodingError)
    {
        // No layout check: libtiff's RGBA converter, which it asks, knows no mask; each tile's
        // read is bounded by the buffer below instead.
        let file = try TIFFFile(.file(path), fileByteCount: fileByteCount, limits: limits, image: .directory(directory), layoutCheck: .none)
        let bits = file.samples.bitsPerSample
        guard file.isTiled, file.size == size, file.pieceSize == tileSize, file.samples.samplesPerPixel == 1, bits == 1 || bits == 8 else {
            return nil
        }
        self.file = file
        self.tileSize = tileSize
        rowBytes = bits == 1 ? (tileSize.width + 7) / 8 : tileSize.width
        buffer = [UInt8](repeating: 0, count: rowBytes * tileSize.height)
    }

    /// Whether every pixel of tile (`column`, `row`) has data, within `width` × `height` (the
    /// tile's part inside the level).
    func isOpaque(column: Int, row: Int, width: Int, height: Int) throws(ImageDecodingError) -> Bool {
        try read(column: column, row: row)
        for y in 0..<height {
            for x in 0..<width where !opaque(x, y) { return false }
        }
        return true
    }

    /// Sets the alpha of `pixels` (tile (`column`, `row`), cropped to the level, in a format with
    /// alpha) from the mask: 255 where there is data, 0 where there is none.
    func apply(to pixels: inout PixelBuffer, column: Int, row: Int) throws(ImageDecodingError) {
        guard let alpha = pixels.format.alphaChannelIndex else { return }
        try read(column: column, row: row)
        let (channels, width, height) = (pixels.format.bytesPerPixel, pixels.width, pixels.height)
        pixels.bytes.withUnsafeMutableBufferPointer { output in
            for y in 0..<height {
                for x in 0..<width { output[(y * width + x) * channels + alpha] = opaque(x, y) ? 255 : 0 }
            }
        }
    }

    private func opaque(_ x: Int, _ y: Int) -> Bool {
        file.samples.bitsPerSample == 1 ? buffer[y * rowBytes + x / 8] & (0x80 >> (x % 8)) != 0 : buffer[y * rowBytes + x] != 0
    }

    /// Tile (`column`, `row`) of the mask into ``buffer``; a missing one (length 0) is all data.
    private func read(column: Int, row: Int) throws(ImageDecodingError) {
        let library = file.library
        let index = library.TIFFComputeTile(file.tiff, UInt32(column * tileSize.width), UInt32(row * tileSize.height), 0, 0)
        guard library.TIFFGetStrileByteCount(file.tiff, index) > 0 else {
            buffer.withUnsafeMutableBufferPointer { $0.update(repeating: 0xFF) }
            return
        }
        let read = buffer.withUnsafeMutableBytes { Int(library.TIFFReadEncodedTile(file.tiff, index, $0.baseAddress, tmsize_t($0.count))) }
        guard read >= 0 else { throw file.failure() }
        guard read == buffer.count else { throw .corrupt(reason: "a TIFF mask tile decoded to \(read) bytes of \(buffer.count)") }
    }
}
