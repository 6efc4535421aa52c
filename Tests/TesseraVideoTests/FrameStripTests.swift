import Foundation
import Testing
import TesseraCore
@testable import TesseraVideo

@Suite("Frame strips")
struct FrameStripTests {
    static let cases: [(String, Int)] = ["gop1.mp4", "gop2.mp4"].flatMap { file in [4, 5, 7, 12].map { (file, $0) } } + [("short.mp4", 3), ("short.mp4", 4)]

    private func strip(_ file: String, _ count: Int, _ mode: FrameSamplingMode, height: Int = 36) async throws -> FrameStrip {
        try await FrameStripGenerator(maximumDecoders: 2).strip(
            path: VideoFixtures.path(file), request: FrameStripRequest(frameCount: count, sizing: .height(height), mode: mode))
    }

    @Test("exact mode shows the frame ffmpeg -ss shows at each slot centre, and says when it is", arguments: cases)
    func exactMatchesFFmpeg(file: String, count: Int) async throws {
        let entry = VideoFixtures.manifest[file]!
        let strip = try await strip(file, count, .exact)
        #expect(strip.frames.count == count)
        #expect(strip.failures.isEmpty)
        for frame in strip.frames {
            let expected = entry.exact(at: frame.slot.target)
            #expect(VideoFixtures.index(of: frame.image) == expected, "slot \(frame.slot.index)")
            #expect(abs(frame.time - entry.frames[expected].time) < 1e-5, "slot \(frame.slot.index)")
        }
    }

    @Test("fast mode takes the keyframe before the centre when it is inside the slot, else the frame at the slot start", arguments: cases)
    func fastFollowsTheRule(file: String, count: Int) async throws {
        let entry = VideoFixtures.manifest[file]!
        let strip = try await strip(file, count, .fast)
        for frame in strip.frames {
            let keyframe = entry.keyframeTimes.last { $0 <= frame.slot.target + 1e-6 }!
            let expected = keyframe >= frame.slot.start - 1e-6
                ? entry.keyframe(at: frame.slot.target)
                : entry.exact(at: frame.slot.start)
            #expect(VideoFixtures.index(of: frame.image) == expected, "slot \(frame.slot.index)")
            #expect(abs(frame.time - entry.frames[expected].time) < 1e-5, "slot \(frame.slot.index)")
            #expect(frame.time >= frame.slot.start - 1e-6 && frame.time < frame.slot.end)
        }
    }

    @Test("frames keep the display aspect: rotated and non-square-pixel videos come out upright and unsquashed",
          arguments: ["rotated.mp4", "anamorphic.mp4", "gop1.mp4"])
    func aspectAndRotation(file: String) async throws {
        let entry = VideoFixtures.manifest[file]!
        let strip = try await strip(file, 2, .exact, height: 120)
        let expectedWidth = Int((120 * Double(entry.displayWidth) / Double(entry.displayHeight)).rounded())
        #expect(strip.frameSize == PixelSize(width: expectedWidth, height: 120))
        let red = VideoFixtures.redCentre(of: strip.frames[0].image)
        #expect(abs(red.x - entry.redCentre[0]) < 0.05 && abs(red.y - entry.redCentre[1]) < 0.05)
    }

    @Test("a width instead of a height sets the other side by the aspect ratio")
    func widthSizing() async throws {
        let strip = try await FrameStripGenerator().strip(
            path: VideoFixtures.path("gop1.mp4"), request: FrameStripRequest(frameCount: 3, sizing: .width(64)))
        #expect(strip.frameSize == PixelSize(width: 64, height: 36))
        #expect(strip.frames.allSatisfy { $0.image.size == strip.frameSize })
    }

    @Test("a repeated request is served from the cache until the file changes")
    func caching() async throws {
        let directory = try VideoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("clip.mp4").path
        try FileManager.default.copyItem(atPath: VideoFixtures.path("gop1.mp4"), toPath: copy)
        let generator = FrameStripGenerator()
        let request = FrameStripRequest(frameCount: 4, sizing: .height(20))
        _ = try await generator.strip(path: copy, request: request)
        _ = try await generator.strip(path: copy, request: request)
        #expect(await generator.stripsDecoded == 1)
        _ = try await generator.strip(path: copy, request: FrameStripRequest(frameCount: 4, sizing: .height(20), mode: .exact))
        #expect(await generator.stripsDecoded == 2)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: copy)
        _ = try await generator.strip(path: copy, request: request)
        #expect(await generator.stripsDecoded == 3)
    }

    @Test("a failed slot is filled from its nearest neighbour, never dropped; all failing is an error")
    func failedSlotsAreFilled() throws {
        let slots = FrameSlot.slots(duration: 4, count: 5)
        let image = { (value: UInt8) in PixelBuffer(width: 2, height: 2, format: .rgba8, bytes: [UInt8](repeating: value, count: 16)) }
        let results: [Int: Result<(time: Double, image: PixelBuffer), VideoError>] = [
            0: .failure(.decodeFailed(reason: "x")), 1: .success((1.0, image(1))), 2: .failure(.decodeFailed(reason: "y")),
            3: .success((2.5, image(3))), 4: .failure(.decodeFailed(reason: "z")),
        ]
        let request = FrameStripRequest(frameCount: 5, sizing: .height(2))
        let asset = VideoAsset(path: "", duration: 4, frameRate: 30, pixelSize: PixelSize(width: 2, height: 2), sampleAspectRatio: 1,
                               clockwiseQuarterTurns: 0, codec: "h264", hasAudio: false, keyframeTimes: [0], frameCount: 120)
        let strip = try FrameStripGenerator.assemble(slots: slots, results: results, asset: asset, request: request, frameSize: PixelSize(width: 2, height: 2))
        #expect(strip.frames.count == 5)
        #expect(strip.frames.map(\.filledFrom) == [1, nil, 1, nil, 3])
        #expect(strip.frames.map { $0.image.bytes[0] } == [1, 1, 1, 3, 3])
        #expect(strip.failures.map(\.slot) == [0, 2, 4])
        #expect(throws: VideoError.self) {
            try FrameStripGenerator.assemble(slots: slots, results: results.mapValues { _ in .failure(.empty) }, asset: asset,
                                             request: request, frameSize: PixelSize(width: 2, height: 2))
        }
    }

    @Test("a strip that would not fit the byte limit fails before decoding anything")
    func byteLimit() async throws {
        let generator = FrameStripGenerator(maximumStripBytes: 1 << 20)
        await #expect(throws: VideoError.stripTooLarge(bytes: 500 * 160 * 90 * 4, limit: 1 << 20)) {
            try await generator.strip(path: VideoFixtures.path("gop1.mp4"), request: FrameStripRequest(frameCount: 500, sizing: .height(90)))
        }
        await #expect(throws: VideoError.self) {
            try await generator.strip(path: VideoFixtures.path("gop1.mp4"), request: FrameStripRequest(frameCount: 1, sizing: .height(Int.max / 2)))
        }
        #expect(await generator.stripsDecoded == 0)
    }

    @Test("slots split into contiguous runs, one per decoder, covering every slot once")
    func runs() {
        let slots = FrameSlot.slots(duration: 10, count: 7)
        let runs = FrameStripGenerator.contiguousRuns(slots, count: 3)
        #expect(runs.map { $0.map(\.index) } == [[0, 1], [2, 3], [4, 5, 6]])
        #expect(FrameStripGenerator.contiguousRuns(slots, count: 10).count == 7)
    }
}
