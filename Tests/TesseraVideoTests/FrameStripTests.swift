import Foundation
import TesseraCore
import Testing

@testable import TesseraVideo

@Suite("Frame strips")
struct FrameStripTests {
    static let cases: [(String, Int)] =
        ["gop1.mp4", "gop2.mp4", "fragmented.mp4"].flatMap { file in [4, 5, 7, 12].map { (file, $0) } } + [("short.mp4", 3), ("short.mp4", 4)]

    /// Two decoders, however many cores the machine has; each case gets a generator of its own, so
    /// no strip comes from another case's cache.
    private static let executor = WorkExecutor(threadCount: 2)

    private func strip(_ file: String, _ count: Int, _ mode: FrameSamplingMode, height: Int = 36) async throws -> FrameStrip {
        try await FrameStripGenerator(executor: Self.executor).strip(
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
            let expected =
                keyframe >= frame.slot.start - 1e-6
                ? entry.keyframe(at: frame.slot.target)
                : entry.exact(at: frame.slot.start)
            #expect(VideoFixtures.index(of: frame.image) == expected, "slot \(frame.slot.index)")
            #expect(abs(frame.time - entry.frames[expected].time) < 1e-5, "slot \(frame.slot.index)")
            #expect(frame.time >= frame.slot.start - 1e-6 && frame.time < frame.slot.end)
        }
    }

    @Test("keyframe mode takes the keyframe nearest each centre, wherever it lies, shared by neighbours", arguments: cases)
    func keyframeModeTakesTheNearest(file: String, count: Int) async throws {
        let entry = VideoFixtures.manifest[file]!
        let strip = try await strip(file, count, .keyframe)
        #expect(strip.failures.isEmpty)
        for frame in strip.frames {
            let target = frame.slot.target
            let nearest = entry.keyframeTimes.min { abs($0 - target) < abs($1 - target) || (abs($0 - target) == abs($1 - target) && $0 < $1) }!
            let expected = entry.frames.firstIndex { abs($0.time - nearest) < 1e-5 }!
            #expect(VideoFixtures.index(of: frame.image) == expected, "slot \(frame.slot.index)")
            #expect(abs(frame.time - nearest) < 1e-5, "slot \(frame.slot.index)")
        }
        if count > entry.keyframeTimes.count {
            #expect(Set(strip.frames.map(\.time)).count <= entry.keyframeTimes.count)
        }
    }

    @Test(
        "MPEG-TS (no index, first frame at 1.4 s), Matroska (cues, not every frame) and VP9 in WebM sample like MP4",
        arguments: ["transport.ts", "matroska.mkv", "vp9.webm"], [4, 7, 12])
    func otherContainers(file: String, count: Int) async throws {
        let entry = VideoFixtures.manifest[file]!
        let exact = try await strip(file, count, .exact)
        #expect(exact.failures.isEmpty)
        for frame in exact.frames {
            #expect(VideoFixtures.index(of: frame.image) == entry.firstFrame(atOrAfter: frame.slot.target), "slot \(frame.slot.index)")
        }
        let fast = try await strip(file, count, .fast)
        #expect(fast.failures.isEmpty)
        for frame in fast.frames {
            let index = VideoFixtures.index(of: frame.image)
            #expect(abs(frame.time - entry.frames[index].time) < 1e-5, "slot \(frame.slot.index)")
            #expect(frame.time >= frame.slot.start - 1e-6 && frame.time < frame.slot.end, "slot \(frame.slot.index)")
        }
        // The nearest keyframe, though TS lists none and these Matroska cues only the first:
        // found by decoding keyframes alone.
        let keyframes = try await strip(file, count, .keyframe)
        for frame in keyframes.frames {
            let target = frame.slot.target
            let nearest = entry.keyframeTimes.min { abs($0 - target) < abs($1 - target) || (abs($0 - target) == abs($1 - target) && $0 < $1) }!
            #expect(VideoFixtures.index(of: frame.image) == entry.frames.firstIndex { abs($0.time - nearest) < 1e-5 }, "slot \(frame.slot.index)")
            #expect(abs(frame.time - nearest) < 1e-5, "slot \(frame.slot.index)")
        }
    }

    @Test(
        "frames keep the display aspect: rotated and non-square-pixel videos come out upright and unsquashed",
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
        let asset = VideoAsset(
            path: "", duration: 4, frameRate: 30, storedSize: PixelSize(width: 2, height: 2), sampleAspectRatio: 1,
            clockwiseQuarterTurns: 0, codec: "h264", hasAudio: false, keyframeTimes: [0], frameCount: 120)
        let strip = try FrameStripGenerator.assemble(
            slots: slots, results: results, asset: asset, request: request, frameSize: PixelSize(width: 2, height: 2))
        #expect(strip.frames.count == 5)
        #expect(strip.frames.map(\.filledFrom) == [1, nil, 1, nil, 3])
        #expect(strip.frames.map { $0.image.bytes[0] } == [1, 1, 1, 3, 3])
        #expect(strip.failures.map(\.slot) == [0, 2, 4])
        #expect(throws: VideoError.self) {
            try FrameStripGenerator.assemble(
                slots: slots, results: results.mapValues { _ in .failure(.empty) }, asset: asset,
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

    /// A 60 s video with a keyframe every 8 s, cut into 20 slots of 3 s: the shape of the benchmark.
    private static func longGOPAsset() -> VideoAsset {
        VideoAsset(
            path: "", duration: 60, frameRate: 30, storedSize: PixelSize(width: 16, height: 9), sampleAspectRatio: 1,
            clockwiseQuarterTurns: 0, codec: "h264", hasAudio: false, keyframeTimes: stride(from: 0, to: 60, by: 8).map(Double.init),
            frameCount: 1800)
    }

    @Test("fast mode takes the keyframe only when it lies in the slot before the centre; keyframe mode the nearest")
    func picks() {
        let asset = Self.longGOPAsset()
        let slots = FrameSlot.slots(duration: 60, count: 20)
        let fast = slots.map { FramePick(slot: $0, asset: asset, mode: .fast) }
        #expect(fast[0] == .keyframe(0))
        #expect(fast[5] == .keyframe(16))  // [15, 18): 16 is before the centre 16.5
        #expect(fast[2] == .firstFrame(atOrAfter: 6))  // [6, 9): 8 is past the centre 7.5
        #expect(fast[1] == .firstFrame(atOrAfter: 3))
        #expect(slots.map { FramePick(slot: $0, asset: asset, mode: .exact) } == slots.map { .firstFrame(atOrAfter: $0.target) })
        let nearest = slots.map { FramePick(slot: $0, asset: asset, mode: .keyframe) }
        #expect(nearest[2] == .keyframe(8))  // centre 7.5: 8 is nearer than 0
        #expect(nearest[0] == .keyframe(0))
        #expect(nearest[1] == .keyframe(8))  // centre 4.5: 8 is nearer than 0
        #expect(nearest[19] == .keyframe(56))  // centre 58.5: no keyframe after it
        let unindexed = VideoAsset(
            path: "", duration: 60, frameRate: 30, storedSize: PixelSize(width: 16, height: 9), sampleAspectRatio: 1,
            clockwiseQuarterTurns: 0, codec: "h264", hasAudio: false, keyframeTimes: [], frameCount: nil)
        #expect(FramePick(slot: slots[3], asset: unindexed, mode: .keyframe) == .nearestKeyframe(to: 10.5))
        #expect(FramePick(slot: slots[3], asset: unindexed, mode: .fast) == .firstFrame(atOrAfter: 9))
        // Keyframes 4096 and 8192 ticks of 1/15360 s lie equally far from 0.4 s, but not in binary
        // floating point: still a tie, which the earlier one wins.
        let av1 = VideoAsset(
            path: "", duration: 4, frameRate: 30, storedSize: PixelSize(width: 16, height: 9), sampleAspectRatio: 1,
            clockwiseQuarterTurns: 0, codec: "av1", hasAudio: false, keyframeTimes: [0, 4096.0 / 15360, 8192.0 / 15360],
            frameCount: 120)
        #expect(FramePick(slot: FrameSlot.slots(duration: 4, count: 5)[0], asset: av1, mode: .keyframe) == .keyframe(4096.0 / 15360))
    }

    @Test("decoding cost counts the seconds decoded, going on from the previous slot within a group of pictures")
    func costs() {
        let asset = Self.longGOPAsset()
        let slots = FrameSlot.slots(duration: 60, count: 20)
        let costs = FramePick.decodingCosts(slots, asset: asset, mode: .fast)
        let continuing = costs.continuing.map { ($0 * 30).rounded() }
        // Slot 1 decodes 0 → 3 s, slot 2 goes on 3 → 6 s, slot 3 starts again at the keyframe at 8 s.
        #expect(Array(continuing.prefix(5)) == [1, 91, 91, 31, 91])
        #expect(continuing[5] == 1)
        #expect(continuing[6] == 61)  // a keyframe decoded alone leaves nothing to go on from
        #expect(costs.starting.map { ($0 * 30).rounded() }[2] == 181)  // 0 → 6 s when a decoder starts there
    }

    @Test("runs are contiguous, cover every slot once and make the costliest run as cheap as possible")
    func runs() {
        let slots = FrameSlot.slots(duration: 10, count: 7)
        func split(_ costs: [Double], _ count: Int) -> [[Int]] {
            DecodingCosts(starting: costs, continuing: costs).balancedRuns(slots, count: count).map { $0.map(\.index) }
        }
        #expect(split(Array(repeating: 1, count: 7), 3).map(\.count).max() == 3)
        #expect(split(Array(repeating: 1, count: 7), 10) == (0..<7).map { [$0] })
        // One expensive slot gets a decoder to itself.
        #expect(split([1, 1, 1, 1, 1, 1, 30], 2) == [[0, 1, 2, 3, 4, 5], [6]])
        #expect(split([1, 1, 30, 1, 1, 1, 1], 3) == [[0, 1], [2], [3, 4, 5, 6]])
        // Work that one decoder does fastest alone is not split.
        #expect(split([30, 0, 0, 0, 0, 0, 0], 3) == [[0, 1, 2, 3, 4, 5, 6]])

        // The benchmark's shape: a decoder starting mid-group must first decode from its keyframe,
        // so the cut goes where that costs least (after slot 10, whose keyframe at 24 s slot 9 shares).
        let asset = Self.longGOPAsset()
        let longSlots = FrameSlot.slots(duration: 60, count: 20)
        let halves = FramePick.decodingCosts(longSlots, asset: asset, mode: .fast).balancedRuns(longSlots, count: 2)
        #expect(halves.flatMap { $0 }.map(\.index) == Array(0..<20))
        #expect(halves.map(\.count) == [11, 9])
    }
}
