import Foundation
import Testing

@Suite("tessera strip, trimmer and trim")
struct VideoCLITests {
    @Test("strip --json lists every slot's centre, the frame's real time and its place in the image")
    func stripJSON() throws {
        let directory = try CLI.scratchURL("cli-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sprite = directory.appendingPathComponent("sprite.jpg").path
        let vtt = directory.appendingPathComponent("thumbs.vtt").path
        let result = try CLI.run([
            "strip", CLI.fixture("video/gop1.mp4"), "--frames", "6", "--height", "36", "--mode", "exact",
            "--layout", "sprite", "--columns", "4", "--output", sprite, "--vtt", vtt, "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(report["duration"] as? Double == 4.0)
        #expect(report["ms"] is Double)
        let frames = report["frames"] as! [[String: Any]]
        #expect(frames.count == 6)
        #expect(frames.map { $0["index"] as! Int } == Array(0..<6))
        let targets = frames.map { $0["target"] as! Double }
        let centres: [Double] = (0..<6).map { slot in (Double(slot) + 0.5) * 4 / 6 }
        #expect(zip(targets, centres).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(frames[5]["x"] as? Int == 64 && frames[5]["y"] as? Int == 36)
        #expect(frames.allSatisfy { ($0["time"] as! Double) >= ($0["target"] as! Double) - 1e-6 })
        let track = try String(contentsOfFile: vtt, encoding: .utf8)
        #expect(track.hasPrefix("WEBVTT\n"))
        #expect(track.contains("00:00:03.333 --> 00:00:04.000\nsprite.jpg#xywh=64,36,64,36\n"))
        #expect(FileManager.default.fileExists(atPath: sprite))
    }

    @Test("info describes a video from its container, next to images, and still fails on files that are neither")
    func info() throws {
        let result = try CLI.run([
            "info", "--json", CLI.fixture("video/rotated.mp4"), CLI.fixture("jpeg-baseline.jpg"), CLI.fixture("video/not-a-video.mp4"),
        ])
        #expect(result.status != 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let video = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        #expect(video["format"] as? String == "video" && video["codec"] as? String == "h264")
        #expect(video["width"] as? Int == 256 && video["displayWidth"] as? Int == 144)
        #expect(video["frameCount"] as? Int == 10 && video["hasAudio"] as? Bool == false)
        #expect(result.stderr.contains("not-a-video.mp4: neither an image nor a video"))
    }

    @Test("strip --layout frames writes one numbered PNG per slot")
    func stripFrames() throws {
        let directory = try CLI.scratchURL("cli-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CLI.run(["strip", CLI.fixture("video/short.mp4"), "--frames", "3", "--layout", "frames", "--output", directory.path])
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["frame-000.png", "frame-001.png", "frame-002.png"])
    }

    @Test("trim --json reports the keyframe it really starts on; --exact starts on the requested frame")
    func trimJSON() throws {
        let directory = try CLI.scratchURL("cli-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = try CLI.run([
            "trim", CLI.fixture("video/gop1.mp4"), "--from", "1.5", "--to", "3", "--output", directory.appendingPathComponent("copy.mp4").path,
            "--json",
        ])
        #expect(copy.status == 0, "\(copy.stderr)")
        let copied = try JSONSerialization.jsonObject(with: Data(copy.stdout.utf8)) as! [String: Double]
        #expect(copied["requestedStart"] == 1.5 && copied["start"] == 1.0)
        #expect(abs(copied["duration"]! - (copied["end"]! - copied["start"]!)) < 1e-9)
        let exact = try CLI.run([
            "trim", CLI.fixture("video/gop1.mp4"), "--from", "1.5", "--to", "3", "--exact", "--output",
            directory.appendingPathComponent("exact.mp4").path, "--json",
        ])
        #expect(exact.status == 0, "\(exact.stderr)")
        let reencoded = try JSONSerialization.jsonObject(with: Data(exact.stdout.utf8)) as! [String: Double]
        #expect(reencoded["start"] == 1.5 && abs(reencoded["end"]! - 3.0) < 1e-6)
    }

    @Test("trimmer draws the control at points × scale")
    func trimmer() throws {
        let directory = try CLI.scratchURL("cli-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("control.png").path
        let result = try CLI.run([
            "trimmer", CLI.fixture("video/gop1.mp4"), "--size", "300x40", "--scale", "3",
            "--lower", "1", "--upper", "2.5", "--playhead", "2", "--output", output,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try CLI.run(["info", "--json", output])
        let fields = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as! [String: Any]
        #expect(fields["width"] as? Int == 900 && fields["height"] as? Int == 120)
    }

    @Test(
        "each broken input and a range outside the video: one line naming the file, non-zero exit, nothing written",
        arguments: [
            (["strip", "video/not-a-video.mp4", "--frames", "4"], "not a video"),
            (["strip", "video/truncated.mp4", "--frames", "4"], "truncated"),
            (["strip", "video/audio-only.m4a", "--frames", "4"], "no video stream"),
            (["strip", "video/zero-length.mp4", "--frames", "4"], "no frames"),
            (["trim", "video/gop1.mp4", "--from", "3", "--to", "5"], "outside"),
            (["trim", "video/truncated.mp4", "--from", "0", "--to", "1"], "truncated"),
            (["trimmer", "video/gop1.mp4", "--size", "100x20", "--lower", "2", "--upper", "9"], "outside"),
        ])
    func brokenInputs(arguments: [String], message: String) throws {
        let directory = try CLI.scratchURL("cli-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent(arguments[0] == "trim" ? "out.mp4" : "out.png").path
        let result = try CLI.run([arguments[0], CLI.fixture(arguments[1])] + arguments.dropFirst(2) + ["--output", output])
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(arguments[1].split(separator: "/").last!) == true)
        #expect(lines.first?.contains(message) == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(result.stdout.isEmpty)
    }

    @Test("control characters in a file name or in bytes quoted from a damaged file never split the one line")
    func controlCharactersStayOnOneLine() throws {
        let directory = try CLI.scratchURL("cli-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        // A valid 'ftyp' box, then a box whose type holds a newline and whose size runs past the end.
        var bytes = Data([0, 0, 0, 16] + Array("ftypisom".utf8) + [0, 0, 2, 0])
        bytes += Data([0, 1, 0, 0, 0x0A, 0x0A, 0x41, 0x00] + Array(repeating: 0, count: 64))
        let path = directory.appendingPathComponent("bad\nname.mp4").path
        try bytes.write(to: URL(fileURLWithPath: path))
        for arguments in [["info", path], ["strip", path, "--frames", "2", "--output", directory.appendingPathComponent("s.png").path]] {
            let result = try CLI.run(arguments)
            #expect(result.status != 0)
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stderr.contains("bad\\nname.mp4"))
            #expect(result.stderr.contains("0x0A0A4100 box needs 65552 bytes"), "\(result.stderr)")
        }
    }
}
