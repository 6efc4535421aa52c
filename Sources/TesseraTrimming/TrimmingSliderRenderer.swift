public import TesseraCore

/// Draws a trimming slider into an RGBA bitmap without any UI framework: for tests, previews,
/// server-side thumbnails, or hosts that composite bitmaps themselves.
///
/// Layers, bottom to top: the frame strip across the track; the strip outside the selection
/// blended toward black; the top and bottom bars between the handles; the playhead; the handles.
/// Every shape comes from ``TrimmingSliderGeometry``, so the dimming edge is exactly the handle's
/// inner edge, and the playhead, kept inside the selection, never covers a handle.
/// Corners are square and edges are not anti-aliased: every edge is rounded to the nearest pixel
/// edge the same way, so shapes that meet in points meet in pixels.
///
/// Frames are scaled on every call; a host that renders on every drag move should keep the frame
/// array small (one per visible cell) rather than pass full-size decoded video frames.
public struct TrimmingSliderRenderer: Sendable {
    /// The colours drawn with.
    public var style: TrimmingSliderStyle

    /// A renderer drawing in `style`'s colours (yellow handles on a dark strip by default).
    public init(style: TrimmingSliderStyle = TrimmingSliderStyle()) {
        self.style = style
    }

    /// The control as it looks for `slider`'s model and geometry.
    public func render(_ slider: TrimmingSlider, frames: [PixelBuffer], scale: DisplayScale) -> PixelBuffer {
        render(slider.model, geometry: slider.geometry, frames: frames, scale: scale)
    }

    /// The control at `geometry.width × geometry.height` points, as an RGBA bitmap of that size
    /// times `scale` in pixels (fractions rounded up, as `PointSize.pixels(at:)` does).
    ///
    /// - Parameters:
    ///   - model: The values drawn: the selection and the playhead, in seconds.
    ///   - geometry: The layout, in points.
    ///   - frames: Thumbnails of the clip; frame `k` of `n` shows the `k`-th of `n` equal parts
    ///     of the duration. Any size, aspect and pixel format: each is centre-cropped to fill its
    ///     cell, never squashed. Empty leaves the strip in ``TrimmingSliderStyle/stripColor``.
    ///   - scale: Pixels per point of the bitmap.
    public func render(
        _ model: TrimmingSliderModel,
        geometry: TrimmingSliderGeometry,
        frames: [PixelBuffer],
        scale: DisplayScale
    ) -> PixelBuffer {
        let size = PointSize(width: geometry.width, height: geometry.height).pixels(at: scale)
        var canvas = TrimmingCanvas(
            size: PixelSize(width: max(1, size.width), height: max(1, size.height)),
            scale: scale, background: style.backgroundColor)

        drawStrip(model, geometry: geometry, frames: frames, on: &canvas)

        let strip = geometry.stripRect
        let selection = geometry.selectionRect(in: model)
        canvas.dim(
            TrimmingRect(minX: strip.minX, maxX: selection.minX, minY: strip.minY, maxY: strip.maxY),
            by: style.dimming)
        canvas.dim(
            TrimmingRect(minX: selection.maxX, maxX: strip.maxX, minY: strip.minY, maxY: strip.maxY),
            by: style.dimming)

        canvas.fill(geometry.topBarRect(in: model), with: style.barColor)
        canvas.fill(geometry.bottomBarRect(in: model), with: style.barColor)
        canvas.fill(geometry.rect(for: .playhead, in: model), with: style.playheadColor)
        for handle in [TrimmingThumb.lower, .upper] {
            let rect = geometry.rect(for: handle, in: model)
            canvas.fill(rect, with: style.handleColor)
            canvas.fill(gripRect(in: rect), with: style.gripColor)
        }
        return canvas.buffer
    }

    private func drawStrip(
        _ model: TrimmingSliderModel, geometry: TrimmingSliderGeometry, frames: [PixelBuffer],
        on canvas: inout TrimmingCanvas
    ) {
        canvas.fill(geometry.stripRect, with: style.stripColor)
        for (index, frame) in frames.enumerated() {
            let slot = geometry.frameSlotRect(index: index, count: frames.count, duration: model.duration)
            let (columns, rows) = canvas.pixels(of: slot)
            guard !columns.isEmpty, !rows.isEmpty else { continue }
            let cell = TrimmingFrameScaler.fill(frame, to: PixelSize(width: columns.count, height: rows.count))
            canvas.draw(cell, column: columns.lowerBound, row: rows.lowerBound)
        }
    }

    /// A short bar in the middle of a handle, a quarter of its width and a third of its height, so
    /// the handle reads as something to grab.
    private func gripRect(in handle: TrimmingRect) -> TrimmingRect {
        let width = handle.width / 4
        let height = handle.height / 3
        return TrimmingRect(
            x: handle.midX - width / 2, y: handle.minY + (handle.height - height) / 2,
            width: width, height: height)
    }
}
