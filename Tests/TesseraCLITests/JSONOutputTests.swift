import Foundation
import Testing

/// `tile`, `render` and `load` as a user runs them, and the exact key set of every `--json` line
/// (the keys the README lists; scripts rely on them).
@Suite("tile, render, load and the JSON keys of every command")
struct JSONOutputTests {
    static func objects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    @Test("info, thumbnail, tile, load, strip and trim print exactly their documented keys")
    func keys() throws {
        let directory = try CLI.scratchURL("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = CLI.fixture("photo-400x300.png")
        let video = CLI.fixture("video/gop1.mp4")

        let info = try Self.objects(try CLI.run(["info", image, video, "--json"]).stdout)
        #expect(
            Set(info[0].keys) == [
                "path", "format", "width", "height", "orientation", "displayWidth", "displayHeight",
                "hasAlpha", "bitsPerComponent", "colorModel", "frameCount", "progressive", "fileBytes",
                "decodedBytes",
            ])
        #expect(
            Set(info[1].keys) == [
                "path", "format", "codec", "width", "height", "clockwiseRotation", "displayWidth",
                "displayHeight", "duration", "frameRate", "frameCount", "keyframeCount", "hasAudio",
                "frameBytes",
            ])
        #expect(info[0]["width"] as? Int == 400 && info[1]["format"] as? String == "video")

        let thumbnail = try Self.objects(
            try CLI.run([
                "thumbnail", image, "--max-pixel-size", "100",
                "--output-dir", directory.path, "--json",
            ]).stdout)
        #expect(
            Set(thumbnail[0].keys) == [
                "input", "output", "sourceWidth", "sourceHeight", "width", "height", "decodeScale",
                "decodedBytes", "ms",
            ])
        #expect(thumbnail[0]["width"] as? Int == 100 && thumbnail[0]["height"] as? Int == 75)
        let failed = try Self.objects(
            try CLI.run([
                "thumbnail", CLI.fixture("broken-empty.png"), "--max-pixel-size", "100",
                "--output-dir", directory.path, "--json",
            ]).stdout)
        #expect(Set(failed[0].keys) == ["input", "error"])

        let tile = try Self.objects(try CLI.run(["tile", image, "--output", directory.path, "--json"]).stdout)
        #expect(Set(tile[0].keys) == ["layout", "levels", "tiles", "bytes", "ms"])
        #expect(tile[0]["layout"] as? String == "dzi" && tile[0]["levels"] as? Int == 10)

        let load = try Self.objects(
            try CLI.run([
                "load", image, "--size", "50x50", "--scale", "2", "--repeat", "2",
                "--concurrency", "1", "--cache-dir", directory.appendingPathComponent("cache").path,
                "--json",
            ]).stdout)
        #expect(load.count == 3)
        #expect(Set(load[0].keys) == ["url", "source", "width", "height", "decodedBytes", "ms"])
        #expect(Set(load[2].keys) == ["summary", "requests", "networkFetches", "diskHits", "memoryHits", "decodes", "failures"])
        #expect(load[2]["requests"] as? Int == 2 && load[2]["memoryHits"] as? Int == 1)

        let strip = try Self.objects(
            try CLI.run([
                "strip", video, "--frames", "3", "--output",
                directory.appendingPathComponent("s.jpg").path, "--json",
            ]).stdout)
        #expect(Set(strip[0].keys) == ["duration", "frames", "ms"])
        let frames = try #require(strip[0]["frames"] as? [[String: Any]])
        #expect(frames.count == 3)
        #expect(Set(frames[0].keys) == ["index", "target", "time", "x", "y", "width", "height", "filledFrom"])

        let trim = try Self.objects(
            try CLI.run([
                "trim", video, "--from", "1", "--to", "2", "--output",
                directory.appendingPathComponent("c.mp4").path, "--json",
            ]).stdout)
        #expect(Set(trim[0].keys) == ["requestedStart", "start", "end", "duration"])
    }

    @Test("tile writes a pyramid that render draws; render --no-wait draws the placeholder level")
    func tileThenRender() throws {
        let directory = try CLI.scratchURL("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tiled = try CLI.run([
            "tile", CLI.fixture("photo-400x300.png"), "--layout", "iiif", "--tile-size", "128",
            "--output", directory.path, "--name", "photo",
        ])
        #expect(tiled.status == 0, "\(tiled.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("photo/info.json").path))
        for wait in [true, false] {
            let output = directory.appendingPathComponent(wait ? "full.png" : "first.png").path
            let rendered = try CLI.run(
                [
                    "render", directory.appendingPathComponent("photo/info.json").path,
                    "--viewport", "200x150", "--scale", "2", "--output", output,
                ] + (wait ? [] : ["--no-wait"]))
            #expect(rendered.status == 0, "\(rendered.stderr)")
            let info = try Self.objects(try CLI.run(["info", output, "--json"]).stdout)
            #expect(info.first?["width"] as? Int == 400 && info.first?["height"] as? Int == 300)
        }
        let missing = try CLI.run([
            "render", directory.appendingPathComponent("nothing.dzi").path, "--viewport", "10x10",
            "--output", directory.appendingPathComponent("n.png").path,
        ])
        #expect(missing.status == 66 && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }

    @Test("render of an image file draws what render of its built pyramid draws, with no pyramid; a broken file fails in one line")
    func renderAnImageFile() throws {
        let directory = try CLI.scratchURL("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = CLI.fixture("photo-400x300.png")
        // Lossless tiles, so both draw the same pixels: the builder's levels are the region core's.
        let tiled = try CLI.run([
            "tile", photo, "--layout", "iiif", "--tile-size", "256", "--format", "png",
            "--output", directory.path, "--name", "photo",
        ])
        #expect(tiled.status == 0, "\(tiled.stderr)")
        for view in [["--viewport", "200x150"], ["--viewport", "120x90", "--zoom", "0.5", "--center", "300,220"]] {
            var drawn: [Data] = []
            for source in [photo, directory.appendingPathComponent("photo/info.json").path] {
                let output = directory.appendingPathComponent("view-\(drawn.count).png").path
                let rendered = try CLI.run(["render", source, "--output", output] + view)
                #expect(rendered.status == 0, "\(rendered.stderr)")
                drawn.append(try Data(contentsOf: URL(fileURLWithPath: output)))
            }
            #expect(drawn[0] == drawn[1], "\(view)")
        }
        let broken = try CLI.run([
            "render", CLI.fixture("broken-truncated.jpg"), "--viewport", "64x64",
            "--output", directory.appendingPathComponent("b.png").path,
        ])
        #expect(broken.status != 0 && broken.stderr.split(separator: "\n").count == 1, "\(broken.stderr)")
        #expect(broken.stderr.contains("broken-truncated.jpg"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("b.png").path))
    }

    @Test("load of a missing file and an unreachable loopback URL: a line each, the others load")
    func loadFailures() throws {
        let directory = try CLI.scratchURL("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CLI.run([
            "load", CLI.fixture("jpeg-baseline.jpg"), directory.appendingPathComponent("none.jpg").path,
            "http://127.0.0.1:9/none.jpg", "--size", "10x10", "--cache-dir", directory.path, "--json",
        ])
        #expect(result.status != 0)
        #expect(result.stderr.split(separator: "\n").count == 2, "\(result.stderr)")
        let lines = try Self.objects(result.stdout)
        #expect(lines.filter { $0["source"] != nil }.count == 1)
        #expect(lines.filter { $0["error"] != nil }.count == 2)
    }

    /// Found by the fuzz harness FuzzCacheHeaders (issue 16): without Foundation in the process, as in
    /// `tessera`, the disk cache read a file's size as nil, so every lookup dropped the entry it found
    /// and nothing kept on disk was ever used again. Only a process without Foundation shows it, so it
    /// is checked through the executable, not in TesseraPipelineTests (which import Foundation).
    @Test("a second load with the same --cache-dir is served from the disk cache the first one filled")
    func diskCacheAcrossRuns() throws {
        let directory = try CLI.scratchURL("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let arguments = [
            "load", CLI.fixture("jpeg-baseline.jpg"), "--size", "32x32",
            "--cache-dir", directory.appendingPathComponent("cache").path, "--json",
        ]
        let first = try #require(try Self.objects(try CLI.run(arguments).stdout).last)
        #expect(first["networkFetches"] as? Int == 1 && first["diskHits"] as? Int == 0)
        let second = try #require(try Self.objects(try CLI.run(arguments).stdout).last)
        #expect(second["networkFetches"] as? Int == 0 && second["diskHits"] as? Int == 1)
    }

    /// `tile --keep-profile` embeds the source's profile in every tile; by default tiles are converted
    /// and untagged.
    @Test func tilesKeepTheProfileOnlyWhenAsked() throws {
        let directory = try CLI.scratchURL("cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = CLI.fixture("colour/adobe-rgb.png")
        let described = try Self.objects(try CLI.run(["info", source, "--json"]).stdout)[0]["iccProfile"] as? String
        #expect(described == "Compatible with Adobe RGB (1998)")
        for keep in [false, true] {
            let output = directory.appendingPathComponent(keep ? "kept" : "converted").path
            _ = try CLI.run(["tile", source, "--layout", "xyz", "--output", output] + (keep ? ["--keep-profile"] : []))
            let tiles = try FileManager.default.subpathsOfDirectory(atPath: output).filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".jpeg") }
            #expect(!tiles.isEmpty)
            for tile in tiles {
                let info = try Self.objects(try CLI.run(["info", output + "/" + tile, "--json"]).stdout)[0]
                #expect(info["iccProfile"] as? String == (keep ? described : nil), "\(tile)")
            }
        }
    }
}
