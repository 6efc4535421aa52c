import TesseraCodecs
import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One map tile's reprojection: where each of its pixels' centres lies in the source. Only a
/// coarse grid (a point every ``cell`` pixels, edges included) is transformed exactly, by PROJ;
/// the pixels between are interpolated, which stays within a few hundredths of a source pixel at
/// every zoom a tile shows. The grid of one tile reaches the next tile's first pixel row and
/// column, so adjacent tiles interpolate the same line and agree at their edges.
struct MapWarp {
    /// Pixels between grid points.
    static let cell = 16
    let side: Int
    /// Grid points per side.
    let points: Int
    /// The grid's coordinates, row-major: Web Mercator metres, then the source's system, then
    /// full-resolution source pixels (``toPixels(_:)``).
    var xs: [Double], ys: [Double]

    /// The grid of `tile`, `side` pixels square (a multiple of ``cell``), in Web Mercator metres.
    init(tile: WebMercatorTile, side: Int) {
        self.side = side
        points = side / Self.cell + 1
        let metresPerPixel = WebMercatorTile.side(zoom: tile.zoom) / Double(side)
        let offsets = (0..<points).map { (Double($0 * Self.cell) + 0.5) * metresPerPixel }
        xs = offsets.flatMap { _ in offsets.map { tile.west + $0 } }
        ys = offsets.flatMap { offset in Array(repeating: tile.north - offset, count: offsets.count) }
    }

    /// The grid from the source's system to its full-resolution pixel positions.
    mutating func toPixels(_ transform: GeoTransform) {
        for index in xs.indices {
            let (column, row) = transform.pixel(x: xs[index], y: ys[index])
            (xs[index], ys[index]) = (column, row)
        }
    }

    /// Full-resolution source pixels per tile pixel near the tile's centre, across and down; nil
    /// where the centre has no position (outside the source system's domain).
    private var sourcePixelsPerPixel: (across: Double, down: Double)? {
        let middle = points / 2, here = middle * points + middle, right = here + 1, below = here + points
        let across = hypot(xs[right] - xs[here], ys[right] - ys[here]) / Double(Self.cell)
        let down = hypot(xs[below] - xs[here], ys[below] - ys[here]) / Double(Self.cell)
        return across.isFinite && down.isFinite && across > 0 && down > 0 ? (across, down) : nil
    }

    /// The tile's pixels, RGBA, read from the reduction of `levels` whose pixels are no coarser
    /// than the tile's; transparent where the source has no pixel, or `noData` in every channel.
    func render(_ levels: RegionLevels, resampling: MapResampling, noData: Double?, context: WorkContext) throws -> PixelBuffer {
        var output = PixelBuffer(width: side, height: side, format: .rgba8)
        guard let scale = sourcePixelsPerPixel else { return output }
        // A hair of slack: a level exactly 2× coarser (a GoogleMapsCompatible overview one zoom out)
        // is that level, not the finer one by rounding.
        let reduction = max(0, min(30, Int((log2(min(scale.across, scale.down)) + 1e-6).rounded(.down))))
        let full = levels.properties.size, level = levels.levelSize(reduction: reduction)
        let (kx, ky) = (Double(level.width) / Double(full.width), Double(level.height) / Double(full.height))
        let finite = zip(xs, ys).filter { $0.0.isFinite && $0.1.isFinite }
        guard let minX = finite.map(\.0).min(), let maxX = finite.map(\.0).max(), let minY = finite.map(\.1).min(),
            let maxY = finite.map(\.1).max()
        else { return output }
        // Every level pixel a sample may touch (bilinear's neighbours included), within the level.
        let x0 = max(0, Int((minX * kx).rounded(.down)) - 2), y0 = max(0, Int((minY * ky).rounded(.down)) - 2)
        let x1 = min(level.width, Int((maxX * kx).rounded(.up)) + 2), y1 = min(level.height, Int((maxY * ky).rounded(.up)) + 2)
        guard x1 > x0, y1 > y0 else { return output }
        let block = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let pixels = try levels.pixels(of: block, reduction: reduction, context: context)
        let sampler = MapSampler(
            pixels: pixels, origin: (x0, y0), levelSize: level, resampling: resampling, support: (scale.across * kx, scale.down * ky),
            noData: noData)
        output.bytes.withUnsafeMutableBufferPointer { target in
            for row in 0..<side {
                let (gy, fy) = (row / Self.cell, Double(row % Self.cell) / Double(Self.cell))
                for column in 0..<side {
                    let (gx, fx) = (column / Self.cell, Double(column % Self.cell) / Double(Self.cell))
                    let corner = gy * points + gx
                    let (c00, c01, c10, c11) = (corner, corner + 1, corner + points, corner + points + 1)
                    let top = (xs[c00] + (xs[c01] - xs[c00]) * fx, ys[c00] + (ys[c01] - ys[c00]) * fx)
                    let bottom = (xs[c10] + (xs[c11] - xs[c10]) * fx, ys[c10] + (ys[c11] - ys[c10]) * fx)
                    let x = (top.0 + (bottom.0 - top.0) * fy) * kx, y = (top.1 + (bottom.1 - top.1) * fy) * ky
                    sampler.sample(x: x, y: y, into: target.baseAddress! + (row * side + column) * 4)
                }
            }
        }
        return output
    }
}

/// Reads RGBA from a block of a source level at level-pixel positions (pixel corners at integers).
private struct MapSampler {
    let pixels: PixelBuffer
    let origin: (x: Int, y: Int)
    let levelSize: PixelSize
    let resampling: MapResampling
    /// Level pixels one tile pixel spans on each axis, at least 1: the bilinear kernel's reach.
    let support: (x: Double, y: Double)
    /// The no-data value as a sample, when it is one an 8-bit sample can hold.
    let noData: UInt8?
    let channels: Int

    init(
        pixels: PixelBuffer, origin: (Int, Int), levelSize: PixelSize, resampling: MapResampling, support: (x: Double, y: Double),
        noData: Double?
    ) {
        (self.pixels, self.origin, self.levelSize, self.resampling) = (pixels, origin, levelSize, resampling)
        self.support = (max(1, support.x), max(1, support.y))
        self.noData = noData.flatMap { $0 >= 0 && $0 <= 255 && $0 == $0.rounded() ? UInt8($0) : nil }
        channels = pixels.format.bytesPerPixel
    }

    /// Writes the RGBA at (`x`, `y`) to `target`, transparent black outside the level.
    func sample(x: Double, y: Double, into target: UnsafeMutablePointer<UInt8>) {
        guard x.isFinite, y.isFinite, x >= 0, y >= 0, x < Double(levelSize.width), y < Double(levelSize.height) else {
            target.update(repeating: 0, count: 4)
            return
        }
        switch resampling {
        case .nearest:
            // The bytes as they are: no arithmetic on a sample that is only copied.
            let column = min(max(Int(x) - origin.x, 0), pixels.width - 1), row = min(max(Int(y) - origin.y, 0), pixels.height - 1)
            pixels.bytes.withUnsafeBufferPointer { bytes in
                let pixel = bytes.baseAddress! + row * pixels.bytesPerRow + column * channels
                let (r, g, b) = pixels.format.isGray ? (pixel[0], pixel[0], pixel[0]) : (pixel[0], pixel[1], pixel[2])
                var alpha = pixels.format.alphaChannelIndex.map { pixel[$0] } ?? 255
                if let noData, r == noData, g == noData, b == noData { alpha = 0 }
                (target[0], target[1], target[2], target[3]) = alpha == 0 ? (0, 0, 0, 0) : (r, g, b, alpha)
            }
        case .bilinear:
            // GDAL's bilinear: a triangle over ±1 source pixel, widened to ±support when a tile
            // pixel spans more than one (so a shrunk tile averages, rather than skips, what it spans).
            let (fx, fy) = (x - 0.5, y - 0.5)
            let (left, top) = (Int(fx.rounded(.down)), Int(fy.rounded(.down)))
            let (reachX, reachY) = (Int(support.x.rounded(.up)), Int(support.y.rounded(.up)))
            // Weighted by alpha too, so a pixel without data lends its neighbour no colour.
            var colour = SIMD4<Double>(), coverage = 0.0, total = 0.0
            for row in (top - reachY + 1)...(top + reachY) {
                let wy = max(0, 1 - abs(Double(row) - fy) / support.y)
                guard wy > 0 else { continue }
                for column in (left - reachX + 1)...(left + reachX) {
                    let weight = wy * max(0, 1 - abs(Double(column) - fx) / support.x)
                    guard weight > 0 else { continue }
                    let pixel = rgba(clamp(column, levelSize.width) - origin.x, clamp(row, levelSize.height) - origin.y)
                    colour += pixel * (weight * pixel[3])
                    coverage += weight * pixel[3]
                    total += weight
                }
            }
            guard coverage > 0 else { return write(SIMD4(), into: target) }
            colour /= coverage
            colour[3] = coverage / total
            write(colour, into: target)
        }
    }

    private func clamp(_ value: Int, _ limit: Int) -> Int { min(max(value, 0), limit - 1) }

    /// The RGBA of block pixel (`x`, `y`) (clamped into the block), alpha 0 for no data.
    private func rgba(_ x: Int, _ y: Int) -> SIMD4<Double> {
        let x = min(max(x, 0), pixels.width - 1), y = min(max(y, 0), pixels.height - 1)
        let offset = y * pixels.bytesPerRow + x * channels
        let bytes = pixels.bytes
        let (r, g, b): (UInt8, UInt8, UInt8) =
            pixels.format.isGray ? (bytes[offset], bytes[offset], bytes[offset]) : (bytes[offset], bytes[offset + 1], bytes[offset + 2])
        var alpha: UInt8 = pixels.format.alphaChannelIndex.map { bytes[offset + $0] } ?? 255
        if let noData, r == noData, g == noData, b == noData { alpha = 0 }
        return SIMD4(Double(r), Double(g), Double(b), Double(alpha))
    }

    private func write(_ rgba: SIMD4<Double>, into target: UnsafeMutablePointer<UInt8>) {
        for channel in 0..<4 { target[channel] = UInt8(min(255, max(0, rgba[channel].rounded()))) }
    }
}
