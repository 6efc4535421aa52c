/// Something a host should react to, returned by the slider's mutating calls instead of being sent
/// through callbacks, so the host decides when and on which actor to act on it.
public enum TrimmingSliderEvent: Sendable, Hashable {
    /// A touch, pointer or accessibility action started changing `thumb`.
    case editingBegan(TrimmingThumb)
    /// `thumb`'s value (in seconds) is now different.
    case valueChanged(TrimmingThumb, source: TrimmingEventSource)
    /// The change started by the matching ``editingBegan(_:)`` is over: the moment to commit
    /// (seek precisely, export, save) rather than on every ``valueChanged(_:source:)``.
    case editingEnded(TrimmingThumb)
}

/// Who caused a value change.
public enum TrimmingEventSource: Sendable, Hashable {
    /// A touch, pointer or assistive-technology action.
    case user
    /// The host, through a setter. Never comes with editing events, so a host that mirrors the
    /// player's time into the playhead cannot mistake its own update for a user's scrub.
    case programmatic
}
