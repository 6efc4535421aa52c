import FoundationEssentials
public import TesseraCore

/// Composites a viewport from pyramid tiles into a bitmap of the viewport's pixel size, headlessly.
///
/// Every output pixel is sampled (bilinear, with 2×2 supersampling when level pixels are smaller
/// than screen pixels) from whichever tile's core holds each source pixel, so tile borders leave
/// no seams. Where a tile of the chosen level is missing, the best coarser level in hand is drawn
/// instead, scaled up: once any ancestor is loaded the view is never blank.
public struct TileRenderer: Sendable {
    /// Painted outside the image and under transparent pixels.
    public var background: (red: UInt8, green: UInt8, blue: UInt8)

    /// A renderer painting `background` (black by default) where no image is.
    public init(background: (red: UInt8, green: UInt8, blue: UInt8) = (0, 0, 0)) {
        self.background = background
    }

    /// Tiles drawn, and for each the level it came from.
    public struct Result: Sendable {
        /// The viewport, RGB, of its ``Viewport/bitmapSize``.
        public var pixels: PixelBuffer
        /// Output pixels drawn from a coarser level than `reduction` (placeholders).
        public var placeholderPixelCount: Int
    }

    /// Draws `viewport` from the tiles of level `reduction` of a pyramid laid out by `layout`.
    /// `tile` returns a tile's pixels if they are at hand (nil otherwise); it is called on this
    /// thread, at most once per tile, coarser levels included.
    public func render(
        _ viewport: Viewport, layout: any TileLayout, reduction: Int, tile: (TileID) -> PixelBuffer?
    ) -> Result {
        let size = viewport.bitmapSize
        var output = PixelBuffer(width: size.width, height: size.height, format: .rgb8)
        var levels: [Int: LevelGrid] = [:]
        func grid(_ level: Int) -> LevelGrid {
            if let grid = levels[level] { return grid }
            let grid = LevelGrid(layout: layout, reduction: level)
            levels[level] = grid
            return grid
        }
        var tiles: [TileID: PixelBuffer?] = [:]
        func rgbaTile(_ id: TileID) -> PixelBuffer? {
            if let cached = tiles[id] { return cached }
            let converted = tile(id).map { $0.format == .rgba8 ? $0 : $0.converted(to: .rgba8) }
            tiles[id] = converted
            return converted
        }
        let density = viewport.screenPixelsPerImagePixel
        let image = layout.imageSize
        let bg = (Float(background.red), Float(background.green), Float(background.blue))
        var placeholders = 0
        let originX = viewport.center.x - Double(size.width) / 2 / density
        let originY = viewport.center.y - Double(size.height) / 2 / density
        output.bytes.withUnsafeMutableBufferPointer { out in
            for py in 0..<size.height {
                for px in 0..<size.width {
                    let fx = originX + (Double(px) + 0.5) / density
                    let fy = originY + (Double(py) + 0.5) / density
                    let o = (py * size.width + px) * 3
                    guard fx >= 0, fy >= 0, fx < Double(image.width), fy < Double(image.height) else {
                        (out[o], out[o + 1], out[o + 2]) = (background.red, background.green, background.blue)
                        continue
                    }
                    var color: SIMD4<Float>?
                    var level = reduction
                    while level < layout.levelCount {
                        color = sample(grid(level), fx, fy, density: density, tile: rgbaTile)
                        if color != nil { break }
                        level += 1
                    }
                    if level != reduction { placeholders += 1 }
                    guard let color else {
                        (out[o], out[o + 1], out[o + 2]) = (background.red, background.green, background.blue)
                        continue
                    }
                    let alpha = color.w / 255
                    out[o] = UInt8(min(max(color.x * alpha + bg.0 * (1 - alpha) + 0.5, 0), 255))
                    out[o + 1] = UInt8(min(max(color.y * alpha + bg.1 * (1 - alpha) + 0.5, 0), 255))
                    out[o + 2] = UInt8(min(max(color.z * alpha + bg.2 * (1 - alpha) + 0.5, 0), 255))
                }
            }
        }
        return Result(pixels: output, placeholderPixelCount: placeholders)
    }

    /// The colour at full-resolution point (`fx`, `fy`) from one level, or nil if a tile it needs
    /// is missing.
    private func sample(
        _ grid: LevelGrid, _ fx: Double, _ fy: Double, density: Double, tile: (TileID) -> PixelBuffer?
    ) -> SIMD4<Float>? {
        let factor = Double(1 << grid.reduction)
        // Level pixels per screen pixel: supersample when several level pixels fall in one.
        let steps = density * factor < 1 ? 2 : 1
        let footprint = 1 / density
        var total = SIMD4<Float>(repeating: 0)
        for sy in 0..<steps {
            for sx in 0..<steps {
                let offsetX = steps == 1 ? 0 : (Double(sx) + 0.5) / Double(steps) - 0.5
                let offsetY = steps == 1 ? 0 : (Double(sy) + 0.5) / Double(steps) - 0.5
                let lx = (fx + offsetX * footprint) / factor - 0.5
                let ly = (fy + offsetY * footprint) / factor - 0.5
                guard let value = bilinear(grid, lx, ly, tile: tile) else { return nil }
                total += value
            }
        }
        return total / Float(steps * steps)
    }

    private func bilinear(_ grid: LevelGrid, _ lx: Double, _ ly: Double, tile: (TileID) -> PixelBuffer?) -> SIMD4<Float>? {
        let x0 = Int(lx.rounded(.down)), y0 = Int(ly.rounded(.down))
        let tx = Float(lx - Double(x0)), ty = Float(ly - Double(y0))
        guard let a = grid.pixel(x0, y0, tile: tile), let b = grid.pixel(x0 + 1, y0, tile: tile),
            let c = grid.pixel(x0, y0 + 1, tile: tile), let d = grid.pixel(x0 + 1, y0 + 1, tile: tile)
        else { return nil }
        // Premultiplied, so transparent neighbours do not darken edges.
        func premultiplied(_ p: SIMD4<Float>) -> SIMD4<Float> { SIMD4(p.x * p.w / 255, p.y * p.w / 255, p.z * p.w / 255, p.w) }
        let top = premultiplied(a) * (1 - tx) + premultiplied(b) * tx
        let bottom = premultiplied(c) * (1 - tx) + premultiplied(d) * tx
        let mixed = top * (1 - ty) + bottom * ty
        guard mixed.w > 0 else { return SIMD4(0, 0, 0, 0) }
        return SIMD4(mixed.x * 255 / mixed.w, mixed.y * 255 / mixed.w, mixed.z * 255 / mixed.w, mixed.w)
    }
}

/// One level's tile geometry, precomputed so a pixel finds its tile by two array lookups.
struct LevelGrid {
    let reduction: Int
    let size: PixelSize
    private let columnOfX: [Int]
    private let rowOfY: [Int]
    private let columnSpans: [Range<Int>]
    private let rowSpans: [Range<Int>]

    init(layout: any TileLayout, reduction: Int) {
        self.reduction = reduction
        size = layout.levelSize(reduction: reduction)
        columnSpans = layout.columnSpans(reduction: reduction)
        rowSpans = layout.rowSpans(reduction: reduction)
        func owners(_ cores: [Range<Int>], _ length: Int) -> [Int] {
            var owners = [Int](repeating: 0, count: length)
            for (index, core) in cores.enumerated() { for position in core where position < length { owners[position] = index } }
            return owners
        }
        columnOfX = owners(layout.cores(columnSpans), size.width)
        rowOfY = owners(layout.cores(rowSpans), size.height)
    }

    /// The RGBA pixel at level coordinates, clamped to the level's edges; nil if its tile is missing.
    func pixel(_ x: Int, _ y: Int, tile: (TileID) -> PixelBuffer?) -> SIMD4<Float>? {
        let x = min(max(x, 0), size.width - 1), y = min(max(y, 0), size.height - 1)
        let column = columnOfX[x], row = rowOfY[y]
        guard let pixels = tile(TileID(reduction: reduction, column: column, row: row)) else { return nil }
        let localX = x - columnSpans[column].lowerBound, localY = y - rowSpans[row].lowerBound
        guard localX < pixels.width, localY < pixels.height else { return nil }
        let index = localY * pixels.bytesPerRow + localX * 4
        return pixels.bytes.withUnsafeBufferPointer {
            SIMD4(Float($0[index]), Float($0[index + 1]), Float($0[index + 2]), Float($0[index + 3]))
        }
    }
}
