import Foundation
import Testing

@testable import TesseraTrimming

/// Tests/Fixtures/rules/trimming.json: the trimming slider's rules as data, shared with the web
/// trimmer, whose `trim-model.js` ports ``TrimmingSlider`` (Tests/Browser/test_trimmer.py runs the
/// same sequences through it in Chromium). Swift is the source of truth, so every expected value,
/// hit, element and event in the file is checked here against the real slider, exactly: the port
/// keeps Swift's order of operations, so both give the same doubles.
enum TrimmingRules {
    static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/rules/trimming.json")

    struct File: Decodable {
        let geometries: [String: Geometry]
        let sequences: [Sequence]
    }

    /// ``TrimmingSliderGeometry``'s fields, in points, every one given.
    struct Geometry: Decodable {
        let width, height, handleWidth, barThickness, leftInset, rightInset, playheadWidth, minimumHitWidth: Double
    }

    /// ``TrimmingSliderModel``'s initializer arguments; `framesPerSecond` stands for the frame times
    /// ``TrimmingSliderModel/frameTimes(duration:framesPerSecond:)`` gives.
    struct Model: Decodable, Sendable {
        let duration: Double
        let minimumDuration: Double?
        let maximumDuration: Double?
        let framesPerSecond: Double?
        let frameTimes: [Double]?
        let lower: Double?
        let upper: Double?
        let playhead: Double?
    }

    struct Sequence: Decodable, Sendable {
        let name: String
        let model: Model
        let geometry: String
        /// The values right after the initializer clamped and snapped the model's.
        let initial: State
        let steps: [Step]
    }

    /// One call on the slider and what must hold after it. `do` names the call: `touchBegan`,
    /// `touchMoved`, `touchEnded` (with `x`), `touchCancelled`, `setValue` (`thumb`, `seconds`),
    /// `setSelection` (`lower`, `upper`), `perform` (`action`, `thumb`), `resize` (a new `width`),
    /// and the queries `hitTest` (`x`; `expect.hit`) and `accessibility` (`expect.elements`).
    struct Step: Decodable, Sendable {
        let `do`: String
        let x: Double?
        let thumb: String?
        let seconds: Double?
        let lower: Double?
        let upper: Double?
        let action: String?
        let width: Double?
        let expect: Expectation
    }

    struct State: Decodable, Sendable {
        let lower: Double
        let upper: Double
        let playhead: Double
        let activeThumb: String?
    }

    struct Expectation: Decodable, Sendable {
        let lower: Double
        let upper: Double
        let playhead: Double
        let activeThumb: String?
        let events: [Event]
        /// "lower", "upper", "playhead", "track" or "none".
        let hit: String?
        /// Start, playhead, end: ``TrimmingSlider/accessibilityElements``.
        let elements: [Element]?
    }

    struct Event: Decodable, Sendable, Equatable, CustomStringConvertible {
        let type: String
        let thumb: String
        let source: String?

        init(type: String, thumb: TrimmingThumb, source: TrimmingEventSource? = nil) {
            self.type = type
            self.thumb = thumb.rawValue
            self.source = source.map { $0 == .user ? "user" : "programmatic" }
        }

        init(_ event: TrimmingSliderEvent) {
            switch event {
            case .editingBegan(let thumb): self.init(type: "editingBegan", thumb: thumb)
            case .valueChanged(let thumb, let source): self.init(type: "valueChanged", thumb: thumb, source: source)
            case .editingEnded(let thumb): self.init(type: "editingEnded", thumb: thumb)
            }
        }

        var description: String { "\(type)(\(thumb)\(source.map { ", \($0)" } ?? ""))" }
    }

    struct Element: Decodable, Sendable, Equatable {
        let thumb: String
        let label: String
        let value: Double
        let valueText: String
        let minimum: Double
        let maximum: Double
        let minimumText: String
        let maximumText: String

        init(_ element: TrimmingAccessibilityElement) {
            thumb = element.thumb.rawValue
            label = element.label
            value = element.value
            valueText = element.valueText
            minimum = element.minimum
            maximum = element.maximum
            minimumText = element.minimumText
            maximumText = element.maximumText
        }
    }

    /// A sequence with its geometry looked up, named for the test report.
    struct Case: Sendable, CustomTestStringConvertible {
        let sequence: Sequence
        let geometry: TrimmingSliderGeometry
        var testDescription: String { sequence.name }
    }

    static func load() throws -> File {
        try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
    }

    static func cases() throws -> [Case] {
        let file = try load()
        return try file.sequences.map { sequence in
            guard let g = file.geometries[sequence.geometry] else { throw Missing.geometry(sequence.geometry) }
            return Case(
                sequence: sequence,
                geometry: TrimmingSliderGeometry(
                    width: g.width, height: g.height, handleWidth: g.handleWidth, barThickness: g.barThickness,
                    leftInset: g.leftInset, rightInset: g.rightInset, playheadWidth: g.playheadWidth,
                    minimumHitWidth: g.minimumHitWidth))
        }
    }

    enum Missing: Error {
        case geometry(String)
    }
}

@Suite("Trimming rules shared with the web trimmer (Tests/Fixtures/rules/trimming.json)")
struct TrimmingRulesTests {
    @Test("the real TrimmingSlider gives every expected value, hit, element and event", arguments: try TrimmingRules.cases())
    func sequence(_ rules: TrimmingRules.Case) throws {
        let model = rules.sequence.model
        let frameTimes =
            model.framesPerSecond.map {
                TrimmingSliderModel.frameTimes(duration: model.duration, framesPerSecond: $0)
            } ?? model.frameTimes
        var slider = TrimmingSlider(
            model: TrimmingSliderModel(
                duration: model.duration, minimumDuration: model.minimumDuration ?? 0,
                maximumDuration: model.maximumDuration, frameTimes: frameTimes, lower: model.lower ?? 0,
                upper: model.upper, playhead: model.playhead),
            geometry: rules.geometry)
        let initial = rules.sequence.initial
        #expect(
            slider.model.lower == initial.lower && slider.model.upper == initial.upper
                && slider.model.playhead == initial.playhead && slider.activeThumb?.rawValue == initial.activeThumb,
            "initial values: got \(slider.model.lower), \(slider.model.upper), \(slider.model.playhead)")

        for (index, step) in rules.sequence.steps.enumerated() {
            let at = Comment(rawValue: "step \(index + 1), \(step.do)")
            var events: [TrimmingSliderEvent] = []
            var hit: String?
            var elements: [TrimmingRules.Element]?
            switch step.do {
            case "touchBegan": events = slider.touchBegan(x: try #require(step.x, at))
            case "touchMoved": events = slider.touchMoved(x: try #require(step.x, at))
            case "touchEnded": events = slider.touchEnded(x: try #require(step.x, at))
            case "touchCancelled": events = slider.touchCancelled()
            case "setValue":
                events = slider.setValue(try #require(step.seconds, at), for: try thumb(step.thumb, at))
            case "setSelection":
                events = slider.setSelection(lower: try #require(step.lower, at), upper: try #require(step.upper, at))
            case "perform":
                let name = try #require(step.action, at)
                let action = try #require(TrimmingAccessibilityAction.allCases.first { "\($0)" == name }, at)
                events = slider.perform(action, on: try thumb(step.thumb, at))
            case "resize": slider.geometry.width = try #require(step.width, at)
            case "hitTest":
                switch slider.hitTest(x: try #require(step.x, at)) {
                case .thumb(let thumb): hit = thumb.rawValue
                case .track: hit = "track"
                case nil: hit = "none"
                }
            case "accessibility": elements = slider.accessibilityElements.map(TrimmingRules.Element.init)
            default: Issue.record("step \(index + 1): unknown call \(step.do)"); continue
            }
            let expect = step.expect
            #expect(slider.model.lower == expect.lower, at)
            #expect(slider.model.upper == expect.upper, at)
            #expect(slider.model.playhead == expect.playhead, at)
            #expect(slider.activeThumb?.rawValue == expect.activeThumb, at)
            #expect(events.map(TrimmingRules.Event.init) == expect.events, at)
            #expect(hit == expect.hit, at)
            #expect(elements == expect.elements, at)
        }
    }

    @Test("the file exercises every call, query, hit and accessibility action")
    func coverage() throws {
        let steps = try TrimmingRules.load().sequences.flatMap(\.steps)
        let kinds = Set(steps.map(\.do))
        #expect(
            kinds == [
                "touchBegan", "touchMoved", "touchEnded", "touchCancelled", "setValue", "setSelection",
                "perform", "resize", "hitTest", "accessibility",
            ])
        #expect(Set(steps.compactMap(\.action)) == Set(TrimmingAccessibilityAction.allCases.map { "\($0)" }))
        #expect(Set(steps.compactMap(\.expect.hit)) == ["lower", "upper", "playhead", "track", "none"])
    }

    private func thumb(_ name: String?, _ comment: Comment) throws -> TrimmingThumb {
        try #require(name.flatMap(TrimmingThumb.init(rawValue:)), comment)
    }
}
