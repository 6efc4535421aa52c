"""Maps (issue 49): GeoTIFFs and COGs written by GDAL (scripts/make-map-fixtures.py), served as
Web Mercator tiles by `tessera serve` and compared with GDAL's own warp of the same file
(`gdalwarp -t_srs EPSG:3857` to each tile's bounds: the engine rio-tiler and TiTiler run, here
Debian's build, whose libjpeg and libtiff are Tessera's, so even JPEG files compare exactly).

Tiles are asked as PNG, so what is compared is what Tessera computed, not a re-encode.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
import tifffile
from PIL import Image
from selenium.webdriver.support.wait import WebDriverWait

from conftest import REPO, run_server

SCRIPT = REPO / "scripts" / "make-map-fixtures.py"
HALF = 20037508.342789244
#: Tiles compared per resampling (the issue asks for at least 100 at native zooms).
RANDOM_TILES = 40


@pytest.fixture(scope="session")
def map_root(tmp_path_factory) -> Path:
    """The generated maps (made once per version of their script, kept under .build)."""
    made = REPO / ".build" / "map-fixtures" / hashlib.sha256(SCRIPT.read_bytes()).hexdigest()[:12]
    if not (made / "mercator-jpeg.tif").exists():
        partial = made.with_suffix(".partial")
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run([sys.executable, str(SCRIPT), str(partial)], check=True)
        partial.rename(made)
    root = tmp_path_factory.mktemp("maps")
    for path in made.iterdir():
        shutil.copy(path, root / path.name)
    return root


@pytest.fixture(scope="module")
def map_server(map_root, tmp_path_factory):
    yield from run_server(map_root, tmp_path_factory)


def tile_bounds(z: int, x: int, y: int) -> tuple[float, float, float, float]:
    side = 2 * HALF / (1 << z)
    west, north = -HALF + x * side, HALF - y * side
    return west, north - side, west + side, north


def tile_of(lon: float, lat: float, z: int) -> tuple[int, int]:
    n = 1 << z
    y = (1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n
    return int((lon + 180) / 360 * n), int(y)


def tessera_tile(server, name: str, z: int, x: int, y: int, resampling: str = "nearest") -> np.ndarray:
    body = server.get(f"/maps/{name}/{z}/{x}/{y}.png?resampling={resampling}")
    return np.asarray(Image.open(io.BytesIO(body)).convert("RGBA")).astype(int)


def gdal_warp(path: Path, bounds, width: int, height: int, resampling: str, scratch: Path) -> np.ndarray:
    """GDAL's warp of `path` to `bounds` (EPSG:3857), RGBA: exact transforms (-et 0), the overview
    GDAL picks for the resolution (-ovr AUTO), as rio-tiler reads a tile."""
    out = scratch / "reference.tif"
    subprocess.run(["gdalwarp", "-q", "-overwrite", "-t_srs", "EPSG:3857", "-te", *map(repr, bounds), "-ts", str(width), str(height),
                    "-r", resampling, "-et", "0", "-ovr", "AUTO", "-dstalpha", "-of", "GTiff", str(path), str(out)], check=True)
    bands = tifffile.imread(out)
    # Gray sources come back as gray + alpha.
    return np.dstack([bands[..., 0]] * 3 + [bands[..., -1]]) if bands.shape[-1] == 2 else bands.astype(int)


def tilejson(server, name: str) -> dict:
    return json.loads(server.get(f"/maps/{name}/tilejson.json"))


def tiles_within(document: dict, z: int) -> list[tuple[int, int]]:
    west, south, east, north = document["bounds"]
    # Inset by a hair: an edge on a tile boundary (a COG on the grid) is not in the next tile.
    (x0, y0), (x1, y1) = tile_of(west + 1e-9, north - 1e-9, z), tile_of(east - 1e-9, south + 1e-9, z)
    return [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]


def compare(mine: np.ndarray, reference: np.ndarray) -> dict:
    mine_alpha, reference_alpha = mine[..., 3] > 0, reference[..., 3] > 0
    both = mine_alpha & reference_alpha
    difference = np.abs(mine[..., :3] - reference[..., :3])[both]
    return {"pixels": int(both.sum()), "identical": int((difference.max(axis=1) == 0).sum()) if both.any() else 0,
            "differing_samples": int((difference != 0).sum()), "sum_abs": float(difference.sum()), "samples": difference.size,
            "alpha_equal": int((mine_alpha == reference_alpha).sum()), "alpha_pixels": mine_alpha.size}


def total(results: list[dict]) -> dict:
    return {key: sum(result[key] for result in results) for key in results[0]}


@pytest.mark.parametrize("name", ["utm.tif", "utm-jpeg.tif"])
def test_a_utm_scene_warped_nearest_is_gdals_warp(map_server, map_root, tmp_path, name):
    """UTM → Web Mercator, nearest, z12–z14, edge tiles included: the same pixels as GDAL's."""
    document = tilejson(map_server, name)
    rng = random.Random(49)
    results = []
    for z in (12, 13, 14):
        for x, y in rng.sample(tiles_within(document, z), min(RANDOM_TILES, len(tiles_within(document, z)))):
            results.append(compare(tessera_tile(map_server, name, z, x, y), gdal_warp(map_root / name, tile_bounds(z, x, y), 256, 256, "near", tmp_path)))
    summed = total(results)
    print(f"{name} nearest: {len(results)} tiles, identical {summed['identical'] / summed['pixels']:.5f}, "
          f"alpha equal {summed['alpha_equal'] / summed['alpha_pixels']:.5f}")
    assert len(results) >= 100
    assert summed["identical"] / summed["pixels"] >= 0.97
    assert summed["alpha_equal"] / summed["alpha_pixels"] >= 0.995


def test_a_utm_scene_warped_bilinear_is_within_a_level_of_gdals(map_server, map_root, tmp_path):
    document = tilejson(map_server, "utm.tif")
    rng = random.Random(50)
    results = []
    for z in (12, 13, 14):
        for x, y in rng.sample(tiles_within(document, z), 12):
            results.append(compare(tessera_tile(map_server, "utm.tif", z, x, y, "bilinear"),
                                   gdal_warp(map_root / "utm.tif", tile_bounds(z, x, y), 256, 256, "bilinear", tmp_path)))
    summed = total(results)
    print(f"utm.tif bilinear: mean |d| {summed['sum_abs'] / summed['samples']:.4f}, alpha equal {summed['alpha_equal'] / summed['alpha_pixels']:.5f}")
    assert summed["sum_abs"] / summed["samples"] <= 1.0
    assert summed["alpha_equal"] / summed["alpha_pixels"] >= 0.995


def test_cogs_on_the_grid_are_their_own_pixels_at_their_zooms(map_server, map_root, tmp_path):
    """A GoogleMapsCompatible COG: every interior tile (all data) at its zooms is GDAL's, no
    sample differing; edge tiles keep GDAL's alpha (their colour may come from another level than
    GDAL's choice for a tile mostly outside the file)."""
    interior, edges = [], []
    for name in ("mercator.tif", "mercator-jpeg.tif"):
        document = tilejson(map_server, name)
        for z in range(document["minzoom"], document["maxzoom"] + 1):
            for x, y in tiles_within(document, z):
                reference = gdal_warp(map_root / name, tile_bounds(z, x, y), 256, 256, "near", tmp_path)
                (interior if (reference[..., 3] == 255).all() else edges).append(compare(tessera_tile(map_server, name, z, x, y), reference))
    summed, edge = total(interior), total(edges)
    print(f"on the grid: {len(interior)} interior tiles, {summed['differing_samples']} differing samples; {len(edges)} edge tiles, "
          f"alpha equal {edge['alpha_equal'] / edge['alpha_pixels']:.5f}")
    assert len(interior) >= 100
    assert summed["differing_samples"] == 0
    assert edge["alpha_equal"] / edge["alpha_pixels"] >= 0.995


def test_adjacent_tiles_agree_with_one_render_of_both(map_server, map_root, tmp_path):
    """20 random pairs of neighbours: side by side, they are GDAL's one warp of the two together."""
    document = tilejson(map_server, "utm.tif")
    rng = random.Random(51)
    results = []
    for _ in range(20):
        z, across = rng.choice((12, 13, 14)), rng.random() < 0.5
        within = set(tiles_within(document, z))
        x, y = rng.choice(sorted(tile for tile in within if ((tile[0] + 1, tile[1]) if across else (tile[0], tile[1] + 1)) in within))
        second = (x + 1, y) if across else (x, y + 1)
        pair = np.concatenate([tessera_tile(map_server, "utm.tif", z, x, y), tessera_tile(map_server, "utm.tif", z, *second)], axis=1 if across else 0)
        (west, south, _, north), (_, south2, east, _) = tile_bounds(z, x, y), tile_bounds(z, *second)
        bounds = (west, south, east, north) if across else (west, south2, tile_bounds(z, x, y)[2], north)
        width, height = (512, 256) if across else (256, 512)
        results.append(compare(pair, gdal_warp(map_root / "utm.tif", bounds, width, height, "near", tmp_path)))
    summed = total(results)
    assert summed["identical"] / summed["pixels"] >= 0.999


def test_stored_tiles_pass_through_with_no_decode(map_server):
    """JPEG tiles of the on-grid JPEG COG are its stored tiles, byte for byte what a decoder
    makes the same as the PNG tile, and counted as pass-throughs; tiles with masked pixels are not."""
    def passed() -> int:
        metrics = map_server.get("/metrics").decode()
        return int(float(re.search(r'tessera_request_steps_total\{step="stored_tile_passthrough"\} (\S+)', metrics).group(1)))

    document = tilejson(map_server, "mercator-jpeg.tif")
    before, whole = passed(), 0
    for x, y in tiles_within(document, document["maxzoom"]):
        jpeg = np.asarray(Image.open(io.BytesIO(map_server.get(f"/maps/mercator-jpeg.tif/{document['maxzoom']}/{x}/{y}.jpg"))).convert("RGB")).astype(int)
        png = tessera_tile(map_server, "mercator-jpeg.tif", document["maxzoom"], x, y)
        if (png[..., 3] == 255).all():
            whole += 1
            assert (jpeg == png[..., :3]).all()
    assert whole >= 9
    assert passed() - before == whole


def test_tilejson_bounds_are_gdals(map_server, map_root):
    for name in ("utm.tif", "mercator.tif"):
        info = json.loads(subprocess.run(["gdalinfo", "-json", str(map_root / name)], capture_output=True, check=True).stdout)
        ring = info["wgs84Extent"]["coordinates"][0]
        longitudes, latitudes = [point[0] for point in ring], [point[1] for point in ring]
        west, south, east, north = tilejson(map_server, name)["bounds"]
        # GDAL's extent is the four corners; Tessera follows the edges (a UTM edge bows).
        # gdalinfo -json rounds to 7 decimals.
        assert west <= min(longitudes) + 1e-6 and east >= max(longitudes) - 1e-6
        assert south <= min(latitudes) + 1e-6 and north >= max(latitudes) - 1e-6
        assert east - west < (max(longitudes) - min(longitudes)) * 1.01


#: Seconds each client is driven (the issue's 60).
CLIENT_SECONDS = float(os.environ.get("MAP_CLIENT_SECONDS", "60"))


@pytest.mark.parametrize("client", ["leaflet", "openlayers", "maplibre"])
def test_real_clients_pan_and_zoom_with_no_failure(map_server, driver, tmp_path, client):
    """Leaflet (XYZ from TileJSON), OpenLayers (WMTS capabilities) and MapLibre GL (a raster source
    from the TileJSON URL), each on its own origin, driven by a seeded walk of pans and zooms:
    every map request answered 200, no console error, and tiles drawn."""
    from mirador_support import StaticSite
    from map_clients import client_page
    from conftest import console_errors, network_log

    name = "utm-jpeg.tif"
    base = f"{map_server.url}/maps/{name}"
    client_page(client, tmp_path / "site", tilejson(map_server, name), base + "/tilejson.json", base + "/WMTSCapabilities.xml")
    site = StaticSite.start(tmp_path / "site")
    try:
        driver.get(site.url + "/index.html")
        WebDriverWait(driver, 60, poll_frequency=0.1).until(lambda d: d.execute_script("return window.ready && window.ready()"))
        deadline, steps = time.monotonic() + CLIENT_SECONDS, 0
        while time.monotonic() < deadline:
            driver.execute_script("window.step()")
            steps += 1
            time.sleep(0.25)
        time.sleep(2)
        requests = [r for r in network_log(driver) if r["url"].startswith(map_server.url + "/maps/")]
        tiles = [r for r in requests if re.search(r"/\d+/\d+/\d+\.png$", r["url"])]
        failed = [r for r in requests if r["failed"] and not r["canceled"] or (r["status"] is not None and r["status"] >= 400)]
        print(f"{client}: {steps} steps, {len(tiles)} tile requests, {len(failed)} failed")
        assert len(tiles) >= 50
        assert failed == []
        assert console_errors(driver) == []
    finally:
        site.stop()


def test_owslib_reads_the_capabilities(map_server):
    from owslib.wmts import WebMapTileService
    service = WebMapTileService(f"{map_server.url}/maps/utm.tif/WMTSCapabilities.xml")
    layer = service.contents["utm.tif"]
    document = tilejson(map_server, "utm.tif")
    assert "WebMercatorQuad" in service.tilematrixsets
    matrices = service.tilematrixsets["WebMercatorQuad"].tilematrix
    assert sorted(int(key) for key in matrices) == list(range(document["minzoom"], document["maxzoom"] + 1))
    west, south, east, north = layer.boundingBoxWGS84
    assert [west, south, east, north] == pytest.approx(document["bounds"], abs=1e-9)
    assert layer.resourceURLs[0]["template"].endswith("/maps/utm.tif/{TileMatrix}/{TileCol}/{TileRow}.png")
