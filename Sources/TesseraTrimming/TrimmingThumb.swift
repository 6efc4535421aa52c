/// One of the three draggable parts of a trimming slider.
public enum TrimmingThumb: String, Sendable, Hashable, CaseIterable {
    /// The handle marking the start of the selection.
    case lower
    /// The handle marking the end of the selection.
    case upper
    /// The current playback position, always inside the selection.
    case playhead
}
