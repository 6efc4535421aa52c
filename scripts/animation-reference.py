#!/usr/bin/env python3
"""Pillow's frame-by-frame decode of an animation, for AnimationTests to compare with.

    animation-reference.py FILE OUTDIR
writes OUTDIR/frame-N.rgba (each frame composed, RGBA, row after row) and prints one JSON line:
{"width", "height", "frames", "durations" (ms, as stored), "loop" (as stored, null if absent)}.

GIF and WebP frames are Pillow's own. For APNG, Pillow departs from the specification (and from
browsers) twice: it blends OVER by pasting through the frame's alpha, which gets the alpha of a
translucent frame over anything wrong, and it starts the canvas from a default image that is not
part of the animation instead of transparent black. So APNG frames are each decoded by Pillow from
their own fdAT data and composed here as the APNG specification says, with Pillow's
`alpha_composite` for OVER.
"""
import io
import json
import struct
import sys
import zlib
from pathlib import Path

from PIL import Image, ImageSequence


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def apng_frames(path):
    data = Path(path).read_bytes()
    position, ihdr, shared, frames, plays = 8, None, b"", [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            ihdr = body
        elif kind == b"acTL":
            plays = struct.unpack(">I", body[4:8])[0]
        elif kind == b"fcTL":
            width, height, x, y, numerator, denominator, dispose, blend = struct.unpack(">IIIIHHBB", body[4:26])
            frames.append({"rect": (x, y, width, height), "dispose": dispose, "blend": blend, "data": b"",
                           "ms": numerator * 1000 / (denominator or 100)})
        elif kind == b"IDAT" and frames:
            frames[-1]["data"] += body
        elif kind == b"fdAT":
            frames[-1]["data"] += body[4:]
        elif kind in (b"PLTE", b"tRNS") and not any(f["data"] for f in frames):
            shared += chunk(kind, body)
    width, height = struct.unpack(">II", ihdr[:8])
    canvas = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    composed = []
    for index, frame in enumerate(frames):
        x, y, w, h = frame["rect"]
        png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">II", w, h) + ihdr[8:]) + shared
        image = Image.open(io.BytesIO(png + chunk(b"IDAT", frame["data"]) + chunk(b"IEND", b""))).convert("RGBA")
        before = canvas.copy()
        if frame["blend"] == 1:
            under = canvas.crop((x, y, x + w, y + h))
            canvas.paste(Image.alpha_composite(under, image), (x, y))
        else:
            canvas.paste(image, (x, y))
        composed.append(canvas.copy())
        if frame["dispose"] == 1 or (frame["dispose"] == 2 and index == 0):
            canvas.paste((0, 0, 0, 0), (x, y, x + w, y + h))
        elif frame["dispose"] == 2:
            canvas.paste(before.crop((x, y, x + w, y + h)), (x, y))
    return (width, height), composed, [f["ms"] for f in frames], plays


path, out = sys.argv[1], Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
image = Image.open(path)
if image.format == "PNG":
    size, frames, durations, loop = apng_frames(path)
else:
    size, frames, durations, loop = image.size, [], [], image.info.get("loop")
    for frame in ImageSequence.Iterator(image):
        frames.append(frame.convert("RGBA"))  # loads the frame, which sets its duration
        durations.append(frame.info.get("duration", 0))
for index, frame in enumerate(frames):
    (out / f"frame-{index}.rgba").write_bytes(frame.tobytes())
print(json.dumps({"width": size[0], "height": size[1], "frames": len(frames), "durations": durations, "loop": loop}))
