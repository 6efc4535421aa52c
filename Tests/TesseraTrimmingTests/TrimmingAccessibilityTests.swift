import Testing

@testable import TesseraTrimming

@Suite("Trimming accessibility: the WAI-ARIA multi-thumb slider")
struct TrimmingAccessibilityTests {
    @Test(
        "times read m:ss.t, with hours from one hour",
        arguments: [
            (12.5, "0:12.5"), (3723, "1:02:03.0"), (0, "0:00.0"), (59.96, "1:00.0"),
            (600.04, "10:00.0"), (3599.96, "1:00:00.0"), (-2, "0:00.0"), (65.25, "1:05.3"),
        ])
    func timeText(seconds: Double, text: String) {
        #expect(TrimmingTimeFormat.string(seconds: seconds) == text)
    }

    @Test("each thumb has its label, value text and limits set by the other values")
    func elements() {
        let slider = makeSlider(minimumDuration: 2, lower: 4, upper: 28, playhead: 12.5)
        let elements = slider.accessibilityElements
        #expect(elements.map(\.label) == ["Start", "Playhead", "End"])
        let start = slider.accessibilityElement(for: .lower)
        #expect(start.value == 4 && start.valueText == "0:04.0" && start.minimum == 0 && start.maximum == 26)
        let end = slider.accessibilityElement(for: .upper)
        #expect(end.minimum == 6 && end.maximum == 32 && end.maximumText == "0:32.0")
        let playhead = slider.accessibilityElement(for: .playhead)
        #expect(playhead.valueText == "0:12.5" && playhead.minimum == 4 && playhead.maximum == 28)
    }

    @Test("without frame times a step is 1 s and a page 10 s; home and end reach the limits")
    func secondSteps() {
        var slider = makeSlider(minimumDuration: 2, lower: 4, upper: 28, playhead: 16)
        #expect(
            slider.perform(.increment, on: .lower) == [
                .editingBegan(.lower), .valueChanged(.lower, source: .user), .editingEnded(.lower),
            ])
        #expect(slider.model.lower == 5)
        _ = slider.perform(.pageUp, on: .lower)
        #expect(slider.model.lower == 15)
        _ = slider.perform(.decrement, on: .lower)
        #expect(slider.model.lower == 14)
        _ = slider.perform(.pageDown, on: .upper)
        #expect(slider.model.upper == 18)
        _ = slider.perform(.end, on: .lower)
        #expect(slider.model.lower == 16 && slider.model.playhead == 16)
        #expect(slider.perform(.pageUp, on: .lower).isEmpty, "already at its limit: nothing to report")
        _ = slider.perform(.home, on: .lower)
        #expect(slider.model.lower == 0)
        _ = slider.perform(.end, on: .playhead)
        #expect(slider.model.playhead == 18)
    }

    @Test("limits follow the other handle, including a maximum length")
    func limitsFollow() {
        var slider = makeSlider(minimumDuration: 2, maximumDuration: 10, lower: 4, upper: 12, playhead: 4)
        #expect(slider.accessibilityElement(for: .lower).minimum == 2)
        #expect(slider.accessibilityElement(for: .upper).maximum == 14)
        _ = slider.perform(.end, on: .upper)
        #expect(slider.model.upper == 14)
        #expect(slider.accessibilityElement(for: .lower).maximum == 12)
        #expect(slider.accessibilityElement(for: .lower).minimum == 4)
        _ = slider.perform(.home, on: .lower)
        #expect(slider.model.lower == 4, "the maximum length holds the start where it is")
    }

    @Test("with frame times a step is one frame and a page ten")
    func frameSteps() {
        let times = TrimmingSliderModel.frameTimes(duration: 32, framesPerSecond: 4)
        var slider = makeSlider(frameTimes: times, lower: 4, upper: 28, playhead: 10)
        _ = slider.perform(.increment, on: .playhead)
        #expect(slider.model.playhead == 10.25)
        _ = slider.perform(.pageDown, on: .playhead)
        #expect(slider.model.playhead == 7.75)
        _ = slider.perform(.decrement, on: .upper)
        #expect(slider.model.upper == 27.75)
        var uneven = makeSlider(duration: 5, minimumDuration: 0, frameTimes: [0, 1, 3, 3.5], lower: 0, upper: 5, playhead: 1)
        _ = uneven.perform(.increment, on: .playhead)
        #expect(uneven.model.playhead == 3, "the next frame, however far")
    }

    @Test("an action during a drag of the same thumb adds changes but no second editing session")
    func actionDuringDrag() {
        var slider = makeSlider()
        _ = slider.touchBegan(x: 44)
        #expect(slider.perform(.increment, on: .lower) == [.valueChanged(.lower, source: .user)])
        #expect(
            slider.perform(.increment, on: .upper) == [
                .editingBegan(.upper), .valueChanged(.upper, source: .user), .editingEnded(.upper),
            ])
    }
}
