// What the viewer shows that is not an image: a canvas a video or a sound paints (played in the
// pane, where the image view would be) or that paints nothing, and a IIIF collection (its manifests and collections
// listed, each opening in the viewer, so a reader browses into it).

/**
 * Plays the media canvases of a document in `pane`, one at a time, in place of the image view
 * `view` (a canvas element), which is hidden while one plays.
 */
export class MediaStage {
  #pane;
  #view;
  #element = null;
  /** The canvas shown: { url, kind, format, duration }, or null. */
  media = null;

  constructor(pane, view) {
    this.#pane = pane;
    this.#view = view;
  }

  /** Plays nothing yet, but shows `media` ready to (the reader starts it), labelled `label`. */
  show(media, label) {
    this.hide();
    const element = document.createElement(media.kind === "sound" ? "audio" : "video");
    element.className = "media";
    element.controls = true;
    element.preload = "metadata";
    element.setAttribute("aria-label", label);
    const source = document.createElement("source");
    source.src = media.url;
    if (media.format) source.type = media.format;
    element.append(source);
    this.#pane.append(element);
    this.#view.hidden = true;
    this.#element = element;
    this.media = media;
  }

  /** Shows that the canvas `label` paints nothing (a page whose image is missing). */
  showBlank(label) {
    this.hide();
    const element = document.createElement("p");
    element.className = "media blank";
    element.textContent = `${label}: nothing is painted on this canvas.`;
    this.#pane.append(element);
    this.#view.hidden = true;
    this.#element = element;
    this.media = { kind: "blank", url: null };
  }

  /** Back to the image view: the player is stopped and removed. */
  hide() {
    if (!this.#element) return;
    this.#element.pause?.();
    this.#element.remove();
    this.#element = null;
    this.media = null;
    this.#view.hidden = false;
  }

  /** What tests read: the medium, and where its playing is. */
  get state() {
    const element = this.#element;
    if (!element || this.media.kind === "blank") return element && { kind: "blank" };
    return { url: this.media.url, kind: this.media.kind, duration: element.duration, currentTime: element.currentTime, paused: element.paused, readyState: element.readyState };
  }
}

/**
 * Lists `collection` ({ label, items }, as `readCollection` reads it) in `list` (a `<ul>`), each
 * item a link that opens it in this viewer (`viewerURL(id)`): a manifest to read, a collection to
 * browse further. Text goes in as text.
 */
export function listCollection(list, collection, viewerURL) {
  list.replaceChildren();
  for (const item of collection.items) {
    const entry = document.createElement("li");
    const link = document.createElement("a");
    link.href = viewerURL(item.id);
    link.className = item.type === "Collection" ? "collection-folder" : "collection-manifest";
    // The box keeps every item's shape: a thumbnail, or a sign of what it is.
    const box = document.createElement("span");
    box.className = "thumb";
    box.setAttribute("aria-hidden", "true");
    if (item.thumbnail) {
      const image = document.createElement("img");
      image.src = item.thumbnail;
      image.alt = "";
      image.loading = "lazy";
      box.append(image);
    } else {
      box.textContent = item.type === "Collection" ? "▤" : "▶";
    }
    link.append(box);
    const text = document.createElement("span");
    text.textContent = item.label;
    link.append(text);
    entry.append(link);
    list.append(entry);
  }
}
