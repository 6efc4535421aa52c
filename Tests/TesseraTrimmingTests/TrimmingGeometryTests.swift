import Testing

@testable import TesseraTrimming

@Suite("Trimming geometry: one mapping between seconds and points")
struct TrimmingGeometryTests {
    @Test(
        "value → x → value returns the value, for odd sizes and insets too",
        arguments: [
            TrimmingSliderGeometry(width: 288, height: 40),
            TrimmingSliderGeometry(width: 333.3, height: 50, handleWidth: 11, leftInset: 7.5, rightInset: 3),
        ])
    func roundTrip(geometry: TrimmingSliderGeometry) {
        for seconds in stride(from: 0.0, through: 97.0, by: 0.7) {
            let back = geometry.seconds(at: geometry.x(for: seconds, duration: 97), duration: 97)
            #expect(abs(back - seconds) < 1e-9)
        }
        #expect(geometry.x(for: 0, duration: 97) == geometry.trackMinX)
        #expect(abs(geometry.x(for: 97, duration: 97) - geometry.trackMaxX) < 1e-9)
    }

    @Test("at the extremes the handles fill the control from its insets; the track is between them")
    func extremes() {
        let geometry = TrimmingSliderGeometry(width: 300, height: 40, handleWidth: 16, leftInset: 10, rightInset: 6)
        let model = TrimmingSliderModel(duration: 20)
        #expect(geometry.rect(for: .lower, in: model) == TrimmingRect(x: 10, y: 0, width: 16, height: 40))
        #expect(geometry.rect(for: .upper, in: model) == TrimmingRect(x: 278, y: 0, width: 16, height: 40))
        #expect(geometry.trackRect == TrimmingRect(x: 26, y: 0, width: 252, height: 40))
    }

    @Test("the lower handle sits left of its value line, the upper one right of it")
    func handleConvention() {
        let model = TrimmingSliderModel(duration: 32, lower: 4, upper: 28, playhead: 16)
        let geometry = standardGeometry
        #expect(geometry.rect(for: .lower, in: model) == TrimmingRect(x: 32, y: 0, width: 16, height: 40))
        #expect(geometry.rect(for: .upper, in: model) == TrimmingRect(x: 240, y: 0, width: 16, height: 40))
        #expect(geometry.selectionRect(in: model) == TrimmingRect(x: 48, y: 0, width: 192, height: 40))
        #expect(geometry.rect(for: .playhead, in: model) == TrimmingRect(x: 143, y: 4, width: 2, height: 32))
        #expect(geometry.stripRect == TrimmingRect(x: 16, y: 4, width: 256, height: 32))
    }

    @Test("the playhead line stays inside the selection, off the handles, even at a handle's value")
    func playheadInsideSelection() {
        let atUpper = TrimmingSliderModel(duration: 32, lower: 4, upper: 28, playhead: 28)
        #expect(standardGeometry.rect(for: .playhead, in: atUpper).maxX == 240)
        let atLower = TrimmingSliderModel(duration: 32, lower: 4, upper: 28, playhead: 4)
        #expect(standardGeometry.rect(for: .playhead, in: atLower).minX == 48)
    }

    @Test("frame slots tile the track and a slot boundary at a handle's value is that handle's edge")
    func slotsShareTheMapping() {
        let model = TrimmingSliderModel(duration: 30, lower: 10, upper: 20)
        let geometry = TrimmingSliderGeometry(width: 310.7, height: 40, handleWidth: 13, leftInset: 2.3)
        let slots = (0..<6).map { geometry.frameSlotRect(index: $0, count: 6, duration: 30) }
        #expect(slots.first?.minX == geometry.trackMinX && slots.last?.maxX == geometry.trackMaxX)
        for (left, right) in zip(slots, slots.dropFirst()) { #expect(left.maxX == right.minX) }
        #expect(slots[2].minX == geometry.rect(for: .lower, in: model).maxX)
        #expect(slots[4].minX == geometry.rect(for: .upper, in: model).minX)
    }

    @Test("touch targets are at least the minimum hit width, centred on the thumb")
    func hitTargets() {
        let model = TrimmingSliderModel(duration: 32, lower: 4, upper: 28, playhead: 16)
        #expect(standardGeometry.hitRange(for: .lower, in: model) == 18...62)
        #expect(standardGeometry.hitRange(for: .playhead, in: model) == 122...166)
        var wide = standardGeometry
        wide.minimumHitWidth = 10
        #expect(wide.hitRange(for: .upper, in: model) == 240...256, "never narrower than the drawn handle")
    }
}
