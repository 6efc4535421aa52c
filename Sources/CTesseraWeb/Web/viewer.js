// The viewer page: GET /view/{identifier} (an image, or every page of a document) and
// GET /view?manifest=URL (any IIIF Presentation 3.0 manifest or collection, Tessera's or another
// server's). One image is a deep-zoom view; many have a strip of thumbnails, paging by keys, a page
// number, a gallery, two pages side by side for books, a second view to compare, adjustments and
// downloads. A canvas a video or a sound paints plays in the view's place; a collection is listed.
// The URL fragment names the page and the view (#canvas=N&x=…&y=…&zoom=…&rotation=…), so every
// page and view has a link.

import { Pyramid } from "./viewer-pyramid.js";
import { TileCache } from "./viewer-cache.js";
import { CONCURRENCY } from "./viewer-loader.js";
import { ImageView, MIN_BUDGET } from "./viewer-view.js";
import { ManifestError, readCollection, readManifest, safeURL } from "./viewer-manifest.js";
import { MediaStage, listCollection } from "./viewer-media.js";
import { ThumbnailList } from "./viewer-thumbnails.js";
import { Adjustments } from "./viewer-adjust.js";
import { AuthClient, authServicesOf } from "./viewer-auth.js";
import { pagePath } from "./page-path.js";
import { ScaleBar, micronsPerPixel } from "./viewer-scale.js";

/** Arrow keys move the view by this fraction of its width or height. */
const ARROW_STEP = 0.15;
/** Safari throws after 100 history updates in 30 s and Chromium ignores them after 200 in 10 s, so
 * the fragment is rewritten at most this often (ms); the last view of a gesture is always written. */
const FRAGMENT_INTERVAL = 400;
/** The zoom is announced once it has stayed put this long (ms). */
const ANNOUNCE_DELAY = 600;
/** What waits for the main view to be sharp (thumbnails, the neighbours, a document's pages) waits
 * no longer than this (ms), so a view whose tiles keep failing does not hold the rest back. */
const SHARP_FALLBACK = 3000;

const element = (id) => document.getElementById(id);
const root = element("viewer");
const stage = element("stage");
const message = element("message");
const status = element("status");
const readout = element("readout");
const buttons = {
  zoomIn: element("zoom-in"),
  zoomOut: element("zoom-out"),
  home: element("home"),
  rotate: element("rotate"),
  fullscreen: element("fullscreen"),
  adjust: element("adjust"),
  download: element("download"),
  previous: element("previous"),
  next: element("next"),
  twoUp: element("two-up"),
  gallery: element("gallery-button"),
  compare: element("compare"),
  sync: element("sync"),
};
const pageNumber = element("page-number");
const compareWith = element("compare-with");

// ---- What is asked for -------------------------------------------------------------------------

// The identifier stays percent-encoded (a `/` in it is %2F) exactly as the server expects it back.
const identifier = /^view\/(.+)$/.exec(pagePath())?.[1] ?? "";
const query = new URLSearchParams(location.search);
const manifestURL = identifier ? null : safeURL(query.get("manifest"), document.baseURI);
const compareURL = safeURL(query.get("compare"), document.baseURI);
const name = (() => {
  try {
    return decodeURIComponent(identifier);
  } catch {
    return identifier;
  }
})();

// ---- State -------------------------------------------------------------------------------------

/** Decoded tiles of every image the page shows, one budget for all. */
const cache = new TileCache(MIN_BUDGET);
const media = new MediaStage(element("pane"), element("view"));
const main = new ImageView(element("view"), {
  cache,
  loading: element("loading"),
  minimap: element("navigator"),
  onframe: (now) => afterFrame(now),
  onmove: (target, how) => follow(main, second, target, how),
});
const second = new ImageView(element("view-2"), {
  cache,
  loading: element("loading-2"),
  onframe: () => showScale(second, scales.second),
  onmove: (target, how) => follow(second, main, target, how),
  onready: () => {
    if (comparison?.synced && second.scene && main.scene) second.show(second.fromRelative(main.relative()), { silent: true });
  },
});
/** Each view's scale bar, shown for an image whose info.json gives its physical scale. */
const scales = { main: new ScaleBar(element("scale")), second: new ScaleBar(element("scale-2")) };
/** The view keys and buttons act on: the one last pressed or focused. */
let active = main;

/** The document: { label, paged, rightToLeft, canvases } (see viewer-manifest.js). */
let doc = null;
/** The first canvas (from 0, in reading order) of what the main view shows. */
let current = 0;
/** Whether two canvases show side by side (a book's spread); books open so. */
let twoUp = false;
/** Compare mode: { doc, index, synced }, or null. */
let comparison = null;
/** The CSS filter of the adjustments, and the IIIF quality of the tiles. */
let filter = "none";
let quality = "default";
/** Pyramids shown or prefetched now, whose tiles the cache keeps. */
let kept = new Set();
/** The canvases (from 0) the main view shows, left to right. */
let shownCanvases = [];
/** Counts requests to show a canvas, so an answer that arrives after a later request is dropped. */
let generation = 0;
let strip = null;
let gallery = null;
/** The collection listed instead of a manifest, or null. */
let browsed = null;
const fragment = { written: location.hash, at: -Infinity, timer: 0 };
const announcement = { text: "", timer: 0 };

const isMulti = () => doc !== null && doc.canvases.length > 1;

/** Callbacks waiting for the main view to be fully drawn. */
const sharpWaiters = [];

/**
 * Resolves once the main view is fully drawn (or after `SHARP_FALLBACK`): the image asked for comes
 * first, and thumbnails, neighbouring pages and a document's page list do not compete with its
 * tiles for the browser's six connections and the server's cores.
 */
function whenSharp() {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      const index = sharpWaiters.indexOf(done);
      if (index >= 0) sharpWaiters.splice(index, 1);
      resolve();
    };
    const timer = setTimeout(done, SHARP_FALLBACK);
    sharpWaiters.push(done);
    main.requestFrame();
  });
}

// ---- Fetching ---------------------------------------------------------------------------------

/** The server's one-line reason for a failed request (its body's first line), if short and plain. */
function reason(text, response) {
  const line = text.trim().split("\n")[0];
  return line.length > 0 && line.length <= 200 && !line.startsWith("<") && !line.startsWith("{") ? line : response.statusText;
}

/** After a login or logout the same URLs answer otherwise: descriptions are revalidated from then on. */
let revalidate = false;

/**
 * The JSON at `url`, or an Error whose message says what went wrong for a person; a refusal's
 * JSON body (an image's access services in place of its description) is the error's `description`.
 */
async function fetchJSON(url, { low = false } = {}) {
  let response;
  try {
    response = await fetch(url, { ...(low ? { priority: "low" } : {}), ...(revalidate ? { cache: "no-cache" } : {}) });
  } catch {
    throw new Error("the server did not answer.");
  }
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    const error = new Error(`${response.status} ${reason(text, response)}`.trim());
    try {
      error.description = JSON.parse(text);
    } catch {
      // Not JSON: a plain reason.
    }
    throw error;
  }
  try {
    return await response.json();
  } catch {
    throw new Error("the server's description is not JSON.");
  }
}

/** info.json of each image service, fetched once. */
const infos = new Map();
function infoOf(service, options) {
  let promise = infos.get(service);
  if (!promise) {
    promise = fetchJSON(`${service}/info.json`, options);
    infos.set(service, promise);
    // A failure is not kept: the next look tries again.
    promise.catch(() => infos.delete(service));
  }
  return promise;
}

/** The pyramid of a canvas in the current quality (a canvas without a service is one tile), made
 * once: a canvas's service is its key, so page 1 opened by identifier serves the manifest's too. */
const pyramids = new Map();
async function pyramidOf(canvas, options) {
  if (canvas.media || canvas.blank) throw new Error(canvas.blank ? "it paints nothing." : `it is a ${canvas.media.kind}, not an image.`);
  // A selector's quality is the canvas's own unless the reader picks another.
  const wanted = quality === "default" && canvas.quality ? canvas.quality : quality;
  const key = `${canvas.service ?? canvas.image} ${canvas.service ? wanted : "default"} ${canvas.region ?? ""}`;
  if (pyramids.has(key)) return pyramids.get(key);
  let pyramid;
  if (canvas.service) {
    pyramid = new Pyramid(await infoOf(canvas.service, options), canvas.service, wanted, canvas.region);
  } else {
    let { width, height } = canvas;
    if (!width || !height) {
      const image = new Image();
      image.src = canvas.image;
      await image.decode().catch(() => {
        throw new Error("its image could not be loaded.");
      });
      [width, height] = [image.naturalWidth, image.naturalHeight];
    }
    pyramid = Pyramid.whole(width, height, canvas.image);
  }
  pyramids.set(key, pyramid);
  return pyramid;
}

// ---- Access (IIIF Authorization Flow 2.0) -------------------------------------------------------

const auth = new AuthClient();
const accessPanel = element("access");
const accessAction = element("access-action");
/** The access services of the image shown, and what its probe said (200: seen whole). */
let access = { services: null, status: null };

/** Probes the image `description` names (an info.json, or the refusal in its place) and offers a
 * login (or a logout) when it has access services; hides the offer when it has none. */
async function checkAccess(description) {
  const services = authServicesOf(description);
  access = { services, status: null };
  if (!services) {
    accessPanel.hidden = true;
    return;
  }
  let result;
  try {
    result = await auth.probe(services);
  } catch {
    result = { status: 401, heading: services.heading, note: services.note };
  }
  if (access.services !== services) return;
  access.status = result.status;
  const whole = result.status === 200;
  accessPanel.classList.toggle("granted", whole);
  element("access-heading").textContent = whole ? "" : result.heading;
  element("access-note").textContent = whole ? "" : result.note;
  accessAction.textContent = whole ? services.logoutLabel : services.confirmLabel;
  accessPanel.hidden = false;
}

/** The login (or logout) window, from the user's click; then every description and tile again,
 * as the server now answers this visitor. */
async function changeAccess() {
  const { services, status } = access;
  if (!services) return;
  const view = readFragment(location.hash).view;
  const shown = Boolean(main.scene);
  // Logging out: the view stops asking for tiles (its ring, its prefetch) the server is about to refuse.
  if (status === 200) main.clear();
  accessAction.disabled = true;
  try {
    if (status === 200) await auth.logOut(services);
    else await auth.logIn(services);
  } catch (error) {
    showProblem(`Could not ${status === 200 ? "sign out" : "sign in"}: ${error.message}`);
  } finally {
    accessAction.disabled = false;
  }
  revalidate = true;
  // Nothing was shown (the description itself was refused): start again, now with the cookie.
  if (!shown) return location.reload();
  main.clear();
  infos.clear();
  pyramids.clear();
  cache.clear();
  await showCanvas(current, view);
}

// ---- Pages and spreads ------------------------------------------------------------------------

/** The canvases shown with canvas `index`, in reading order: alone, or its spread when two pages
 * show side by side (the first canvas alone, then pairs; a canvas shown `alone`, a foldout or a
 * video, by itself, and the pairs after it counted afresh). */
function spreadOf(index) {
  const count = doc.canvases.length;
  index = Math.min(Math.max(index, 0), count - 1);
  if (!twoUp) return [index];
  for (let i = 0; i < count; ) {
    const pair = i > 0 && !doc.canvases[i].alone && i + 1 < count && !doc.canvases[i + 1].alone;
    const spread = pair ? [i, i + 1] : [i];
    if (spread.includes(index)) return spread;
    i += spread.length;
  }
  return [index];
}

/** The scene of `pyramids` (in reading order) side by side at one height, in the reading direction. */
function spreadScene(pyramids) {
  const ordered = doc.rightToLeft ? [...pyramids].reverse() : pyramids;
  const height = ordered[0].height;
  let x = 0;
  const items = ordered.map((pyramid) => {
    const scale = height / pyramid.height;
    const item = { pyramid, x, y: 0, scale };
    x += pyramid.width * scale;
    return item;
  });
  return { items, width: x, height };
}

/** Cached tiles of pyramids no longer shown or prefetched go first when room is needed. */
function keepOnly(pyramidsNow) {
  const next = new Set(pyramidsNow);
  for (const pyramid of kept) if (!next.has(pyramid)) cache.release(`${pyramid.id} `);
  kept = next;
}

/**
 * Shows canvas `index` (its spread in two-up) in the main view, at `asked` (a view from a link) or
 * fitted. The thumbnails, page field and fragment follow at once; the image when its description
 * has arrived.
 */
async function showCanvas(index, asked = null) {
  const spread = spreadOf(index);
  current = spread[0];
  const mine = ++generation;
  updatePages(spread);
  const canvas = doc.canvases[current];
  // The image controls have nothing to act on while a video or a sound plays.
  root.classList.toggle("playing", Boolean(canvas.media || canvas.blank));
  if (canvas.media || canvas.blank) {
    main.clear();
    shownCanvases = spread;
    hideProblem();
    element("loading").hidden = true;
    if (canvas.blank) media.showBlank(titleOf(spread));
    else media.show(canvas.media, titleOf(spread));
    strip?.resume();
    return;
  }
  media.hide();
  // A selector's rotation is where the view starts, unless a link says otherwise.
  if (canvas.rotation && (asked?.rotation ?? null) === null) asked = { ...asked, rotation: canvas.rotation };
  // The page turned to comes before thumbnails: none starts until it is sharp.
  strip?.pause();
  let shown;
  try {
    shown = await Promise.all(spread.map((i) => pyramidOf(doc.canvases[i])));
  } catch (error) {
    if (mine === generation) {
      showProblem(`Could not open page ${current + 1}: ${error.message}`);
      checkAccess(error.description);
    }
    return;
  }
  if (mine !== generation) return;
  hideProblem();
  checkAccess(shown[0].info);
  const scene = spreadScene(shown);
  shownCanvases = doc.rightToLeft ? [...spread].reverse() : spread;
  main.setScene(scene.items, scene.width, scene.height, asked);
  const first = shown[0];
  main.canvas.setAttribute("aria-label", `${titleOf(spread)}, ${first.width} × ${first.height} pixels`);
  adjustments.offer(first.info?.extraQualities ?? []);
  updateDownload();
  whenSharp().then(() => {
    if (mine !== generation) return;
    strip?.resume();
    prefetchAround(spread, shown);
  });
}

/** The neighbouring spreads' descriptions and coarsest tiles, at low priority: paging is instant. */
async function prefetchAround(spread, shown) {
  const mine = generation;
  const count = doc.canvases.length;
  const around = [spread[0] - 1, spread[spread.length - 1] + 1, spread[spread.length - 1] + 2].filter((i) => i >= 0 && i < count);
  const ahead = [];
  for (const i of around) {
    try {
      ahead.push(await pyramidOf(doc.canvases[i], { low: true }));
    } catch {
      // A neighbour that fails is reported when it is shown, not now.
    }
  }
  if (mine !== generation) return;
  keepOnly([...shown, ...ahead, ...comparedPyramids()]);
  main.prefetch = ahead;
}

function titleOf(spread) {
  const label = doc.canvases[spread[0]].label;
  if (!isMulti()) return name || doc.label || label;
  const pages = spread.map((i) => i + 1).join("–");
  return `${doc.label || name}, page ${pages} of ${doc.canvases.length}`;
}

function next() {
  const spread = spreadOf(current);
  if (spread[spread.length - 1] + 1 < doc.canvases.length) showCanvas(spread[spread.length - 1] + 1);
}

function previous() {
  if (current > 0) showCanvas(spreadOf(current - 1)[0]);
}

function setTwoUp(on) {
  twoUp = on;
  buttons.twoUp.setAttribute("aria-pressed", String(on));
  showCanvas(current);
}

/** The page controls, strip and title for `spread`. */
function updatePages(spread) {
  if (!isMulti()) return;
  const count = doc.canvases.length;
  if (document.activeElement !== pageNumber) pageNumber.value = String(spread[0] + 1);
  buttons.previous.setAttribute("aria-disabled", String(spread[0] === 0));
  buttons.next.setAttribute("aria-disabled", String(spread[spread.length - 1] >= count - 1));
  strip?.select(spread);
  document.title = `${titleOf(spread)} — Tessera`;
  announce(`Page ${spread.map((i) => i + 1).join(" and ")} of ${count}`, { now: true });
}

// ---- Compare ----------------------------------------------------------------------------------

function comparedPyramids() {
  return comparison && second.scene ? second.scene.items.map((item) => item.pyramid) : [];
}

/** Opens or closes the second view: canvas `index` of `other` (this document unless a second
 * manifest was asked for), moving with the first when `synced`. */
function setCompare(on, { index = null, synced = true } = {}) {
  buttons.compare.setAttribute("aria-pressed", String(on));
  element("pane-2").hidden = !on;
  stage.classList.toggle("compare", on);
  // One host serves both views: they share the browser's connections to it.
  main.concurrency = on ? CONCURRENCY / 2 : CONCURRENCY;
  second.concurrency = CONCURRENCY / 2;
  if (!on) {
    comparison = null;
    second.clear();
    active = main;
    writeFragmentSoon();
    return;
  }
  const other = compared ?? doc;
  const count = other.canvases.length;
  comparison = { doc: other, index: Math.min(Math.max(index ?? (other === doc ? current + 1 : 0), 0), count - 1), synced };
  compareWith.replaceChildren(
    ...other.canvases.map((canvas, i) => {
      const option = document.createElement("option");
      option.value = String(i);
      option.textContent = `${i + 1}. ${canvas.label}`;
      return option;
    }),
  );
  setSynced(synced);
  showCompared(comparison.index);
}

/** A second document, when `?compare=URL` names one. */
let compared = null;

async function showCompared(index) {
  comparison.index = index;
  compareWith.value = String(index);
  const canvas = comparison.doc.canvases[index];
  let pyramid;
  try {
    pyramid = await pyramidOf(canvas);
  } catch (error) {
    showProblem(`Could not open ${canvas.label} to compare: ${error.message}`);
    return;
  }
  if (!comparison || comparison.index !== index) return;
  const relative = comparison.synced && main.scene ? main.relative() : null;
  second.setScene([{ pyramid, x: 0, y: 0, scale: 1 }], pyramid.width, pyramid.height);
  // What the second view shows from now on (`index` is what was asked, before its info.json came).
  comparison.shown = index;
  if (relative && second.size.width > 0) second.show(second.fromRelative(relative), { silent: true });
  second.canvas.setAttribute("aria-label", `Compared: ${canvas.label}, ${pyramid.width} × ${pyramid.height} pixels`);
  keepOnly([...kept, pyramid]);
  writeFragmentSoon();
}

function setSynced(synced) {
  if (!comparison) return;
  comparison.synced = synced;
  buttons.sync.setAttribute("aria-pressed", String(synced));
  buttons.sync.textContent = synced ? "Synchronised" : "Independent";
  if (synced && second.scene && main.scene) second.show(second.fromRelative(main.relative()), { silent: true });
  writeFragmentSoon();
}

/** A move of one view, followed by the other when the two are synchronised: the same part of each
 * image (as fractions of it), at the same zoom relative to each one's fit, turned alike. */
function follow(source, target, destination, { animate, home }) {
  if (!comparison?.synced || !target.scene || !source.scene) return;
  const next = home ? target.homeView(destination.rotation) : target.fromRelative(source.relative(destination));
  target.show(next, { animate, home, silent: true });
}

// ---- Drawing follow-ups -----------------------------------------------------------------------

function afterFrame(now) {
  updateControls();
  showScale(main, scales.main);
  writeFragment(now);
  if (sharpWaiters.length > 0 && main.complete) for (const done of [...sharpWaiters]) done();
}

/** `view`'s scale bar: its first image's physical scale at the size it is drawn now. */
function showScale(view, bar) {
  const item = view.scene?.items[0];
  bar.update(micronsPerPixel(item?.pyramid.info), view.view && item ? view.view.zoom * item.scale : 0);
}

/** The zoom as a percentage to three significant digits: 12.5%, 6.25%, 100%. */
function zoomText(zoom) {
  return `${Number((zoom * 100).toPrecision(3))}%`;
}

function updateControls() {
  const view = active.view ?? main.view;
  const scene = active.scene ? active : main;
  if (!view || !scene.scene) return;
  const text = zoomText(view.zoom);
  if (readout.textContent !== text) readout.textContent = text;
  const { min, max } = scene.zoomLimits(view.rotation);
  const target = scene.destination;
  // aria-disabled rather than disabled: a disabled button drops keyboard focus.
  buttons.zoomIn.setAttribute("aria-disabled", String(target.zoom >= max * (1 - 1e-9)));
  buttons.zoomOut.setAttribute("aria-disabled", String(target.zoom <= min * (1 + 1e-9)));
  announce(`Zoom ${text}${view.rotation ? `, rotated ${view.rotation}°` : ""}`);
}

/** Says `text` in the live region once it has stopped changing, so a gesture is one announcement. */
function announce(text, { now = false } = {}) {
  if (text === announcement.text) return;
  // The first zoom is what the page opens at, not a change worth saying.
  const first = announcement.text === "";
  announcement.text = text;
  if (first && !now) return;
  clearTimeout(announcement.timer);
  announcement.timer = setTimeout(() => {
    status.textContent = text;
  }, ANNOUNCE_DELAY);
}

// ---- The URL fragment -------------------------------------------------------------------------

function round(value, digits) {
  return Number(value.toFixed(digits));
}

/** Whether books open two pages side by side: a `paged` document does. */
const twoUpByDefault = () => isMulti() && doc.paged;

function fragmentOf(view) {
  const parts = [];
  if (isMulti()) parts.push(`canvas=${current + 1}`);
  // A single image keeps the view in its link even fitted, once it has one; a document's page
  // fitted is named by its number alone.
  if (!isMulti() || !main.atHome) {
    parts.push(`x=${round(view.x, 2)}`, `y=${round(view.y, 2)}`, `zoom=${Number(view.zoom.toPrecision(6))}`, `rotation=${view.rotation}`);
  }
  if (isMulti() && twoUp !== twoUpByDefault()) parts.push(`pages=${twoUp ? 2 : 1}`);
  if (comparison) {
    parts.push(`compare=${comparison.index + 1}`);
    if (!comparison.synced) parts.push("sync=0");
  }
  return `#${parts.join("&")}`;
}

/** What a fragment asks for: { canvas, view, pages, compare, sync }, each null when not said. */
function readFragment(hash) {
  const parameters = new URLSearchParams(hash.replace(/^#/, ""));
  const number = (key) => {
    const value = parameters.get(key);
    return value !== null && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : null;
  };
  const view = { x: number("x"), y: number("y"), zoom: number("zoom"), rotation: number("rotation") };
  const whole = (value) => (value !== null && Number.isInteger(value) && value >= 1 ? value : null);
  return {
    canvas: whole(number("canvas")),
    view: Object.values(view).every((value) => value === null) ? null : view,
    pages: number("pages") === 1 || number("pages") === 2 ? number("pages") : null,
    compare: whole(number("compare")),
    sync: number("sync") !== 0,
  };
}

/**
 * Keeps the fragment on the view, with replaceState (a view is not a page: Back should leave the
 * viewer, not replay every pan), no more often than `FRAGMENT_INTERVAL`. An untouched fitted view
 * of the first page opened without a fragment keeps the URL clean.
 */
function writeFragment(now) {
  const view = main.view;
  if (!view || !doc) return;
  if (main.atHome && current === 0 && !comparison && twoUp === twoUpByDefault() && !location.hash) return;
  const wanted = fragmentOf(view);
  if (wanted === fragment.written) return;
  const wait = fragment.at + FRAGMENT_INTERVAL - now;
  if (wait > 0) {
    if (!fragment.timer) fragment.timer = setTimeout(() => {
      fragment.timer = 0;
      main.requestFrame();
    }, wait);
    return;
  }
  // The page's own path with the fragment: a bare "#…" would resolve against the document's
  // <base>, which is where the pages are mounted, not this page.
  history.replaceState(history.state, "", location.pathname + location.search + wanted);
  fragment.written = wanted;
  fragment.at = now;
}

function writeFragmentSoon() {
  main.requestFrame();
}

/** Applies what a fragment asks for: a page, a layout, a comparison, a view. */
function applyFragment(asked, { opening = false } = {}) {
  if (isMulti()) {
    const wantTwoUp = asked.pages === null ? twoUpByDefault() : asked.pages === 2;
    const index = asked.canvas === null ? 0 : asked.canvas - 1;
    const spreadChanges = wantTwoUp !== twoUp || !spreadOf(current).includes(Math.min(index, doc.canvases.length - 1));
    twoUp = wantTwoUp;
    buttons.twoUp.setAttribute("aria-pressed", String(twoUp));
    if (opening || spreadChanges) showCanvas(index, asked.view);
    else showView(asked.view);
  } else if (!opening) {
    showView(asked.view);
  }
  const otherCount = (compared ?? doc).canvases.length;
  if (asked.compare !== null && asked.compare <= otherCount) {
    if (!comparison) setCompare(true, { index: asked.compare - 1, synced: asked.sync });
    else {
      setSynced(asked.sync);
      if (comparison.index !== asked.compare - 1) showCompared(asked.compare - 1);
    }
  } else if (comparison && !opening) {
    setCompare(false);
  }
}

/** The main view moved to `asked` (a view from a fragment), or home; nothing while it shows no
 * image (one the visitor may not see, a video, a collection). */
function showView(asked) {
  if (!main.scene) return;
  main.show(asked ? main.resolved(asked) : main.homeView(main.destination.rotation), { home: !asked });
}

/** A fragment changed by hand or by a link on the page moves the view there. */
function followFragment() {
  window.addEventListener("hashchange", () => {
    if (location.hash === fragment.written) return;
    fragment.written = location.hash;
    applyFragment(readFragment(location.hash));
  });
}

// ---- Panels: adjustments, download, gallery ---------------------------------------------------

const adjustments = new Adjustments({
  onchange: (value) => {
    filter = value;
    // The tiles already drawn, filtered by the browser: nothing is fetched again.
    for (const view of [main, second]) view.canvas.style.filter = value === "none" ? "" : value;
  },
  onquality: (value) => {
    quality = value;
    // New tiles; the view stays where it is.
    const at = main.atHome ? null : main.destination;
    showCanvas(current, at);
    if (comparison) showCompared(comparison.index);
  },
});

function togglePanel(button, panel, open = panel.hidden) {
  panel.hidden = !open;
  button.setAttribute("aria-expanded", String(open));
  if (open) panel.querySelector("input, button, select, a")?.focus();
}

/** The whole-image link: the current image at the width asked, within the service's limits. */
function updateDownload() {
  const item = main.scene?.items[0];
  if (!item) return;
  const pyramid = item.pyramid;
  const link = element("download-full");
  const input = element("download-width");
  if (pyramid.staticURL) {
    input.disabled = true;
    link.href = pyramid.staticURL;
    return;
  }
  const info = pyramid.info ?? {};
  const aspect = pyramid.height / pyramid.width;
  let most = pyramid.width;
  if (info.maxWidth > 0) most = Math.min(most, info.maxWidth);
  if (info.maxHeight > 0) most = Math.min(most, Math.floor(info.maxHeight / aspect));
  if (info.maxArea > 0) most = Math.min(most, Math.floor(Math.sqrt(info.maxArea / aspect)));
  most = Math.max(1, most);
  input.disabled = false;
  input.max = String(most);
  const asked = Number(input.value);
  const width = Number.isInteger(asked) && asked >= 1 ? Math.min(asked, most) : Math.min(most, 2000);
  input.value = String(width);
  link.href = `${pyramid.base}/full/${width},/0/${pyramid.quality}.jpg`;
  const label = doc.canvases[current]?.label ?? name;
  link.download = `${(isMulti() ? `${doc.label || name}-${label}` : name || label).replace(/[\\/:*?"<>|]+/g, "_")}-${width}.jpg`;
}

async function downloadView() {
  const blob = await main.exportPNG(filter);
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = `${(name || doc.label || "view").replace(/[\\/:*?"<>|]+/g, "_")}-view.png`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function setGallery(open) {
  const panel = element("gallery");
  if (open && !gallery) {
    gallery = new ThumbnailList(panel, doc.canvases, {
      grid: true,
      idPrefix: "gallery",
      onpick: (index) => {
        setGallery(false);
        showCanvas(index);
        main.canvas.focus();
      },
    });
  }
  panel.hidden = !open;
  buttons.gallery.setAttribute("aria-pressed", String(open));
  if (open) {
    gallery.select(spreadOf(current));
    gallery.focus();
  }
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

const typing = (target) => target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;

function attachControls() {
  accessAction.addEventListener("click", changeAccess);
  pressed(buttons.zoomIn, () => active.zoomStep(1));
  pressed(buttons.zoomOut, () => active.zoomStep(-1));
  pressed(buttons.home, () => active.goHome());
  pressed(buttons.rotate, () => active.rotate(1));
  pressed(buttons.fullscreen, toggleFullscreen);
  pressed(buttons.adjust, () => togglePanel(buttons.adjust, element("adjust-panel")));
  pressed(buttons.download, () => {
    updateDownload();
    togglePanel(buttons.download, element("download-panel"));
  });
  pressed(buttons.previous, previous);
  pressed(buttons.next, next);
  pressed(buttons.twoUp, () => setTwoUp(!twoUp));
  pressed(buttons.gallery, () => setGallery(element("gallery").hidden));
  pressed(buttons.compare, () => setCompare(!comparison));
  pressed(buttons.sync, () => setSynced(!comparison.synced));
  element("download-view").addEventListener("click", downloadView);
  element("download-width").addEventListener("change", updateDownload);
  compareWith.addEventListener("change", () => showCompared(Number(compareWith.value)));
  pageNumber.addEventListener("change", () => {
    const asked = Number(pageNumber.value.trim());
    if (Number.isInteger(asked) && asked >= 1 && asked <= doc.canvases.length) showCanvas(asked - 1);
    else pageNumber.value = String(current + 1);
  });
  buttons.fullscreen.hidden = !document.fullscreenEnabled;
  document.addEventListener("fullscreenchange", () => {
    buttons.fullscreen.setAttribute("aria-pressed", String(document.fullscreenElement !== null));
  });
  for (const view of [main, second]) {
    for (const type of ["pointerdown", "focus"]) view.canvas.addEventListener(type, () => (active = view));
  }

  document.addEventListener("keydown", (event) => {
    // Ctrl/⌘/Alt combinations belong to the browser (ctrl+plus zooms the page); keys typed into
    // a field are the field's.
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented || typing(event.target)) return;
    if (event.key === "Escape") {
      if (!element("gallery").hidden) setGallery(false);
      else if (!element("adjust-panel").hidden) togglePanel(buttons.adjust, element("adjust-panel"), false);
      else if (!element("download-panel").hidden) togglePanel(buttons.download, element("download-panel"), false);
      else return;
      event.preventDefault();
      return;
    }
    // Paging goes on over a canvas that shows no image (a video, a missing page).
    const multi = isMulti();
    const page = {
      PageDown: next, "]": next, PageUp: previous, "[": previous,
      Home: () => showCanvas(0), End: () => showCanvas(doc.canvases.length - 1),
    }[event.key];
    if (multi && page) {
      page();
      event.preventDefault();
      return;
    }
    if (!main.scene) return;
    const view = active.scene ? active : main;
    const { width, height } = view.size;
    const arrow = {
      ArrowLeft: [-ARROW_STEP * width, 0],
      ArrowRight: [ARROW_STEP * width, 0],
      ArrowUp: [0, -ARROW_STEP * height],
      ArrowDown: [0, ARROW_STEP * height],
    }[event.key];
    if (arrow) view.panBy(...arrow);
    else if (event.key === "+" || event.key === "=") view.zoomStep(1);
    else if (event.key === "-" || event.key === "_") view.zoomStep(-1);
    else if (event.key === "0") view.goHome();
    else if (event.key === "r" || event.key === "R") view.rotate(event.shiftKey ? -1 : 1);
    else if (event.key === "f" || event.key === "F") toggleFullscreen();
    else if (event.key === "a" || event.key === "A") togglePanel(buttons.adjust, element("adjust-panel"));
    else if (event.key === "x" || event.key === "X") adjustments.reset();
    else if (event.key === "d" || event.key === "D") buttons.download.click();
    else if (multi && (event.key === "g" || event.key === "G")) setGallery(element("gallery").hidden);
    else if (multi && (event.key === "t" || event.key === "T")) setTwoUp(!twoUp);
    else if ((multi || compared) && (event.key === "c" || event.key === "C")) setCompare(!comparison);
    else if (comparison && (event.key === "s" || event.key === "S")) setSynced(!comparison.synced);
    else return;
    event.preventDefault();
  });
}

// ---- Start ------------------------------------------------------------------------------------

function fail(text) {
  message.textContent = text;
  message.hidden = false;
  element("loading").hidden = true;
  root.classList.add("failed");
  main.canvas.removeAttribute("aria-busy");
}

/** A page that cannot be shown: said, with the rest of the document still usable. */
function showProblem(text) {
  message.textContent = text;
  message.hidden = false;
}

function hideProblem() {
  if (!root.classList.contains("failed")) message.hidden = true;
}

/** The manifest at `url`, read; or a sentence saying why not. */
async function loadManifest(url) {
  const json = await fetchJSON(url);
  return readManifest(json, url);
}

/** Turns the page into a collection's: its items listed, each opening in this viewer. */
function browse(collection) {
  root.classList.add("browsing");
  element("loading").hidden = true;
  const title = collection.label || name || "Collection";
  document.title = `${title} — Tessera`;
  element("name").textContent = title;
  element("collection-heading").textContent = `${collection.items.length} ${collection.items.length === 1 ? "item" : "items"}`;
  const viewerURL = (id) => {
    const url = new URL(location.href);
    url.search = `?manifest=${encodeURIComponent(id)}`;
    url.hash = "";
    return url.href;
  };
  listCollection(element("collection-items"), collection, viewerURL);
  element("collection").hidden = false;
  browsed = collection;
}

/** Turns the page into a document's: strip, page controls, and the layout books open with. */
function becomeDocument(opened) {
  doc = opened;
  root.classList.add("document");
  element("pages").hidden = false;
  element("page-count").textContent = `/ ${doc.canvases.length}`;
  const stripElement = element("strip");
  stripElement.hidden = false;
  strip = new ThumbnailList(stripElement, doc.canvases, { idPrefix: "thumb", onpick: (index) => showCanvas(index), paused: true });
  whenSharp().then(() => strip.resume());
  twoUp = twoUpByDefault();
  buttons.twoUp.setAttribute("aria-pressed", String(twoUp));
  element("name").textContent = doc.label || name;
}

async function open() {
  attachControls();
  followFragment();
  const title = name || "Manifest";
  document.title = `${title} — Tessera`;
  element("name").textContent = title;
  const comparing = compareURL ? loadManifest(compareURL).catch(() => null) : Promise.resolve(null);
  if (identifier) {
    // The image's own description first, and the image shown as soon as it can be; its manifest
    // (a document's pages) once it is sharp, unless a link asks for a later page.
    const base = `iiif/3/${identifier}`;
    const manifestPath = `presentation/3/${identifier}/manifest`;
    const loadPages = () => loadManifest(new URL(manifestPath, document.baseURI).href).catch(() => null);
    const asked = readFragment(location.hash);
    const early = asked.canvas !== null && asked.canvas > 1 ? loadPages() : null;
    doc = { label: "", paged: false, rightToLeft: false, canvases: [{ label: name, width: null, height: null, service: base, image: null, thumbnail: null }] };
    let pyramid;
    try {
      pyramid = await pyramidOf(doc.canvases[0]);
    } catch (error) {
      // An image the visitor may not see: say so, and offer its login when it names one.
      if (authServicesOf(error.description)) checkAccess(error.description);
      return fail(`Could not open ${name || "the image"}: ${error.message}`);
    }
    if (asked.canvas === null || asked.canvas === 1) await showCanvas(0, asked.view);
    const pages = await (early ?? whenSharp().then(loadPages));
    if (pages && pages.canvases.length > 1) {
      // Page 1 is this image: the description already here serves it.
      pages.canvases[0] = { ...pages.canvases[0], service: base };
      becomeDocument(pages);
      const shownAlready = (asked.canvas ?? 1) === 1 && !twoUp;
      if (shownAlready) {
        updatePages([0]);
        prefetchAround([0], [pyramid]);
      }
      compared = await comparing;
      applyFragment(asked, { opening: !shownAlready });
    } else {
      compared = await comparing;
      if (compared) applyFragment({ ...asked, compare: asked.compare ?? 1 }, { opening: true });
    }
    return;
  }
  if (!manifestURL) {
    return fail("No image named: open /view/ followed by the image's identifier, or /view?manifest= followed by a IIIF manifest's URL.");
  }
  let opened;
  try {
    const json = await fetchJSON(manifestURL);
    const collection = readCollection(json, manifestURL);
    if (collection) return browse(collection);
    opened = readManifest(json, manifestURL);
  } catch (error) {
    const why = error instanceof ManifestError ? `it is not a manifest this viewer reads: ${error.message}.` : error.message;
    return fail(`Could not open the manifest: ${why}`);
  }
  if (opened.canvases.length > 1) becomeDocument(opened);
  else {
    doc = opened;
    element("name").textContent = doc.label || doc.canvases[0].label;
  }
  compared = await comparing;
  const asked = readFragment(location.hash);
  // A link names its canvas; without one the manifest's `start` is where it opens.
  if (asked.canvas === null && opened.start > 0) asked.canvas = opened.start + 1;
  if (isMulti()) applyFragment(asked, { opening: true });
  else {
    await showCanvas(0, asked.view);
    if (compared) applyFragment({ ...asked, compare: asked.compare ?? 1 }, { opening: true });
  }
}

// A read-only window for tests and debugging: snapshots, never the live objects.
window.tesseraViewer = Object.freeze({
  get ready() {
    return main.ready;
  },
  get error() {
    return message.hidden ? null : message.textContent;
  },
  get image() {
    const pyramid = main.scene?.items[0].pyramid;
    return pyramid && { width: pyramid.width, height: pyramid.height, levelCount: pyramid.levelCount, tileWidth: pyramid.tileWidth, tileHeight: pyramid.tileHeight };
  },
  get view() {
    return main.view && { ...main.view };
  },
  /** The view's size in CSS pixels (what `view` is centred in). */
  get viewport() {
    const { width, height } = main.size;
    return { width, height };
  },
  get level() {
    return main.level;
  },
  /** The last frame drew the view's own levels everywhere, and nothing is moving or waiting to
   * draw (in both views when comparing). */
  get complete() {
    return main.complete && (!comparison || (second.ready && second.complete));
  },
  get cache() {
    return { bytes: cache.bytes, tiles: cache.size, budget: cache.budget, evictions: cache.evictions };
  },
  get requestsInFlight() {
    return main.requestsInFlight + second.requestsInFlight;
  },
  get devicePixelRatio() {
    return main.size.dpr;
  },
  /** The canvases (from 1) the main view shows, left to right, and how many there are. */
  get shown() {
    return main.scene || media.media ? shownCanvases.map((index) => index + 1) : [];
  },
  get canvasCount() {
    return doc ? doc.canvases.length : 0;
  },
  /** The collection listed ({ label, items: [{ label, type, href }] }), or null. */
  get collection() {
    if (!browsed) return null;
    const links = [...element("collection-items").querySelectorAll("a")];
    return { label: browsed.label, items: browsed.items.map((item, i) => ({ label: item.label, type: item.type, href: links[i]?.href })) };
  },
  /** The video or sound playing in the view's place, or null. */
  get media() {
    return media.state;
  },
  get twoUp() {
    return twoUp;
  },
  get compare() {
    // The canvas drawn, not one still being opened: a test waiting on it then sees its pixels.
    return comparison && { canvas: (comparison.shown ?? comparison.index) + 1, synced: comparison.synced, view: second.view && { ...second.view }, ready: second.ready, complete: second.complete, image: second.scene && { width: second.scene.width, height: second.scene.height } };
  },
  get filter() {
    return filter;
  },
  get quality() {
    return quality;
  },
  /** Each view's scale bar ({ width, microns, label, magnification }), null where none is shown. */
  get scale() {
    return { main: scales.main.state, second: scales.second.state };
  },
  /** The image's access services and its probe's status (200: seen whole), or null without. */
  get access() {
    return access.services && { status: access.status, heading: element("access-heading").textContent, action: accessAction.textContent };
  },
  /** The canvases (from 1) whose thumbnails the strip and the gallery have asked for. */
  get thumbnails() {
    const numbers = (list) => (list ? [...list.requested].map((i) => i + 1).sort((a, b) => a - b) : []);
    return { strip: numbers(strip), gallery: numbers(gallery) };
  },
});

open();
