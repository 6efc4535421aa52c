// The rules of Tessera's video trimming slider, ported from Swift (Sources/TesseraVideo/Trimming):
// TrimmingSliderModel, TrimmingSliderGeometry, TrimmingSnapping, TrimmingAccessibilityAction,
// TrimmingAccessibilityElement, TrimmingTimeFormat and TrimmingSlider's hit testing, tracking and
// accessibility actions. Swift is the source of truth: Tests/Fixtures/rules/trimming.json holds
// cases that the Swift tests and the browser tests both run, so the two cannot drift apart.
//
// The arithmetic is written in the same order as in Swift, so that both give bit-identical
// doubles and the shared cases can compare exactly. Thumbs are the strings "lower", "upper" and
// "playhead"; events are plain objects: {type: "editingBegan" | "valueChanged" | "editingEnded",
// thumb, source?: "user" | "programmatic"}; a hit is {thumb} or {track: true}.

/** The thumbs, in Swift's `TrimmingThumb.allCases` order (which orders reported changes). */
export const THUMBS = Object.freeze(['lower', 'upper', 'playhead']);

/** Swift's `min(x, y)`: `y < x ? y : x`. Unlike Math.min it keeps Swift's choice between 0 and −0. */
function swiftMin(x, y) { return y < x ? y : x; }
/** Swift's `max(x, y)`: `y >= x ? y : x`. */
function swiftMax(x, y) { return y >= x ? y : x; }

/** A ClosedRange<Double>; Swift traps on an inverted one, and so does this. */
function closedRange(lowerBound, upperBound) {
  if (!(lowerBound <= upperBound)) throw new RangeError(`range requires lowerBound <= upperBound: ${lowerBound}...${upperBound}`);
  return Object.freeze({ lowerBound, upperBound });
}
function contains(range, value) { return range.lowerBound <= value && value <= range.upperBound; }

function requireThumb(thumb) {
  if (!THUMBS.includes(thumb)) throw new TypeError(`unknown thumb: ${thumb}`);
  return thumb;
}

/** Seconds within which two times are the same instant (Swift's MediaTime.tolerance). */
const TIME_TOLERANCE = 1e-6;

/** Binary searches over ascending snap times (TrimmingSnapping). */
export const TrimmingSnapping = Object.freeze({
  /** The first and last indices of `times` whose values lie in `range`, give or take
   * TIME_TOLERANCE; null if none does. The slack matters: a bound computed as `29/30 + 0.5` is one
   * rounding step above the frame time `44/30` it means, and without it that frame could never be
   * chosen. */
  indices(times, range) {
    const first = firstIndex(times, (t) => t >= range.lowerBound - TIME_TOLERANCE);
    const last = firstIndex(times, (t) => t > range.upperBound + TIME_TOLERANCE) - 1;
    return first <= last ? closedRange(first, last) : null;
  },

  /** The time in `times` nearest to `value` among those inside `range` (the earlier on a tie);
   * `value` clamped into `range` when no time lies inside it, so constraints always win. */
  nearest(value, times, range) {
    const clamped = swiftMin(swiftMax(value, range.lowerBound), range.upperBound);
    const inside = TrimmingSnapping.indices(times, range);
    if (inside === null) return clamped;
    const above = swiftMin(swiftMax(firstIndex(times, (t) => t >= clamped), inside.lowerBound), inside.upperBound);
    const below = swiftMax(above - 1, inside.lowerBound);
    return clamped - times[below] <= times[above] - clamped ? times[below] : times[above];
  },

  /** The time `steps` snap positions away from `value` (positive is later): from a value between
   * two times the first step lands on the neighbour in that direction. Clamped to the ends. */
  stepped(value, steps, times) {
    if (times.length === 0 || steps === 0) return value;
    const index = steps > 0
      ? firstIndex(times, (t) => t > value) + steps - 1
      : firstIndex(times, (t) => t >= value) + steps;
    return times[swiftMin(swiftMax(index, 0), times.length - 1)];
  },
});

/** The first index whose time satisfies `predicate` (false then true along the array); the
 * array's length if none does. */
function firstIndex(times, predicate) {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (predicate(times[middle])) high = middle; else low = middle + 1;
  }
  return low;
}

/**
 * The values of a trimming slider, in seconds, with the rules that keep them consistent:
 * `0 ≤ lower ≤ playhead ≤ upper ≤ duration`, `upper − lower ≥ effectiveMinimumDuration` and, when
 * set, `upper − lower ≤ maximumDuration`. Moving a handle never pushes the other handle; the
 * playhead is the only value carried along, because it must stay inside the selection.
 */
export class TrimmingSliderModel {
  #lower = 0;
  #upper = 0;
  #playhead = 0;

  /**
   * Out-of-range values are clamped (and snapped) rather than rejected, in the order lower,
   * upper, playhead.
   * @param {{duration: number, minimumDuration?: number, maximumDuration?: number|null,
   *   frameTimes?: number[]|null, lower?: number, upper?: number|null, playhead?: number|null}} options
   */
  constructor({ duration, minimumDuration = 0, maximumDuration = null, frameTimes = null,
    lower = 0, upper = null, playhead = null }) {
    if (!(duration >= 0 && Number.isFinite(duration))) throw new RangeError('duration must be finite and not negative');
    if (!(minimumDuration >= 0)) throw new RangeError('minimumDuration must not be negative');
    if (maximumDuration !== null && !(maximumDuration >= minimumDuration)) {
      throw new RangeError('maximumDuration must be at least minimumDuration');
    }
    this.duration = duration;
    this.minimumDuration = minimumDuration;
    this.maximumDuration = maximumDuration;
    // Frame start times inside the clip, deduplicated and ascending, plus `duration` (the end of
    // the last frame) so the upper handle can reach the end of the clip.
    this.snapTimes = frameTimes === null ? null : Object.freeze([
      ...[...new Set(frameTimes.filter((t) => t >= 0 && t < duration))].sort((a, b) => a - b),
      duration,
    ]);
    this.#upper = duration;
    this.setSelection(lower, upper ?? Infinity);
    this.set('playhead', playhead ?? this.#lower);
    Object.freeze(this);
  }

  /** Start times, in seconds, of the frames of a constant-frame-rate clip: `k / fps` below
   * `duration`, computed by division rather than by adding so error does not accumulate. */
  // Empty (nothing to snap to) for a duration or rate that is not a positive finite number, or
  // more than 2^22 frames, as the Swift model: both come from a file's header.
  static frameTimes(duration, framesPerSecond) {
    if (!(duration > 0 && Number.isFinite(duration) && framesPerSecond > 0 && Number.isFinite(framesPerSecond))) return [];
    const count = Math.ceil(duration * framesPerSecond);
    if (count > 2 ** 22) return [];
    const times = [];
    for (let k = 0; k < count; k += 1) times.push(k / framesPerSecond);
    return times.filter((t) => t < duration);
  }

  get lower() { return this.#lower; }
  get upper() { return this.#upper; }
  get playhead() { return this.#playhead; }

  /** The minimum the selection really keeps: `minimumDuration`, or the whole clip when shorter. */
  get effectiveMinimumDuration() { return swiftMin(this.minimumDuration, this.duration); }

  /** The value of `thumb`, in seconds. */
  value(thumb) {
    switch (requireThumb(thumb)) {
      case 'lower': return this.#lower;
      case 'upper': return this.#upper;
      default: return this.#playhead;
    }
  }

  /** The values `thumb` may take with the other values where they are, as {lowerBound,
   * upperBound} in seconds. When snapping, the bounds are the outermost snap times inside the
   * constraints (the clamped bounds if none fits), so both are reachable. */
  limits(thumb) {
    const raw = this.#constraintRange(thumb);
    const inside = this.snapTimes === null ? null : TrimmingSnapping.indices(this.snapTimes, raw);
    if (inside === null) return raw;
    return closedRange(this.snapTimes[inside.lowerBound], this.snapTimes[inside.upperBound]);
  }

  /** Moves `thumb` as close to `seconds` as the constraints allow (snapping when the model
   * snaps). Moving a handle past the playhead carries the playhead with it.
   * @returns {string[]} the thumbs whose value changed, `thumb` first. */
  set(thumb, seconds) {
    const before = this.#values();
    const target = this.#resolved(seconds, this.#constraintRange(thumb));
    switch (thumb) {
      case 'lower': this.#lower = target; break;
      case 'upper': this.#upper = target; break;
      default: this.#playhead = target;
    }
    this.#playhead = swiftMin(swiftMax(this.#playhead, this.#lower), this.#upper);
    return this.#changes(before, thumb);
  }

  /** Sets both handles at once, in seconds: `lower` first against the clip alone, then `upper`
   * against the new `lower`, so the old position of neither can block the other.
   * @returns {string[]} the thumbs whose value changed. */
  setSelection(newLower, newUpper) {
    const before = this.#values();
    this.#lower = this.#resolved(newLower, closedRange(0, swiftMax(0, this.duration - this.effectiveMinimumDuration)));
    this.#upper = this.#resolved(newUpper, this.#upperRange(this.#lower));
    this.#playhead = swiftMin(swiftMax(this.#playhead, this.#lower), this.#upper);
    return this.#changes(before, 'lower');
  }

  #constraintRange(thumb) {
    switch (requireThumb(thumb)) {
      case 'lower': {
        const highest = swiftMax(0, this.#upper - this.effectiveMinimumDuration);
        const lowest = this.maximumDuration === null
          ? 0 : swiftMin(swiftMax(0, this.#upper - this.maximumDuration), highest);
        return closedRange(lowest, highest);
      }
      case 'upper': return this.#upperRange(this.#lower);
      default: return closedRange(this.#lower, this.#upper);
    }
  }

  #upperRange(lower) {
    const lowest = swiftMin(this.duration, lower + this.effectiveMinimumDuration);
    const highest = this.maximumDuration === null
      ? this.duration : swiftMax(lowest, swiftMin(this.duration, lower + this.maximumDuration));
    return closedRange(lowest, highest);
  }

  #resolved(seconds, range) {
    const value = Number.isNaN(seconds) ? range.lowerBound : seconds;
    if (this.snapTimes === null) return swiftMin(swiftMax(value, range.lowerBound), range.upperBound);
    return TrimmingSnapping.nearest(value, this.snapTimes, range);
  }

  #values() { return { lower: this.#lower, upper: this.#upper, playhead: this.#playhead }; }

  #changes(before, first) {
    const order = [first, ...THUMBS.filter((t) => t !== first)];
    return order.filter((t) => this.value(t) !== before[t]);
  }
}

/** An axis-aligned rectangle in points (TrimmingRect); an inverted span collapses to its start. */
export class TrimmingRect {
  constructor(minX, maxX, minY, maxY) {
    this.minX = minX;
    this.maxX = swiftMax(minX, maxX);
    this.minY = minY;
    this.maxY = swiftMax(minY, maxY);
    Object.freeze(this);
  }
  get width() { return this.maxX - this.minX; }
  get height() { return this.maxY - this.minY; }
  get midX() { return (this.minX + this.maxX) / 2; }
}

/**
 * The layout of a trimming slider, in points (CSS px here), and the one mapping between seconds
 * and x that the handles, the playhead and the frame strip share. Time runs across the track,
 * which spans between the handles' inner edges when the selection is the whole clip:
 * `|inset|[lower handle]|==== track: 0 s … duration ====|[upper handle]|inset|`.
 */
export class TrimmingSliderGeometry {
  constructor({ width, height, handleWidth = 16, barThickness = 3, leftInset = 0, rightInset = 0,
    playheadWidth = 2, minimumHitWidth = 44 }) {
    Object.assign(this, { width, height, handleWidth, barThickness, leftInset, rightInset, playheadWidth, minimumHitWidth });
    Object.freeze(this);
  }

  /** x of time 0: the lower handle's inner edge at its leftmost. */
  get trackMinX() { return this.leftInset + this.handleWidth; }
  /** x of the clip's end: the upper handle's inner edge at its rightmost. */
  get trackMaxX() { return swiftMax(this.trackMinX, this.width - this.rightInset - this.handleWidth); }
  get trackWidth() { return this.trackMaxX - this.trackMinX; }

  /** The x of the line at `seconds` in a clip of `duration` seconds. */
  x(seconds, duration) {
    if (!(duration > 0)) return this.trackMinX;
    return this.trackMinX + seconds / duration * this.trackWidth;
  }

  /** The time at `x`; not clamped, so the model's clamp, not this mapping, stops a thumb. */
  seconds(x, duration) {
    if (!(this.trackWidth > 0)) return 0;
    return (x - this.trackMinX) / this.trackWidth * duration;
  }

  get trackRect() { return new TrimmingRect(this.trackMinX, this.trackMaxX, 0, this.height); }

  /** Where the frames are drawn: the track between the top and bottom bars. */
  get stripRect() {
    return new TrimmingRect(this.trackMinX, this.trackMaxX, this.barThickness, this.height - this.barThickness);
  }

  /** The strip cell of frame `index` of `count`: the `index`-th of `count` equal parts of the clip. */
  frameSlotRect(index, count, duration) {
    if (!(count > 0 && index >= 0 && index < count)) throw new RangeError(`frame slot ${index} of ${count}`);
    const strip = this.stripRect;
    if (!(duration > 0)) {
      const slot = this.trackWidth / count;
      return new TrimmingRect(this.trackMinX + index * slot, this.trackMinX + (index + 1) * slot, strip.minY, strip.maxY);
    }
    const start = this.x(index * duration / count, duration);
    const end = this.x((index + 1) * duration / count, duration);
    return new TrimmingRect(start, end, strip.minY, strip.maxY);
  }

  /** The selected span, between the handles' value lines, full height. */
  selectionRect(model) {
    return new TrimmingRect(this.x(model.lower, model.duration), this.x(model.upper, model.duration), 0, this.height);
  }

  /** The drawn rectangle of `thumb`. Handles are full height and outside the selection; the
   * playhead spans the strip and is kept inside the selection, so it never covers a handle. */
  rect(thumb, model) {
    const selection = this.selectionRect(model);
    switch (requireThumb(thumb)) {
      case 'lower': return new TrimmingRect(selection.minX - this.handleWidth, selection.minX, 0, this.height);
      case 'upper': return new TrimmingRect(selection.maxX, selection.maxX + this.handleWidth, 0, this.height);
      default: {
        const line = swiftMin(this.playheadWidth, selection.width);
        const centre = this.x(model.playhead, model.duration);
        const left = swiftMin(swiftMax(centre - line / 2, selection.minX), selection.maxX - line);
        const strip = this.stripRect;
        return new TrimmingRect(left, left + line, strip.minY, strip.maxY);
      }
    }
  }

  /** Where a touch picks `thumb`: its drawn rectangle widened symmetrically to
   * `minimumHitWidth`, as {lowerBound, upperBound}. Targets may overlap; the slider resolves that. */
  hitRange(thumb, model) {
    const drawn = this.rect(thumb, model);
    const half = swiftMax(drawn.width, this.minimumHitWidth) / 2;
    return closedRange(drawn.midX - half, drawn.midX + half);
  }

  topBarRect(model) {
    const selection = this.selectionRect(model);
    return new TrimmingRect(selection.minX, selection.maxX, 0, this.barThickness);
  }

  bottomBarRect(model) {
    const selection = this.selectionRect(model);
    return new TrimmingRect(selection.minX, selection.maxX, this.height - this.barThickness, this.height);
  }
}

/** Media times as people read them: `m:ss.t` ("0:12.5"), `h:mm:ss.t` from one hour on. */
export const TrimmingTimeFormat = Object.freeze({
  /** `seconds` (negatives and NaN read as 0) rounded to the nearest tenth, then formatted;
   * rounding comes first, so 59.96 s reads "1:00.0", not "0:60.0". */
  string(seconds) {
    // Math.round rounds halves up, which for the positive values here is Swift's `.rounded()`.
    const tenths = Number.isFinite(seconds) && seconds > 0 ? Math.round(swiftMin(seconds, 1e12) * 10) : 0;
    const hours = Math.floor(tenths / 36_000);
    const minutes = Math.floor(tenths / 600) % 60;
    const wholeSeconds = Math.floor(tenths / 10) % 60;
    const fraction = tenths % 10;
    const secondsText = `${String(wholeSeconds).padStart(2, '0')}.${fraction}`;
    if (hours > 0) return `${hours}:${String(minutes).padStart(2, '0')}:${secondsText}`;
    return `${minutes}:${secondsText}`;
  },
});

/** The keyboard and assistive-technology actions of the WAI-ARIA slider pattern. A step is one
 * frame when the model snaps (the neighbouring frame time) and one second otherwise; a page is
 * ten steps. Every target is clamped by the model, so limits follow the other handle. */
export const TrimmingAccessibilityAction = Object.freeze({
  ACTIONS: Object.freeze(['increment', 'decrement', 'pageUp', 'pageDown', 'home', 'end']),
  stepsPerPage: 10,
  secondsPerStep: 1.0,

  /** Where `action` asks `thumb` to go, in seconds, before the model's constraints apply. */
  target(action, model, thumb) {
    let steps;
    switch (action) {
      case 'home': return model.limits(thumb).lowerBound;
      case 'end': return model.limits(thumb).upperBound;
      case 'increment': steps = 1; break;
      case 'decrement': steps = -1; break;
      case 'pageUp': steps = TrimmingAccessibilityAction.stepsPerPage; break;
      case 'pageDown': steps = -TrimmingAccessibilityAction.stepsPerPage; break;
      default: throw new TypeError(`unknown accessibility action: ${action}`);
    }
    const value = model.value(thumb);
    if (model.snapTimes === null) return value + steps * TrimmingAccessibilityAction.secondsPerStep;
    return TrimmingSnapping.stepped(value, steps, model.snapTimes);
  },
});

const LABELS = Object.freeze({ lower: 'Start', upper: 'End', playhead: 'Playhead' });

/** What assistive technology needs to present one thumb as a WAI-ARIA slider: aria-label,
 * -valuenow, -valuetext, -valuemin and -valuemax (TrimmingAccessibilityElement). The limits are
 * the thumb's current ones, which follow the other values. */
export function accessibilityElement(model, thumb) {
  const value = model.value(thumb);
  const limits = model.limits(thumb);
  return Object.freeze({
    thumb,
    label: LABELS[thumb],
    value,
    valueText: TrimmingTimeFormat.string(value),
    minimum: limits.lowerBound,
    maximum: limits.upperBound,
    minimumText: TrimmingTimeFormat.string(limits.lowerBound),
    maximumText: TrimmingTimeFormat.string(limits.upperBound),
  });
}

const valueChanged = (source) => (thumb) => ({ type: 'valueChanged', thumb, source });

/**
 * A host-agnostic trimming slider: a model laid out by a geometry, driven by pointer, setters and
 * assistive technology. Every mutating call returns the events it caused, in order.
 *
 * Tracking follows one pointer at a time. At the start of a drag the slider records how far the
 * touch is from the grabbed thumb's value line; every later move places the value at
 * `x − offset`, computed afresh from the finger, so a thumb that hit a limit lines up with the
 * finger again as soon as the finger comes back.
 */
export class TrimmingSlider {
  #model;
  #activeThumb = null;
  /** Touch x minus the active thumb's value x at the start of the drag. */
  #grabOffset = 0;

  constructor(model, geometry) {
    this.#model = model;
    /** The layout; a host updates it when the control is resized, even mid-drag. */
    this.geometry = geometry;
  }

  /** The values, in seconds. Read them; change them only through the slider. */
  get model() { return this.#model; }
  /** The thumb being dragged, or null. */
  get activeThumb() { return this.#activeThumb; }

  /** Moves `thumb` toward `seconds` as the model allows; reports only programmatic changes. */
  setValue(seconds, thumb) {
    return this.#model.set(thumb, seconds).map(valueChanged('programmatic'));
  }

  /** Sets both handles as the model's setSelection does; reports only programmatic changes. */
  setSelection(lower, upper) {
    return this.#model.setSelection(lower, upper).map(valueChanged('programmatic'));
  }

  /**
   * What a touch at `x` would pick: {thumb} or {track: true}, or null off the track.
   * A trim handle beats the playhead. When both handles' targets contain `x`, the handle on the
   * touch's side of the midpoint between their value lines wins, unless its limits leave it no
   * room to move; then the other one.
   */
  hitTest(x) {
    const { geometry } = this;
    const model = this.#model;
    const lowerHit = contains(geometry.hitRange('lower', model), x);
    const upperHit = contains(geometry.hitRange('upper', model), x);
    if (lowerHit && upperHit) {
      const selection = geometry.selectionRect(model);
      const preferred = x < selection.midX ? 'lower' : 'upper';
      const other = preferred === 'lower' ? 'upper' : 'lower';
      const stuck = model.limits(preferred);
      return { thumb: stuck.lowerBound === stuck.upperBound ? other : preferred };
    }
    if (lowerHit) return { thumb: 'lower' };
    if (upperHit) return { thumb: 'upper' };
    if (contains(geometry.hitRange('playhead', model), x)) return { thumb: 'playhead' };
    if (geometry.trackMinX <= x && x <= geometry.trackMaxX) return { track: true };
    return null;
  }

  /** A touch or button press at `x`. On a thumb, starts dragging it from where it is; on the
   * track, moves the playhead to the touch and drags it from there. Ignored while another touch
   * is tracked, and off the track. */
  touchBegan(x) {
    if (this.#activeThumb !== null) return [];
    const hit = this.hitTest(x);
    if (hit === null) return [];
    if (hit.thumb !== undefined) {
      this.#activeThumb = hit.thumb;
      this.#grabOffset = x - this.geometry.x(this.#model.value(hit.thumb), this.#model.duration);
      return [{ type: 'editingBegan', thumb: hit.thumb }];
    }
    this.#activeThumb = 'playhead';
    this.#grabOffset = 0;
    return [{ type: 'editingBegan', thumb: 'playhead' }, ...this.#follow(x)];
  }

  /** The tracked touch moved to `x`. */
  touchMoved(x) { return this.#follow(x); }

  /** The tracked touch lifted at `x`: a last move, then the end of editing. */
  touchEnded(x) {
    const thumb = this.#activeThumb;
    if (thumb === null) return [];
    const moved = this.#follow(x);
    this.#activeThumb = null;
    return [...moved, { type: 'editingEnded', thumb }];
  }

  /** The system took the touch away; the values stay where the drag left them. */
  touchCancelled() {
    const thumb = this.#activeThumb;
    if (thumb === null) return [];
    this.#activeThumb = null;
    return [{ type: 'editingEnded', thumb }];
  }

  #follow(x) {
    const thumb = this.#activeThumb;
    if (thumb === null) return [];
    const seconds = this.geometry.seconds(x - this.#grabOffset, this.#model.duration);
    return this.#model.set(thumb, seconds).map(valueChanged('user'));
  }

  /** Applies an assistive-technology action to `thumb`: a complete user edit (editingBegan,
   * user value changes, editingEnded), or nothing when the value is already at the limit. */
  perform(action, thumb) {
    const target = TrimmingAccessibilityAction.target(action, this.#model, thumb);
    const changed = this.#model.set(thumb, target).map(valueChanged('user'));
    if (changed.length === 0) return [];
    // A drag of the same thumb already owns the editing session.
    if (this.#activeThumb === thumb) return changed;
    return [{ type: 'editingBegan', thumb }, ...changed, { type: 'editingEnded', thumb }];
  }

  /** The accessibility description of `thumb`. */
  accessibilityElement(thumb) { return accessibilityElement(this.#model, thumb); }

  /** One element per thumb in reading order: start, playhead, end. */
  get accessibilityElements() { return ['lower', 'playhead', 'upper'].map((t) => this.accessibilityElement(t)); }
}
