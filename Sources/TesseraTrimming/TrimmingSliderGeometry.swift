public import TesseraCore

/// The layout of a trimming slider, in points, and the one mapping between seconds and x that the
/// handles, the playhead, the frame strip and the renderer all share.
///
/// Convention: time runs left to right across the *track*, which spans between the handles'
/// inner edges when the selection is the whole clip:
///
/// ```
/// |inset|[lower handle]|========== track: 0 s … duration ==========|[upper handle]|inset|
/// ```
///
/// The lower handle sits left of its value line (its right edge is `x(lower)`), the upper handle
/// right of its value line (its left edge is `x(upper)`), so the handles never cover selected
/// frames and the dimmed part of the strip ends exactly where a handle's inner edge is. Right-to-left
/// layouts mirror the control as a whole.
public struct TrimmingSliderGeometry: Sendable, Hashable {
    /// Width of the whole control, in points.
    public var width: Double
    /// Height of the whole control, in points.
    public var height: Double
    /// Width of each trim handle, in points.
    public var handleWidth: Double
    /// Thickness of the bars along the top and bottom of the selection, in points. The frame strip
    /// fills the height between them.
    public var barThickness: Double
    /// Empty space left of the lower handle's leftmost position, in points.
    public var leftInset: Double
    /// Empty space right of the upper handle's rightmost position, in points.
    public var rightInset: Double
    /// Width of the drawn playhead line, in points.
    public var playheadWidth: Double
    /// The narrowest a thumb's touch target may be, in points; targets grow symmetrically around
    /// the drawn thumb to reach it. 44 pt is Apple's and WCAG's recommended minimum.
    public var minimumHitWidth: Double

    /// A layout of `width` × `height` points; the defaults are a 16-point handle, 3-point bars, no
    /// insets, a 2-point playhead and 44-point touch targets.
    public init(
        width: Double,
        height: Double,
        handleWidth: Double = 16,
        barThickness: Double = 3,
        leftInset: Double = 0,
        rightInset: Double = 0,
        playheadWidth: Double = 2,
        minimumHitWidth: Double = 44
    ) {
        self.width = width
        self.height = height
        self.handleWidth = handleWidth
        self.barThickness = barThickness
        self.leftInset = leftInset
        self.rightInset = rightInset
        self.playheadWidth = playheadWidth
        self.minimumHitWidth = minimumHitWidth
    }

    /// x of time 0, in points: the lower handle's inner edge at its leftmost.
    public var trackMinX: Double { leftInset + handleWidth }
    /// x of the clip's end, in points: the upper handle's inner edge at its rightmost.
    public var trackMaxX: Double { max(trackMinX, width - rightInset - handleWidth) }
    /// Points per clip, never negative.
    public var trackWidth: Double { trackMaxX - trackMinX }

    /// The x, in points, of the line at `seconds` in a clip of `duration` seconds.
    public func x(for seconds: Double, duration: Double) -> Double {
        guard duration > 0 else { return trackMinX }
        return trackMinX + seconds / duration * trackWidth
    }

    /// The time, in seconds, at `x` points; not clamped, so a finger beyond the track maps beyond
    /// the clip and the model's clamp, not this mapping, decides where a thumb stops.
    public func seconds(at x: Double, duration: Double) -> Double {
        guard trackWidth > 0 else { return 0 }
        return (x - trackMinX) / trackWidth * duration
    }

    /// The whole track, full height, in points.
    public var trackRect: TrimmingRect { TrimmingRect(minX: trackMinX, maxX: trackMaxX, minY: 0, maxY: height) }

    /// Where the frames are drawn: the track, between the top and bottom bars, in points.
    public var stripRect: TrimmingRect {
        TrimmingRect(minX: trackMinX, maxX: trackMaxX, minY: barThickness, maxY: height - barThickness)
    }

    /// The strip cell of frame `index` of `count`: the frame covering the `index`-th of `count`
    /// equal parts of the clip, placed with the same mapping as the handles, in points.
    public func frameSlotRect(index: Int, count: Int, duration: Double) -> TrimmingRect {
        precondition(count > 0 && (0..<count).contains(index), "frame slot \(index) of \(count)")
        let strip = stripRect
        guard duration > 0 else {
            let slot = trackWidth / Double(count)
            return TrimmingRect(
                minX: trackMinX + Double(index) * slot, maxX: trackMinX + Double(index + 1) * slot,
                minY: strip.minY, maxY: strip.maxY)
        }
        let start = x(for: Double(index) * duration / Double(count), duration: duration)
        let end = x(for: Double(index + 1) * duration / Double(count), duration: duration)
        return TrimmingRect(minX: start, maxX: end, minY: strip.minY, maxY: strip.maxY)
    }

    /// The selected span, between the handles' value lines, full height, in points.
    public func selectionRect(in model: TrimmingSliderModel) -> TrimmingRect {
        TrimmingRect(
            minX: x(for: model.lower, duration: model.duration),
            maxX: x(for: model.upper, duration: model.duration), minY: 0, maxY: height)
    }

    /// The drawn rectangle of `thumb`, in points. Handles are full height; the playhead spans the
    /// strip and is kept inside the selection, so it never covers a handle even at a handle's value.
    public func rect(for thumb: TrimmingThumb, in model: TrimmingSliderModel) -> TrimmingRect {
        let selection = selectionRect(in: model)
        switch thumb {
        case .lower:
            return TrimmingRect(minX: selection.minX - handleWidth, maxX: selection.minX, minY: 0, maxY: height)
        case .upper:
            return TrimmingRect(minX: selection.maxX, maxX: selection.maxX + handleWidth, minY: 0, maxY: height)
        case .playhead:
            let line = min(playheadWidth, selection.width)
            let centre = x(for: model.playhead, duration: model.duration)
            let left = min(max(centre - line / 2, selection.minX), selection.maxX - line)
            let strip = stripRect
            return TrimmingRect(minX: left, maxX: left + line, minY: strip.minY, maxY: strip.maxY)
        }
    }

    /// The horizontal span, in points, where a touch picks `thumb`: its drawn rectangle widened
    /// symmetrically to ``minimumHitWidth``. Targets may overlap; ``TrimmingSlider`` resolves that.
    public func hitRange(for thumb: TrimmingThumb, in model: TrimmingSliderModel) -> ClosedRange<Double> {
        let drawn = rect(for: thumb, in: model)
        let half = max(drawn.width, minimumHitWidth) / 2
        return (drawn.midX - half)...(drawn.midX + half)
    }

    /// The top bar of the selection frame, between the handles, in points.
    public func topBarRect(in model: TrimmingSliderModel) -> TrimmingRect {
        let selection = selectionRect(in: model)
        return TrimmingRect(minX: selection.minX, maxX: selection.maxX, minY: 0, maxY: barThickness)
    }

    /// The bottom bar of the selection frame, between the handles, in points.
    public func bottomBarRect(in model: TrimmingSliderModel) -> TrimmingRect {
        let selection = selectionRect(in: model)
        return TrimmingRect(minX: selection.minX, maxX: selection.maxX, minY: height - barThickness, maxY: height)
    }
}

extension TrimmingSliderGeometry {
    /// The frames of the strip a control of this geometry shows for a video of `displaySize`
    /// (upright) at `scale`: as many as fit the strip at the video's aspect ratio (at most 500),
    /// each as tall as the strip in pixels, so the renderer only crops the last partial one
    /// rather than scaling anything up.
    public func stripFrames(displaySize: PixelSize, scale: DisplayScale) -> (count: Int, heightPixels: Int) {
        let strip = stripRect
        let heightPixels = max(1, Int(((strip.maxY - strip.minY) * scale.value).rounded(.up)))
        let aspect = Double(displaySize.width) / Double(max(1, displaySize.height))
        let count = max(1, Int(((strip.maxX - strip.minX) / ((strip.maxY - strip.minY) * aspect)).rounded(.up)))
        return (min(count, 500), heightPixels)
    }
}
