import Foundation
import Testing

/// `tessera info` on slides and pyramidal TIFFs: the levels a kind reads natively, and a slide's
/// scale, beside the header facts; a slide whose tiles the codecs' probe refuses (missing ones)
/// is still described. `tessera convert` writes such a pyramid.
@Suite struct SlideCommandTests {
    /// A 256×256 Aperio slide (scripts/make-slide-fixtures.py --size 256x256, levels 1/4/16, MPP
    /// 0.25), committed as the FuzzSlide harness's seed; the "missing" one lacks its level-1 tile.
    static func slide(_ name: String) -> String {
        CLI.fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/FuzzSlide/\(name)").path
    }

    @Test func infoGivesASlidesLevelsDownsamplesAndScale() throws {
        for name in ["aperio-tables-256.svs", "aperio-missing-256.svs"] {
            let result = try CLI.run(["info", "--json", Self.slide(name)])
            #expect(result.status == 0, "\(result.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(object["width"] as? Int == 256 && object["format"] as? String == "tiff")
            let source = try #require(object["source"] as? [String: Any])
            #expect(source["kind"] as? String == "aperio")
            #expect(source["micronsPerPixel"] as? Double == 0.25)
            let levels = try #require(source["levels"] as? [[String: Int]])
            #expect(levels.map { $0["width"] } == [256, 64, 16])
            #expect(levels.map { $0["downsample"] } == [1, 4, 16])
            #expect(levels.allSatisfy { $0["tileWidth"] == 256 && $0["tileHeight"] == 256 })
        }
        let table = try CLI.run(["info", Self.slide("aperio-tables-256.svs")]).stdout
        #expect(table.contains("aperio") && table.contains("256×256, 64×64 (4), 16×16 (16)") && table.contains("0.2500"), "\(table)")
    }

    @Test func convertWritesAPyramidalTIFFThatServesInPlace() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-\(UUID()).tif").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let result = try CLI.run(["convert", CLI.fixture("photo-400x300.png"), output, "--lossless"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(try CLI.run(["info", "--json", output]).stdout.utf8)) as? [String: Any])
        let source = try #require(object["source"] as? [String: Any])
        #expect(source["kind"] as? String == "tiff-pyramid" && source["micronsPerPixel"] == nil)
        #expect((source["levels"] as? [[String: Int]])?.map { $0["width"] } == [400, 200])
        // Read back, the full level is the PNG's pixels exactly.
        let back = output + ".png"
        defer { try? FileManager.default.removeItem(atPath: back) }
        #expect(try CLI.run(["convert", output, back]).status == 0)
        let original = output + ".original.png"
        defer { try? FileManager.default.removeItem(atPath: original) }
        #expect(try CLI.run(["convert", CLI.fixture("photo-400x300.png"), original]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == Data(contentsOf: URL(fileURLWithPath: original)))
        // What a pyramid cannot take is refused before anything is read.
        let refused = try CLI.run(["convert", CLI.fixture("photo-400x300.png"), output, "--auto-orient"])
        #expect(refused.status == 64 && refused.stderr.contains("pyramidal TIFF"), "\(refused.stderr)")
    }

    @Test func anImageNoKindReadsHasNoSource() throws {
        let result = try CLI.run(["info", "--json", CLI.fixture("jpeg-baseline.jpg")])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["source"] == nil && object["format"] as? String == "jpeg")
        #expect(!(try CLI.run(["info", CLI.fixture("jpeg-baseline.jpg")]).stdout.contains("KIND")))
    }
}
