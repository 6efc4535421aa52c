import Foundation
import TesseraCore
import Testing

@testable import TesseraVideo

@Suite("Probing videos")
struct VideoAssetTests {
    @Test("duration, rate, size, codec, audio and keyframes come from the container")
    func probe() async throws {
        let asset = try await VideoAsset.load(path: VideoFixtures.path("gop1.mp4"))
        let entry = VideoFixtures.manifest["gop1.mp4"]!
        #expect(asset.duration == 4.0)
        #expect(asset.frameRate == 30)
        #expect(asset.storedSize == PixelSize(width: 256, height: 144))
        #expect(asset.codec == "h264")
        #expect(asset.hasAudio)
        #expect(asset.frameCount == 120)
        #expect(asset.keyframeTimes == entry.keyframeTimes)
        #expect(asset.clockwiseQuarterTurns == 0)

        let silent = try await VideoAsset.load(path: VideoFixtures.path("gop2.mp4"))
        #expect(!silent.hasAudio)
        #expect(silent.keyframeTimes == VideoFixtures.manifest["gop2.mp4"]!.keyframeTimes)
    }

    @Test(
        "the same frames in other containers: times from the first frame shown, counts only where stated",
        arguments: [("fragmented.mp4", 120, true), ("transport.ts", nil, false), ("matroska.mkv", nil, false)] as [(String, Int?, Bool)])
    func otherContainers(file: String, frameCount: Int?, completeIndex: Bool) async throws {
        let asset = try await VideoAsset.load(path: VideoFixtures.path(file))
        #expect(abs(asset.duration - 4.0) < 1e-3)
        #expect(asset.frameCount == frameCount)
        #expect(asset.keyframeIndexIsComplete == completeIndex)
        // Every keyframe the container lists is a real one, counted from the first frame shown
        // (the TS stream starts at 1.4 s and the fragmented one at 1/15 s).
        let keyframes = VideoFixtures.manifest[file]!.keyframeTimes
        #expect(asset.keyframeTimes.allSatisfy { time in keyframes.contains { abs($0 - time) < 1e-5 } })
        #expect(file.hasSuffix(".ts") ? asset.keyframeTimes.isEmpty : asset.keyframeTimes.first == 0)
    }

    @Test("display size applies the pixel aspect and the display matrix as ffmpeg does", arguments: ["rotated.mp4", "anamorphic.mp4", "gop1.mp4"])
    func displaySize(file: String) async throws {
        let asset = try await VideoAsset.load(path: VideoFixtures.path(file))
        let entry = VideoFixtures.manifest[file]!
        #expect(asset.displaySize == PixelSize(width: entry.displayWidth, height: entry.displayHeight))
    }

    @Test(
        "broken and wrong inputs give the error that names the problem",
        arguments: [
            ("not-a-video.mp4", "notAVideo"), ("truncated.mp4", "truncated"), ("audio-only.m4a", "noVideoStream"),
            ("zero-length.mp4", "empty"), ("missing.mp4", "notFound"),
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
        let generator = FrameStripGenerator(executor: WorkExecutor(threadCount: 1))
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
                #expect(error is VideoError, "\(error)")
            }
        }
    }

    @Test(
        "damage anywhere in the file (packets, index, a cut end): every strip mode and trim gives a whole result or a typed error, and leaves no partial file"
    )
    func damagedAnywhere() async throws {
        let directory = try VideoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: VideoFixtures.path("gop1.mp4"))))
        let generator = FrameStripGenerator(executor: WorkExecutor(threadCount: 2), cacheByteLimit: 0)
        var outcomes: [String: Int] = [:]
        for round in 0..<24 {
            // Places and values spread by large primes: the same damage on every run.
            let spread = round * 7919 + 13
            var damaged = original
            switch round % 3 {
            case 0: for hit in 0..<40 { damaged[(spread + hit * 104_729) % damaged.count] = UInt8((round * 31 + hit * 97) & 255) }
            case 1:
                let start = spread % damaged.count
                damaged.replaceSubrange(start..<min(damaged.count, start + 2048), with: repeatElement(0, count: min(2048, damaged.count - start)))
            default: damaged.removeLast(spread % (damaged.count - 8))
            }
            let input = directory.appendingPathComponent("damaged-\(round).mp4")
            try Data(damaged).write(to: input)
            for mode in FrameSamplingMode.allCases {
                do {
                    let strip = try await generator.strip(
                        path: input.path, request: FrameStripRequest(frameCount: 6, sizing: .height(18), mode: mode))
                    #expect(strip.frames.count == 6)
                    #expect(strip.frames.allSatisfy { $0.image.size == strip.frameSize })
                    outcomes["strip ok", default: 0] += 1
                } catch let error as VideoError {
                    outcomes["strip \(error.kind)", default: 0] += 1
                }
            }
            for method in [ClipExporter.Method.streamCopy, .exact()] {
                let output = directory.appendingPathComponent("clip-\(round).mp4")
                do {
                    let clip = try await ClipExporter.trim(path: input.path, from: 0.5, to: 2.5, output: output.path, method: method)
                    #expect(clip.duration > 0)
                    #expect(FileManager.default.fileExists(atPath: output.path))
                    outcomes["trim ok", default: 0] += 1
                } catch let error as VideoError {
                    #expect(!FileManager.default.fileExists(atPath: output.path), "a failed trim left its output")
                    outcomes["trim \(error.kind)", default: 0] += 1
                }
                try? FileManager.default.removeItem(at: output)
            }
            try FileManager.default.removeItem(at: input)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "round \(round) left files behind")
        }
        // Both kinds of outcome happen, so the damage reaches past the checks that refuse a file.
        #expect(outcomes["strip ok", default: 0] > 0 && outcomes["trim ok", default: 0] > 0)
        #expect(outcomes.keys.contains { $0.hasPrefix("strip ") && $0 != "strip ok" })
    }

    /// Two fuzzer finds, each a fragmented MP4 whose 504-byte 'trun' box claims 14.7 million
    /// samples (libavformat allocated 374 MB opening them). In the second, the 'traf' holding the
    /// run is one byte longer than its 'moof': libavformat cuts it at the parent's end and reads the
    /// run anyway, so the check must too. In the third, the first box is 'ftys', not 'ftyp':
    /// libavformat still opens it as MP4 by its other boxes, so the check runs on every file. All
    /// are refused before ffmpeg sees them; the intact file still opens.
    @Test(arguments: [
        "video-trun-claims-14m-samples.mp4", "video-traf-overruns-moof-trun-14m-samples.mp4", "video-ftyp-renamed-trun-14m-samples.mp4",
    ])
    func aTrackRunClaimingMoreSamplesThanItsBoxHoldsIsRefusedBeforeOpening(_ name: String) async throws {
        let path = VideoFixtures.directory.deletingLastPathComponent().appendingPathComponent("fuzz/\(name)").path
        do {
            _ = try await VideoAsset.load(path: path)
            Issue.record("the file opened")
        } catch {
            // Not `catch .corrupt(let reason)`: that pattern crashes Swift 6.3 in an async function.
            if case .corrupt(let reason) = error {
                #expect(reason.contains("'trun' box of 504 bytes claims 14680124 entries"), "\(reason)")
            } else {
                Issue.record("\(error)")
            }
        }
        _ = try await VideoAsset.load(path: VideoFixtures.path("fragmented.mp4"))
    }

    /// The movie's own sample tables are sized from their counts the same way: each table of
    /// short.mp4 in turn gets a count of 2^28 (a 3 GB 'stsc' array, for one) and is refused by name
    /// before ffmpeg opens the file.
    @Test(arguments: ["stts", "stss", "ctts", "stsc", "stsz", "stco", "elst"])
    func aMovieTableClaimingMoreEntriesThanItsBoxHoldsIsRefused(_ table: String) async throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: VideoFixtures.path("short.mp4"))))
        let boxStart = try #require(bytes.indices.dropLast(4).first { Array(bytes[$0..<$0 + 4]) == Array(table.utf8) }) - 4
        // The count follows version and flags, and for 'stsz' the constant sample size as well.
        let countAt = boxStart + 12 + (table == "stsz" ? 4 : 0)
        bytes.replaceSubrange(countAt..<countAt + 4, with: [0x10, 0, 0, 0])
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("table-\(table)-\(UUID().uuidString).mp4").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try await VideoAsset.load(path: path)
            Issue.record("the file opened")
        } catch {
            if case .corrupt(let reason) = error {
                #expect(reason.contains("'\(table)' box of") && reason.contains("claims 268435456 entries"), "\(reason)")
            } else {
                Issue.record("\(error)")
            }
        }
    }

    /// No committed video that ffmpeg reads is refused by the check.
    @Test func everyIntactFixturePassesTheTableCheck() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: VideoFixtures.directory.path)
            .filter { [".mp4", ".m4a"].contains(where: $0.hasSuffix) && !["not-a-video.mp4", "zero-length.mp4"].contains($0) }
        #expect(names.count >= 6)
        for name in names {
            let file = try Data(contentsOf: URL(fileURLWithPath: VideoFixtures.path(name)))
            #expect(ContainerDiagnosis.implausibleSampleTable(file) == nil, "\(name)")
        }
    }

    /// FuzzVideo's 33 KB MPEG-TS stream whose timestamps sit near the ends of the 64-bit range: their
    /// differences overflowed in the tick-to-seconds conversion (a trap). Seconds are now computed in
    /// floating point and ticks saturate; every sampling mode gives a strip or a typed error.
    @Test(arguments: FrameSamplingMode.allCases)
    func timestampsNearTheEndsOfTheirRangeDoNotOverflow(_ mode: FrameSamplingMode) async throws {
        let path = VideoFixtures.directory.deletingLastPathComponent().appendingPathComponent("fuzz/video-ts-timestamps-overflow.ts").path
        let asset = try await VideoAsset.load(path: path)
        #expect(asset.duration.isFinite)
        let request = FrameStripRequest(frameCount: 3, sizing: .height(16), mode: mode)
        do {
            let strip = try await FrameStripGenerator(cacheByteLimit: 0).strip(asset: asset, request: request)
            #expect(strip.frames.allSatisfy { $0.time.isFinite })
        } catch {
            #expect(ErrorCategory(of: error) != .internal, "\(error)")
        }
    }
}
