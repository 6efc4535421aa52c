/// What a touch at some x lands on.
public enum TrimmingSliderHit: Sendable, Hashable {
    /// A thumb's touch target.
    case thumb(TrimmingThumb)
    /// The track, away from every thumb's target: a touch here moves the playhead.
    case track
}
