// One deep-zoom view on one canvas: a scene of one image, or of two side by side (a spread of a
// book), drawn from their IIIF tiles at the device's pixel density. The page owns what is around it
// (which images, the URL, the controls); a view only draws, loads and moves.
//
// A scene is a list of items, each an image pyramid placed in the scene's own coordinates ("world"
// pixels): image pixel (px, py) of an item is world point (x + px·scale, y + py·scale). A scene of
// one image at scale 1 is that image's pixels, so a view of it ({ x, y, zoom, rotation }, see
// viewer-geometry.js) is in image pixels, as a single-image viewer's is.

import { reduction } from "./level.js";
import { Placement, fitZoom, imagePointAt, normalizeRotation, panned, viewWithPointAt, visibleRect } from "./viewer-geometry.js";
import { TileLoader } from "./viewer-loader.js";
import { drawView } from "./viewer-render.js";
import { Minimap } from "./viewer-navigator.js";
import { attachGestures } from "./viewer-input.js";

/** Decoded tiles kept by a cache, at least; more on screens whose visible tiles would not fit. */
export const MIN_BUDGET = 64 * 1024 * 1024;
/** The closest zoom: 4 CSS pixels per world pixel (400 %), or the fit zoom of a tiny image. */
const MAX_ZOOM = 4;
/** The farthest zoom, as a fraction of the zoom that fits the whole scene. */
const MIN_ZOOM_OF_FIT = 0.5;
/** Animated moves (keys, buttons, double-click) take this long, in ms. */
const ANIMATION_TIME = 250;
/** The navigator's largest size, CSS pixels, and its largest share of the view. */
const NAVIGATOR_SIZE = 200;
const NAVIGATOR_SHARE = 0.3;

const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

/** The view of `item`'s own image pixels that `v` (a view of the scene) is. */
function itemView(v, item) {
  return { x: (v.x - item.x) / item.scale, y: (v.y - item.y) / item.scale, zoom: v.zoom * item.scale, rotation: v.rotation };
}

/** Tiles are scaled on nearly every frame; the best filter keeps them sharp and unaliased. */
function smoothHigh(context) {
  context.imageSmoothingEnabled = true;
  context.imageSmoothingQuality = "high";
}

export class ImageView {
  #canvas;
  #ctx;
  #cache;
  #loader;
  #minimapCanvas;
  #minimap = null;
  #loading;
  /** { items, width, height } or null before the first scene. */
  #scene = null;
  /** Pyramids whose coarsest tiles are wanted after everything shown (neighbouring canvases). */
  #prefetch = [];
  /** What is drawn now: { x, y, zoom, rotation } in world pixels. */
  #view = null;
  /** Whether the view is still the untouched fit: a resize then refits rather than keeping the zoom. */
  #atHome = true;
  /** A move under way: { from, to, anchor, start }; `to` is where loading already aims. */
  #animation = null;
  /** The view in CSS pixels and its canvas in device pixels. */
  #size = { width: 0, height: 0, deviceWidth: 0, deviceHeight: 0, dpr: devicePixelRatio };
  #frameRequested = false;
  #lastFrameComplete = false;
  #lastBox = null;
  /** A view asked for before the first layout, resolved at it. */
  #pending = null;
  #onframe;
  #onmove;
  #ready;

  /**
   * `canvas` is drawn on (its CSS size is the view's); `cache` holds decoded tiles (shared by the
   * views of a page: its keys name their pyramid); `loading` is an element hidden once the scene's
   * coarsest tiles are drawn; `minimap` a canvas for the navigator (one-image scenes only).
   * `onframe(now)` follows every frame; `onmove(target)` every move asked for through `show` but
   * not `{ silent: true }` (what a synchronised view follows); `onready` the first layout.
   */
  constructor(canvas, { cache, concurrency = 6, loading = null, minimap = null, onframe = () => {}, onmove = () => {}, onready = () => {} }) {
    this.#canvas = canvas;
    this.#ctx = canvas.getContext("2d");
    this.#cache = cache;
    this.#loader = new TileLoader(cache, () => this.requestFrame(), concurrency);
    this.#loading = loading;
    this.#minimapCanvas = minimap;
    this.#onframe = onframe;
    this.#onmove = onmove;
    this.#ready = onready;
    attachGestures(canvas, {
      grab: () => this.#stopAnimation(),
      pan: (dx, dy) => this.show(panned(this.#stopAnimation(), dx, dy)),
      zoomAt: (factor, px, py, animate) => this.zoomAt(factor, px, py, animate),
    });
    // A canvas whose context the browser dropped (GPU reset, memory pressure) comes back blank.
    canvas.addEventListener("contextrestored", () => {
      smoothHigh(this.#ctx);
      this.requestFrame();
    });
    this.#observeSize();
  }

  // ---- State ----------------------------------------------------------------------------------

  get canvas() {
    return this.#canvas;
  }

  get scene() {
    return this.#scene;
  }

  get view() {
    return this.#view;
  }

  get atHome() {
    return this.#atHome;
  }

  get ready() {
    return this.#scene !== null && this.#size.deviceWidth > 0;
  }

  /** The view's size in CSS pixels and its canvas's in device pixels. */
  get size() {
    return { ...this.#size };
  }

  /** The last frame drew every item's own level everywhere, and nothing moves or waits to draw. */
  get complete() {
    return this.#lastFrameComplete && !this.#animation && !this.#frameRequested;
  }

  get requestsInFlight() {
    return this.#loader.inFlight;
  }

  /** The level the first item is drawn at. */
  get level() {
    return this.#scene && this.#view ? this.#levelFor(this.#view, this.#scene.items[0]) : null;
  }

  /** Where the view is going: the end of a move under way, or the view itself. */
  get destination() {
    return this.#animation ? this.#animation.to : this.#view;
  }

  /**
   * Shows `items` ({ pyramid, x, y, scale }) in a `width` × `height` world: at `asked` if given (a
   * view whose missing members come from the fitted one, see `resolved`), else fitted. Loads of
   * what the last scene wanted and this one does not are cancelled at the next frame.
   */
  setScene(items, width, height, asked = null) {
    this.#scene = { items, width, height };
    this.#animation = null;
    this.#atHome = asked === null;
    // Before the first layout the view's size is unknown, and so is the fitted zoom: the view
    // asked for is resolved again then.
    this.#pending = this.#size.width === 0 ? asked : null;
    this.#view = asked ? this.#clamped(this.resolved(asked)) : this.homeView(0);
    if (this.#loading) this.#loading.hidden = false;
    this.#canvas.setAttribute("aria-busy", "true");
    const single = items.length === 1 ? items[0].pyramid : null;
    if (this.#minimapCanvas) {
      this.#minimap = single ? new Minimap(this.#minimapCanvas, single, this.#cache, (point) => this.show({ ...this.#stopAnimation(), ...point })) : null;
      this.#minimapCanvas.hidden = !single;
    }
    if (this.#size.deviceWidth > 0) this.#cache.need(this, this.#budgetFor());
    this.requestFrame();
  }

  /** Shows nothing, and stops loading. */
  clear() {
    this.#scene = null;
    this.#animation = null;
    this.#prefetch = [];
    this.#loader.update([]);
    this.#cache.need(this, 0);
    const ctx = this.#ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.#canvas.width, this.#canvas.height);
  }

  /** Requests at once (views sharing one host split them). */
  set concurrency(count) {
    this.#loader.concurrency = count;
  }

  /**
   * The view `asked` ({ x, y, zoom, rotation }, any of them null) with what it does not say from
   * the fitted view at its rotation.
   */
  resolved(asked) {
    const rotation = normalizeRotation(asked.rotation ?? 0);
    const home = this.homeView(rotation);
    return { x: asked.x ?? home.x, y: asked.y ?? home.y, zoom: asked.zoom > 0 ? asked.zoom : home.zoom, rotation };
  }

  /** Pyramids to have the coarsest tiles of once everything shown is loaded. */
  set prefetch(pyramids) {
    this.#prefetch = pyramids;
    this.requestFrame();
  }

  // ---- Moving ---------------------------------------------------------------------------------

  zoomLimits(rotation) {
    const fit = fitZoom(this.#scene.width, this.#scene.height, this.#size.width, this.#size.height, rotation);
    return { fit, min: fit * MIN_ZOOM_OF_FIT, max: Math.max(MAX_ZOOM, fit) };
  }

  homeView(rotation) {
    return { x: this.#scene.width / 2, y: this.#scene.height / 2, zoom: this.zoomLimits(rotation).fit, rotation };
  }

  /** `v` within the rules: zoom between the limits, and the centre on the scene so it cannot be lost. */
  #clamped(v) {
    const rotation = normalizeRotation(v.rotation);
    const { min, max } = this.zoomLimits(rotation);
    return {
      x: Math.min(Math.max(v.x, 0), this.#scene.width),
      y: Math.min(Math.max(v.y, 0), this.#scene.height),
      zoom: Math.min(Math.max(v.zoom, min), max),
      rotation,
    };
  }

  /**
   * Shows `next` (clamped), at once or as an animated move. Either way the tiles of `next` are
   * loaded from now on and the frame after this call already shows it or its first step.
   */
  show(next, { animate = false, anchor = null, home = false, silent = false } = {}) {
    if (!this.#scene) return;
    next = this.#clamped(next);
    this.#atHome = home;
    const from = this.#view;
    if (animate && !reducedMotion.matches && next.rotation === from.rotation) {
      this.#animation = { from, to: next, anchor: anchor ?? [this.#size.width / 2, this.#size.height / 2], start: performance.now() };
    } else {
      this.#animation = null;
      this.#view = next;
    }
    if (!silent) this.#onmove(next, { animate, home });
    this.requestFrame();
  }

  /** Zooms by `factor` keeping the world point at screen point (px, py) where it is. */
  zoomAt(factor, px, py, animate) {
    if (!this.#scene) return;
    const { width, height } = this.#size;
    const from = animate ? this.destination : this.#stopAnimation();
    const point = imagePointAt(from, width, height, px, py);
    const { min, max } = this.zoomLimits(from.rotation);
    const zoom = Math.min(Math.max(from.zoom * factor, min), max);
    this.show(viewWithPointAt(from, width, height, point, px, py, zoom), { animate, anchor: [px, py] });
  }

  /**
   * One zoom step in (+1) or out (−1) around the centre, to the next power of two of 100 %: steps land
   * on 100 %, 50 %, 25 %…, where (at a device pixel ratio of 1) a level is drawn pixel for pixel.
   */
  zoomStep(direction) {
    if (!this.#scene) return;
    const from = this.destination;
    const exponent = Math.log2(from.zoom);
    const zoom = direction > 0 ? 2 ** (Math.floor(exponent + 1e-6) + 1) : 2 ** (Math.ceil(exponent - 1e-6) - 1);
    this.zoomAt(zoom / from.zoom, this.#size.width / 2, this.#size.height / 2, true);
  }

  /** Moves the view by (dx, dy) CSS pixels, animated. */
  panBy(dx, dy) {
    if (!this.#scene) return;
    this.show(panned(this.destination, -dx, -dy), { animate: true });
  }

  rotate(quarterTurns) {
    if (!this.#scene) return;
    const from = this.destination;
    const rotation = normalizeRotation(from.rotation + 90 * quarterTurns);
    // Turning about the centre keeps x and y; from home the scene is refitted to its new shape.
    this.show(this.#atHome ? this.homeView(rotation) : { ...from, rotation }, { home: this.#atHome });
  }

  goHome() {
    if (!this.#scene) return;
    this.show(this.homeView(this.destination.rotation), { animate: true, home: true });
  }

  /** Ends a move where it is now (a new gesture takes over from there) and returns the view. */
  #stopAnimation() {
    this.#animation = null;
    return this.#view;
  }

  /** Moves an animation on to time `now`: the world point under the anchor glides from where it was
   * to where it ends up while the zoom changes geometrically, so a zoom at a point stays on it. */
  #advance(now) {
    const { from, to, anchor, start } = this.#animation;
    const { width, height } = this.#size;
    // A frame's timestamp may precede the event that started the move by a little.
    const t = Math.min(Math.max((now - start) / ANIMATION_TIME, 0), 1);
    if (t === 1) {
      this.#view = to;
      this.#animation = null;
      return;
    }
    const eased = 1 - (1 - t) ** 3;
    const [px, py] = anchor;
    const a = imagePointAt(from, width, height, px, py);
    const b = imagePointAt(to, width, height, px, py);
    const point = { x: a.x + (b.x - a.x) * eased, y: a.y + (b.y - a.y) * eased };
    const zoom = from.zoom * (to.zoom / from.zoom) ** eased;
    this.#view = viewWithPointAt(from, width, height, point, px, py, zoom);
  }

  /**
   * The view as fractions of the scene (centre) and of the fitted zoom: what a second view of
   * another image takes to show the same part (`fromRelative`).
   */
  relative(v = this.destination) {
    return { x: v.x / this.#scene.width, y: v.y / this.#scene.height, zoom: v.zoom / this.zoomLimits(v.rotation).fit, rotation: v.rotation };
  }

  fromRelative(r) {
    return { x: r.x * this.#scene.width, y: r.y * this.#scene.height, zoom: r.zoom * this.zoomLimits(r.rotation).fit, rotation: r.rotation };
  }

  // ---- Drawing --------------------------------------------------------------------------------

  requestFrame() {
    if (this.#frameRequested) return;
    this.#frameRequested = true;
    requestAnimationFrame((now) => this.#frame(now));
  }

  #levelFor(v, item) {
    return reduction(v.zoom * item.scale * this.#size.dpr, item.pyramid.levelCount);
  }

  #frame(now) {
    this.#frameRequested = false;
    const scene = this.#scene, size = this.#size;
    if (!scene || size.deviceWidth === 0) return;
    if (this.#animation) this.#advance(now);
    const ctx = this.#ctx, view = this.#view;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, size.deviceWidth, size.deviceHeight);
    let complete = true, placeholders = true;
    for (const item of scene.items) {
      const own = itemView(view, item);
      const placement = new Placement(own, size.deviceWidth, size.deviceHeight, own.zoom * size.dpr);
      const drawn = drawView(ctx, placement, item.pyramid, this.#cache, this.#levelFor(view, item), visibleRect(own, size.width, size.height));
      complete &&= drawn;
      placeholders &&= this.#cache.has(item.pyramid.tile(item.pyramid.coarsest, 0, 0).key);
    }
    this.#lastFrameComplete = complete;
    if (placeholders && this.#canvas.hasAttribute("aria-busy")) {
      if (this.#loading) this.#loading.hidden = true;
      this.#canvas.removeAttribute("aria-busy");
    }
    this.#loader.update(this.#wantedTiles(this.destination));
    this.#minimap?.draw(view, size.width, size.height, ...this.#navigatorBox(), size.dpr);
    this.#onframe(now);
    if (this.#animation) this.requestFrame();
  }

  /**
   * The tiles to have, most wanted first: each item's coarsest level (the placeholder under
   * everything, and the navigator), then the visible tiles of each item's level from the centre
   * out, then one ring around them so a pan reveals tiles already there, then the coarsest tiles
   * of the pyramids to prefetch. Cached ones are marked used, the visible ones last (most recent).
   */
  #wantedTiles(v) {
    const coarse = [], visible = [], ring = [];
    for (const item of this.#scene.items) {
      const pyramid = item.pyramid, coarsest = pyramid.coarsest, level = this.#levelFor(v, item);
      const own = itemView(v, item);
      const rect = visibleRect(own, this.#size.width, this.#size.height);
      const distance = (tile) => {
        const { x0, y0, x1, y1 } = tile.region;
        return Math.hypot((x0 + x1) / 2 - own.x, (y0 + y1) / 2 - own.y);
      };
      const byDistance = (a, b) => distance(a) - distance(b);
      coarse.push(...pyramid.tilesIn(coarsest, pyramid.wholeRange(coarsest)).sort(byDistance));
      if (level === coarsest) continue;
      const shown = pyramid.tilesIn(level, pyramid.range(level, rect)).sort(byDistance);
      const keys = new Set(shown.map((tile) => tile.key));
      visible.push(...shown);
      ring.push(...pyramid.tilesIn(level, pyramid.range(level, rect, 1)).filter((tile) => !keys.has(tile.key)).sort(byDistance));
    }
    const ahead = this.#prefetch.flatMap((pyramid) => pyramid.tilesIn(pyramid.coarsest, pyramid.wholeRange(pyramid.coarsest)));
    for (const tile of [...ring].reverse()) this.#cache.touch(tile.key);
    for (const tile of [...visible].reverse()) this.#cache.touch(tile.key);
    return [
      ...coarse.map((tile) => ({ tile, pinned: true })),
      ...[...visible, ...ring].map((tile) => ({ tile, pinned: false })),
      ...ahead.map((tile) => ({ tile, pinned: false })),
    ];
  }

  /**
   * The byte budget for this canvas and scene. The rule picks a level whose tiles cover between
   * half and all of their own size in device pixels, so at most ⌈side / (tile/2)⌉ + 1 tiles show
   * along a side; with the ring, the coarsest levels and room for the placeholders of a zoom under
   * way (half again) the cache never has to evict a tile the view still wants.
   */
  #budgetFor() {
    let wanted = 0;
    for (const { pyramid } of this.#scene.items) {
      const columns = Math.ceil(this.#size.deviceWidth / (pyramid.tileWidth / 2)) + 3;
      const rows = Math.ceil(this.#size.deviceHeight / (pyramid.tileHeight / 2)) + 3;
      const { columns: coarseColumns, rows: coarseRows } = pyramid.levels[pyramid.coarsest];
      wanted += (columns * rows + coarseColumns * coarseRows) * pyramid.tileBytes;
    }
    return Math.max(MIN_BUDGET, Math.ceil(wanted * 1.5));
  }

  /**
   * The view's pixels as a PNG, at the canvas's device pixels, with the CSS `filter` (the page's
   * adjustments) drawn into them.
   */
  async exportPNG(filter = "none") {
    const out = document.createElement("canvas");
    out.width = this.#canvas.width;
    out.height = this.#canvas.height;
    const ctx = out.getContext("2d");
    ctx.filter = filter;
    ctx.drawImage(this.#canvas, 0, 0);
    return new Promise((resolve, reject) => out.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the view could not be encoded"))), "image/png"));
  }

  // ---- Size and density -----------------------------------------------------------------------

  #navigatorBox() {
    const { width, height } = this.#size;
    return [Math.min(NAVIGATOR_SIZE, width * NAVIGATOR_SHARE), Math.min(NAVIGATOR_SIZE, height * NAVIGATOR_SHARE)];
  }

  /** Takes a new view size; the canvas backing store matches the device pixels exactly, or the
   * browser would rescale the whole frame and blur it. */
  #layout(width, height, deviceWidth, deviceHeight) {
    this.#size = { width, height, deviceWidth, deviceHeight, dpr: devicePixelRatio };
    this.#canvas.width = deviceWidth;
    this.#canvas.height = deviceHeight;
    // Resizing a canvas resets its context.
    smoothHigh(this.#ctx);
    if (width === 0 || height === 0 || !this.#scene) return;
    this.#cache.need(this, this.#budgetFor());
    const target = this.#pending ? this.resolved(this.#pending) : this.destination;
    this.#pending = null;
    this.#animation = null;
    this.#view = this.#atHome ? this.homeView(target.rotation) : this.#clamped(target);
    // Drawn now, not at the next frame: resizing cleared the canvas, and this runs before paint.
    this.#frame(performance.now());
    this.#ready();
  }

  #observeSize() {
    const observer = new ResizeObserver(([entry]) => {
      const { width, height } = entry.contentRect;
      // The exact device-pixel size where the browser reports it; width × ratio elsewhere.
      const box = entry.devicePixelContentBoxSize?.[0];
      this.#lastBox = { width, height };
      this.#layout(width, height, box ? box.inlineSize : Math.round(width * devicePixelRatio), box ? box.blockSize : Math.round(height * devicePixelRatio));
    });
    try {
      observer.observe(this.#canvas, { box: "device-pixel-content-box" });
    } catch {
      observer.observe(this.#canvas);
    }
    this.#watchDensity();
  }

  /** A change of devicePixelRatio alone (a window moved to another screen) resizes no element in
   * browsers without device-pixel boxes, so it is watched for on its own. */
  #watchDensity() {
    matchMedia(`(resolution: ${devicePixelRatio}dppx)`).addEventListener(
      "change",
      () => {
        const box = this.#lastBox;
        if (box && devicePixelRatio !== this.#size.dpr) {
          this.#layout(box.width, box.height, Math.round(box.width * devicePixelRatio), Math.round(box.height * devicePixelRatio));
        }
        this.#watchDensity();
      },
      { once: true },
    );
  }
}
