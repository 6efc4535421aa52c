// Draws one frame of tiles: the level the rule picks, on top of whatever coarser (or, zooming out,
// finer) tiles are already decoded, so a gesture never shows bare background while tiles load.

/** The part of image rectangle `a` inside `b`. */
function intersection(a, b) {
  return { x0: Math.max(a.x0, b.x0), y0: Math.max(a.y0, b.y0), x1: Math.min(a.x1, b.x1), y1: Math.min(a.y1, b.y1) };
}

/** Draws `tile` (whose bitmap `bitmap` is decoded) where `placement` puts its region. */
export function drawTile(ctx, placement, tile, bitmap) {
  const { x0, y0, x1, y1 } = tile.region;
  const spot = placement.place(x0, y0, x1, y1);
  if (!spot) return;
  ctx.setTransform(...spot.matrix);
  ctx.drawImage(bitmap, 0, 0, spot.width, spot.height);
}

/**
 * Draws the tiles of `level` that meet `rect` (the visible image rectangle). Where one is not
 * decoded yet it falls back, first to the next finer level if every piece of it is there (what a
 * zoom-out leaves behind, sharper than any placeholder), then to the nearest coarser level that has
 * it. Placeholders go underneath, coarsest first, so finer tiles always end on top; only the
 * placeholders under a missing tile are drawn. Every tile drawn is marked used in `cache`.
 * Returns whether every tile of `level` was there.
 */
export function drawView(ctx, placement, pyramid, cache, level, rect) {
  const onTop = [];
  const underneath = [];
  let missing = [];
  for (const tile of pyramid.tilesIn(level, pyramid.range(level, rect))) {
    if (cache.has(tile.key)) {
      onTop.push(tile);
      continue;
    }
    const finer = level > 0 ? pyramid.tilesIn(level - 1, pyramid.range(level - 1, intersection(tile.region, rect))) : [];
    if (finer.length > 0 && finer.every((piece) => cache.has(piece.key))) onTop.push(...finer);
    else missing.push(tile);
  }
  const complete = missing.length === 0 && onTop.every((tile) => tile.level === level);

  // Walks up the levels with what is still uncovered: a coarser tile is drawn if decoded, and the
  // area of one that is not goes on up to the next level.
  for (let coarser = level + 1; coarser < pyramid.levelCount && missing.length > 0; coarser++) {
    const seen = new Set();
    const stillMissing = [];
    for (const hole of missing) {
      for (const tile of pyramid.tilesIn(coarser, pyramid.range(coarser, intersection(hole.region, rect)))) {
        if (seen.has(tile.key)) continue;
        seen.add(tile.key);
        (cache.has(tile.key) ? underneath : stillMissing).push(tile);
      }
    }
    missing = stillMissing;
  }

  underneath.sort((a, b) => b.level - a.level);
  for (const tile of [...underneath, ...onTop]) {
    cache.touch(tile.key);
    drawTile(ctx, placement, tile, cache.get(tile.key));
  }
  return complete;
}
