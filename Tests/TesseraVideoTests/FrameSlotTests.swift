import Testing

@testable import TesseraVideo

@Suite("Frame slots")
struct FrameSlotTests {
    @Test("N equal slots cover the whole duration, each aimed at its centre")
    func equalSlots() {
        let slots = FrameSlot.slots(duration: 60, count: 20)
        #expect(slots.count == 20)
        #expect(slots.first!.start == 0 && slots.first!.target == 1.5)
        #expect(slots.last!.end == 60)
        #expect(slots.last!.target == 58.5)
        for (previous, next) in zip(slots, slots.dropFirst()) { #expect(previous.end == next.start) }
    }

    @Test("a clip under a second is cut as finely as any other, to its last slot")
    func subSecondClip() {
        let slots = FrameSlot.slots(duration: 0.5, count: 4)
        #expect(slots.map(\.target) == [0.0625, 0.1875, 0.3125, 0.4375])
        #expect(slots.last!.end == 0.5)
    }

    @Test("one slot aims at the middle; no slots for nothing")
    func edges() {
        #expect(FrameSlot.slots(duration: 7, count: 1).map(\.target) == [3.5])
        #expect(FrameSlot.slots(duration: 0, count: 4).isEmpty)
        #expect(FrameSlot.slots(duration: 4, count: 0).isEmpty)
        #expect(FrameSlot.slots(duration: .infinity, count: 3).isEmpty)
    }
}
