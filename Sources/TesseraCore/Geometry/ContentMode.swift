/// How content of one size is placed in a box of another, aspect ratio always kept. The one place
/// Tessera does this arithmetic: thumbnails, pipeline resizes, frame-strip cells, the trimmer's strip
/// and the viewer's initial zoom all ask it, so they round alike.
public enum ContentMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// The whole content inside the box: both sides at most the box's (UIKit's `scaleAspectFit`).
    case fit
    /// The content covers the box: both sides at least the box's; nothing is cut
    /// (`scaleAspectFill` before clipping).
    case fill
    /// Covers the box, then the overflow is cut away evenly from both ends: the result is the box.
    case centerCrop

    /// The factor that takes content of `content` into `box` in this mode (the same for both axes).
    /// Sides must be positive; the unit does not matter as long as both use the same one.
    public func scaleFactor(
        contentWidth: Double, contentHeight: Double, boxWidth: Double, boxHeight: Double
    ) -> Double {
        let horizontal = boxWidth / contentWidth, vertical = boxHeight / contentHeight
        return self == .fit ? min(horizontal, vertical) : max(horizontal, vertical)
    }

    /// The factor that takes `content` into `box` in this mode.
    public func scaleFactor(for content: PixelSize, in box: PixelSize) -> Double {
        scaleFactor(
            contentWidth: Double(content.width), contentHeight: Double(content.height),
            boxWidth: Double(box.width), boxHeight: Double(box.height))
    }
}

extension PixelSize {
    /// The largest side a scaled size may have: far beyond any bitmap Tessera would allocate, and small
    /// enough that `width × height × 16` cannot overflow, so absurd requests fail a size check rather
    /// than arithmetic.
    public static let maximumScaledSide = 1 << 30

    /// This size times `factor`: **the rounding rule** of every content mode. Each side is rounded to
    /// the nearest pixel and kept between 1 and ``maximumScaledSide``. A side that the factor maps
    /// exactly onto a box side (as fit and fill do for the binding side) lands on it exactly.
    public func scaled(by factor: Double) -> PixelSize {
        func side(_ value: Int) -> Int {
            let scaled = (Double(value) * factor).rounded()
            guard scaled.isFinite else { return scaled > 0 ? Self.maximumScaledSide : 1 }
            return Int(min(max(scaled, 1), Double(Self.maximumScaledSide)))
        }
        return PixelSize(width: side(width), height: side(height))
    }

    /// The size this content takes in `box` in `mode`: for ``ContentMode/centerCrop`` the box itself
    /// (clipped to what the content can give without enlarging, when `allowsUpscaling` is false), for
    /// the others the scaled content. Without `allowsUpscaling`, content already smaller than the box
    /// keeps its size.
    public func placed(in box: PixelSize, mode: ContentMode, allowsUpscaling: Bool = true) -> PixelSize {
        let scaled = scaled(toward: box, mode: mode, allowsUpscaling: allowsUpscaling)
        guard mode == .centerCrop else { return scaled }
        return PixelSize(width: min(box.width, scaled.width), height: min(box.height, scaled.height))
    }

    /// The content scaled for `mode` before any cropping: for fill and centre-crop it covers the box.
    public func scaled(toward box: PixelSize, mode: ContentMode, allowsUpscaling: Bool = true) -> PixelSize {
        let factor = mode.scaleFactor(for: self, in: box)
        return allowsUpscaling || factor < 1 ? scaled(by: factor) : self
    }

    /// The smallest aspect-preserving size that still covers `minimum` in both directions, never
    /// larger than this size (what a decoder that can reduce while decoding is asked for). Nil
    /// `minimum` means this size.
    public func scaledToCover(_ minimum: PixelSize?) -> PixelSize {
        guard let minimum else { return self }
        return scaled(toward: minimum, mode: .fill, allowsUpscaling: false)
    }

    /// Aspect-fit with the longest side at most `maxPixelSize` (ImageIO's
    /// `kCGImageSourceThumbnailMaxPixelSize`), never enlarged.
    public func fitted(maxPixelSize: Int) -> PixelSize {
        let factor = Double(max(maxPixelSize, 1)) / Double(longestSide)
        return factor < 1 ? scaled(by: factor) : self
    }

    /// The centred rectangle of `size` inside this size (both sides clipped to this one's): where a
    /// centre crop cuts. Odd leftovers put the extra pixel on the right and bottom.
    public func centered(_ size: PixelSize) -> PixelRect {
        let width = min(size.width, self.width), height = min(size.height, self.height)
        return PixelRect(x: (self.width - width) / 2, y: (self.height - height) / 2, width: width, height: height)
    }

    /// The largest centred rectangle of this size with the aspect ratio of `aspect`: the part of a
    /// frame a centre crop into a cell of that shape keeps.
    public func centered(aspect: PixelSize) -> PixelRect {
        let factor = ContentMode.fit.scaleFactor(for: aspect, in: self)
        return centered(aspect.scaled(by: factor))
    }
}

/// A rectangle of whole pixels: origin at the top-left, `x` to the right, `y` down.
public struct PixelRect: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The origin (`x` right, `y` down from the top-left) and the size, in pixels.
    public var x: Int, y: Int, width: Int, height: Int

    /// A rectangle at `x`, `y` of `width` × `height` pixels; nothing is checked or clamped.
    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// The width and height, without the origin.
    public var size: PixelSize { PixelSize(width: width, height: height) }

    public var description: String { "\(width)×\(height) at \(x),\(y)" }

    /// The part of this rectangle inside `other`: empty (zero width or height, at the nearest
    /// corner) when they do not overlap.
    public func intersection(_ other: PixelRect) -> PixelRect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// The column and row of the tile this rectangle is exactly, in a grid of `tileSize` tiles
    /// from the origin of an image of `imageSize` (edge tiles clipped to the image); nil when it is
    /// not one whole tile. The one alignment rule of every tiled source a request can name.
    public func tilePosition(tileSize: PixelSize, imageSize: PixelSize) -> (column: Int, row: Int)? {
        guard tileSize.width > 0, tileSize.height > 0, x >= 0, y >= 0,
            x % tileSize.width == 0, y % tileSize.height == 0,
            width == min(tileSize.width, imageSize.width - x), height == min(tileSize.height, imageSize.height - y)
        else { return nil }
        return (x / tileSize.width, y / tileSize.height)
    }
}

extension PixelBuffer {
    /// The pixels of `rect`; nil if it does not lie inside.
    public func cropped(to rect: PixelRect) -> PixelBuffer? {
        cropped(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }

    /// The centred `size` of this buffer (clipped to the buffer): the last step of a centre crop.
    public func centerCropped(to size: PixelSize) -> PixelBuffer {
        // `centered` always lies inside, so the crop cannot fail.
        cropped(to: self.size.centered(size)) ?? self
    }
}
