import Foundation
import Testing

@Suite("Renditions: tessera renditions writes an Xcode image set")
struct RenditionsCommandTests {
    /// A fresh directory for one test's catalog, removed afterwards by the caller.
    static func scratch() throws -> String { try CLI.scratchDirectory("renditions") }

    /// `tessera info --json`'s width and height of an image.
    static func size(_ path: String) throws -> (width: Int, height: Int, hasAlpha: Bool) {
        let info = try CLI.run(["info", "--json", path])
        let object = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as! [String: Any]
        return (object["width"] as! Int, object["height"] as! Int, object["hasAlpha"] as! Bool)
    }

    static func contents(_ imageSet: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: imageSet + "/Contents.json"))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    @Test("an SVG gives three PNGs of points × scale pixels and the Contents.json that lists them")
    func svg() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let imageSet = directory + "/Assets.xcassets/Logo.imageset"
        let result = try CLI.run(["renditions", CLI.fixture("svg-size.svg"), "--points", "60x40", "--output", imageSet])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.split(separator: "\n").count == 4, "\(result.stdout)")
        let expected = [("Logo.png", "1x", 60, 40), ("Logo@2x.png", "2x", 120, 80), ("Logo@3x.png", "3x", 180, 120)]
        for (file, _, width, height) in expected {
            let size = try Self.size(imageSet + "/" + file)
            #expect(size.width == width && size.height == height, "\(file): \(size)")
        }
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: imageSet))
                == ["Contents.json", "Logo.png", "Logo@2x.png", "Logo@3x.png"])
        let contents = try Self.contents(imageSet)
        let images = try #require(contents["images"] as? [[String: String]])
        #expect(images.count == 3)
        for (image, (file, scale, _, _)) in zip(images, expected) {
            #expect(image == ["idiom": "universal", "filename": file, "scale": scale])
        }
        let info = try #require(contents["info"] as? [String: Any])
        #expect(info["author"] as? String == "xcode" && info["version"] as? Int == 1)
        #expect(contents["properties"] == nil)
    }

    @Test("--json prints one object per file written, Contents.json last; --scales leaves the other slots empty")
    func json() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let imageSet = directory + "/Page.imageset"
        let result = try CLI.run([
            "renditions", CLI.fixture("pdf/two-pages.pdf"), "--points", "30x40", "--scales", "3,2", "--page", "2",
            "--output", imageSet + "/", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(lines.count == 3)
        #expect(
            lines.map { Set($0.keys) } == [
                ["input", "output", "bytes", "scale", "width", "height", "upscaled"],
                ["input", "output", "bytes", "scale", "width", "height", "upscaled"], ["input", "output", "bytes"],
            ])
        #expect(lines.map { $0["output"] as? String } == ["Page@2x.png", "Page@3x.png", "Contents.json"].map { imageSet + "/" + $0 })
        #expect(lines[0]["width"] as? Int == 60 && lines[0]["height"] as? Int == 80 && lines[0]["scale"] as? String == "2x")
        #expect(lines[1]["width"] as? Int == 90 && lines[1]["height"] as? Int == 120 && lines[1]["upscaled"] as? Bool == false)
        let size = try Self.size(imageSet + "/Page@3x.png")
        #expect(size.width == 90 && size.height == 120)
        let images = try #require(try Self.contents(imageSet)["images"] as? [[String: String]])
        #expect(images.map { $0["filename"] } == [nil, "Page@2x.png", "Page@3x.png"])
        #expect(images.map { $0["scale"] } == ["1x", "2x", "3x"])
    }

    @Test("a bitmap too small for 3x is refused, naming both sizes, with nothing written; --allow-upscale makes it")
    func upscaleRefused() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let imageSet = directory + "/Photo.imageset"
        let input = CLI.fixture("photo-400x300.png")  // 2x of 200×150 points is the source's own size
        let refused = try CLI.run(["renditions", input, "--points", "200x150", "--output", imageSet])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(refused.stderr)")
        let line = String(lines.first ?? "")
        for part in ["photo-400x300.png", "400×300", "600×450", "@3x", "--allow-upscale"] {
            #expect(line.contains(part), "\(line)")
        }
        #expect(!FileManager.default.fileExists(atPath: imageSet))

        #expect(try CLI.run(["renditions", input, "--points", "200x150", "--scales", "1,2", "--output", imageSet]).status == 0)
        let allowed = try CLI.run(["renditions", input, "--points", "200x150", "--allow-upscale", "--output", imageSet])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let size = try Self.size(imageSet + "/Photo@3x.png")
        #expect(size.width == 600 && size.height == 450)
        let images = try #require(try Self.contents(imageSet)["images"] as? [[String: String]])
        #expect(images.map { $0["filename"] } == ["Photo.png", "Photo@2x.png", "Photo@3x.png"])
    }

    @Test("another aspect ratio: exactly points × scale, the margins transparent; --crop fills it opaque")
    func aspect() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = CLI.fixture("photo-400x300.png")  // opaque RGB, 4:3
        let fit = try CLI.run(["renditions", input, "--points", "50x50", "--output", directory + "/Fit.imageset"])
        #expect(fit.status == 0, "\(fit.stderr)")
        let crop = try CLI.run(["renditions", input, "--points", "50x50", "--crop", "--output", directory + "/Crop.imageset"])
        #expect(crop.status == 0, "\(crop.stderr)")
        for (file, side) in [("Fit.imageset/Fit.png", 50), ("Fit.imageset/Fit@3x.png", 150), ("Crop.imageset/Crop@2x.png", 100)] {
            let size = try Self.size(directory + "/" + file)
            #expect(size.width == side && size.height == side, "\(file): \(size)")
            // Padding adds an alpha channel to the opaque photo; a crop has no margins to make transparent.
            #expect(size.hasAlpha == file.hasPrefix("Fit"), "\(file)")
        }
    }

    @Test("--format pdf copies the PDF byte for byte as a single-scale vector image")
    func pdfPassthrough() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let imageSet = directory + "/Doc.imageset"
        let input = CLI.fixture("pdf/two-pages.pdf")
        let result = try CLI.run(["renditions", input, "--format", "pdf", "--output", imageSet, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(lines.map { $0["output"] as? String } == [imageSet + "/Doc.pdf", imageSet + "/Contents.json"])
        #expect(lines.allSatisfy { Set($0.keys) == ["input", "output", "bytes"] })
        #expect(result.stderr.contains("first of its 2 pages"), "\(result.stderr)")
        let copied = try Data(contentsOf: URL(fileURLWithPath: imageSet + "/Doc.pdf"))
        #expect(copied == (try Data(contentsOf: URL(fileURLWithPath: input))))
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: imageSet)) == ["Contents.json", "Doc.pdf"])
        let contents = try Self.contents(imageSet)
        #expect(contents["images"] as? [[String: String]] == [["idiom": "universal", "filename": "Doc.pdf"]])
        #expect((contents["properties"] as? [String: Any])?["preserves-vector-representation"] as? Bool == true)

        let svg = try CLI.run(["renditions", CLI.fixture("svg-size.svg"), "--format", "svg", "--output", directory + "/Icon.imageset"])
        #expect(svg.status == 0, "\(svg.stderr)")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: directory + "/Icon.imageset/Icon.svg"))
                == (try Data(contentsOf: URL(fileURLWithPath: CLI.fixture("svg-size.svg")))))
    }

    @Test(
        "bad options and a source of another format than --format are usage errors: exit 64, one line, nothing written",
        arguments: [
            (["--points", "10x10", "--scales", "0"], "--scales"),
            (["--points", "10x10", "--scales", "4"], "--scales"),
            (["--points", "10x10", "--scales", "1,1"], "--scales"),
            (["--points", "10x10", "--scales", ""], "--scales"),
            (["--points", "0x10"], "--points"),
            ([], "--points"),
            (["--format", "pdf"], "--format pdf needs a PDF source"),
            (["--format", "svg", "--points", "10x10"], "--points"),
            (["--format", "gif", "--points", "10x10"], "--format"),
            (["--points", "10x10", "--quality", "80"], "--quality"),
        ])
    func badOptions(arguments: [String], named: String) throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try CLI.run(["renditions", CLI.fixture("svg-size.svg"), "--output", directory + "/A.imageset"] + arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(named), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    @Test("renditions --help exits 0 and names every option")
    func help() throws {
        let result = try CLI.run(["renditions", "--help"])
        #expect(result.status == 0)
        for option in ["--points", "--scales", "--format", "--output", "--allow-upscale", "--crop", "--json"] {
            #expect(result.stdout.contains(option), "\(option)")
        }
    }

    @Test("--output must be a folder named NAME.imageset", arguments: ["Logo", "Logo.png", ".imageset", "Assets.xcassets/"])
    func badOutput(output: String) throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try CLI.run(["renditions", CLI.fixture("svg-size.svg"), "--points", "10x10", "--output", directory + "/" + output])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--output"), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }
}
