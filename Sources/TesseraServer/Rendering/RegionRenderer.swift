import FoundationEssentials
import TesseraCodecs
import TesseraCore

/// The pixel work behind an IIIF image request, in the order the spec applies it: region, size,
/// rotation (mirroring first), quality, format. Pure and synchronous; callers run it on the
/// server's ``WorkExecutor``.
enum RegionRenderer {
    /// The coarsest pyramid reduction (a power of two) whose level still has at least the pixels the
    /// output needs, so resampling only ever shrinks by less than 2× (or enlarges, for `^` sizes).
    static func reduction(region: PixelRect, scaledSize: PixelSize, levelCount: Int) -> Int {
        let scale = max(Double(scaledSize.width) / Double(region.width), Double(scaledSize.height) / Double(region.height))
        var reduction = 0
        while reduction + 1 < levelCount, scale * Double(1 << (reduction + 1)) <= 1 { reduction += 1 }
        return reduction
    }

    /// The rectangle of a level image of `levelSize` that covers `region` of a `fullSize` image,
    /// rounded outwards so no covered pixel is lost.
    static func levelRect(of region: PixelRect, fullSize: PixelSize, levelSize: PixelSize) -> PixelRect {
        func span(_ start: Int, _ length: Int, _ full: Int, _ level: Int) -> (Int, Int) {
            let lower = start * level / full
            let upper = min(level, ((start + length) * level + full - 1) / full)
            return (lower, max(upper - lower, 1))
        }
        let (x, width) = span(region.x, region.width, fullSize.width, levelSize.width)
        let (y, height) = span(region.y, region.height, fullSize.height, levelSize.height)
        return PixelRect(x: x, y: y, width: width, height: height)
    }

    /// The rectangle of pyramid reduction `reduction` that covers `region`: level pixel `i` covers
    /// full-resolution pixels `i·2^r ..< (i+1)·2^r`, so aligned tiles map exactly.
    static func levelRect(of region: PixelRect, reduction: Int, levelSize: PixelSize) -> PixelRect {
        let step = 1 << reduction
        let x = region.x / step, y = region.y / step
        let right = min(levelSize.width, (region.x + region.width + step - 1) / step)
        let bottom = min(levelSize.height, (region.y + region.height + step - 1) / step)
        return PixelRect(x: x, y: y, width: max(1, right - x), height: max(1, bottom - y))
    }

    /// `rect` of a level made of `tileSize` tiles, copied from the tiles it touches (`tile(column, row)`
    /// gives each decoded tile). The canvas is not zeroed first: every row is assembled over it
    /// (``TileBand``).
    static func compose(
        _ rect: PixelRect, tileSize: PixelSize, format: PixelFormat, tile: (_ column: Int, _ row: Int) throws -> PixelBuffer
    ) throws -> PixelBuffer {
        var band = TileBand(rect: rect, tileSize: tileSize, format: format)
        return try PixelBuffer(width: rect.width, height: rect.height, format: format) { canvas in
            for y in 0..<rect.height { try band.assemble(row: y, into: canvas.baseAddress! + y * band.rowBytes, tile: tile) }
        }
    }

    /// The pixels of `rect` for ``render(_:profile:request:jpegQuality:)``: already scaled to
    /// `scaledSize` (``composeResized(_:tileSize:format:to:tile:)``) when one Lanczos pass is all
    /// the scaling needs (no box reduction first, see ``finish(_:request:)``), else composed at the
    /// level's size. `scaledSize` nil: composed (a turned source is turned before it is scaled).
    static func regionPixels(
        _ rect: PixelRect, tileSize: PixelSize, format: PixelFormat, scaledSize: PixelSize?,
        tile: (_ column: Int, _ row: Int) throws -> PixelBuffer
    ) throws -> PixelBuffer {
        let size = PixelSize(width: rect.width, height: rect.height)
        if let scaledSize, scaledSize != size,
           !BoxShrinker.reduces(size, toward: scaledSize) {
            return try composeResized(rect, tileSize: tileSize, format: format, to: scaledSize, tile: tile)
        }
        return try compose(rect, tileSize: tileSize, format: format, tile: tile)
    }

    /// `compose(rect, …)` resized to `size` with ``LanczosResampler``, without the canvas: each row
    /// is assembled from the tiles when the resampler reads it, into one row of memory. A region's
    /// canvas was megabytes mapped, faulted in, written and read once per request.
    static func composeResized(
        _ rect: PixelRect, tileSize: PixelSize, format: PixelFormat, to size: PixelSize,
        tile: (_ column: Int, _ row: Int) throws -> PixelBuffer
    ) throws -> PixelBuffer {
        var band = TileBand(rect: rect, tileSize: tileSize, format: format)
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: band.rowBytes)
        defer { row.deallocate() }
        return try LanczosResampler.resize(PixelSize(width: rect.width, height: rect.height), format: format, to: size) { y in
            try band.assemble(row: y, into: row, tile: tile)
            return UnsafePointer(row)
        }
    }

    /// Rows of `rect` of a tiled level, from the tiles of one tile row at a time (the band the row
    /// is in, fetched when a row first needs it). Each tile is copied over its place in the row (the
    /// tiles' places partition it); whatever part of its place a tile smaller than its place leaves
    /// (a damaged pyramid) is zeroed, so no byte keeps what memory held before.
    struct TileBand {
        let rect: PixelRect
        let tileSize: PixelSize
        let format: PixelFormat
        let rowBytes: Int
        private let columns: ClosedRange<Int>
        private var tileRow = -1
        private var tiles: [PixelBuffer] = []

        init(rect: PixelRect, tileSize: PixelSize, format: PixelFormat) {
            self.rect = rect
            self.tileSize = tileSize
            self.format = format
            rowBytes = rect.width * format.bytesPerPixel
            columns = (rect.x / tileSize.width)...((rect.x + rect.width - 1) / tileSize.width)
        }

        /// Row `y` of `rect` (0 is its top) written to `target` (``rowBytes`` bytes).
        mutating func assemble(
            row y: Int, into target: UnsafeMutablePointer<UInt8>, tile: (_ column: Int, _ row: Int) throws -> PixelBuffer
        ) throws {
            let levelY = rect.y + y, channels = format.bytesPerPixel
            if levelY / tileSize.height != tileRow {
                let wanted = levelY / tileSize.height, format = format
                tiles = try columns.map { column in
                    let pixels = try tile(column, wanted)
                    return pixels.format == format ? pixels : pixels.converted(to: format)
                }
                tileRow = wanted
            }
            let originY = tileRow * tileSize.height
            for (column, pixels) in zip(columns, tiles) {
                let originX = column * tileSize.width
                // The tile's place in the row, and the part of it the tile's pixels reach.
                let placeX = max(rect.x, originX)..<min(rect.x + rect.width, originX + tileSize.width)
                let right = levelY - originY < pixels.height
                    ? max(placeX.lowerBound, min(placeX.upperBound, originX + pixels.width)) : placeX.lowerBound
                if placeX.lowerBound < right {
                    let from = (levelY - originY) * pixels.bytesPerRow + (placeX.lowerBound - originX) * channels
                    pixels.bytes.withUnsafeBufferPointer { source in
                        (target + (placeX.lowerBound - rect.x) * channels)
                            .update(from: source.baseAddress! + from, count: (right - placeX.lowerBound) * channels)
                    }
                }
                if right < placeX.upperBound {
                    (target + (right - rect.x) * channels).update(repeating: 0, count: (placeX.upperBound - right) * channels)
                }
            }
        }
    }

    /// The (column, row) of every tile of `tileSize` that `rect` touches, row by row.
    static func tiles(covering rect: PixelRect, tileSize: PixelSize) -> [(column: Int, row: Int)] {
        guard rect.width > 0, rect.height > 0 else { return [] }
        let columns = (rect.x / tileSize.width)...((rect.x + rect.width - 1) / tileSize.width)
        return ((rect.y / tileSize.height)...((rect.y + rect.height - 1) / tileSize.height)).flatMap { row in
            columns.map { (column: $0, row: row) }
        }
    }

    /// Region pixels (already cut) scaled, turned and converted as the request asks.
    static func finish(_ regionPixels: PixelBuffer, request: ResolvedIIIFRequest) -> PixelBuffer {
        var pixels = regionPixels
        if pixels.size != request.scaledSize {
            pixels = LanczosResampler.resize(BoxShrinker.reduce(pixels, toward: request.scaledSize), to: request.scaledSize)
        }
        let degrees = request.rotation.degrees.truncatingRemainder(dividingBy: 360)
        if degrees.truncatingRemainder(dividingBy: 90) == 0 {
            let orientation = Orientation(mirrored: request.rotation.mirrored, clockwiseQuarterTurns: Int(degrees / 90))
            pixels = orientation.apply(to: pixels)
        } else {
            if request.rotation.mirrored { pixels = Orientation.upMirrored.apply(to: pixels) }
            pixels = pixels.rotated(clockwiseDegrees: degrees)
        }
        switch request.quality {
        case .gray: pixels = pixels.converted(to: pixels.format.hasAlpha ? .grayAlpha8 : .gray8)
        case .bitonal: pixels = pixels.bitonal()
        case .default, .color: break
        }
        return pixels
    }

    /// The region's pixels finished (``finish(_:request:)``) and encoded. `profile` is the one
    /// `pixels` are in (nil: sRGB) and is embedded in the output; gray and bitonal answers are made
    /// from sRGB and are untagged, since a colour profile cannot describe them.
    static func render(_ pixels: PixelBuffer, profile: ICCProfile?, request: ResolvedIIIFRequest, jpegQuality: Int) throws -> Data {
        var pixels = pixels
        var profile = profile
        if let kept = profile, request.quality == .gray || request.quality == .bitonal {
            _ = kept.convertToSRGB(&pixels)  // without LittleCMS the values stay as they are
            profile = nil
        }
        return try encode(finish(pixels, request: request), as: request.format, jpegQuality: jpegQuality, iccProfile: profile)
    }

    /// AVIF answers: quality 60 looks about as JPEG 85 does at a third to half its size; speed 8
    /// (libaom's cpu-used) keeps an answer made on demand to tens of milliseconds a tile rather than
    /// hundreds, for files a few percent larger than the default speed's.
    static let avifQuality = 60
    static let avifSpeed = 8

    /// The encoded bytes of `pixels` in the requested format. JPEG has no alpha, so the corners an
    /// arbitrary rotation leaves are composited over white there; PNG, WebP and AVIF keep them transparent.
    static func encode(
        _ pixels: PixelBuffer, as format: IIIFImageRequest.Format, jpegQuality: Int, iccProfile: ICCProfile? = nil
    ) throws -> Data {
        switch format {
        case .jpg: try ImageEncoder.encode(overWhite(pixels), as: .jpeg(quality: jpegQuality), iccProfile: iccProfile)
        case .png: try ImageEncoder.encode(pixels, as: .png(), iccProfile: iccProfile)
        case .webp: try ImageEncoder.encode(pixels, as: .webp(quality: max(jpegQuality, 80)), iccProfile: iccProfile)
        case .avif: try ImageEncoder.encode(pixels, as: .avif(quality: avifQuality, speed: avifSpeed), iccProfile: iccProfile)
        }
    }

    private static func overWhite(_ pixels: PixelBuffer) -> PixelBuffer {
        guard let alphaIndex = pixels.format.alphaChannelIndex else { return pixels }
        var flat = PixelBuffer(width: pixels.width, height: pixels.height, format: pixels.format.withAlpha(false))
        let source = pixels.format.bytesPerPixel, target = flat.format.bytesPerPixel
        pixels.bytes.withUnsafeBufferPointer { input in
            flat.bytes.withUnsafeMutableBufferPointer { output in
                for index in 0..<(pixels.width * pixels.height) {
                    let alpha = Int(input[index * source + alphaIndex])
                    for channel in 0..<target {
                        let value = Int(input[index * source + channel])
                        output[index * target + channel] = UInt8((value * alpha + 255 * (255 - alpha) + 127) / 255)
                    }
                }
            }
        }
        return flat
    }
}
