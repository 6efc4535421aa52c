/// A host-agnostic video trimming slider: a ``TrimmingSliderModel`` laid out by a
/// ``TrimmingSliderGeometry``, driven by touches, pointer, setters and assistive technology.
///
/// Every mutating call returns the ``TrimmingSliderEvent``s it caused, in order, instead of calling
/// back, so a UIKit, AppKit, SwiftUI or test host stays in control of what happens next.
///
/// Tracking follows one pointer at a time. At the start of a drag the slider records how far the
/// touch is from the grabbed thumb's value line; every later move places the value at
/// `x − offset`, computed afresh from the finger. Nothing accumulates, so a thumb that hit a
/// limit lines up with the finger again as soon as the finger comes back.
public struct TrimmingSlider: Sendable {
    /// The values, in seconds.
    public private(set) var model: TrimmingSliderModel
    /// The layout; a host updates it when the control is resized, even mid-drag.
    public var geometry: TrimmingSliderGeometry
    /// The thumb being dragged, if any.
    public private(set) var activeThumb: TrimmingThumb?
    /// Touch x minus the active thumb's value x at the start of the drag, in points.
    private var grabOffset: Double = 0

    /// A slider showing `model`'s values laid out by `geometry`, with no drag in progress.
    public init(model: TrimmingSliderModel, geometry: TrimmingSliderGeometry) {
        self.model = model
        self.geometry = geometry
    }

    // MARK: - Programmatic changes

    /// Moves `thumb` toward `seconds` as the model allows. Reports only `.programmatic` value
    /// changes, never editing events, even during a drag.
    @discardableResult
    public mutating func setValue(_ seconds: Double, for thumb: TrimmingThumb) -> [TrimmingSliderEvent] {
        model.set(thumb, to: seconds).map { .valueChanged($0, source: .programmatic) }
    }

    /// Sets both handles, in seconds, as ``TrimmingSliderModel/setSelection(lower:upper:)`` does.
    /// Reports only `.programmatic` value changes.
    @discardableResult
    public mutating func setSelection(lower: Double, upper: Double) -> [TrimmingSliderEvent] {
        model.setSelection(lower: lower, upper: upper).map { .valueChanged($0, source: .programmatic) }
    }

    // MARK: - Hit testing

    /// What a touch at `x` points would pick.
    ///
    /// - A trim handle beats the playhead, so a playhead parked on a handle can never make that
    ///   handle ungrabbable (the playhead can still be moved by touching the track).
    /// - When both handles' targets contain `x` (a short selection), the handle on the touch's
    ///   side of the point midway between their value lines wins, unless its limits leave it no
    ///   room to move at all; then the other one, which can.
    /// - Inside the track but on no target: ``TrimmingSliderHit/track``. Elsewhere: nil.
    public func hitTest(x: Double) -> TrimmingSliderHit? {
        let lowerHit = geometry.hitRange(for: .lower, in: model).contains(x)
        let upperHit = geometry.hitRange(for: .upper, in: model).contains(x)
        switch (lowerHit, upperHit) {
        case (true, true):
            let selection = geometry.selectionRect(in: model)
            let preferred: TrimmingThumb = x < selection.midX ? .lower : .upper
            let other: TrimmingThumb = preferred == .lower ? .upper : .lower
            let stuck = model.limits(for: preferred)
            return .thumb(stuck.lowerBound == stuck.upperBound ? other : preferred)
        case (true, false): return .thumb(.lower)
        case (false, true): return .thumb(.upper)
        case (false, false): break
        }
        if geometry.hitRange(for: .playhead, in: model).contains(x) { return .thumb(.playhead) }
        if (geometry.trackMinX...geometry.trackMaxX).contains(x) { return .track }
        return nil
    }

    // MARK: - Tracking

    /// A touch or button press at `x` points. On a thumb, starts dragging it from where it is. On
    /// the track, moves the playhead to the touch and drags the playhead from there (the playhead
    /// is clamped into the selection, so a touch on the dimmed part lands it on the nearer edge).
    /// Ignored while another touch is tracked, and off the track.
    public mutating func touchBegan(x: Double) -> [TrimmingSliderEvent] {
        guard activeThumb == nil, let hit = hitTest(x: x) else { return [] }
        switch hit {
        case .thumb(let thumb):
            activeThumb = thumb
            grabOffset = x - geometry.x(for: model.value(of: thumb), duration: model.duration)
            return [.editingBegan(thumb)]
        case .track:
            activeThumb = .playhead
            grabOffset = 0
            return [.editingBegan(.playhead)] + follow(x: x)
        }
    }

    /// The tracked touch moved to `x` points.
    public mutating func touchMoved(x: Double) -> [TrimmingSliderEvent] {
        follow(x: x)
    }

    /// The tracked touch lifted at `x` points: a last move, then the end of editing.
    public mutating func touchEnded(x: Double) -> [TrimmingSliderEvent] {
        guard let thumb = activeThumb else { return [] }
        let moved = follow(x: x)
        activeThumb = nil
        return moved + [.editingEnded(thumb)]
    }

    /// The system took the touch away (an incoming call, a scroll view claiming the gesture). The
    /// values stay where the drag left them, as with `UIControl`, and editing ends.
    public mutating func touchCancelled() -> [TrimmingSliderEvent] {
        guard let thumb = activeThumb else { return [] }
        activeThumb = nil
        return [.editingEnded(thumb)]
    }

    private mutating func follow(x: Double) -> [TrimmingSliderEvent] {
        guard let thumb = activeThumb else { return [] }
        let seconds = geometry.seconds(at: x - grabOffset, duration: model.duration)
        return model.set(thumb, to: seconds).map { .valueChanged($0, source: .user) }
    }

    // MARK: - Assistive technology

    /// Applies an assistive-technology action to `thumb` (see ``TrimmingAccessibilityAction``).
    /// A change is a complete user edit: `editingBegan`, `.user` value changes, `editingEnded`, so
    /// hosts that commit on `editingEnded` work the same for VoiceOver users. Reports nothing when
    /// the value is already at the limit.
    public mutating func perform(_ action: TrimmingAccessibilityAction, on thumb: TrimmingThumb) -> [TrimmingSliderEvent] {
        let target = action.target(from: model, for: thumb)
        let changed = model.set(thumb, to: target).map { TrimmingSliderEvent.valueChanged($0, source: .user) }
        guard !changed.isEmpty else { return [] }
        // A drag of the same thumb already owns the editing session.
        if activeThumb == thumb { return changed }
        return [.editingBegan(thumb)] + changed + [.editingEnded(thumb)]
    }

    /// The accessibility description of `thumb`.
    public func accessibilityElement(for thumb: TrimmingThumb) -> TrimmingAccessibilityElement {
        TrimmingAccessibilityElement(model: model, thumb: thumb)
    }

    /// One element per thumb in reading order: start, playhead, end.
    public var accessibilityElements: [TrimmingAccessibilityElement] {
        [.lower, .playhead, .upper].map(accessibilityElement(for:))
    }
}
