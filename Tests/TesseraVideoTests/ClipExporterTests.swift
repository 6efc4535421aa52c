import Foundation
import TesseraCore
import Testing

@testable import TesseraVideo

@Suite("Trimming clips")
struct ClipExporterTests {
    /// The first frame of a video, upright, and its time.
    private func firstFrame(_ path: String) throws -> (time: Double, image: PixelBuffer) {
        let input = try MediaInput(path: path)
        let asset = try VideoAsset.probe(input)
        let sampler = try FrameSampler(path: path, asset: asset, frameSize: asset.displaySize, mode: .exact, threads: 1)
        return try sampler.sample(FrameSlot(index: 0, start: 0, end: 0))
    }

    @Test("stream copy starts on the keyframe at or before the start, keeps audio, and lasts what it reports")
    func streamCopy() async throws {
        let directory = try VideoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("clip.mp4").path
        let result = try await ClipExporter.trim(path: VideoFixtures.path("gop1.mp4"), from: 1.5, to: 3.2, output: output)
        #expect(result.requestedStart == 1.5)
        #expect(result.start == 1.0)
        #expect(result.end <= 3.2 + 1e-6 && result.end > 3.2 - 3.0 / 30)
        let clip = try await VideoAsset.load(path: output)
        #expect(abs(clip.duration - result.duration) < 1e-3)
        #expect(clip.hasAudio)
        #expect(clip.keyframeTimes.first == 0)
        let first = try firstFrame(output)
        #expect(first.time == 0)
        #expect(VideoFixtures.index(of: first.image) == 30)
    }

    @Test(
        "in MPEG-TS (no index) and Matroska (sparse cues) too, a copy opens on the keyframe at or before the start and a re-encode on the frame at it",
        arguments: ["transport.ts", "matroska.mkv"], [1.5, 2.5, 3.5])
    func otherContainers(file: String, start: Double) async throws {
        let directory = try VideoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entry = VideoFixtures.manifest[file]!
        let copy = directory.appendingPathComponent("copy.mp4").path
        let copied = try await ClipExporter.trim(path: VideoFixtures.path(file), from: start, to: 3.9, output: copy)
        let keyframe = entry.keyframeTimes.last { $0 <= start + 1e-6 }!
        // The latest keyframe the container lets Tessera find: Matroska's cues list only the first here.
        #expect(copied.start <= start + 1e-6 && (file.hasSuffix(".mkv") || abs(copied.start - keyframe) < 1e-5))
        #expect(VideoFixtures.index(of: try firstFrame(copy).image) == entry.firstFrame(atOrAfter: copied.start))
        let exact = directory.appendingPathComponent("exact.mp4").path
        let reencoded = try await ClipExporter.trim(path: VideoFixtures.path(file), from: start, to: 3.9, output: exact, method: .exact())
        #expect(VideoFixtures.index(of: try firstFrame(exact).image) == entry.firstFrame(atOrAfter: start))
        #expect(abs(reencoded.start - entry.frames[entry.firstFrame(atOrAfter: start)].time) < 1e-3)
    }

    @Test("a file kind that cannot hold the codec is refused up front, saying why; one that can is written")
    func codecsTheOutputCanHold() async throws {
        let directory = try VideoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let webm = directory.appendingPathComponent("clip.webm").path
        for (file, method) in [("vp9.webm", ClipExporter.Method.exact()), ("gop2.mp4", .streamCopy)] {
            do {
                _ = try await ClipExporter.trim(path: VideoFixtures.path(file), from: 1, to: 2, output: webm, method: method)
                Issue.record("\(file) trimmed into WebM as H.264")
            } catch {
                #expect("\(error)".contains(".webm files cannot hold h264"), "\(error)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
        let copied = try await ClipExporter.trim(path: VideoFixtures.path("vp9.webm"), from: 1, to: 2, output: webm)
        #expect(copied.start <= 1)
        #expect(try await VideoAsset.load(path: webm).codec == "vp9")
    }

    @Test(
        "exact re-encoding starts on the first frame at or after the start and ends at the end",
        arguments: [(1.5, 3.2), (0.7, 1.0), (0.0, 4.0), (2.01, 2.5)])
    func exact(start: Double, end: Double) async throws {
        let directory = try VideoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("clip.mp4").path
        let entry = VideoFixtures.manifest["gop1.mp4"]!
        let result = try await ClipExporter.trim(path: VideoFixtures.path("gop1.mp4"), from: start, to: end, output: output, method: .exact())
        let expectedFirst = entry.firstFrame(atOrAfter: start)
        #expect(abs(result.start - entry.frames[expectedFirst].time) < 1e-5)
        let clip = try await VideoAsset.load(path: output)
        let frames = entry.frames.filter { $0.time >= start - 1e-6 && $0.time < end - 1e-6 }.count
        #expect(clip.frameCount == frames)
        #expect(abs(clip.duration - Double(frames) / 30) < 1e-3)
        #expect(abs(result.duration - clip.duration) < 1e-3)
        #expect(clip.hasAudio)
        let first = try firstFrame(output)
        #expect(VideoFixtures.index(of: first.image) == expectedFirst)
    }

    @Test("a rotated or non-square-pixel video keeps its display geometry in its clip", arguments: ["rotated.mp4", "anamorphic.mp4"])
    func displayGeometrySurvives(file: String) async throws {
        let directory = try VideoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try await VideoAsset.load(path: VideoFixtures.path(file))
        #expect(source.displaySize != source.storedSize)
        for method in [ClipExporter.Method.streamCopy, .exact()] {
            let output = directory.appendingPathComponent("clip.mp4").path
            _ = try await ClipExporter.trim(path: VideoFixtures.path(file), from: 0, to: 0.2, output: output, method: method)
            let clip = try await VideoAsset.load(path: output)
            #expect(clip.clockwiseQuarterTurns == source.clockwiseQuarterTurns)
            #expect(clip.displaySize == source.displaySize, "\(method)")
        }
    }

    @Test(
        "ranges outside the video, empty or reversed are refused before anything is written",
        arguments: [(-1.0, 2.0), (3.0, 5.0), (2.0, 2.0), (3.0, 1.0), (Double.nan, 1.0)])
    func badRanges(start: Double, end: Double) async throws {
        let directory = try VideoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("clip.mp4").path
        await #expect(throws: VideoError.self) {
            try await ClipExporter.trim(path: VideoFixtures.path("gop1.mp4"), from: start, to: end, output: output)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("an output the container does not know, or cannot be written, leaves nothing behind")
    func unwritable() async throws {
        let directory = try VideoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        await #expect(throws: VideoError.self) {
            try await ClipExporter.trim(
                path: VideoFixtures.path("gop1.mp4"), from: 0, to: 1, output: directory.appendingPathComponent("clip.xyz").path)
        }
        await #expect(throws: VideoError.self) {
            try await ClipExporter.trim(
                path: VideoFixtures.path("gop1.mp4"), from: 0, to: 1, output: directory.appendingPathComponent("missing/clip.mp4").path)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
