// The tile grid an IIIF Image API 3.0 info.json describes, and the URL of each tile.

/** A tile: its level (reduction k), key (pyramid, level/column/row), image region, size and URL. */
class Tile {
  constructor(pyramid, level, column, row, region, width, height, url) {
    this.level = level;
    // One cache holds the tiles of every image a page shows, so a key names its image and quality.
    this.key = `${pyramid.id} ${level}/${column}/${row}`;
    /** { x0, y0, x1, y1 } in full-resolution pixels. */
    this.region = region;
    /** The tile's own size in pixels, and so its decoded size. */
    this.width = width;
    this.height = height;
    this.url = url;
  }

  /** Decoded bytes (RGBA), what the cache budget counts. */
  get bytes() {
    return this.width * this.height * 4;
  }
}

/**
 * The part of a `width` × `height` image an Image API region (`x,y,w,h`, `pct:x,y,w,h`, `square`,
 * `full`) or a media fragment (`xywh=…`) names, clipped to the image: { x, y, width, height } in
 * pixels, or null for the whole image or for what names no part of it.
 */
export function regionOf(text, width, height) {
  if (typeof text !== "string") return null;
  text = text.replace(/^xywh=/, "").replace(/^pixel:/, "");
  if (text === "square") {
    const side = Math.min(width, height);
    return { x: Math.floor((width - side) / 2), y: Math.floor((height - side) / 2), width: side, height: side };
  }
  const percent = text.startsWith("pct:") || text.startsWith("percent:");
  const numbers = text.replace(/^(pct|percent):/, "").split(",").map(Number);
  if (numbers.length !== 4 || !numbers.every((n) => Number.isFinite(n) && n >= 0)) return null;
  let [x, y, w, h] = percent
    ? [numbers[0] * width / 100, numbers[1] * height / 100, numbers[2] * width / 100, numbers[3] * height / 100].map(Math.round)
    : numbers.map(Math.floor);
  w = Math.min(w, width - x);
  h = Math.min(h, height - y);
  if (!(w > 0 && h > 0) || (x === 0 && y === 0 && w === width && h === height)) return null;
  return { x, y, width: w, height: h };
}

export class Pyramid {
  /**
   * `info` is the parsed info.json; `base` the service URL tiles are requested under (for
   * Tessera's own images the page's own origin and identifier, not info.json's `id`, which names
   * the host the server was asked by); `quality` the IIIF quality of every tile (`default`,
   * `gray`, `bitonal`: one the service lists).
   */
  constructor(info, base, quality = "default", region = null) {
    if (!(info.width > 0 && info.height > 0)) throw new Error("the description has no image size.");
    // A region of the image (a selector's) is a pyramid of its own size whose tiles are asked for
    // where they are in the whole image: the server cuts them, so nothing outside is drawn.
    const part = regionOf(region, info.width, info.height);
    this.origin = { x: part?.x ?? 0, y: part?.y ?? 0 };
    this.width = part?.width ?? info.width;
    this.height = part?.height ?? info.height;
    // IIIF makes `tiles` optional and a tile's height default to its width; without tiles the whole
    // image is the one tile of the one level.
    const tiles = info.tiles?.[0];
    this.tileWidth = tiles?.width ?? this.width;
    this.tileHeight = tiles ? (tiles.height ?? this.tileWidth) : this.height;
    const factors = tiles?.scaleFactors?.length ? [...tiles.scaleFactors].sort((a, b) => a - b) : [1];
    this.levels = factors.map((scale) => ({
      scale,
      columns: Math.ceil(this.width / (this.tileWidth * scale)),
      rows: Math.ceil(this.height / (this.tileHeight * scale)),
    }));
    this.base = base;
    /** The description it was made from (limits, qualities), as parsed. */
    this.info = info;
    this.quality = quality;
    /** What this pyramid's tile keys start with. */
    this.id = `${base} ${quality}` + (part ? ` ${part.x},${part.y},${part.width},${part.height}` : "");
    /** The whole image as one file (a manifest's image without a service): its only tile's URL. */
    this.staticURL = null;
  }

  /** An image with no service: `url` is the whole image, the one tile of the one level. */
  static whole(width, height, url) {
    const pyramid = new Pyramid({ width, height }, url);
    pyramid.staticURL = url;
    return pyramid;
  }

  get levelCount() {
    return this.levels.length;
  }

  get coarsest() {
    return this.levels.length - 1;
  }

  /**
   * The tile at (`column`, `row`) of level `level`. Made afresh on each call (tiles are compared by
   * key): keeping every tile ever seen would grow without bound over a long tour of a huge image.
   */
  tile(level, column, row) {
    const { scale } = this.levels[level];
    const x = column * this.tileWidth * scale, y = row * this.tileHeight * scale;
    const w = Math.min(this.tileWidth * scale, this.width - x), h = Math.min(this.tileHeight * scale, this.height - y);
    const width = Math.ceil(w / scale), height = Math.ceil(h / scale);
    const url = this.staticURL ?? `${this.base}/${x + this.origin.x},${y + this.origin.y},${w},${h}/${width},${height}/0/${this.quality}.jpg`;
    return new Tile(this, level, column, row, { x0: x, y0: y, x1: x + w, y1: y + h }, width, height, url);
  }

  /**
   * The grid range of level `level` that meets the image rectangle `rect`, grown by `ring` tiles
   * on every side and clamped to the grid; null when the rectangle misses the image.
   */
  range(level, rect, ring = 0) {
    const { scale, columns, rows } = this.levels[level];
    const spanX = this.tileWidth * scale, spanY = this.tileHeight * scale;
    const x0 = Math.max(rect.x0, 0), y0 = Math.max(rect.y0, 0);
    const x1 = Math.min(rect.x1, this.width), y1 = Math.min(rect.y1, this.height);
    if (x0 >= x1 || y0 >= y1) return null;
    return {
      c0: Math.max(Math.floor(x0 / spanX) - ring, 0),
      c1: Math.min(Math.ceil(x1 / spanX) - 1 + ring, columns - 1),
      r0: Math.max(Math.floor(y0 / spanY) - ring, 0),
      r1: Math.min(Math.ceil(y1 / spanY) - 1 + ring, rows - 1),
    };
  }

  /** The grid range of the whole of level `level`. */
  wholeRange(level) {
    return this.range(level, { x0: 0, y0: 0, x1: this.width, y1: this.height });
  }

  /** Every tile of `range` at `level`. */
  tilesIn(level, range) {
    const tiles = [];
    if (!range) return tiles;
    for (let row = range.r0; row <= range.r1; row++) {
      for (let column = range.c0; column <= range.c1; column++) tiles.push(this.tile(level, column, row));
    }
    return tiles;
  }

  /** The decoded bytes of the largest tile, for budgets. */
  get tileBytes() {
    return this.tileWidth * this.tileHeight * 4;
  }
}
