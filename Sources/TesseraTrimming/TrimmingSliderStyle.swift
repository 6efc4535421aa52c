/// Colours of a rendered trimming slider. Sizes live in ``TrimmingSliderGeometry`` because the
/// touch mapping depends on them too.
public struct TrimmingSliderStyle: Sendable, Hashable {
    /// Trim handles.
    public var handleColor: TrimmingColor
    /// The small mark in the middle of each handle; transparent for none.
    public var gripColor: TrimmingColor
    /// The top and bottom bars between the handles.
    public var barColor: TrimmingColor
    /// The playhead line.
    public var playheadColor: TrimmingColor
    /// The strip where no frame is drawn (no frames yet) and under translucent frames.
    public var stripColor: TrimmingColor
    /// Everything outside the strip, handles and bars.
    public var backgroundColor: TrimmingColor
    /// How far the strip outside the selection is blended toward black: 0 not at all, 1 fully.
    public var dimming: Double

    /// A style from its colours, yellow handles and bars, a white playhead and a dark grey strip by
    /// default; `dimming` is clamped to 0…1.
    public init(
        handleColor: TrimmingColor = TrimmingColor(red: 255, green: 204, blue: 0),
        gripColor: TrimmingColor = TrimmingColor(red: 120, green: 90, blue: 0),
        barColor: TrimmingColor = TrimmingColor(red: 255, green: 204, blue: 0),
        playheadColor: TrimmingColor = .white,
        stripColor: TrimmingColor = TrimmingColor(red: 40, green: 40, blue: 40),
        backgroundColor: TrimmingColor = .clear,
        dimming: Double = 0.55
    ) {
        self.handleColor = handleColor
        self.gripColor = gripColor
        self.barColor = barColor
        self.playheadColor = playheadColor
        self.stripColor = stripColor
        self.backgroundColor = backgroundColor
        self.dimming = min(max(dimming, 0), 1)
    }
}
