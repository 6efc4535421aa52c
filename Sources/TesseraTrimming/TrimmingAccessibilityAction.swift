/// The keyboard and assistive-technology actions of the WAI-ARIA slider pattern, per thumb.
///
/// A *step* is one frame when the model snaps to frame times (the neighbouring frame time, so
/// variable frame rates step correctly) and one second otherwise. A *page* is ten steps: ten
/// frames or ten seconds. Every target is clamped by the model, so limits follow the other handle.
public enum TrimmingAccessibilityAction: Sendable, Hashable, CaseIterable {
    /// One step later (Right/Up arrow, VoiceOver swipe up).
    case increment
    /// One step earlier (Left/Down arrow, VoiceOver swipe down).
    case decrement
    /// Ten steps later (Page Up).
    case pageUp
    /// Ten steps earlier (Page Down).
    case pageDown
    /// The thumb's minimum (Home).
    case home
    /// The thumb's maximum (End).
    case end

    /// Steps in a page.
    public static let stepsPerPage = 10
    /// A step, in seconds, when the model has no frame times.
    public static let secondsPerStep = 1.0

    /// Where this action asks `thumb` to go, in seconds, before the model's constraints apply.
    func target(from model: TrimmingSliderModel, for thumb: TrimmingThumb) -> Double {
        let steps: Int
        switch self {
        case .home: return model.limits(for: thumb).lowerBound
        case .end: return model.limits(for: thumb).upperBound
        case .increment: steps = 1
        case .decrement: steps = -1
        case .pageUp: steps = Self.stepsPerPage
        case .pageDown: steps = -Self.stepsPerPage
        }
        let value = model.value(of: thumb)
        guard let snapTimes = model.snapTimes else { return value + Double(steps) * Self.secondsPerStep }
        return TrimmingSnapping.stepped(from: value, by: steps, in: snapTimes)
    }
}
