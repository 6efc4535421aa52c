// The deep-zoom viewer of GET /view/{identifier}: reads the image's IIIF info.json, draws its tiles
// on a canvas at the device's pixel density, and keeps the view in the URL fragment.

import { reduction } from "./level.js";
import { Placement, fitZoom, imagePointAt, normalizeRotation, panned, viewWithPointAt, visibleRect } from "./viewer-geometry.js";
import { Pyramid } from "./viewer-pyramid.js";
import { TileCache } from "./viewer-cache.js";
import { TileLoader } from "./viewer-loader.js";
import { drawView } from "./viewer-render.js";
import { Minimap } from "./viewer-navigator.js";
import { attachGestures } from "./viewer-input.js";
import { pagePath } from "./page-path.js";

/** Decoded tiles kept, at least; more on screens whose visible tiles and ring would not fit. */
const MIN_BUDGET = 64 * 1024 * 1024;
/** The closest zoom: 4 CSS pixels per image pixel (400 %), or the fit zoom of a tiny image. */
const MAX_ZOOM = 4;
/** The farthest zoom, as a fraction of the zoom that fits the whole image. */
const MIN_ZOOM_OF_FIT = 0.5;
/** Arrow keys move the view by this fraction of its width or height. */
const ARROW_STEP = 0.15;
/** Animated moves (keys, buttons, double-click) take this long, in ms. */
const ANIMATION_TIME = 250;
/** Safari throws after 100 history updates in 30 s and Chromium ignores them after 200 in 10 s, so
 * the fragment is rewritten at most this often (ms); the last view of a gesture is always written. */
const FRAGMENT_INTERVAL = 400;
/** The zoom is announced once it has stayed put this long (ms). */
const ANNOUNCE_DELAY = 600;
/** The navigator's largest size, CSS pixels, and its largest share of the window. */
const NAVIGATOR_SIZE = 200;
const NAVIGATOR_SHARE = 0.3;

const root = document.getElementById("viewer");
const canvas = document.getElementById("view");
const ctx = canvas.getContext("2d");
const message = document.getElementById("message");
const status = document.getElementById("status");
const readout = document.getElementById("readout");
const loading = document.getElementById("loading");
const buttons = {
  zoomIn: document.getElementById("zoom-in"),
  zoomOut: document.getElementById("zoom-out"),
  home: document.getElementById("home"),
  rotate: document.getElementById("rotate"),
  fullscreen: document.getElementById("fullscreen"),
};
const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

// The identifier stays percent-encoded (a `/` in it is %2F) exactly as the server expects it back.
const identifier = /^view\/(.+)$/.exec(pagePath())?.[1] ?? "";
const name = (() => {
  try {
    return decodeURIComponent(identifier);
  } catch {
    return identifier;
  }
})();

const cache = new TileCache(MIN_BUDGET);
const loader = new TileLoader(cache, requestFrame);
let pyramid = null;
let minimap = null;
/** What is drawn now: { x, y, zoom, rotation } (see viewer-geometry.js). */
let view = null;
/** Whether the view is still the untouched fit: a resize then refits rather than keeping the zoom. */
let atHome = true;
/** A move under way: { from, to, anchor, start }; `to` is where loading already aims. */
let animation = null;
/** The view in CSS pixels and its canvas in device pixels. */
let size = { width: 0, height: 0, deviceWidth: 0, deviceHeight: 0, dpr: devicePixelRatio };
let frameRequested = false;
let lastFrameComplete = false;
const fragment = { written: location.hash, at: -Infinity, timer: 0 };
const announcement = { text: "", timer: 0 };

function requestFrame() {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(frame);
}

// ---- View rules -----------------------------------------------------------------------------

function levelFor(v) {
  return reduction(v.zoom * size.dpr, pyramid.levelCount);
}

function zoomLimits(rotation) {
  const fit = fitZoom(pyramid.width, pyramid.height, size.width, size.height, rotation);
  return { fit, min: fit * MIN_ZOOM_OF_FIT, max: Math.max(MAX_ZOOM, fit) };
}

/** `v` within the rules: zoom between the limits, and the centre on the image so it cannot be lost. */
function clamped(v) {
  const rotation = normalizeRotation(v.rotation);
  const { min, max } = zoomLimits(rotation);
  return {
    x: Math.min(Math.max(v.x, 0), pyramid.width),
    y: Math.min(Math.max(v.y, 0), pyramid.height),
    zoom: Math.min(Math.max(v.zoom, min), max),
    rotation,
  };
}

function homeView(rotation) {
  return { x: pyramid.width / 2, y: pyramid.height / 2, zoom: zoomLimits(rotation).fit, rotation };
}

/** Where the view is going: the end of a move under way, or the view itself. */
function destination() {
  return animation ? animation.to : view;
}

/**
 * Shows `next` (clamped), at once or as an animated move. Either way the tiles of `next` are
 * loaded from now on and the frame after this call already shows it or its first step.
 */
function show(next, { animate = false, anchor = null, home = false } = {}) {
  next = clamped(next);
  atHome = home;
  if (animate && !reducedMotion.matches && next.rotation === view.rotation) {
    animation = { from: view, to: next, anchor: anchor ?? [size.width / 2, size.height / 2], start: performance.now() };
  } else {
    animation = null;
    view = next;
  }
  requestFrame();
}

/** Moves an animation on to time `now`: the image point under the anchor glides from where it was
 * to where it ends up while the zoom changes geometrically, so a zoom at a point stays on it. */
function advance(now) {
  const { from, to, anchor, start } = animation;
  // A frame's timestamp may precede the event that started the move by a little.
  const t = Math.min(Math.max((now - start) / ANIMATION_TIME, 0), 1);
  if (t === 1) {
    view = to;
    animation = null;
    return;
  }
  const eased = 1 - (1 - t) ** 3;
  const [px, py] = anchor;
  const a = imagePointAt(from, size.width, size.height, px, py);
  const b = imagePointAt(to, size.width, size.height, px, py);
  const point = { x: a.x + (b.x - a.x) * eased, y: a.y + (b.y - a.y) * eased };
  const zoom = from.zoom * (to.zoom / from.zoom) ** eased;
  view = viewWithPointAt(from, size.width, size.height, point, px, py, zoom);
}

/** Zooms by `factor` keeping the image point at screen point (px, py) where it is. */
function zoomAt(factor, px, py, animate) {
  const from = animate ? destination() : stopAnimation();
  const point = imagePointAt(from, size.width, size.height, px, py);
  const { min, max } = zoomLimits(from.rotation);
  const zoom = Math.min(Math.max(from.zoom * factor, min), max);
  show(viewWithPointAt(from, size.width, size.height, point, px, py, zoom), { animate, anchor: [px, py] });
}

/**
 * One zoom step in (+1) or out (−1) around the centre, to the next power of two of 100 %: steps land
 * on 100 %, 50 %, 25 %…, where (at a device pixel ratio of 1) a level is drawn pixel for pixel.
 */
function zoomStep(direction) {
  const from = destination();
  const exponent = Math.log2(from.zoom);
  const zoom = direction > 0 ? 2 ** (Math.floor(exponent + 1e-6) + 1) : 2 ** (Math.ceil(exponent - 1e-6) - 1);
  zoomAt(zoom / from.zoom, size.width / 2, size.height / 2, true);
}

/** Ends a move where it is now (a new gesture takes over from there) and returns the view. */
function stopAnimation() {
  animation = null;
  return view;
}

function rotate(quarterTurns) {
  const from = destination();
  const rotation = normalizeRotation(from.rotation + 90 * quarterTurns);
  // Turning about the centre keeps x and y; from home the image is refitted to its new shape.
  show(atHome ? homeView(rotation) : { ...from, rotation }, { home: atHome });
}

function goHome() {
  show(homeView(destination().rotation), { animate: true, home: true });
}

// ---- Drawing ----------------------------------------------------------------------------------

/** Tiles are scaled on nearly every frame; the best filter keeps them sharp and unaliased. */
function smoothHigh(context) {
  context.imageSmoothingEnabled = true;
  context.imageSmoothingQuality = "high";
}

function frame(now) {
  frameRequested = false;
  if (!pyramid || size.deviceWidth === 0) return;
  if (animation) advance(now);
  const level = levelFor(view);
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, size.deviceWidth, size.deviceHeight);
  const placement = new Placement(view, size.deviceWidth, size.deviceHeight, view.zoom * size.dpr);
  lastFrameComplete = drawView(ctx, placement, pyramid, cache, level, visibleRect(view, size.width, size.height));
  if (!loading.hidden && cache.has(pyramid.tile(pyramid.coarsest, 0, 0).key)) {
    loading.hidden = true;
    canvas.removeAttribute("aria-busy");
  }
  loader.update(wantedTiles(destination()));
  minimap.draw(view, size.width, size.height, ...navigatorBox(), size.dpr);
  updateControls();
  writeFragment(now);
  if (animation) requestFrame();
}

/**
 * The tiles to have, most wanted first: the coarsest level (the placeholder under everything, and
 * the navigator), then the visible tiles of the view's level from the centre out, then one ring
 * around them so a pan reveals tiles already there. The ring always fits: the budget is sized
 * for it (see `budgetFor`). Cached ones are marked used, the visible ones last (most recent).
 */
function wantedTiles(v) {
  const coarsest = pyramid.coarsest, level = levelFor(v);
  const rect = visibleRect(v, size.width, size.height);
  const distance = (tile) => {
    const { x0, y0, x1, y1 } = tile.region;
    return Math.hypot((x0 + x1) / 2 - v.x, (y0 + y1) / 2 - v.y);
  };
  const byDistance = (a, b) => distance(a) - distance(b);
  const whole = pyramid.tilesIn(coarsest, pyramid.range(coarsest, { x0: 0, y0: 0, x1: pyramid.width, y1: pyramid.height }));
  const visible = level === coarsest ? [] : pyramid.tilesIn(level, pyramid.range(level, rect)).sort(byDistance);
  const shown = new Set(visible.map((tile) => tile.key));
  const ring = level === coarsest ? [] : pyramid.tilesIn(level, pyramid.range(level, rect, 1)).filter((tile) => !shown.has(tile.key)).sort(byDistance);
  for (const tile of [...ring].reverse()) cache.touch(tile.key);
  for (const tile of [...visible].reverse()) cache.touch(tile.key);
  return [...whole.sort(byDistance).map((tile) => ({ tile, pinned: true })), ...[...visible, ...ring].map((tile) => ({ tile, pinned: false }))];
}

/**
 * The byte budget for a canvas of this size. The rule picks a level whose tiles cover between half
 * and all of their own size in device pixels, so at most ⌈side / (tile/2)⌉ + 1 tiles show along a
 * side; with the ring, the coarsest level and room for the placeholders of a zoom under way (half
 * again) the cache never has to evict a tile the view still wants.
 */
function budgetFor(deviceWidth, deviceHeight) {
  const columns = Math.ceil(deviceWidth / (pyramid.tileWidth / 2)) + 3;
  const rows = Math.ceil(deviceHeight / (pyramid.tileHeight / 2)) + 3;
  const { columns: coarseColumns, rows: coarseRows } = pyramid.levels[pyramid.coarsest];
  const wanted = (columns * rows + coarseColumns * coarseRows) * pyramid.tileBytes;
  return Math.max(MIN_BUDGET, Math.ceil(wanted * 1.5));
}

/** The zoom as a percentage to three significant digits: 12.5%, 6.25%, 100%. */
function zoomText(zoom) {
  return `${Number((zoom * 100).toPrecision(3))}%`;
}

function updateControls() {
  const text = zoomText(view.zoom);
  if (readout.textContent !== text) readout.textContent = text;
  const { min, max } = zoomLimits(view.rotation);
  const target = destination();
  // aria-disabled rather than disabled: a disabled button drops keyboard focus.
  buttons.zoomIn.setAttribute("aria-disabled", String(target.zoom >= max * (1 - 1e-9)));
  buttons.zoomOut.setAttribute("aria-disabled", String(target.zoom <= min * (1 + 1e-9)));
  announce(`Zoom ${text}${view.rotation ? `, rotated ${view.rotation}°` : ""}`);
}

/** Says `text` in the live region once it has stopped changing, so a gesture is one announcement. */
function announce(text) {
  if (text === announcement.text) return;
  // The first zoom is what the page opens at, not a change worth saying.
  const first = announcement.text === "";
  announcement.text = text;
  if (first) return;
  clearTimeout(announcement.timer);
  announcement.timer = setTimeout(() => {
    status.textContent = text;
  }, ANNOUNCE_DELAY);
}

// ---- The URL fragment -------------------------------------------------------------------------

function round(value, digits) {
  return Number(value.toFixed(digits));
}

function fragmentOf(v) {
  return `#x=${round(v.x, 2)}&y=${round(v.y, 2)}&zoom=${Number(v.zoom.toPrecision(6))}&rotation=${v.rotation}`;
}

/** The view a fragment asks for, any missing part from the fitted view; null if it asks for none. */
function viewFromFragment(hash) {
  const parameters = new URLSearchParams(hash.replace(/^#/, ""));
  const number = (key) => {
    const value = parameters.get(key);
    return value !== null && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : null;
  };
  const asked = { x: number("x"), y: number("y"), zoom: number("zoom"), rotation: number("rotation") };
  if (Object.values(asked).every((value) => value === null)) return null;
  const rotation = normalizeRotation(asked.rotation ?? 0);
  const home = homeView(rotation);
  return { x: asked.x ?? home.x, y: asked.y ?? home.y, zoom: asked.zoom > 0 ? asked.zoom : home.zoom, rotation };
}

/**
 * Keeps the fragment on the view, with replaceState (a view is not a page: Back should leave the
 * viewer, not replay every pan), no more often than `FRAGMENT_INTERVAL`. An untouched fitted view
 * opened without a fragment keeps the URL clean.
 */
function writeFragment(now) {
  if (atHome && !location.hash) return;
  const wanted = fragmentOf(view);
  if (wanted === fragment.written) return;
  const wait = fragment.at + FRAGMENT_INTERVAL - now;
  if (wait > 0) {
    if (!fragment.timer) fragment.timer = setTimeout(() => {
      fragment.timer = 0;
      requestFrame();
    }, wait);
    return;
  }
  // The page's own path with the fragment: a bare "#…" would resolve against the document's
  // <base>, which is where the pages are mounted, not this page.
  history.replaceState(history.state, "", location.pathname + location.search + wanted);
  fragment.written = wanted;
  fragment.at = now;
}

/** A fragment changed by hand or by a link on the page moves the view there. */
function followFragment() {
  window.addEventListener("hashchange", () => {
    if (location.hash === fragment.written) return;
    fragment.written = location.hash;
    const asked = viewFromFragment(location.hash);
    show(asked ?? homeView(destination().rotation), { home: !asked });
  });
}

// ---- Size and density -------------------------------------------------------------------------

function navigatorBox() {
  return [Math.min(NAVIGATOR_SIZE, size.width * NAVIGATOR_SHARE), Math.min(NAVIGATOR_SIZE, size.height * NAVIGATOR_SHARE)];
}

/** Takes a new view size; the canvas backing store matches the device pixels exactly, or the
 * browser would rescale the whole frame and blur it. */
function layout(width, height, deviceWidth, deviceHeight) {
  size = { width, height, deviceWidth, deviceHeight, dpr: devicePixelRatio };
  canvas.width = deviceWidth;
  canvas.height = deviceHeight;
  // Resizing a canvas resets its context.
  smoothHigh(ctx);
  if (width === 0 || height === 0) return;
  cache.budget = budgetFor(deviceWidth, deviceHeight);
  const target = destination();
  animation = null;
  view = atHome ? homeView(target.rotation) : clamped(target);
  // Drawn now, not at the next frame: resizing cleared the canvas, and this runs before paint.
  frame(performance.now());
}

let lastBox = null;
function observeSize() {
  const observer = new ResizeObserver(([entry]) => {
    const { width, height } = entry.contentRect;
    // The exact device-pixel size where the browser reports it; width × ratio elsewhere.
    const box = entry.devicePixelContentBoxSize?.[0];
    lastBox = { width, height };
    layout(width, height, box ? box.inlineSize : Math.round(width * devicePixelRatio), box ? box.blockSize : Math.round(height * devicePixelRatio));
  });
  try {
    observer.observe(canvas, { box: "device-pixel-content-box" });
  } catch {
    observer.observe(canvas);
  }
  watchDensity();
}

/** A change of devicePixelRatio alone (a window moved to another screen) resizes no element in
 * browsers without device-pixel boxes, so it is watched for on its own. */
function watchDensity() {
  matchMedia(`(resolution: ${devicePixelRatio}dppx)`).addEventListener(
    "change",
    () => {
      if (lastBox && devicePixelRatio !== size.dpr) {
        layout(lastBox.width, lastBox.height, Math.round(lastBox.width * devicePixelRatio), Math.round(lastBox.height * devicePixelRatio));
      }
      watchDensity();
    },
    { once: true },
  );
}

// ---- Controls ---------------------------------------------------------------------------------

function toggleFullscreen() {
  if (!document.fullscreenEnabled) return;
  const request = document.fullscreenElement ? document.exitFullscreen() : root.requestFullscreen();
  // Refused (no user gesture, or a policy): the page simply stays as it is.
  request.catch(() => {});
}

function pressed(button, action) {
  button.addEventListener("click", () => {
    if (button.getAttribute("aria-disabled") !== "true") action();
  });
}

function attachControls() {
  pressed(buttons.zoomIn, () => zoomStep(1));
  pressed(buttons.zoomOut, () => zoomStep(-1));
  pressed(buttons.home, goHome);
  pressed(buttons.rotate, () => rotate(1));
  pressed(buttons.fullscreen, toggleFullscreen);
  buttons.fullscreen.hidden = !document.fullscreenEnabled;
  document.addEventListener("fullscreenchange", () => {
    buttons.fullscreen.setAttribute("aria-pressed", String(document.fullscreenElement !== null));
  });

  document.addEventListener("keydown", (event) => {
    // Ctrl/⌘/Alt combinations belong to the browser (ctrl+plus zooms the page).
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    const from = destination();
    const arrow = {
      ArrowLeft: [-ARROW_STEP * size.width, 0],
      ArrowRight: [ARROW_STEP * size.width, 0],
      ArrowUp: [0, -ARROW_STEP * size.height],
      ArrowDown: [0, ARROW_STEP * size.height],
    }[event.key];
    if (arrow) show(panned(from, -arrow[0], -arrow[1]), { animate: true });
    else if (event.key === "+" || event.key === "=") zoomStep(1);
    else if (event.key === "-" || event.key === "_") zoomStep(-1);
    else if (event.key === "0") goHome();
    else if (event.key === "r" || event.key === "R") rotate(event.shiftKey ? -1 : 1);
    else if (event.key === "f" || event.key === "F") toggleFullscreen();
    else return;
    event.preventDefault();
  });

  // A canvas whose context the browser dropped (GPU reset, memory pressure) comes back blank.
  canvas.addEventListener("contextrestored", () => {
    smoothHigh(ctx);
    requestFrame();
  });

  attachGestures(canvas, {
    grab: stopAnimation,
    pan: (dx, dy) => show(panned(stopAnimation(), dx, dy)),
    zoomAt,
  });
}

// ---- Start ------------------------------------------------------------------------------------

function fail(text) {
  message.textContent = text;
  message.hidden = false;
  loading.hidden = true;
  root.classList.add("failed");
  canvas.removeAttribute("aria-busy");
}

/** The server's one-line reason for a failed request, if it gave a short plain one. */
async function reason(response) {
  const body = await response.text().catch(() => "");
  const line = body.trim().split("\n")[0];
  return line.length > 0 && line.length <= 200 && !line.startsWith("<") ? line : response.statusText;
}

async function open() {
  document.title = `${name} — Tessera`;
  document.getElementById("name").textContent = name;
  canvas.setAttribute("aria-label", name);
  if (!identifier) return fail("No image named: open /view/ followed by the image's identifier.");
  const base = `iiif/3/${identifier}`;
  let info;
  try {
    const response = await fetch(`${base}/info.json`);
    if (!response.ok) return fail(`Could not open ${name}: ${response.status} ${await reason(response)}`.trim());
    info = await response.json();
  } catch (error) {
    return fail(`Could not open ${name}: ${error instanceof SyntaxError ? "the server's description is not JSON" : "the server did not answer"}.`);
  }
  try {
    pyramid = new Pyramid(info, base);
  } catch (error) {
    return fail(`Could not open ${name}: ${error.message}.`);
  }
  canvas.setAttribute("aria-label", `${name}, ${pyramid.width} × ${pyramid.height} pixels`);
  const navigatorCanvas = document.getElementById("navigator");
  minimap = new Minimap(navigatorCanvas, pyramid, cache, (point) => show({ ...stopAnimation(), ...point }));
  navigatorCanvas.hidden = false;
  // A stand-in until the first layout() knows the window's size and fits the image to it.
  view = homeView(0);
  attachControls();
  followFragment();
  observeSize();
  const asked = viewFromFragment(location.hash);
  if (asked) show(asked);
}

// A read-only window for tests and debugging: snapshots, never the live objects.
window.tesseraViewer = Object.freeze({
  get ready() {
    return pyramid !== null && size.deviceWidth > 0;
  },
  get error() {
    return message.hidden ? null : message.textContent;
  },
  get image() {
    return pyramid && { width: pyramid.width, height: pyramid.height, levelCount: pyramid.levelCount, tileWidth: pyramid.tileWidth, tileHeight: pyramid.tileHeight };
  },
  get view() {
    return view && { ...view };
  },
  /** The view's size in CSS pixels (what `view` is centred in). */
  get viewport() {
    return { width: size.width, height: size.height };
  },
  get level() {
    return pyramid && view && levelFor(view);
  },
  /** The last frame drew the view's own level everywhere, and nothing is moving or waiting to draw. */
  get complete() {
    return lastFrameComplete && !animation && !frameRequested;
  },
  get cache() {
    return { bytes: cache.bytes, tiles: cache.size, budget: cache.budget, evictions: cache.evictions };
  },
  get requestsInFlight() {
    return loader.inFlight;
  },
  get devicePixelRatio() {
    return size.dpr;
  },
});

open();
