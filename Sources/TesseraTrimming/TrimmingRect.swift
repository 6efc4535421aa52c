/// An axis-aligned rectangle in points, origin at the control's top-left corner, y growing down.
///
/// It stores its edges rather than origin and size, so shapes built from the same x (a handle's
/// inner edge and the selection's edge) compare equal exactly instead of an addition apart.
public struct TrimmingRect: Sendable, Hashable {
    /// Left edge, in points.
    public var minX: Double
    /// Right edge, in points; never left of ``minX``.
    public var maxX: Double
    /// Top edge, in points.
    public var minY: Double
    /// Bottom edge, in points; never above ``minY``.
    public var maxY: Double

    /// The rectangle between the given edges, in points; an inverted span collapses to its start.
    public init(minX: Double, maxX: Double, minY: Double, maxY: Double) {
        self.minX = minX
        self.maxX = max(minX, maxX)
        self.minY = minY
        self.maxY = max(minY, maxY)
    }

    /// The rectangle at (`x`, `y`) of `width × height`, in points.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(minX: x, maxX: x + width, minY: y, maxY: y + height)
    }

    /// Width, in points.
    public var width: Double { maxX - minX }
    /// Height, in points.
    public var height: Double { maxY - minY }
    /// The x of the vertical centre line, in points.
    public var midX: Double { (minX + maxX) / 2 }
}
