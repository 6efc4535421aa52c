// The frame strip behind the trimmer: one sprite from the server (GET /video/{id}/sprite.jpg, the
// frames side by side in one row, frame i showing slot i of N equal slots of the clip), drawn into
// a canvas cell by cell with the same seconds-to-x mapping as the handles, so the frame under a
// handle is the frame at that handle's time.
//
// The `keyframe` sprite comes first because the server answers it fastest (it decodes keyframes
// only), so the strip is filled almost at once; the requested mode then replaces it when it
// arrives. `fast` is the default refinement: it shows a frame from each cell's own slot (the
// keyframe before the slot centre when it lies inside the slot, else the first frame of the slot)
// at mostly keyframe cost, while `keyframe` alone repeats one frame across every slot between two
// keyframes (a whole strip of one frame for a clip with a single keyframe), and `exact`, which
// decodes up to every slot's centre, costs the most for a difference nobody sees in a 56-px cell.

/** CSS px per frame cell: frames small enough to show the clip's course, large enough to read. */
export const CELL_WIDTH = 56;
/** The server's bounds for a sprite request. */
const FRAMES = { min: 1, max: 200 };
const HEIGHT = { min: 16, max: 360 };
/** How long a resize must settle before a sprite of the new size is asked for; meanwhile the
 * sprite at hand is stretched to the new width. */
const RESIZE_SETTLE_MS = 250;

const clamp = (value, low, high) => Math.min(Math.max(value, low), high);

export class FrameStrip {
  #canvas;
  #spriteURL;
  #aspect;
  #mode;
  #onError;
  #geometry = null;
  #duration = 0;
  #scale = 1;
  /** What is drawn: {bitmap, frames, height, mode}. */
  #shown = null;
  /** The request the current layout wants: {frames, height}. */
  #wanted = null;
  /** Bumped by every new request, so answers to an older one are dropped. */
  #generation = 0;
  #loading = false;
  #error = null;
  #timer = 0;

  /**
   * @param {HTMLCanvasElement} canvas
   * @param {{spriteURL: string, aspect: number, mode?: 'fast'|'exact'|'keyframe',
   *   onError: (message: string) => void}} options spriteURL: the sprite without its query;
   *   aspect: the video's display width over height.
   */
  constructor(canvas, { spriteURL, aspect, mode = 'fast', onError }) {
    this.#canvas = canvas;
    this.#spriteURL = spriteURL;
    this.#aspect = aspect;
    this.#mode = mode;
    this.#onError = onError;
  }

  /** A copy of what the strip shows and wants, for tests and diagnostics. */
  get state() {
    return {
      requestedMode: this.#mode,
      mode: this.#shown?.mode ?? null,
      frames: this.#shown?.frames ?? null,
      height: this.#shown?.height ?? null,
      url: this.#shown ? this.#url(this.#shown, this.#shown.mode) : null,
      wanted: this.#wanted && { ...this.#wanted },
      loading: this.#loading,
      error: this.#error,
    };
  }

  /** Lays the strip out for `geometry` (CSS px) at `scale` device pixels per CSS px: redraws at
   * once, and asks for a sprite of the new size when the frame count or height changes. */
  layout(geometry, duration, scale) {
    this.#geometry = geometry;
    this.#duration = duration;
    this.#scale = scale;
    const strip = geometry.stripRect;
    Object.assign(this.#canvas.style, {
      left: `${strip.minX}px`, top: `${strip.minY}px`, width: `${strip.width}px`, height: `${strip.height}px`,
    });
    this.#canvas.width = Math.max(1, Math.round(strip.width * scale));
    this.#canvas.height = Math.max(1, Math.round(strip.height * scale));
    this.#draw();

    const wanted = this.#request(strip, scale);
    if (this.#wanted && wanted.frames === this.#wanted.frames && wanted.height === this.#wanted.height) return;
    this.#wanted = wanted;
    clearTimeout(this.#timer);
    if (this.#shown === null && !this.#loading) this.#load(wanted);
    else this.#timer = setTimeout(() => this.#load(wanted), RESIZE_SETTLE_MS);
  }

  /** Frame count from the strip's width; frame height so that every cell is covered at device
   * resolution: the strip's height for landscape cells, more when a tall video is cropped to a
   * cell's width. */
  #request(strip, scale) {
    const frames = clamp(Math.round(strip.width / CELL_WIDTH), FRAMES.min, FRAMES.max);
    const cellWidth = strip.width / frames;
    const height = Math.ceil(Math.max(strip.height, cellWidth / this.#aspect) * scale);
    return { frames, height: clamp(height, HEIGHT.min, HEIGHT.max) };
  }

  #url({ frames, height }, mode) {
    return `${this.#spriteURL}?frames=${frames}&height=${height}&mode=${mode}`;
  }

  async #load(request) {
    const generation = ++this.#generation;
    this.#loading = true;
    const modes = this.#mode === 'keyframe' ? ['keyframe'] : ['keyframe', this.#mode];
    try {
      for (const mode of modes) {
        const bitmap = await this.#fetchBitmap(this.#url(request, mode));
        if (generation !== this.#generation) { bitmap.close(); return; }
        this.#shown?.bitmap.close();
        this.#shown = { bitmap, mode, ...request };
        this.#error = null;
        this.#draw();
      }
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#error = error.message;
      this.#onError(`Frame previews are unavailable: ${error.message}`);
    } finally {
      if (generation === this.#generation) this.#loading = false;
    }
  }

  async #fetchBitmap(url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${response.status} ${(await response.text()).trim() || response.statusText}`);
    return createImageBitmap(await response.blob());
  }

  /** Each frame centre-cropped into its slot, slot edges on whole device pixels so cells meet
   * without seams. */
  #draw() {
    const context = this.#canvas.getContext('2d');
    context.clearRect(0, 0, this.#canvas.width, this.#canvas.height);
    if (this.#shown === null || this.#geometry === null) return;
    const { bitmap, frames } = this.#shown;
    const geometry = this.#geometry;
    const origin = geometry.stripRect.minX;
    const scale = this.#scale;
    const cellHeight = this.#canvas.height;
    const frameWidth = bitmap.width / frames;
    const frameHeight = bitmap.height;
    context.imageSmoothingQuality = 'high';
    for (let index = 0; index < frames; index += 1) {
      const slot = geometry.frameSlotRect(index, frames, this.#duration);
      const left = Math.round((slot.minX - origin) * scale);
      const cellWidth = Math.round((slot.maxX - origin) * scale) - left;
      if (cellWidth <= 0) continue;
      // Crop the frame to the cell's aspect ratio around its centre, as the Swift renderer does.
      const cellAspect = cellWidth / cellHeight;
      let sourceWidth = frameWidth;
      let sourceHeight = frameHeight;
      if (frameWidth / frameHeight > cellAspect) sourceWidth = frameHeight * cellAspect;
      else sourceHeight = frameWidth / cellAspect;
      context.drawImage(bitmap,
        index * frameWidth + (frameWidth - sourceWidth) / 2, (frameHeight - sourceHeight) / 2, sourceWidth, sourceHeight,
        left, 0, cellWidth, cellHeight);
    }
  }
}
