// The listing at `/`: the folders, images and videos under the server's root, a page at a time
// from /api/assets, each linking to its viewer (images), trimmer (videos) or listing (folders).

import { formatBytes, formatDuration } from "./format.js";

const params = new URLSearchParams(location.search);
const dir = params.get("dir") ?? "";
const list = document.getElementById("entries");
const more = document.getElementById("more");
const status = document.getElementById("status");
let cursor = null;

document.getElementById("grid-link").href = "grid" + (dir ? "?dir=" + encodeURIComponent(dir) : "");
document.title = "Tessera — " + (dir || "all files");
showCrumbs();
more.addEventListener("click", () => loadPage());
loadPage();

/** The folder path as links, root first. */
function showCrumbs() {
  const crumbs = document.getElementById("crumbs");
  const parts = dir ? dir.split("/") : [];
  const root = link("./", "root");
  crumbs.append(root);
  parts.forEach((part, index) => {
    crumbs.append(" / ");
    const path = parts.slice(0, index + 1).join("/");
    const crumb = link("./?dir=" + encodeURIComponent(path), part);
    if (index === parts.length - 1) crumb.setAttribute("aria-current", "page");
    crumbs.append(crumb);
  });
  if (parts.length === 0) root.setAttribute("aria-current", "page");
}

async function loadPage() {
  more.disabled = true;
  status.textContent = "Loading…";
  const query = new URLSearchParams({ dir });
  if (cursor) query.set("cursor", cursor);
  try {
    const response = await fetch("api/assets?" + query);
    if (!response.ok) throw new Error(`${response.status} ${(await response.text()).trim()}`);
    const page = await response.json();
    for (const entry of page.entries) list.append(row(entry));
    cursor = page.next;
    more.hidden = !cursor;
    const count = list.children.length;
    status.textContent = count === 0 ? "Nothing Tessera can show here." : `${count} item${count === 1 ? "" : "s"}${cursor ? " so far" : ""}`;
  } catch (error) {
    status.textContent = `Could not list this folder: ${error.message}`;
    status.classList.add("error");
  } finally {
    more.disabled = false;
  }
}

function row(entry) {
  const item = document.createElement("li");
  const thumb = document.createElement(entry.kind === "image" && !entry.error ? "img" : "span");
  thumb.className = "thumb";
  let href;
  let meta = "";
  if (entry.kind === "directory") {
    href = "./?dir=" + encodeURIComponent(entry.path);
    thumb.textContent = "folder";
    thumb.classList.add("badge");
    thumb.setAttribute("aria-hidden", "true");
  } else if (entry.kind === "image" && entry.error) {
    // A still image Tessera cannot read: its reason, and the viewer's page says the same.
    href = "view/" + entry.id;
    thumb.textContent = "image";
    thumb.classList.add("badge");
    thumb.setAttribute("aria-hidden", "true");
    meta = entry.error;
  } else if (entry.kind === "image") {
    href = "view/" + entry.id;
    // A thumbnail no larger than its 48 CSS px box at this screen's density.
    const side = Math.round(48 * devicePixelRatio);
    thumb.src = `iiif/3/${entry.id}/full/!${side},${side}/0/default.jpg`;
    thumb.loading = "lazy";
    thumb.alt = "";
    meta = `${entry.width} × ${entry.height}`;
  } else {
    href = "trim/" + entry.id;
    thumb.textContent = "video";
    thumb.classList.add("badge");
    thumb.setAttribute("aria-hidden", "true");
    meta = `${entry.width} × ${entry.height} · ${formatDuration(entry.duration)}`;
  }
  const name = link(href, entry.name);
  const size = document.createElement("span");
  size.className = "meta";
  size.textContent = entry.bytes != null ? formatBytes(entry.bytes) : "";
  const dims = document.createElement("span");
  dims.className = "meta";
  dims.textContent = meta;
  item.append(thumb, name, dims, size);
  return item;
}

function link(href, text) {
  const anchor = document.createElement("a");
  anchor.href = href;
  anchor.textContent = text;
  return anchor;
}
