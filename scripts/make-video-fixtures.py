#!/usr/bin/env python3
# requires: pip install pillow==13.0.0; ffmpeg and ffprobe (Debian's ffmpeg package)
"""Generate Tessera's video test fixtures into Tests/Fixtures/video/.

Every frame carries its own index, so a test can tell exactly which frame a decoder returned
from the pixels alone, at any scale and rotation:
  * the top 60% holds 8 vertical bars, bit 7 on the left: white = 1, black = 0;
  * the bottom 40% is red on the left half and blue on the right half.
Frames are drawn with Pillow and encoded with ffmpeg (libx264, B-frames on, fixed GOP).

manifest.json records, per video, what ffmpeg itself says, so tests compare against ffmpeg:
  * `frames`: every frame's presentation time (ffprobe) and whether it is a keyframe;
  * `exactAt`: for each probe time T, the index of the frame `ffmpeg -ss T -i V -frames:v 1`
    decodes (accurate seek: the first frame at or after T);
  * `keyframeAt`: the same with `-noaccurate_seek` (the keyframe at or before T).
Both are read back from ffmpeg's output PNGs with the same bar decoding the tests use.
"""

import json
import subprocess
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "Tests" / "Fixtures" / "video"
WIDTH, HEIGHT, FPS = 256, 144, 30


def frame(index: int) -> bytes:
    image = Image.new("RGB", (WIDTH, HEIGHT))
    draw = ImageDraw.Draw(image)
    bar_bottom = int(HEIGHT * 0.6)
    for bit in range(8):
        on = (index >> (7 - bit)) & 1
        x0 = bit * WIDTH // 8
        draw.rectangle([x0, 0, (bit + 1) * WIDTH // 8 - 1, bar_bottom - 1], fill=(255, 255, 255) if on else (0, 0, 0))
    draw.rectangle([0, bar_bottom, WIDTH // 2 - 1, HEIGHT - 1], fill=(255, 0, 0))
    draw.rectangle([WIDTH // 2, bar_bottom, WIDTH - 1, HEIGHT - 1], fill=(0, 0, 255))
    return image.tobytes()


def read_index(path: Path) -> int:
    """The frame index drawn into an upright frame (any size)."""
    image = Image.open(path).convert("L")
    w, h = image.size
    value = 0
    for bit in range(8):
        sample = image.getpixel((int((bit + 0.5) * w / 8), int(h * 0.3)))
        value = value * 2 + (1 if sample > 127 else 0)
    return value


def encode(name: str, frames: int, gop: int, audio: bool = True, extra_output: list[str] = (),
           extra_filter: str | None = None) -> Path:
    path = OUT / name
    command = ["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24",
               "-s", f"{WIDTH}x{HEIGHT}", "-r", str(FPS), "-i", "-"]
    if audio:
        command += ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=22050:duration={frames / FPS}"]
    if extra_filter:
        command += ["-vf", extra_filter]
    command += ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p",
                "-x264-params", f"keyint={gop}:min-keyint={gop}:scenecut=0:bframes=2",
                "-fflags", "+bitexact", "-flags:v", "+bitexact", "-map_metadata", "-1"]
    if audio:
        command += ["-c:a", "aac", "-b:a", "32k", "-ac", "1", "-flags:a", "+bitexact"]
    command += list(extra_output) + [str(path)]
    data = b"".join(frame(i) for i in range(frames))
    subprocess.run(command, input=data, check=True)
    return path


def probe_frames(path: Path) -> list[dict]:
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "frame=pts_time,key_frame", "-of", "json", str(path)],
                         capture_output=True, check=True, text=True).stdout
    frames = json.loads(out)["frames"]
    # Times count from the first frame shown, as Tessera reports them (a fragmented file's first
    # frame is shown at the B-frame delay, not at 0).
    first = float(frames[0]["pts_time"])
    return [{"time": round(float(f["pts_time"]) - first, 6), "key": f["key_frame"] == 1} for f in frames]


def ffmpeg_frame_at(path: Path, time: float, accurate: bool) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        png = Path(scratch) / "frame.png"
        command = ["ffmpeg", "-v", "error", "-y"] + ([] if accurate else ["-noaccurate_seek"])
        command += ["-ss", f"{time:.6f}", "-i", str(path), "-frames:v", "1"]
        # Without passthrough ffmpeg drops the frames the seek landed before T, keyframe included.
        command += [] if accurate else ["-fps_mode", "passthrough"]
        subprocess.run(command + [str(png)], check=True)
        return read_index(png)


def ffmpeg_red_centre(path: Path) -> dict:
    """ffmpeg's autorotated, aspect-corrected first frame: its size and where its red area's centre
    lies, as fractions of width and height."""
    with tempfile.TemporaryDirectory() as scratch:
        png = Path(scratch) / "frame.png"
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(path), "-vf", "scale=iw*sar:ih,setsar=1",
                        "-frames:v", "1", str(png)], check=True)
        image = Image.open(png).convert("RGB")
        w, h = image.size
        red = [(x, y) for y in range(h) for x in range(w)
               if (p := image.getpixel((x, y)))[0] > 200 and p[1] < 80 and p[2] < 80]
        return {"displayWidth": w, "displayHeight": h,
                "redCentre": [round(sum(x for x, _ in red) / len(red) / w, 3),
                              round(sum(y for _, y in red) / len(red) / h, 3)]}


def describe(path: Path, probe_times: list[float], rotation: int = 0) -> dict:
    frames = probe_frames(path)
    entry = {"file": path.name, "width": WIDTH, "height": HEIGHT, "fps": FPS, "rotation": rotation,
             "frames": frames}
    entry |= ffmpeg_red_centre(path)
    if rotation == 0 and probe_times:
        entry["exactAt"] = {f"{t:.6f}": ffmpeg_frame_at(path, t, True) for t in probe_times}
        entry["keyframeAt"] = {f"{t:.6f}": ffmpeg_frame_at(path, t, False) for t in probe_times}
    return entry


def slot_probe_times(duration: float, counts: list[int]) -> list[float]:
    """Slot starts and centres for the strip sizes the tests use."""
    times = set()
    for n in counts:
        for k in range(n):
            times.add(round(k * duration / n, 6))
            times.add(round((k + 0.5) * duration / n, 6))
    return sorted(times)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for stale in OUT.iterdir():
        stale.unlink()
    manifest = []

    # 4 s, keyframe every second, with audio: the main strip and trim fixture.
    gop1 = encode("gop1.mp4", frames=120, gop=30)
    manifest.append(describe(gop1, slot_probe_times(4.0, [4, 5, 7, 12])))
    # 4 s, keyframe every 2 s, no audio: fast mode must decode forward to the slot start.
    gop2 = encode("gop2.mp4", frames=120, gop=60, audio=False)
    manifest.append(describe(gop2, slot_probe_times(4.0, [4, 5, 7, 12])))
    # The same frames fragmented, with no edit list: the first frame is shown at the B-frame delay
    # (1/15 s), which only a full probe finds, yet times still count from it.
    fragmented = OUT / "fragmented.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(gop2), "-c", "copy",
                    "-movflags", "+empty_moov+frag_keyframe", "-fflags", "+bitexact", str(fragmented)], check=True)
    manifest.append(describe(fragmented, slot_probe_times(4.0, [4, 5, 7, 12])))
    # The same frames in MPEG-TS (no index: seeks search timestamps; the first frame is shown at
    # 1.4 s) and in Matroska (an index of cues rather than of every frame). No exactAt for these:
    # ffmpeg's own -ss misses in the TS file, so tests take the first frame at or after T from the
    # frame list instead.
    for name, muxer in [("transport.ts", "mpegts"), ("matroska.mkv", "matroska")]:
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(gop2), "-c", "copy", "-f", muxer,
                        "-fflags", "+bitexact", str(OUT / name)], check=True)
        manifest.append(describe(OUT / name, []))
    # VP9 in WebM: a decoder that decodes every frame even when told to skip all but keyframes.
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(gop2), "-c:v", "libvpx-vp9", "-b:v", "200k", "-g", "60",
                    "-deadline", "realtime", "-cpu-used", "8", "-threads", "1", "-fflags", "+bitexact",
                    str(OUT / "vp9.webm")], check=True)
    manifest.append(describe(OUT / "vp9.webm", []))
    # Half a second: the reference control's zero-timescale case.
    short = encode("short.mp4", frames=15, gop=15, audio=False)
    manifest.append(describe(short, slot_probe_times(0.5, [3, 4])))
    # Display matrix says: turn 90° clockwise to show.
    # (ffmpeg 5.1 writes the display matrix only when remuxing, not while encoding.)
    upright = encode("upright.mp4", frames=10, gop=10, audio=False)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(upright), "-c", "copy", "-metadata:s:v:0", "rotate=90",
                    "-map_metadata", "-1", "-fflags", "+bitexact", str(OUT / "rotated.mp4")], check=True)
    upright.unlink()
    manifest.append(describe(OUT / "rotated.mp4", [], rotation=90))
    # Non-square pixels: stored 256×144, shown 341×144.
    anamorphic = encode("anamorphic.mp4", frames=10, gop=10, audio=False, extra_filter="setsar=4/3")
    manifest.append(describe(anamorphic, []) | {"sampleAspect": [4, 3]})

    # Broken and wrong inputs.
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1",
                    "-c:a", "aac", "-b:a", "32k", "-fflags", "+bitexact", "-flags:a", "+bitexact",
                    "-map_metadata", "-1", str(OUT / "audio-only.m4a")], check=True)
    data = gop1.read_bytes()
    (OUT / "truncated.mp4").write_bytes(data[: len(data) * 6 // 10])
    (OUT / "not-a-video.mp4").write_bytes(b"This is a text file pretending to be an MP4.\n" * 20)
    # A video stream with no frames: a plain MP4 would drop the empty track, a fragmented one keeps it.
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(gop2), "-c", "copy", "-frames:v", "0",
                    "-movflags", "+empty_moov+frag_keyframe", "-fflags", "+bitexact",
                    str(OUT / "zero-length.mp4")], check=True)

    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"wrote {len(list(OUT.iterdir()))} files, {total / 1024:.0f} KiB, into {OUT}")


if __name__ == "__main__":
    main()
