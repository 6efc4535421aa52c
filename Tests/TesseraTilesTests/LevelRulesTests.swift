import Foundation
import TesseraTiles
import TesseraViewing
import Testing

/// The level-choice cases of Tests/Fixtures/rules/levels.json, which the web viewer's `level.js`
/// also runs (Tests/Browser/test_viewer.py): the two implementations cannot drift apart.
@Suite("Level rules shared with the web viewer")
struct LevelRulesTests {
    struct Rules: Decodable {
        struct Case: Decodable {
            let zoom: Double
            let devicePixelRatio: Double
            let levelCount: Int
            let bias: Double
            let reduction: Int
        }

        let cases: [Case]
    }

    @Test func everySharedCaseChoosesTheExpectedLevel() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/rules/levels.json")
        let rules = try JSONDecoder().decode(Rules.self, from: Data(contentsOf: url))
        #expect(rules.cases.count >= 20)
        for rule in rules.cases {
            let chosen = LevelSelector(bias: rule.bias).reduction(
                screenPixelsPerImagePixel: rule.zoom * rule.devicePixelRatio, levelCount: rule.levelCount)
            #expect(chosen == rule.reduction, "zoom \(rule.zoom) × dpr \(rule.devicePixelRatio), \(rule.levelCount) levels, bias \(rule.bias)")
        }
    }
}
