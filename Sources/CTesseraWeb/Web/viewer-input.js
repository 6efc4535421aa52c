// Pointer and wheel gestures on the view, turned into pans and zooms at screen points.

/** A mouse wheel notch (deltaY 100) zooms by √2, so two notches double. */
const WHEEL_PIXELS_PER_DOUBLING = 200;
/** Trackpad pinches arrive as wheel events with ctrlKey and deltaY = −100·ln(scale) (Chromium's
 * and Firefox's convention), so exp(−deltaY / 100) follows the fingers exactly. */
const PINCH_PIXELS_PER_E = 100;
/** One event never zooms by more than this factor, so a flung wheel or ctrl+mouse wheel cannot jump. */
const MAX_STEP = 2;
/** Line-mode wheels (Firefox) report lines; this many pixels per line puts a notch near 100. */
const LINE_PIXELS = 33;
/** Two taps this close in time (ms) and space (CSS px) are a double tap; a tap moves less than `TAP_SLOP`. */
const DOUBLE_TAP_TIME = 300;
const DOUBLE_TAP_DISTANCE = 30;
const TAP_SLOP = 10;

/**
 * Listens on `element` and calls `actions.pan(dx, dy)` for a drag of (dx, dy) CSS pixels,
 * `actions.zoomAt(factor, x, y, animated)` to zoom by `factor` keeping the image point at (x, y)
 * (CSS pixels from the element's top-left) in place, and `actions.grab()` when a gesture starts.
 */
export function attachGestures(element, actions) {
  /** pointerId → last position (client coordinates) of each pointer down on the element. */
  const pointers = new Map();
  let lastPointerType = "mouse";
  let lastTap = null;

  const local = (x, y) => {
    const box = element.getBoundingClientRect();
    return [x - box.left, y - box.top];
  };

  element.addEventListener("pointerdown", (event) => {
    if (event.pointerType === "mouse" && event.button !== 0) return;
    lastPointerType = event.pointerType;
    // Capture keeps the drag ours when the pointer leaves the element or the window.
    element.setPointerCapture(event.pointerId);
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY, startX: event.clientX, startY: event.clientY, time: event.timeStamp });
    element.classList.add("grabbing");
    actions.grab();
  });

  element.addEventListener("pointermove", (event) => {
    const pointer = pointers.get(event.pointerId);
    if (!pointer) return;
    if (pointers.size === 1) {
      actions.pan(event.clientX - pointer.x, event.clientY - pointer.y);
    } else if (pointers.size === 2) {
      // Pinch: zoom by the change in finger distance around the old midpoint, then follow the
      // midpoint, so the image stays under both fingers.
      const other = [...pointers.entries()].find(([id]) => id !== event.pointerId)[1];
      const before = { x: (pointer.x + other.x) / 2, y: (pointer.y + other.y) / 2, d: Math.hypot(pointer.x - other.x, pointer.y - other.y) };
      const after = { x: (event.clientX + other.x) / 2, y: (event.clientY + other.y) / 2, d: Math.hypot(event.clientX - other.x, event.clientY - other.y) };
      if (before.d > 0 && after.d > 0) actions.zoomAt(after.d / before.d, ...local(before.x, before.y), false);
      actions.pan(after.x - before.x, after.y - before.y);
    }
    pointer.x = event.clientX;
    pointer.y = event.clientY;
  });

  const release = (event) => {
    const pointer = pointers.get(event.pointerId);
    if (!pointer) return;
    pointers.delete(event.pointerId);
    if (pointers.size === 0) element.classList.remove("grabbing");
    // Touch has no dblclick we can rely on (touch-action: none also turns off the browser's own
    // double-tap zoom), so double taps are recognised here.
    if (event.type !== "pointerup" || event.pointerType !== "touch" || pointers.size > 0) return;
    const moved = Math.hypot(event.clientX - pointer.startX, event.clientY - pointer.startY);
    if (moved > TAP_SLOP || event.timeStamp - pointer.time > DOUBLE_TAP_TIME) {
      lastTap = null;
      return;
    }
    if (lastTap && event.timeStamp - lastTap.time < DOUBLE_TAP_TIME && Math.hypot(event.clientX - lastTap.x, event.clientY - lastTap.y) < DOUBLE_TAP_DISTANCE) {
      lastTap = null;
      actions.zoomAt(2, ...local(event.clientX, event.clientY), true);
    } else {
      lastTap = { time: event.timeStamp, x: event.clientX, y: event.clientY };
    }
  };
  element.addEventListener("pointerup", release);
  element.addEventListener("pointercancel", release);
  // Capture can also be lost without either (the browser took the pointer over): forget it then too.
  element.addEventListener("lostpointercapture", release);

  element.addEventListener("dblclick", (event) => {
    // A touch double tap may also produce a dblclick; it was handled as a tap already.
    if (lastPointerType === "touch") return;
    actions.zoomAt(event.shiftKey ? 0.5 : 2, ...local(event.clientX, event.clientY), true);
  });

  element.addEventListener(
    "wheel",
    (event) => {
      // Not passive: the page itself must neither scroll nor zoom (ctrl+wheel) under the viewer.
      event.preventDefault();
      const unit = event.deltaMode === WheelEvent.DOM_DELTA_LINE ? LINE_PIXELS : event.deltaMode === WheelEvent.DOM_DELTA_PAGE ? element.clientHeight : 1;
      const delta = event.deltaY * unit;
      const exponent = event.ctrlKey ? -delta / PINCH_PIXELS_PER_E : (-delta / WHEEL_PIXELS_PER_DOUBLING) * Math.LN2;
      const factor = Math.exp(Math.min(Math.max(exponent, -Math.log(MAX_STEP)), Math.log(MAX_STEP)));
      if (factor !== 1) actions.zoomAt(factor, ...local(event.clientX, event.clientY), false);
    },
    { passive: false },
  );
}
