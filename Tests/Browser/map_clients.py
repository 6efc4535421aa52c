"""The web-map clients the map tests drive (issue 49), each out of a PyPI wheel, fetched once with
`pip download --no-deps`, checked against its SHA-256, and kept in .build/map-clients/ (never
committed; the pages Tessera ships have no third-party code):

- Leaflet 1.9.4, in `django-js-lib-leaflet==1.9.4.1`: XYZ tiles from the TileJSON's template.
- OpenLayers 10.9 (with its WMTS capabilities parser), in `mapproxy==7.0.0`'s demo pages.
- MapLibre GL JS 5.3, in `maplibre==0.3.6`: a raster source from the TileJSON URL.

Each page starts its client on one map and exposes `window.step(i)`, a deterministic pan or zoom,
and `window.ready()`, true once the map has drawn.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("MAP_CLIENTS_DIR", REPO / ".build" / "map-clients"))

#: name → (requirement, wheel file, wheel SHA-256, {member: (kept as, SHA-256)})
CLIENTS = {
    "leaflet": ("django-js-lib-leaflet==1.9.4.1", "django_js_lib_leaflet-1.9.4.1-py2.py3-none-any.whl",
                "ca775a52be5c6aa33c164f7293c032fc50f617c6a5184bf71c2a608a743ccc33",
                {"js_lib_leaflet/static/js_lib_leaflet/leaflet.js": ("leaflet.js", "db49d009c841f5ca34a888c96511ae936fd9f5533e90d8b2c4d57596f4e5641a"),
                 "js_lib_leaflet/static/js_lib_leaflet/leaflet.css": ("leaflet.css", None)}),
    "openlayers": ("mapproxy==7.0.0", "mapproxy-7.0.0-py3-none-any.whl",
                   "319026e1a2d4ad4b6ad150fc2db474a9acf312a20bb71634029147d730cc1fdb",
                   {"mapproxy/service/templates/demo/static/ol.js": ("ol.js", "c30af874edbd468011a883cbbdb51e8e986f17b440811392cd5aa375077427c7"),
                    "mapproxy/service/templates/demo/static/ol.css": ("ol.css", None)}),
    "maplibre": ("maplibre==0.3.6", "maplibre-0.3.6-py3-none-any.whl",
                 "eeafab617d4a1b71c0c174c71405f67c4b4e494fe1b27968d4d2359bc160e277",
                 {"maplibre/srcjs/maplibre-gl.js": ("maplibre-gl.js", "e380deae560bc5d182be4124a1b9cdd5086304b0cb82c92a5af23d018aa81015"),
                  "maplibre/srcjs/maplibre-gl.css": ("maplibre-gl.css", None)}),
}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def client_files(name: str) -> Path:
    """The directory holding client `name`'s files, fetched from PyPI the first time."""
    requirement, wheel_file, wheel_sha, members = CLIENTS[name]
    directory = CACHE / name
    if all((directory / kept).is_file() for kept, _ in members.values()):
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as scratch:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-input",
             "--disable-pip-version-check", "-q", requirement, "-d", scratch], capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"pip download {requirement} failed:\n{done.stdout}{done.stderr}")
        wheel = Path(scratch) / wheel_file
        if _sha256(wheel.read_bytes()) != wheel_sha:
            raise RuntimeError(f"{wheel_file} is not the expected build")
        with zipfile.ZipFile(wheel) as archive:
            for member, (kept, sha) in members.items():
                data = archive.read(member)
                if sha is not None and _sha256(data) != sha:
                    raise RuntimeError(f"{member} in {wheel_file} is not the expected build")
                (directory / kept).write_bytes(data)
    return directory


#: A seeded walk: step i pans by a fraction of the view or zooms in or out by one, staying near
#: the map (the page brings the view back over it when it has strayed).
WALK = """
let seed = 49;
function random() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; }
"""

PAGES = {
    "leaflet": """<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<link rel="stylesheet" href="leaflet.css"><style>html,body,#map{{margin:0;height:100%}}</style></head>
<body><div id="map"></div><script src="leaflet.js"></script><script>
{walk}
const tilejson = {tilejson};
const [w, s, e, n] = tilejson.bounds;
const bounds = L.latLngBounds([s, w], [n, e]);
const map = L.map('map').fitBounds(bounds);
let loaded = false;
L.tileLayer(tilejson.tiles[0], {{minZoom: tilejson.minzoom, maxZoom: tilejson.maxzoom, bounds}}).on('load', () => loaded = true).addTo(map);
window.ready = () => loaded;
window.step = () => {{
  if (!bounds.contains(map.getCenter())) return map.fitBounds(bounds);
  if (random() < 0.3) return map.setZoom(Math.max(tilejson.minzoom, Math.min(tilejson.maxzoom, map.getZoom() + (random() < 0.5 ? 1 : -1))));
  map.panBy([(random() - 0.5) * 400, (random() - 0.5) * 300]);
}};
</script></body></html>""",
    "openlayers": """<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<link rel="stylesheet" href="ol.css"><style>html,body,#map{{margin:0;height:100%}}</style></head>
<body><div id="map"></div><script src="ol.js"></script><script>
{walk}
let loaded = false, view;
fetch({capabilities}).then(r => r.text()).then(text => {{
  const capabilities = new ol.format.WMTSCapabilities().read(text);
  const layer = capabilities.Contents.Layer[0];
  const options = ol.source.WMTS.optionsFromCapabilities(capabilities, {{layer: layer.Identifier, matrixSet: 'WebMercatorQuad'}});
  const extent = ol.proj.transformExtent(layer.WGS84BoundingBox, 'EPSG:4326', 'EPSG:3857');
  const source = new ol.source.WMTS(options);
  source.on('tileloadend', () => loaded = true);
  view = new ol.View({{extent}});
  new ol.Map({{target: 'map', layers: [new ol.layer.Tile({{source, extent}})], view}});
  view.fit(extent);
  window.extent = extent;
}});
window.ready = () => loaded;
window.step = () => {{
  if (!view) return;
  if (random() < 0.3) return view.setZoom(Math.round(view.getZoom()) + (random() < 0.5 ? 1 : -1));
  const [x, y] = view.getCenter(), r = view.getResolution();
  view.setCenter([x + (random() - 0.5) * 400 * r, y + (random() - 0.5) * 300 * r]);
}};
</script></body></html>""",
    "maplibre": """<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<link rel="stylesheet" href="maplibre-gl.css"><style>html,body,#map{{margin:0;height:100%}}</style></head>
<body><div id="map"></div><script src="maplibre-gl.js"></script><script>
{walk}
const tilejson = {tilejson};
const [w, s, e, n] = tilejson.bounds;
const map = new maplibregl.Map({{container: 'map', style: {{version: 8, sources: {{tessera: {{type: 'raster', url: {tilejson_url}, tileSize: 256}}}},
  layers: [{{id: 'tessera', type: 'raster', source: 'tessera'}}]}}, bounds: [w, s, e, n], maxBounds: [w - (e - w), s - (n - s), e + (e - w), n + (n - s)], fadeDuration: 0}});
let loaded = false;
map.on('idle', () => loaded = true);
window.ready = () => loaded;
window.step = () => {{
  if (random() < 0.3) return map.jumpTo({{zoom: Math.max(tilejson.minzoom, Math.min(tilejson.maxzoom + 1, map.getZoom() + (random() < 0.5 ? 1 : -1)))}});
  map.panBy([(random() - 0.5) * 400, (random() - 0.5) * 300], {{animate: false}});
}};
</script></body></html>""",
}


def client_page(name: str, directory: Path, tilejson: dict, tilejson_url: str, capabilities_url: str) -> Path:
    """index.html for client `name` in `directory`, beside its files, over the map of `tilejson`."""
    import json
    import shutil
    directory.mkdir(parents=True, exist_ok=True)
    for path in client_files(name).iterdir():
        shutil.copy(path, directory / path.name)
    page = directory / "index.html"
    page.write_text(PAGES[name].format(walk=WALK, tilejson=json.dumps(tilejson), tilejson_url=json.dumps(tilejson_url),
                                       capabilities=json.dumps(capabilities_url)))
    return page


if __name__ == "__main__":
    for client in CLIENTS:
        print(client_files(client))
