#!/usr/bin/env python3
"""`tessera strip` against ffmpeg on generated 60 s 1920×1080 H.264 videos (1 s and 8 s keyframe
intervals), 20 frames at 90 px height, plus a 500-frame strip (the reference trimmer's count).

  * fast and keyframe modes against ffmpeg's keyframe-only decode (-skip_frame nokey) into its tile
    filter (fast mode decodes past keyframes when a slot holds none; keyframe mode never does);
  * exact mode against 20 separate `ffmpeg -ss T -i … -frames:v 1` runs, one per slot centre,
    which is how scripts usually pull frames at given times;
  * 500 frames against one ffmpeg pass with the fps filter (every frame decoded, 500 kept)."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import compare, table

DURATION, FRAMES, HEIGHT = 60, 20, 90


def make_video(path, keyframe_seconds):
    if path.exists():
        return
    gop = 30 * keyframe_seconds
    subprocess.run(["ffmpeg", "-v", "error", "-y",
                    "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate=30:duration={DURATION}",
                    "-f", "lavfi", "-i", f"sine=frequency=440:duration={DURATION}",
                    "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
                    "-x264-params", f"keyint={gop}:min-keyint={gop}:scenecut=0",
                    "-c:a", "aac", "-b:a", "64k", str(path) + ".partial.mp4"], check=True)
    Path(str(path) + ".partial.mp4").rename(path)


def fast_rule_floor(video, keyframe_seconds):
    """CPU seconds ffmpeg alone needs to decode what the fast rule must: for each slot whose
    keyframe before the centre lies outside it, from that keyframe to the slot start (one thread,
    frames nothing refers to skipped). Divided by the cores, no strip in fast mode can beat it."""
    keyframes = list(range(0, DURATION, keyframe_seconds))
    ranges = []
    for k in range(FRAMES):
        start, centre = k * DURATION / FRAMES, (k + 0.5) * DURATION / FRAMES
        key = max(t for t in keyframes if t <= centre)
        if key < start:
            ranges.append([key, start])
    merged = []
    for begin, end in sorted(ranges):
        if merged and begin <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([begin, end])

    def cpu(length):
        total = 0.0
        for begin, end in merged:
            argv = ["ffmpeg", "-v", "error", "-threads", "1", "-skip_frame", "noref", "-ss", str(begin),
                    "-t", str(length(begin, end)), "-i", str(video), "-an", "-f", "null", "-"]
            proc = subprocess.Popen(argv)
            _, _, usage = os.wait4(proc.pid, 0)
            total += usage.ru_utime + usage.ru_stime
        return total
    # Less the cost of opening the file and decoding the keyframe, measured the same way.
    decode = cpu(lambda begin, end: end - begin) - cpu(lambda begin, end: 0.001)
    return sum(end - begin for begin, end in merged), decode


def main(tessera, inputs):
    inputs = Path(inputs)
    out = Path(tempfile.mkdtemp(prefix="tessera-video-bench-"))
    centres = [(k + 0.5) * DURATION / FRAMES for k in range(FRAMES)]
    print(f"\nVideo frame strips: {FRAMES} frames at {HEIGHT} px from 60 s 1920×1080 H.264 (30 fps, B-frames),"
          " median of 5 interleaved runs, peak RSS per process")
    for seconds in (1, 8):
        video = inputs / f"video-1080p-gop{seconds}s.mp4"
        make_video(video, seconds)
        keyframes = -(-DURATION // seconds)  # at 0, seconds, 2·seconds, … before the end
        step = max(1, keyframes // FRAMES)
        ffmpeg_seeks = "; ".join(
            f"ffmpeg -v error -y -ss {t:.3f} -i {video} -frames:v 1 -vf scale=-2:{HEIGHT} {out}/ff-{k:02d}.png"
            for k, t in enumerate(centres))
        cases = [
            ("tessera", [tessera, "strip", str(video), "--frames", str(FRAMES), "--height", str(HEIGHT),
                         "--mode", "fast", "--output", str(out / "fast.jpg")]),
            ("tessera --mode keyframe", [tessera, "strip", str(video), "--frames", str(FRAMES), "--height", str(HEIGHT),
                                         "--mode", "keyframe", "--output", str(out / "keyframe.jpg")]),
            (f"ffmpeg keyframes + tile ({min(FRAMES, keyframes)} frames)",
             ["ffmpeg", "-v", "error", "-y", "-skip_frame", "nokey", "-i", str(video), "-an",
              "-vf", f"select='not(mod(n\\,{step}))',scale=-2:{HEIGHT},tile={FRAMES}x1", "-fps_mode", "vfr",
              "-frames:v", "1", str(out / "ff-tile.jpg")]),
            ("tessera --mode exact", [tessera, "strip", str(video), "--frames", str(FRAMES), "--height", str(HEIGHT),
                                      "--mode", "exact", "--output", str(out / "exact.jpg")]),
            (f"{FRAMES}× ffmpeg -ss T -frames:v 1", ["sh", "-c", ffmpeg_seeks]),
            # 500 frames of 160 px are wider than JPEG allows in one row: all three write a 25×20 sheet.
            ("tessera 500 frames (fast)", [tessera, "strip", str(video), "--frames", "500", "--height", str(HEIGHT),
                                           "--mode", "fast", "--layout", "sprite", "--columns", "25",
                                           "--output", str(out / "fast500.jpg")]),
            ("tessera 500 frames (exact)", [tessera, "strip", str(video), "--frames", "500", "--height", str(HEIGHT),
                                            "--mode", "exact", "--layout", "sprite", "--columns", "25",
                                            "--output", str(out / "exact500.jpg")]),
            ("ffmpeg fps filter, 500 frames", ["ffmpeg", "-v", "error", "-y", "-i", str(video), "-an",
                                               "-vf", f"fps=500/{DURATION},scale=-2:{HEIGHT},tile=25x20",
                                               "-frames:v", "1", str(out / "ff-500.jpg")]),
        ]
        results = compare(cases)
        table(f"{seconds} s keyframe interval ({keyframes} keyframes)", results)
        fast, exact = results["tessera"][0], results["tessera --mode exact"][0]
        seeks = results[f"{FRAMES}× ffmpeg -ss T -frames:v 1"][0]
        keyframe = results["tessera --mode keyframe"][0]
        if fast and exact and seeks and keyframe:
            print(f"  goals: fast strip {fast:.3f} s (goal < 0.3 s; keyframe mode {keyframe:.3f} s);"
                  f" exact per frame {exact / FRAMES * 1000:.0f} ms"
                  f" vs ffmpeg per seek {seeks / FRAMES * 1000:.0f} ms = {exact / seeks:.2f}× (goal ≤ 0.5×)")
        seconds_decoded, cpu = fast_rule_floor(video, seconds)
        cores = os.cpu_count() or 1
        print(f"  fast-rule floor: {seconds_decoded:.0f} s of video must be decoded; ffmpeg alone takes {cpu:.2f} CPU-s,"
              f" so ≥ {cpu / cores:.2f} s on {cores} cores")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
