// The grid at `/grid?dir=…`: every image of a folder in square cells, each downsampled by the
// server to its cell (IIIF `full/!w,h/0/default.jpg` at cell size × devicePixelRatio, never larger)
// so the page holds a few hundred kilobytes of pixels where full decodes would take hundreds of
// megabytes. Cells load as they come within one screen of the viewport; loads of cells scrolled
// away before they arrive are cancelled. The panel adds up what was transferred and decoded.

import { formatBytes } from "./format.js";

const dir = new URLSearchParams(location.search).get("dir") ?? "";
const grid = document.getElementById("grid");
const slider = document.getElementById("cell-size");
const sliderValue = document.getElementById("cell-size-value");
const status = document.getElementById("status");
const output = {
  loaded: document.getElementById("loaded"),
  transferred: document.getElementById("transferred"),
  decoded: document.getElementById("decoded"),
  full: document.getElementById("full"),
  saving: document.getElementById("saving"),
};

/** Totals over the images currently shown; `transferredBytes` counts every image body received;
 * `pending` counts loads started and not yet shown, failed or cancelled. */
const stats = { loaded: 0, transferredBytes: 0, decodedBytes: 0, fullBytes: 0, requests: 0, cancelled: 0, pending: 0 };
const cells = [];
/** Cells within one screen of the viewport now. */
const near = new Set();
let cellSize = Number(slider.value);

// Read-only state for tests and the curious.
window.tesseraGrid = { stats, get cellCount() { return cells.length; }, get cellSize() { return cellSize; } };

document.getElementById("folder").textContent = dir || "all images";
document.title = "Tessera grid — " + (dir || "root");

const observer = new IntersectionObserver(onIntersection, { rootMargin: "100% 0px 100% 0px" });
let resizeTimer = 0;
slider.addEventListener("input", () => {
  cellSize = Number(slider.value);
  sliderValue.textContent = `${cellSize} px`;
  grid.style.setProperty("--cell", `${cellSize}px`);
  // Wait for the slider to rest before asking for larger images.
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => near.forEach(load), 150);
});

start();

async function start() {
  status.textContent = "Loading the folder…";
  try {
    const entries = await listImages();
    for (const entry of entries) cells.push(makeCell(entry));
    status.textContent = entries.length === 0 ? "No images in this folder." : "";
    for (const cell of cells) observer.observe(cell.figure);
  } catch (error) {
    status.textContent = `Could not list the folder: ${error.message}`;
    status.classList.add("error");
  }
}

/** Every image of the folder, following the listing's pages. */
async function listImages() {
  const images = [];
  let cursor = null;
  do {
    const query = new URLSearchParams({ dir, limit: "1000" });
    if (cursor) query.set("cursor", cursor);
    const response = await fetch("api/assets?" + query);
    if (!response.ok) throw new Error(`${response.status} ${(await response.text()).trim()}`);
    const page = await response.json();
    images.push(...page.entries.filter((entry) => entry.kind === "image" && !entry.error));
    cursor = page.next;
  } while (cursor);
  return images;
}

function makeCell(entry) {
  const figure = document.createElement("figure");
  const link = document.createElement("a");
  link.href = "view/" + entry.id;
  const image = document.createElement("img");
  image.alt = entry.name;
  image.decoding = "async";
  const caption = document.createElement("figcaption");
  caption.textContent = entry.name;
  caption.setAttribute("aria-hidden", "true");
  link.append(image);
  figure.append(link, caption);
  grid.append(figure);
  // side: the pixel side of the image shown (0: none); pendingSide: of the load under way.
  return { entry, figure, image, controller: null, side: 0, pendingSide: 0, shownBytes: 0, fullBytes: null };
}

function onIntersection(records) {
  for (const record of records) {
    const cell = cells.find((candidate) => candidate.figure === record.target);
    if (!cell) continue;
    if (record.isIntersecting) {
      near.add(cell);
      load(cell);
    } else {
      near.delete(cell);
      // Scrolled more than a screen away before its image came: the request is not needed now.
      if (cell.controller) {
        cell.controller.abort();
        cell.controller = null;
        cell.pendingSide = 0;
        stats.cancelled += 1;
      }
    }
  }
}

/** The pixel side a cell's image needs at this size and density. */
function neededSide() {
  return Math.max(1, Math.round(cellSize * devicePixelRatio));
}

async function load(cell) {
  const side = neededSide();
  if (cell.side >= side || cell.pendingSide >= side) return;
  cell.controller?.abort();
  const controller = new AbortController();
  cell.controller = controller;
  cell.pendingSide = side;
  stats.requests += 1;
  stats.pending += 1;
  const url = `iiif/3/${cell.entry.id}/full/!${side},${side}/0/default.jpg`;
  let blob;
  try {
    [blob] = await Promise.all([fetchBlob(url, controller.signal), fetchFullSize(cell, controller.signal)]);
  } catch (error) {
    stats.pending -= 1;
    if (error.name === "AbortError") return;
    if (cell.controller === controller) {
      cell.controller = null;
      cell.pendingSide = 0;
    }
    cell.figure.classList.add("failed");
    cell.image.alt = `${cell.entry.name} (could not load: ${error.message})`;
    return;
  }
  // Arrived: from here on the image is shown and counted, whatever the scrolling does.
  cell.controller = null;
  cell.pendingSide = 0;
  stats.transferredBytes += blob.size;
  const objectURL = URL.createObjectURL(blob);
  const previous = cell.image.src;
  cell.image.src = objectURL;
  try {
    await cell.image.decode();
  } catch {
    // A newer load replaced the source meanwhile; it does the counting.
    stats.pending -= 1;
    return;
  } finally {
    // The encoded bytes are not needed once the image is decoded.
    URL.revokeObjectURL(objectURL);
    if (previous.startsWith("blob:")) URL.revokeObjectURL(previous);
  }
  const bytes = cell.image.naturalWidth * cell.image.naturalHeight * 4;
  if (cell.shownBytes === 0) {
    stats.loaded += 1;
    stats.fullBytes += cell.fullBytes;
  }
  stats.decodedBytes += bytes - cell.shownBytes;
  cell.shownBytes = bytes;
  cell.side = Math.max(cell.side, side);
  stats.pending -= 1;
  showStats();
}

async function fetchBlob(url, signal) {
  const response = await fetch(url, { signal });
  if (!response.ok) throw new Error(`${response.status} ${(await response.text()).trim()}`);
  return response.blob();
}

/** What decoding the image at full size would take, from its info.json, fetched once per cell. */
async function fetchFullSize(cell, signal) {
  if (cell.fullBytes != null) return;
  const response = await fetch(`iiif/3/${cell.entry.id}/info.json`, { signal });
  if (!response.ok) throw new Error(`info.json: ${response.status}`);
  const info = await response.json();
  cell.fullBytes = info.width * info.height * 4;
}

function showStats() {
  output.loaded.textContent = `${stats.loaded} of ${cells.length}`;
  output.transferred.textContent = formatBytes(stats.transferredBytes);
  output.decoded.textContent = formatBytes(stats.decodedBytes);
  output.full.textContent = formatBytes(stats.fullBytes);
  if (stats.decodedBytes > 0) {
    output.saving.textContent = `${(stats.fullBytes / stats.decodedBytes).toFixed(0)}× less memory than full-size decodes`;
  }
}
