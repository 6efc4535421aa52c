// View math, free of the DOM so every caller (drawing, gestures, navigator, URL) agrees on it.
//
// A view is { x, y, zoom, rotation }: the full-resolution image pixel at the centre of the window,
// CSS pixels per image pixel, and a clockwise turn in degrees (0, 90, 180 or 270). Screen points are
// CSS pixels from the top-left of the view; device pixels are screen points × devicePixelRatio.

/** `degrees` as the nearest multiple of 90 in 0…270 (a URL may say 450 or −90). */
export function normalizeRotation(degrees) {
  return ((Math.round(degrees / 90) % 4) + 4) % 4 * 90;
}

/** cos and sin of a multiple of 90° as exact integers (no 6e-17 from Math.cos to blur an edge). */
function turn(rotation) {
  return [[1, 0], [0, 1], [-1, 0], [0, -1]][normalizeRotation(rotation) / 90];
}

/** The image point at screen point (px, py) of a `width` × `height` CSS-pixel view. */
export function imagePointAt(view, width, height, px, py) {
  const [c, s] = turn(view.rotation);
  const dx = (px - width / 2) / view.zoom, dy = (py - height / 2) / view.zoom;
  return { x: view.x + c * dx + s * dy, y: view.y - s * dx + c * dy };
}

/** The view centred so that `image` (an image point) is at screen point (px, py), at `zoom`. */
export function viewWithPointAt(view, width, height, image, px, py, zoom) {
  const [c, s] = turn(view.rotation);
  const dx = (px - width / 2) / zoom, dy = (py - height / 2) / zoom;
  return { x: image.x - c * dx - s * dy, y: image.y + s * dx - c * dy, zoom, rotation: view.rotation };
}

/** The view moved so the image follows a drag of (dx, dy) screen points. */
export function panned(view, dx, dy) {
  const [c, s] = turn(view.rotation);
  const ix = (c * dx + s * dy) / view.zoom, iy = (-s * dx + c * dy) / view.zoom;
  return { ...view, x: view.x - ix, y: view.y - iy };
}

/** The image-space rectangle a `width` × `height` view covers (exact: rotations are quarter turns). */
export function visibleRect(view, width, height) {
  const quarter = normalizeRotation(view.rotation) % 180 !== 0;
  const halfWidth = (quarter ? height : width) / 2 / view.zoom;
  const halfHeight = (quarter ? width : height) / 2 / view.zoom;
  return { x0: view.x - halfWidth, y0: view.y - halfHeight, x1: view.x + halfWidth, y1: view.y + halfHeight };
}

/** The zoom at which the whole image, turned by `rotation`, just fits a `width` × `height` view. */
export function fitZoom(imageWidth, imageHeight, width, height, rotation) {
  const quarter = normalizeRotation(rotation) % 180 !== 0;
  return Math.min(width / (quarter ? imageHeight : imageWidth), height / (quarter ? imageWidth : imageHeight));
}

/**
 * Image → device pixels for one frame, with edges snapped to whole device pixels.
 *
 * Seams come from drawing neighbouring tiles to fractional rectangles: each edge is antialiased on
 * its own and the background shows through where both are partly transparent. Here every image
 * edge goes through the same rounding (`round(edge·scale + offset)`), so two tiles that share an
 * image edge share the device edge exactly, and each tile is drawn to whole device pixels with a
 * transform whose entries are 0 or ±1: no pixel is left partly covered, at any zoom or rotation.
 */
export class Placement {
  /** `scale` is device pixels per image pixel; the view's centre lands on the device centre. */
  constructor(view, deviceWidth, deviceHeight, scale) {
    const [c, s] = turn(view.rotation);
    this.c = c;
    this.s = s;
    // Image x runs along device x when c ≠ 0 (0°, 180°), along device y otherwise; image y the
    // other way round. Each gets an offset and a signed scale on its device axis.
    const alongX = c !== 0;
    this.xBase = (alongX ? deviceWidth / 2 : deviceHeight / 2) - view.x * scale * (alongX ? c : s);
    this.xScale = scale * (alongX ? c : s);
    this.yBase = (alongX ? deviceHeight / 2 : deviceWidth / 2) - view.y * scale * (alongX ? c : -s);
    this.yScale = scale * (alongX ? c : -s);
  }

  /** The device coordinate of image column edge `x`, on the device axis image x runs along. */
  edgeX(x) {
    return Math.round(this.xBase + x * this.xScale);
  }

  /** The device coordinate of image row edge `y`, on the device axis image y runs along. */
  edgeY(y) {
    return Math.round(this.yBase + y * this.yScale);
  }

  /**
   * Where the image rectangle [x0, x1) × [y0, y1) goes: the canvas transform that puts its top-left
   * corner in place, turned by the rotation, and its size along its own axes in device pixels; null
   * when it rounds to nothing.
   */
  place(x0, y0, x1, y1) {
    const left = this.edgeX(x0), top = this.edgeY(y0);
    const width = Math.abs(this.edgeX(x1) - left), height = Math.abs(this.edgeY(y1) - top);
    if (width === 0 || height === 0) return null;
    const [e, f] = this.c !== 0 ? [left, top] : [top, left];
    return { matrix: [this.c, this.s, -this.s, this.c, e, f], width, height };
  }

  /** The device-space bounding box of an image rectangle, snapped like `place`. */
  deviceRect(x0, y0, x1, y1) {
    const xs = [this.edgeX(x0), this.edgeX(x1)], ys = [this.edgeY(y0), this.edgeY(y1)];
    const [h, v] = this.c !== 0 ? [xs, ys] : [ys, xs];
    return { left: Math.min(...h), top: Math.min(...v), right: Math.max(...h), bottom: Math.max(...v) };
  }
}
