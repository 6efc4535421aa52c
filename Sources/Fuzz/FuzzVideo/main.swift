import FuzzSupport
import TesseraCore
import TesseraVideo

// What `tessera info` and `tessera strip` do with a video file: probe the container (ffmpeg's
// demuxers, then Tessera's timing and keyframe index), then sample a strip of small frames in one of
// the three modes (chosen by the input, so each input is repeatable). ffmpeg reads files, so the
// input is written to one first.
let scratch = ScratchDirectory()

fuzzMain { data in
    let path = scratch.write(data, to: "input")
    guard let asset = blockingAwait({ try? await VideoAsset.load(path: path) }) else { return .tried }
    // A generator per input: its cache is keyed by file identity, and the rewritten scratch file can
    // keep its identity (same inode and size, an mtime within the clock's tick) across inputs.
    let generator = FrameStripGenerator(cacheByteLimit: 0, maximumStripBytes: 1 << 20)
    let mode = FrameSamplingMode.allCases[data.count % FrameSamplingMode.allCases.count]
    let request = FrameStripRequest(frameCount: 3, sizing: .height(16), mode: mode)
    _ = blockingAwait { try? await generator.strip(asset: asset, request: request) }
    return .tried
}
