#!/usr/bin/env python3
"""Writes the animation fixtures in Tests/Fixtures/animation with Pillow.

Each file exercises one rule of GIF, APNG or animated WebP composition; AnimationTests compares
Tessera's frames with Pillow's frame-by-frame decode of the same file. Run from the repository root:
    python3 scripts/make-animation-fixtures.py
"""
from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path("Tests/Fixtures/animation")
SIZE = (48, 40)


def palette_frame(colours, draw, transparent_background=True):
    """A P-mode frame: index 0 transparent background, shapes in the given colours."""
    frame = Image.new("P", SIZE, 0)
    palette = [0, 0, 0] + [c for colour in colours for c in colour]
    frame.putpalette(palette + [0] * (768 - len(palette)))
    draw(ImageDraw.Draw(frame))
    return frame


def gifs():
    # Disposal to background: a square moves; each frame's area is cleared before the next, and
    # Pillow's writer stores each later frame as the smaller rectangle that changed, at an offset.
    frames = [palette_frame([(220, 30, 30)], lambda d, i=i: d.rectangle([4 + i * 8, 6, 16 + i * 8, 18], fill=1)) for i in range(4)]
    frames[0].save(OUT / "gif-dispose-background.gif", save_all=True, append_images=frames[1:], duration=[80, 0, 10, 120],
                   loop=0, disposal=2, transparency=0, optimize=False)
    # Disposal to previous: a fixed backdrop, then marks that are each taken back before the next.
    backdrop = palette_frame([(30, 90, 200)], lambda d: d.rectangle([0, 20, 47, 39], fill=1))
    marks = [palette_frame([(30, 90, 200), (250, 200, 0)], lambda d, i=i: d.ellipse([6 + i * 10, 2, 16 + i * 10, 30], fill=2))
             for i in range(3)]
    backdrop.save(OUT / "gif-dispose-previous.gif", save_all=True, append_images=marks, duration=[100, 100, 100, 100],
                  loop=3, disposal=[1, 3, 3, 3], transparency=0, optimize=False)
    # A colour table per frame, opaque, and no loop extension (plays once).
    tables = []
    for i, colour in enumerate([(200, 40, 40), (40, 200, 40), (40, 40, 200), (200, 200, 40)]):
        frame = Image.new("P", SIZE, 0)
        frame.putpalette(list(colour) + [255 - c for c in colour] + [0] * (768 - 6))
        ImageDraw.Draw(frame).rectangle([i * 6, i * 5, 30 + i * 4, 30], fill=1)
        tables.append(frame)
    tables[0].save(OUT / "gif-local-palettes.gif", save_all=True, append_images=tables[1:], duration=50, optimize=False)


def rgba_frame(i, alpha):
    frame = Image.new("RGBA", SIZE, (0, 0, 0, 0))
    draw = ImageDraw.Draw(frame)
    draw.rectangle([2 + i * 6, 4, 22 + i * 6, 24], fill=(240, 120 - i * 20, 20 * i, alpha))
    draw.ellipse([20, 10 + i * 3, 44, 34], fill=(20, 160, 220 - i * 30, 255 - alpha // 2))
    return frame


def apngs():
    frames = [Image.new("RGBA", SIZE, (10, 60, 10, 255))] + [rgba_frame(i, 90 + i * 40) for i in range(4)]
    # Blending over translucent frames with every dispose op; Pillow crops later frames to what changed.
    frames[0].save(OUT / "apng-dispose-blend.png", save_all=True, append_images=frames[1:], duration=[100, 60, 0, 40, 200],
                   loop=2, disposal=[0, 1, 2, 0, 1], blend=[0, 1, 1, 0, 1])
    # The default image is a still for viewers without APNG, not the animation's first frame.
    still = Image.new("RGBA", SIZE, (255, 0, 255, 255))
    animation = [rgba_frame(i, 160) for i in range(3)]
    still.save(OUT / "apng-hidden-default-image.png", save_all=True, append_images=animation, default_image=True,
               duration=[0, 70, 70, 70], loop=0, disposal=0, blend=1)


def webps():
    frames = [rgba_frame(i, 255 if i == 0 else 120) for i in range(5)]
    frames[0].save(OUT / "webp-lossless-blend.webp", save_all=True, append_images=frames[1:], duration=[90, 5, 60, 60, 150],
                   loop=4, lossless=True)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    gifs()
    apngs()
    webps()
    for path in sorted(OUT.iterdir()):
        print(path, path.stat().st_size)
