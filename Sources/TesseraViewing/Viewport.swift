import FoundationEssentials
public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A point in full-resolution image pixels (fractions allowed).
public struct PixelPoint: Sendable, Hashable {
    /// Horizontal position, in full-resolution pixels from the image's left edge.
    public var x: Double
    /// Vertical position, in full-resolution pixels from the image's top edge.
    public var y: Double
    /// The point at (`x`, `y`) full-resolution pixels.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A rectangle in full-resolution image pixels.
public struct ImageRect: Sendable, Hashable {
    /// The edges, in full-resolution pixels: left, top, right, bottom.
    public var minX: Double, minY: Double, maxX: Double, maxY: Double
    /// The rectangle between the given edges.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        (self.minX, self.minY, self.maxX, self.maxY) = (minX, minY, maxX, maxY)
    }
}

/// What the viewer shows: a viewport of `size` points on a screen of `scale`, at `zoom` points per
/// full-resolution image pixel, centred on `center` (full-resolution pixels). Host-agnostic: a web
/// page, a window or an iOS view drives it with pans and zooms and draws what it says.
public struct Viewport: Sendable, Hashable {
    /// The viewport's size, in points.
    public var size: PointSize
    /// Screen pixels per point.
    public var scale: DisplayScale
    /// Points per full-resolution image pixel, within ``minimumZoom`` and ``maximumZoom``; change it
    /// with ``zoom(to:anchor:)`` or ``fit(_:)``.
    public private(set) var zoom: Double
    /// The image point at the viewport's centre, in full-resolution pixels.
    public var center: PixelPoint
    /// The smallest zoom allowed (1/4096 by default).
    public var minimumZoom: Double
    /// The largest zoom allowed (64 by default).
    public var maximumZoom: Double

    /// A viewport of `size` points at `zoom` (clamped to the limits) centred on `center`. `size` must
    /// have positive sides and `zoom` be positive.
    public init(
        size: PointSize, scale: DisplayScale = .x1, zoom: Double, center: PixelPoint,
        minimumZoom: Double = 1.0 / 4096, maximumZoom: Double = 64
    ) {
        precondition(size.width > 0 && size.height > 0 && zoom > 0)
        self.size = size
        self.scale = scale
        self.minimumZoom = minimumZoom
        self.maximumZoom = maximumZoom
        self.zoom = min(max(zoom, minimumZoom), maximumZoom)
        self.center = center
    }

    /// Screen pixels per full-resolution image pixel.
    public var screenPixelsPerImagePixel: Double { zoom * scale.value }

    /// The viewport's size in screen pixels.
    public var bitmapSize: PixelSize { size.pixels(at: scale) }

    /// The part of the image plane the viewport covers, in full-resolution pixels.
    public var visibleRect: ImageRect {
        let halfWidth = size.width / zoom / 2, halfHeight = size.height / zoom / 2
        return ImageRect(
            minX: center.x - halfWidth, minY: center.y - halfHeight,
            maxX: center.x + halfWidth, maxY: center.y + halfHeight)
    }

    /// Moves the view by a drag of (`dx`, `dy`) points: the image follows the pointer.
    public mutating func pan(byPoints dx: Double, _ dy: Double) {
        center.x -= dx / zoom
        center.y -= dy / zoom
    }

    /// Zooms to `newZoom` (clamped), keeping the image point under `anchor` (points from the
    /// viewport's top-left; the centre by default) where it is on screen.
    public mutating func zoom(to newZoom: Double, anchor: (x: Double, y: Double)? = nil) {
        let anchor = anchor ?? (size.width / 2, size.height / 2)
        let before = imagePoint(atPoint: anchor)
        zoom = min(max(newZoom, minimumZoom), maximumZoom)
        let after = imagePoint(atPoint: anchor)
        center.x += before.x - after.x
        center.y += before.y - after.y
    }

    /// Zoom and centre that show the whole image, as large as fits.
    public mutating func fit(_ image: PixelSize) {
        let fitting = ContentMode.fit.scaleFactor(
            contentWidth: Double(image.width), contentHeight: Double(image.height), boxWidth: size.width, boxHeight: size.height)
        zoom = min(max(fitting, minimumZoom), maximumZoom)
        center = PixelPoint(x: Double(image.width) / 2, y: Double(image.height) / 2)
    }

    /// The image point shown at `point` (points from the viewport's top-left).
    public func imagePoint(atPoint point: (x: Double, y: Double)) -> PixelPoint {
        PixelPoint(x: center.x + (point.x - size.width / 2) / zoom, y: center.y + (point.y - size.height / 2) / zoom)
    }
}

/// Chooses the pyramid level to draw: the coarsest whose resolution still meets the screen's pixel
/// density, always one that exists.
public struct LevelSelector: Sendable, Hashable {
    /// Added to the ideal reduction before rounding down: negative prefers sharper levels, positive
    /// cheaper ones.
    public var bias: Double

    /// A selector with `bias` added to the ideal reduction (0: the coarsest level that is sharp enough).
    public init(bias: Double = 0) { self.bias = bias }

    /// The reduction for `screenPixelsPerImagePixel`: the largest k with `density × 2^k ≤ 1`,
    /// clamped to `0..<levelCount`.
    public func reduction(screenPixelsPerImagePixel density: Double, levelCount: Int) -> Int {
        guard density > 0, density.isFinite else { return max(levelCount - 1, 0) }
        let ideal = (-log2(density) + bias + 1e-9).rounded(.down)
        return Int(min(max(ideal, 0), Double(max(levelCount - 1, 0))))
    }
}
