// Decoded tiles, least recently used first out, within a byte budget.

export class TileCache {
  /** Map order is recency order: `touch` moves an entry to the end, eviction starts at the front. */
  #entries = new Map();
  #budget;
  bytes = 0;
  evictions = 0;

  /** The least budget, and what each view using the cache needs (`need`). */
  #floor;
  #needs = new Map();

  constructor(budget) {
    this.#budget = budget;
    this.#floor = budget;
  }

  /** `owner` (a view) needs `bytes` for what it shows; the budget is what all of them need. */
  need(owner, bytes) {
    this.#needs.set(owner, bytes);
    let total = 0;
    for (const value of this.#needs.values()) total += value;
    this.budget = Math.max(this.#floor, total);
  }

  get budget() {
    return this.#budget;
  }

  /** A new budget (the window grew or shrank), enforced at once. */
  set budget(bytes) {
    this.#budget = bytes;
    this.#evict();
  }

  get size() {
    return this.#entries.size;
  }

  /** The bitmap of `key`, or undefined; does not count as a use. */
  get(key) {
    return this.#entries.get(key)?.bitmap;
  }

  has(key) {
    return this.#entries.has(key);
  }

  /** Marks `key` as just used, so it is evicted last. */
  touch(key) {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
  }

  /**
   * Adds a decoded tile of `bytes` bytes. A `pinned` tile (the coarsest level, the placeholder of
   * last resort and the navigator's picture) is never evicted, as OpenSeadragon never evicts its
   * single-tile levels: without it a fast pan would show bare background.
   */
  add(key, bitmap, bytes, pinned) {
    this.#remove(key);
    this.#entries.set(key, { bitmap, bytes, pinned });
    this.bytes += bytes;
    this.#evict();
  }

  /**
   * Tiles whose keys start with `prefix` (an image no longer shown) are unpinned and made the
   * first to go, so a tour of a thousand pages keeps no more than the budget.
   */
  release(prefix) {
    const released = [];
    for (const [key, entry] of this.#entries) {
      if (key.startsWith(prefix)) released.push([key, entry]);
    }
    if (released.length === 0) return;
    const rest = [...this.#entries].filter(([key]) => !key.startsWith(prefix));
    this.#entries = new Map([...released.map(([key, entry]) => [key, { ...entry, pinned: false }]), ...rest]);
    this.#evict();
  }

  /** Drops every tile: after a login or logout the server answers this visitor otherwise. */
  clear() {
    for (const key of [...this.#entries.keys()]) this.#remove(key);
  }

  #remove(key) {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.bytes -= entry.bytes;
    // Frees the decoded pixels now rather than whenever the collector runs.
    entry.bitmap.close();
  }

  #evict() {
    for (const [key, entry] of this.#entries) {
      if (this.bytes <= this.#budget) break;
      if (entry.pinned) continue;
      this.#remove(key);
      this.evictions++;
    }
  }
}
