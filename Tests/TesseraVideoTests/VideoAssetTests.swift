import Foundation
import Testing
import TesseraCore
@testable import TesseraVideo

@Suite("Probing videos")
struct VideoAssetTests {
    @Test("duration, rate, size, codec, audio and keyframes come from the container")
    func probe() async throws {
        let asset = try await VideoAsset.load(path: VideoFixtures.path("gop1.mp4"))
        let entry = VideoFixtures.manifest["gop1.mp4"]!
        #expect(asset.duration == 4.0)
        #expect(asset.frameRate == 30)
        #expect(asset.pixelSize == PixelSize(width: 256, height: 144))
        #expect(asset.codec == "h264")
        #expect(asset.hasAudio)
        #expect(asset.frameCount == 120)
        #expect(asset.keyframeTimes == entry.keyframeTimes)
        #expect(asset.clockwiseQuarterTurns == 0)

        let silent = try await VideoAsset.load(path: VideoFixtures.path("gop2.mp4"))
        #expect(!silent.hasAudio)
        #expect(silent.keyframeTimes == VideoFixtures.manifest["gop2.mp4"]!.keyframeTimes)
    }

    @Test("display size applies the pixel aspect and the display matrix as ffmpeg does", arguments: ["rotated.mp4", "anamorphic.mp4", "gop1.mp4"])
    func displaySize(file: String) async throws {
        let asset = try await VideoAsset.load(path: VideoFixtures.path(file))
        let entry = VideoFixtures.manifest[file]!
        #expect(asset.displaySize == PixelSize(width: entry.displayWidth, height: entry.displayHeight))
    }

    @Test("broken and wrong inputs give the error that names the problem", arguments: [
        ("not-a-video.mp4", "notAVideo"), ("truncated.mp4", "truncated"), ("audio-only.m4a", "noVideoStream"),
        ("zero-length.mp4", "empty"), ("missing.mp4", "unreadable"),
    ])
    func brokenInputs(file: String, kind: String) async throws {
        do {
            _ = try await VideoAsset.load(path: VideoFixtures.path(file))
            Issue.record("\(file) opened")
        } catch {
            #expect(error.kind == kind)
        }
    }

    @Test("damaged MP4 headers open and strip, or fail with a typed error; never a crash")
    func damagedHeaders() async throws {
        let directory = try VideoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: VideoFixtures.path("gop1.mp4"))))
        let generator = FrameStripGenerator(maximumDecoders: 1)
        for round in 0..<20 {
            var damaged = original
            for hit in 0..<8 {
                damaged[(round * 977 + hit * 509) % min(damaged.count, 4096)] = UInt8((round * 37 + hit * 101) & 255)
            }
            let url = directory.appendingPathComponent("damaged-\(round).mp4")
            try Data(damaged).write(to: url)
            do {
                let strip = try await generator.strip(path: url.path, request: FrameStripRequest(frameCount: 4, sizing: .height(18)))
                #expect(strip.frames.count == 4)
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }
}
