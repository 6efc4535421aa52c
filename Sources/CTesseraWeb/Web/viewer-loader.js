// Fetches and decodes tiles in priority order, cancels the ones the view no longer wants, and
// retries failures with exponential backoff.

/** Requests at once: what a browser opens to one HTTP/1.1 host, so our order is the order served. */
export const CONCURRENCY = 6;
/** The first retry waits this long, each further one twice as long, up to `MAX_BACKOFF`. */
const FIRST_BACKOFF = 500;
const MAX_BACKOFF = 16000;

export class TileLoader {
  /** key → AbortController of a load under way. */
  #loads = new Map();
  /** key → { attempts, retryAt } of a tile whose last load failed. */
  #failures = new Map();
  #cache;
  #changed;
  #retryTimer = 0;
  #retryAt = Infinity;
  #concurrency;

  /** `changed` is called whenever a tile arrives or a retry falls due: time to draw and update.
   * `concurrency`: requests at once (views sharing one host split `CONCURRENCY` between them). */
  constructor(cache, changed, concurrency = CONCURRENCY) {
    this.#cache = cache;
    this.#changed = changed;
    this.#concurrency = concurrency;
  }

  /** Requests at once from now on. */
  set concurrency(count) {
    this.#concurrency = count;
    this.#changed();
  }

  get inFlight() {
    return this.#loads.size;
  }

  /**
   * Makes the loads match `wanted`, a list of { tile, pinned } in priority order: loads of tiles
   * not in it are cancelled (the view left them), and free slots go to the first wanted tiles that
   * are neither cached, nor loading, nor waiting out a backoff.
   */
  update(wanted) {
    const keys = new Set(wanted.map(({ tile }) => tile.key));
    for (const [key, controller] of this.#loads) {
      if (!keys.has(key)) {
        controller.abort();
        this.#loads.delete(key);
      }
    }
    // A tile that left the view starts afresh if it comes back: the backoff is for a tile the user
    // keeps looking at, and forgetting the others keeps this map as small as the view.
    for (const key of this.#failures.keys()) if (!keys.has(key)) this.#failures.delete(key);

    const now = performance.now();
    let nextRetry = Infinity;
    for (const { tile, pinned } of wanted) {
      if (this.#loads.size >= this.#concurrency) break;
      if (this.#cache.has(tile.key) || this.#loads.has(tile.key)) continue;
      const failure = this.#failures.get(tile.key);
      if (failure && failure.retryAt > now) {
        nextRetry = Math.min(nextRetry, failure.retryAt);
        continue;
      }
      this.#load(tile, pinned);
    }
    this.#scheduleRetry(nextRetry);
  }

  async #load(tile, pinned) {
    const controller = new AbortController();
    this.#loads.set(tile.key, controller);
    try {
      const response = await fetch(tile.url, { signal: controller.signal });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const blob = await response.blob();
      // Decoding off the main thread; it cannot be aborted, so a tile cancelled meanwhile is dropped.
      const bitmap = await createImageBitmap(blob);
      if (controller.signal.aborted) {
        bitmap.close();
        return;
      }
      this.#failures.delete(tile.key);
      this.#cache.add(tile.key, bitmap, tile.bytes, pinned);
    } catch {
      // Cancelled loads are not failures; anything else (network, HTTP status, undecodable bytes)
      // is retried later while the tile is still wanted, and its placeholder stays meanwhile.
      if (controller.signal.aborted) return;
      const attempts = (this.#failures.get(tile.key)?.attempts ?? 0) + 1;
      const delay = Math.min(FIRST_BACKOFF * 2 ** (attempts - 1), MAX_BACKOFF);
      this.#failures.set(tile.key, { attempts, retryAt: performance.now() + delay });
    } finally {
      if (this.#loads.get(tile.key) === controller) this.#loads.delete(tile.key);
      if (!controller.signal.aborted) this.#changed();
    }
  }

  /** One timer for the earliest retry due, so a tile waiting out its backoff is tried on time. */
  #scheduleRetry(at) {
    if (at === this.#retryAt) return;
    clearTimeout(this.#retryTimer);
    this.#retryAt = at;
    if (at === Infinity) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryAt = Infinity;
      this.#changed();
    }, at - performance.now());
  }
}
