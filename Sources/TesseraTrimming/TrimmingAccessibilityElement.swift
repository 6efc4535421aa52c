/// What assistive technology needs to present one thumb as a WAI-ARIA slider: `aria-label`,
/// `aria-valuenow`, `aria-valuetext`, `aria-valuemin` and `aria-valuemax`.
///
/// The limits are the thumb's current ones, which follow the other values: the start handle's
/// maximum is the end minus the minimum duration, the playhead's range is the selection.
public struct TrimmingAccessibilityElement: Sendable, Hashable {
    /// The thumb this element presents.
    public let thumb: TrimmingThumb
    /// "Start", "End" or "Playhead". English; hosts that localize map ``thumb`` themselves.
    public let label: String
    /// The current value, in seconds.
    public let value: Double
    /// The value as spoken: `m:ss.t`, or `h:mm:ss.t` from one hour (see ``TrimmingTimeFormat``).
    public let valueText: String
    /// The lowest value the thumb can take now, in seconds.
    public let minimum: Double
    /// The highest value the thumb can take now, in seconds.
    public let maximum: Double

    /// The description of `thumb` in `model`.
    public init(model: TrimmingSliderModel, thumb: TrimmingThumb) {
        self.thumb = thumb
        switch thumb {
        case .lower: label = "Start"
        case .upper: label = "End"
        case .playhead: label = "Playhead"
        }
        value = model.value(of: thumb)
        valueText = TrimmingTimeFormat.string(seconds: value)
        let limits = model.limits(for: thumb)
        minimum = limits.lowerBound
        maximum = limits.upperBound
    }

    /// ``minimum`` as spoken.
    public var minimumText: String { TrimmingTimeFormat.string(seconds: minimum) }
    /// ``maximum`` as spoken.
    public var maximumText: String { TrimmingTimeFormat.string(seconds: maximum) }
}
