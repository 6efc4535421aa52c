import FoundationEssentials
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles
import TesseraViewing

/// The pixel work behind an IIIF image request, in the order the spec applies it: region, size,
/// rotation (mirroring first), quality, format. Pure and synchronous; callers run it on the
/// server's `WorkExecutor`.
enum RegionRenderer {
    /// The coarsest pyramid reduction (a power of two) whose level still has at least the pixels the
    /// output needs, so resampling only ever shrinks by less than 2× (or enlarges, for `^` sizes):
    /// the viewer's own rule (``LevelSelector``, checked by `Tests/Fixtures/rules/levels.json`),
    /// with the output's pixels per region pixel as the density.
    static func reduction(region: PixelRect, scaledSize: PixelSize, levelCount: Int) -> Int {
        let scale = max(Double(scaledSize.width) / Double(region.width), Double(scaledSize.height) / Double(region.height))
        return LevelSelector().reduction(screenPixelsPerImagePixel: scale, levelCount: levelCount)
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
    /// JPEG XL answers: quality 80 (libjxl distance 1.9) looks about as JPEG 85 does.
    static let jxlQuality = 80

    /// The encoded bytes of `pixels` in the requested format. JPEG has no alpha, so the corners an
    /// arbitrary rotation leaves are composited over white there; PNG, WebP, AVIF and JPEG XL keep them transparent.
    static func encode(
        _ pixels: PixelBuffer, as format: IIIFImageRequest.Format, jpegQuality: Int, iccProfile: ICCProfile? = nil
    ) throws -> Data {
        switch format {
        case .jpg: try ImageEncoder.encode(overWhite(pixels), as: .jpeg(quality: jpegQuality), iccProfile: iccProfile)
        case .png: try ImageEncoder.encode(pixels, as: .png(), iccProfile: iccProfile)
        case .webp: try ImageEncoder.encode(pixels, as: .webp(quality: max(jpegQuality, 80)), iccProfile: iccProfile)
        case .avif: try ImageEncoder.encode(pixels, as: .avif(quality: avifQuality, speed: avifSpeed), iccProfile: iccProfile)
        case .jxl: try ImageEncoder.encode(pixels, as: .jxl(quality: jxlQuality), iccProfile: iccProfile)
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
