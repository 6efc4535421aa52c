import Foundation
import Testing

/// `tessera info` and `tessera thumbnail` on animations, as a user runs them.
@Suite("Animation on the command line") struct AnimationCommandTests {
    private func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tessera-animation-\(UUID())-\(name)").path
    }

    private func info(_ path: String) throws -> [String: Any] {
        let result = try CLI.run(["info", "--json", path])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func infoReportsFramesDurationAndLoopCount() throws {
        let object = try info(CLI.fixture("animation/gif-dispose-background.gif"))
        #expect(object["frameCount"] as? Int == 4)
        // 80, 0, 10 and 120 ms stored; the 0 and the 10 show for 100 ms each.
        #expect(object["frameDurations"] as? [Double] == [0.08, 0.1, 0.1, 0.12])
        #expect((object["duration"] as? Double).map { abs($0 - 0.4) < 1e-9 } == true)
        #expect(object["loopCount"] as? Int == 0)
        let still = try info(CLI.fixture("gif-single.gif"))
        #expect(still["loopCount"] == nil && still["duration"] == nil)
        let text = try CLI.run(["info", CLI.fixture("animation/apng-dispose-blend.png")]).stdout
        #expect(text.contains("5 (0.50 s, 2 plays)"), "\(text)")
    }

    @Test(arguments: ["webp", "gif"]) func thumbnailsStayAnimatedInFormatsThatHoldAnimation(_ format: String) throws {
        let output = temporary("thumbnail.\(format)")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let input = CLI.fixture("animation/apng-dispose-blend.png")
        let result = try CLI.run(["thumbnail", input, "--max-pixel-size", "24", "--output", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("(5 frames, 0.50 s)"), "\(result.stdout)")
        let object = try info(output)
        #expect(object["format"] as? String == format)
        #expect(object["width"] as? Int == 24 && object["height"] as? Int == 20)
        #expect(object["frameCount"] as? Int == 5)
        #expect(object["loopCount"] as? Int == 2)
        #expect(object["frameDurations"] as? [Double] == [0.1, 0.06, 0.1, 0.04, 0.2])
    }

    @Test func aFrameOrTheFirstFrameGivesAStill() throws {
        let input = CLI.fixture("animation/gif-dispose-previous.gif")
        for (flags, expectedFrames) in [(["--frame", "2"], 1), (["--first-frame"], 1)] {
            let output = temporary("still.webp")
            defer { try? FileManager.default.removeItem(atPath: output) }
            let result = try CLI.run(["thumbnail", input, "--max-pixel-size", "24", "--output", output] + flags)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try info(output)["frameCount"] as? Int == expectedFrames)
        }
        let missing = try CLI.run(["thumbnail", input, "--max-pixel-size", "24", "--frame", "4", "--output", temporary("x.png")])
        #expect(missing.status == 65)
        #expect(missing.stderr == "tessera: \(input): there is no frame 4: the image has 4 (numbered from 0)\n")
        let both = try CLI.run(["thumbnail", input, "--max-pixel-size", "24", "--frame", "1", "--first-frame", "--output", temporary("x.png")])
        #expect(both.status == 64)
    }

    #if canImport(Glibc)
        /// 4000 frames of 2048×2048 in 92 KB: too much to compose, so the first frame comes out, still,
        /// with a warning, in bounded memory.
        @Test func anAnimationTooLongToComposeFallsBackToItsFirstFrame() throws {
            let output = temporary("bomb.webp")
            defer { try? FileManager.default.removeItem(atPath: output) }
            let input = CLI.fixture("bombs/frames-4000.gif")
            let result = try CLI.measure(["thumbnail", input, "--max-pixel-size", "64", "--output", output])
            #expect(result.status == 0)
            #expect(result.stderr.contains("animation not kept") && result.stderr.contains("first frame only"), "\(result.stderr)")
            CLI.expectResident(result.peakResidentBytes, "thumbnail")
            #expect(try info(output)["frameCount"] as? Int == 1)
        }
    #endif
}
