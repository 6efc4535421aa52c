// The pyramid level rule, kept identical to Tessera's Swift `LevelSelector`
// (Sources/TesseraTiles/Viewing/Viewport.swift) so the web viewer and native viewers draw the same
// level for the same screen. Tests/Fixtures/rules/levels.json holds the cases both sides check.

/**
 * The reduction k (scale factor 2^k) to draw at `density` screen pixels per full-resolution image
 * pixel: the largest k with density·2^k ≤ 1, i.e. the coarsest level that still meets the screen,
 * clamped to 0…levelCount−1. `bias` is added before rounding down (negative: sharper, positive:
 * cheaper). The 1e-9 keeps a density a rounding error above a power of two on that power's level.
 * A density that is not a positive finite number gets the coarsest level.
 */
export function reduction(density, levelCount, bias = 0) {
  const coarsest = Math.max(levelCount - 1, 0);
  if (!(density > 0) || !Number.isFinite(density)) return coarsest;
  const ideal = Math.floor(-Math.log2(density) + bias + 1e-9);
  return Math.min(Math.max(ideal, 0), coarsest);
}
