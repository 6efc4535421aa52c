import Testing

@testable import TesseraTrimming

/// Slider from `makeSlider`: lower 4 s (x 48), upper 28 s (x 240), playhead 16 s (x 144), 8 pt/s.
@Suite("Trimming tracking: the thumb stays under the finger")
struct TrimmingTrackingTests {
    @Test("grabbed off-centre, the value follows the finger minus the grab offset")
    func followsFinger() {
        var slider = makeSlider()
        #expect(slider.touchBegan(x: 44) == [.editingBegan(.lower)])
        #expect(slider.model.lower == 4, "grabbing does not move the thumb")
        _ = slider.touchMoved(x: 100)
        #expect(slider.model.lower == 11, "x 100 + 4 pt offset = 104 → 11 s")
        #expect(slider.geometry.x(for: slider.model.lower, duration: 32) == 104)
    }

    @Test("after a clamp the thumb meets the finger again exactly where it left it")
    func noDriftAfterClamp() {
        var slider = makeSlider()
        _ = slider.touchBegan(x: 44)
        _ = slider.touchMoved(x: 300)
        #expect(slider.model.lower == 26, "stopped 2 s before the upper handle")
        _ = slider.touchMoved(x: 60)
        #expect(slider.model.lower == 6)
        _ = slider.touchMoved(x: -100)
        #expect(slider.model.lower == 0)
        _ = slider.touchEnded(x: 52)
        #expect(slider.model.lower == 5)
    }

    @Test("a drag stops at the minimum in seconds, whatever the control's width", arguments: [288.0, 1000.0, 120.0])
    func minimumIndependentOfWidth(width: Double) {
        var slider = makeSlider(geometry: TrimmingSliderGeometry(width: width, height: 40))
        _ = slider.touchBegan(x: slider.geometry.rect(for: .upper, in: slider.model).midX)
        _ = slider.touchMoved(x: 0)
        #expect(slider.model.upper == 6, "stops 2 s after the lower handle at 4 s")
    }

    @Test("the playhead is dragged from where it was grabbed, too")
    func playheadDrag() {
        var slider = makeSlider()
        #expect(slider.touchBegan(x: 150) == [.editingBegan(.playhead)])
        #expect(slider.touchMoved(x: 166) == [.valueChanged(.playhead, source: .user)])
        #expect(slider.model.playhead == 18)
    }

    @Test("a playhead parked on the upper handle does not hide it: the handle wins the touch")
    func handleBeatsPlayhead() {
        var slider = makeSlider(playhead: 28)
        #expect(slider.hitTest(x: 239) == .thumb(.upper), "on the playhead line itself")
        #expect(slider.hitTest(x: 220) == .thumb(.playhead), "only the playhead's target reaches here")
        #expect(slider.touchBegan(x: 239) == [.editingBegan(.upper)])
        _ = slider.touchMoved(x: 263)
        #expect(slider.model.upper == 31)
    }

    @Test("overlapping handles: the touch's side of the shared point picks, unless that one cannot move")
    func overlappingHandles() {
        let middle = makeSlider(lower: 10, upper: 12, playhead: 10)  // value lines at 96 and 112
        #expect(middle.hitTest(x: 100) == .thumb(.lower))
        #expect(middle.hitTest(x: 108) == .thumb(.upper))
        let atStart = makeSlider(lower: 0, upper: 2, playhead: 0)  // lower is stuck at 0…0
        #expect(atStart.hitTest(x: 20) == .thumb(.upper))
        let atEnd = makeSlider(lower: 30, upper: 32, playhead: 30)  // upper is stuck at 32…32
        #expect(atEnd.hitTest(x: 268) == .thumb(.lower))
    }

    @Test("touching the track moves the playhead there, clamped into the selection")
    func trackTouch() {
        var slider = makeSlider(lower: 4, upper: 28, playhead: 4)
        #expect(slider.hitTest(x: 184) == .track)
        #expect(slider.touchBegan(x: 184) == [.editingBegan(.playhead), .valueChanged(.playhead, source: .user)])
        #expect(slider.model.playhead == 21)
        _ = slider.touchMoved(x: 192)
        #expect(slider.model.playhead == 22, "then it drags with no offset")
        _ = slider.touchEnded(x: 192)
        var dimmed = makeSlider(lower: 10, upper: 20, playhead: 15)
        _ = dimmed.touchBegan(x: 20)
        #expect(dimmed.model.playhead == 10, "a touch on the dimmed part lands on the selection's edge")
        var outside = makeSlider(lower: 10, upper: 20, playhead: 15)
        #expect(outside.touchBegan(x: 2).isEmpty && outside.touchMoved(x: 100).isEmpty)
    }

    @Test("a drag reports began, user changes for everything it moves, then ended")
    func dragEvents() {
        var slider = makeSlider()
        #expect(slider.touchBegan(x: 44) == [.editingBegan(.lower)])
        #expect(slider.touchMoved(x: 44).isEmpty, "no change, no event")
        #expect(
            slider.touchMoved(x: 196) == [
                .valueChanged(.lower, source: .user), .valueChanged(.playhead, source: .user),
            ])
        #expect(slider.touchBegan(x: 239).isEmpty, "a second pointer is ignored while one is tracked")
        #expect(slider.touchEnded(x: 196) == [.editingEnded(.lower)])
        #expect(slider.activeThumb == nil && slider.touchMoved(x: 10).isEmpty)
    }

    @Test("a cancelled drag ends editing and keeps the values")
    func cancel() {
        var slider = makeSlider()
        _ = slider.touchBegan(x: 244)
        _ = slider.touchMoved(x: 228)
        #expect(slider.touchCancelled() == [.editingEnded(.upper)])
        #expect(slider.model.upper == 26 && slider.touchCancelled().isEmpty)
    }

    @Test("setters report programmatic changes only, never editing, even mid-drag")
    func programmaticEvents() {
        var slider = makeSlider()
        #expect(slider.setValue(20, for: .playhead) == [.valueChanged(.playhead, source: .programmatic)])
        #expect(slider.setValue(20, for: .playhead).isEmpty)
        #expect(
            slider.setValue(18, for: .upper) == [
                .valueChanged(.upper, source: .programmatic), .valueChanged(.playhead, source: .programmatic),
            ])
        _ = slider.touchBegan(x: 44)
        #expect(
            slider.setSelection(lower: 8, upper: 16) == [
                .valueChanged(.lower, source: .programmatic), .valueChanged(.upper, source: .programmatic),
                .valueChanged(.playhead, source: .programmatic),
            ])
        #expect(slider.activeThumb == .lower)
    }
}
