// A list of canvases as thumbnails: the strip under the view (one row) and the gallery (a grid of
// all). Both are ARIA listboxes navigable by keys, and both are lazy: a thumbnail is requested only
// when its place comes near the visible part of the list, and a request not yet answered is
// dropped when it scrolls away again, so a 10,000-image folder costs what is on screen.

/** How far outside the visible part (CSS pixels) a thumbnail is already requested. */
const MARGIN = 300;
/** Thumbnails loading at once: fewer than the browser's six connections to a host, so that the
 * tiles of the page being read are never queued behind a row of thumbnails. */
const LOADING = 3;

export class ThumbnailList {
  #element;
  #items = [];
  #grid;
  #onpick;
  #active = 0;
  #observer;
  /** Indices of the thumbnails near the visible part now, in the order they came near. */
  #near = new Set();
  /** Thumbnails requested and not yet loaded or failed. */
  #loading = 0;
  /** While paused, nothing is requested (the page's main image comes first). */
  #paused;
  /** Indices of every canvas whose thumbnail was ever asked for (what tests check). */
  requested = new Set();

  /**
   * Fills `element` (a listbox) with one option per canvas of `canvases` ({ label, width, height,
   * thumbnail }). `grid`: a grid of rows (the gallery) rather than one row (the strip).
   * `onpick(index)` is called when one is chosen by pointer or key. `paused`: no thumbnail is
   * requested until `resume()`.
   */
  constructor(element, canvases, { grid = false, idPrefix, onpick, paused = false }) {
    this.#element = element;
    this.#grid = grid;
    this.#onpick = onpick;
    this.#paused = paused;
    element.replaceChildren();
    element.setAttribute("role", "listbox");
    element.setAttribute("aria-orientation", grid ? "vertical" : "horizontal");
    element.tabIndex = 0;
    this.#observer = new IntersectionObserver((entries) => this.#came(entries), {
      root: element,
      rootMargin: grid ? `${MARGIN}px 0px` : `0px ${MARGIN}px`,
    });
    const fragment = document.createDocumentFragment();
    canvases.forEach((canvas, index) => {
      const option = document.createElement("div");
      option.className = "thumb";
      option.id = `${idPrefix}-${index + 1}`;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");
      option.dataset.index = String(index);
      const image = document.createElement("img");
      image.alt = "";
      image.decoding = "async";
      // The box keeps the thumbnail's shape before it loads, so the layout does not jump.
      if (canvas.width && canvas.height) image.style.aspectRatio = `${canvas.width} / ${canvas.height}`;
      const label = document.createElement("span");
      label.className = "thumb-label";
      label.textContent = canvas.label;
      option.append(image, label);
      fragment.append(option);
      this.#items.push({ option, image, url: canvas.thumbnail, pending: null });
      this.#observer.observe(option);
    });
    element.append(fragment);
    element.addEventListener("click", (event) => {
      const option = event.target.closest?.("[role=option]");
      if (option && element.contains(option)) this.#pick(Number(option.dataset.index));
    });
    element.addEventListener("keydown", (event) => this.#key(event));
  }

  /** Asks for the thumbnails that came near, and drops those that left before they arrived. */
  #came(entries) {
    for (const entry of entries) {
      const index = Number(entry.target.dataset.index);
      const item = this.#items[index];
      if (entry.isIntersecting) {
        this.#near.add(index);
      } else {
        this.#near.delete(index);
        if (item.pending) {
          // Dropped: the browser cancels the request, and its slot goes to one still near.
          this.#settle(item);
          item.image.removeAttribute("src");
        }
      }
    }
    this.#fill();
  }

  /** Starts the thumbnails near the visible part that are not there yet, `LOADING` at a time. */
  #fill() {
    if (this.#paused) return;
    for (const index of this.#near) {
      if (this.#loading >= LOADING) return;
      const item = this.#items[index];
      if (!item.url || item.image.getAttribute("src")) continue;
      this.#loading++;
      item.pending = () => {
        this.#settle(item);
        this.#fill();
      };
      item.image.addEventListener("load", item.pending);
      item.image.addEventListener("error", item.pending);
      item.image.src = item.url;
      this.requested.add(index);
    }
  }

  /** A thumbnail no longer loading (arrived, failed or dropped) frees its slot. */
  #settle(item) {
    item.image.removeEventListener("load", item.pending);
    item.image.removeEventListener("error", item.pending);
    item.pending = null;
    this.#loading--;
  }

  /** Starts no more thumbnails until `resume()` (those loading go on). */
  pause() {
    this.#paused = true;
  }

  /** Requests what is near now, and from now on. */
  resume() {
    if (!this.#paused) return;
    this.#paused = false;
    this.#fill();
  }

  /** Marks the canvases of `indices` as the ones shown, and brings the first into sight. */
  select(indices) {
    const shown = new Set(indices);
    this.#items.forEach(({ option }, index) => {
      const selected = shown.has(index);
      if ((option.getAttribute("aria-selected") === "true") !== selected) option.setAttribute("aria-selected", String(selected));
    });
    if (indices.length > 0) this.#setActive(indices[0], { scroll: true });
  }

  /** Focuses the list on its active option. */
  focus() {
    this.#element.focus({ preventScroll: true });
    this.#setActive(this.#active, { scroll: true });
  }

  #setActive(index, { scroll }) {
    this.#active = Math.min(Math.max(index, 0), this.#items.length - 1);
    const option = this.#items[this.#active]?.option;
    if (!option) return;
    this.#element.setAttribute("aria-activedescendant", option.id);
    for (const item of this.#items) item.option.classList.toggle("active", item.option === option);
    if (scroll) option.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  #pick(index) {
    this.#setActive(index, { scroll: true });
    this.#onpick(this.#active);
  }

  /** Thumbnails in one row of the grid, from where they are laid out. */
  #columns() {
    const first = this.#items[0]?.option.offsetTop;
    const index = this.#items.findIndex(({ option }) => option.offsetTop !== first);
    return index === -1 ? this.#items.length : index;
  }

  #key(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const step = this.#grid ? this.#columns() : 1;
    const moves = this.#grid
      ? { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -step, ArrowDown: step }
      : { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 };
    let target = null;
    if (event.key in moves) target = this.#active + moves[event.key];
    else if (event.key === "Home") target = 0;
    else if (event.key === "End") target = this.#items.length - 1;
    else if (event.key === "Enter" || event.key === " ") {
      this.#pick(this.#active);
      event.preventDefault();
      event.stopPropagation();
      return;
    } else return;
    event.preventDefault();
    event.stopPropagation();
    target = Math.min(Math.max(target, 0), this.#items.length - 1);
    // In the strip the page follows the selection at once (a listbox whose selection follows
    // focus); in the gallery Enter opens it, since opening leaves the gallery.
    if (this.#grid) this.#setActive(target, { scroll: true });
    else this.#pick(target);
  }
}
