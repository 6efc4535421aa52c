// The minimap: the whole image from its coarsest level, turned like the view, with a rectangle for
// what the view shows. Pressing or dragging on it centres the view there.

import { Placement, fitZoom, imagePointAt, visibleRect } from "./viewer-geometry.js";
import { drawTile } from "./viewer-render.js";

export class Minimap {
  #canvas;
  #ctx;
  #pyramid;
  #cache;
  /** The navigator's own view of the image: whole, centred, at its own zoom. */
  #view = null;
  #width = 0;
  #height = 0;
  #dpr = 1;
  /** What the current size was made for: rotation, box and density. */
  #shape = "";

  /** `centreAt(point)` is called with the image point the user presses or drags to. */
  constructor(canvas, pyramid, cache, centreAt) {
    this.#canvas = canvas;
    this.#ctx = canvas.getContext("2d");
    this.#pyramid = pyramid;
    this.#cache = cache;
    let dragging = null;
    const follow = (event) => centreAt(this.#imagePoint(event));
    canvas.addEventListener("pointerdown", (event) => {
      if (event.pointerType === "mouse" && event.button !== 0) return;
      event.preventDefault();
      canvas.setPointerCapture(event.pointerId);
      dragging = event.pointerId;
      follow(event);
    });
    canvas.addEventListener("pointermove", (event) => {
      if (event.pointerId === dragging) follow(event);
    });
    const stop = (event) => {
      if (event.pointerId === dragging) dragging = null;
    };
    canvas.addEventListener("pointerup", stop);
    canvas.addEventListener("pointercancel", stop);
  }

  #imagePoint(event) {
    const box = this.#canvas.getBoundingClientRect();
    return imagePointAt(this.#view, this.#width, this.#height, event.clientX - box.left, event.clientY - box.top);
  }

  /**
   * Sizes the navigator to the image turned by `rotation`, within a `maxWidth` × `maxHeight`
   * CSS-pixel box, with a backing store at `dpr`.
   */
  #layout(rotation, maxWidth, maxHeight, dpr) {
    const { width, height } = this.#pyramid;
    const zoom = fitZoom(width, height, maxWidth, maxHeight, rotation);
    const quarter = rotation % 180 !== 0;
    this.#width = Math.round((quarter ? height : width) * zoom);
    this.#height = Math.round((quarter ? width : height) * zoom);
    // The zoom that exactly fills the rounded box, so the picture meets the border on every side.
    const exact = fitZoom(width, height, this.#width, this.#height, rotation);
    this.#view = { x: width / 2, y: height / 2, zoom: exact, rotation };
    this.#dpr = dpr;
    this.#canvas.style.width = `${this.#width}px`;
    this.#canvas.style.height = `${this.#height}px`;
    this.#canvas.width = Math.round(this.#width * dpr);
    this.#canvas.height = Math.round(this.#height * dpr);
  }

  /**
   * Draws the picture and the rectangle of `view`, a `width` × `height` CSS-pixel view, in a
   * navigator at most `maxWidth` × `maxHeight` CSS pixels on a screen of `dpr`.
   */
  draw(view, width, height, maxWidth, maxHeight, dpr) {
    const shape = `${view.rotation} ${maxWidth} ${maxHeight} ${dpr}`;
    if (shape !== this.#shape) {
      this.#shape = shape;
      this.#layout(view.rotation, maxWidth, maxHeight, dpr);
    }
    const ctx = this.#ctx, canvas = this.#canvas;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    // Its size may have just been set, which resets the context.
    ctx.imageSmoothingEnabled = true;
    ctx.imageSmoothingQuality = "high";
    const placement = new Placement(this.#view, canvas.width, canvas.height, this.#view.zoom * this.#dpr);
    const pyramid = this.#pyramid, coarsest = pyramid.coarsest;
    for (const tile of pyramid.tilesIn(coarsest, pyramid.range(coarsest, { x0: 0, y0: 0, x1: pyramid.width, y1: pyramid.height }))) {
      const bitmap = this.#cache.get(tile.key);
      if (bitmap) drawTile(ctx, placement, tile, bitmap);
    }
    const { x0, y0, x1, y1 } = visibleRect(view, width, height);
    // With the whole image in view the minimap only repeats it, so it steps aside.
    canvas.classList.toggle("redundant", x0 <= 0 && y0 <= 0 && x1 >= pyramid.width && y1 >= pyramid.height);
    const box = placement.deviceRect(x0, y0, x1, y1);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    // A light line (viewer.css's accent) inside a dark one reads on any picture.
    const line = Math.max(1, Math.round(this.#dpr));
    for (const [colour, inset] of [["rgba(0, 0, 0, 0.7)", line * 1.5], ["#ffd24a", line / 2]]) {
      ctx.strokeStyle = colour;
      ctx.lineWidth = line;
      ctx.strokeRect(box.left + inset, box.top + inset, box.right - box.left - 2 * inset, box.bottom - box.top - 2 * inset);
    }
  }
}
