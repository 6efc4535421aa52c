"""What the browser tests and `make demo`'s screenshots share: the generated media and a headless
Chromium with console and network logs. Chromium and chromedriver are Debian's (scripts/bootstrap.sh)."""
from __future__ import annotations

import os
import socket
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

#: The large image the viewer tests open, in pixels.
BIG_SIZE = (8192, 6144)
#: The grid's photos: how many and how big each source is, in pixels.
PHOTO_COUNT = 100
PHOTO_SIZE = (1200, 900)


def free_port() -> int:
    """A loopback port nothing listens on now; the server is then started on it explicitly."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def make_big_image(path: Path) -> Image.Image:
    """A smooth, detailed image (Mandelbrot set and gradients, scaled up) with white lines every
    512 px: smooth content makes PSNR meaningful, the lines make a misplaced tile obvious."""
    width, height = BIG_SIZE
    base = Image.effect_mandelbrot((1024, 768), (-2.2, -1.2, 1.0, 1.2), 100).convert("RGB")
    ramp = Image.linear_gradient("L").resize((1024, 768))
    base = Image.merge("RGB", (base.getchannel(0), ramp, ramp.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
    image = base.resize((width, height), Image.Resampling.BICUBIC)
    draw = ImageDraw.Draw(image)
    for x in range(0, width, 512):
        draw.line([(x, 0), (x, height)], fill=(255, 255, 255), width=3)
    for y in range(0, height, 512):
        draw.line([(0, y), (width, y)], fill=(255, 255, 255), width=3)
    image.save(path, quality=92)
    return image


def make_photos(directory: Path) -> list[Path]:
    """`PHOTO_COUNT` JPEGs, each a differently coloured crop of the Mandelbrot set with its number
    drawn large on it, so a cell showing the wrong image is easy to see."""
    directory.mkdir(parents=True, exist_ok=True)
    font = ImageFont.load_default(size=110)
    paths = []
    for index in range(PHOTO_COUNT):
        x = -2.0 + (index % 10) * 0.25
        y = -1.0 + (index // 10) * 0.2
        shade = Image.effect_mandelbrot(PHOTO_SIZE, (x, y, x + 0.6, y + 0.45), 60)
        hue = Image.new("L", PHOTO_SIZE, (index * 37) % 256)
        lightness = shade.point(lambda value: 70 + value * 185 // 255)
        image = Image.merge("HSV", (hue, Image.new("L", PHOTO_SIZE, 170), lightness)).convert("RGB")
        draw = ImageDraw.Draw(image)
        draw.rectangle([40, 40, 420, 190], fill=(0, 0, 0))
        draw.text((70, 50), f"{index:03d}", fill=(255, 255, 255), font=font)
        path = directory / f"photo-{index:03d}.jpg"
        image.save(path, quality=85)
        paths.append(path)
    return paths


def make_driver(width: int = 1280, height: int = 800, device_scale_factor: float | None = None) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--disable-extensions", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--metrics-recording-only",
                     "--disable-default-apps", "--mute-audio", "--autoplay-policy=no-user-gesture-required",
                     f"--window-size={width},{height}"]:
        options.add_argument(argument)
    if device_scale_factor is not None:
        options.add_argument(f"--force-device-scale-factor={device_scale_factor}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    return driver
