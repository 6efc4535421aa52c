// A IIIF Presentation 3.0 manifest read into what the viewer shows: its canvases, each with the
// image that paints it (an Image API service, or one image file), its size and a thumbnail. Any
// server's manifest, not only Tessera's: every member is checked, every URL resolved against the
// manifest's and kept only if it is http(s), and text is only ever put into the page as text.

/** The largest side of the thumbnails asked of an image service that names none. */
export const THUMBNAIL_SIDE = 256;

/** A failure to read a manifest, with a sentence for the person who asked for it. */
export class ManifestError extends Error {}

/** `value` resolved against `base` if it is an http(s) URL; null otherwise (`javascript:`, junk). */
export function safeURL(value, base) {
  if (typeof value !== "string" || value === "") return null;
  try {
    const url = new URL(value, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The text of a language map (`{"en": ["…"]}`) for this browser: its language, then `none`, then
 * English, then any; several values joined. A plain string (Presentation 2 habits) is itself.
 */
export function labelText(map, fallback = "") {
  if (typeof map === "string") return map;
  if (!map || typeof map !== "object") return fallback;
  const languages = [...navigator.languages, navigator.language].map((tag) => tag.toLowerCase());
  const keys = Object.keys(map);
  const pick =
    keys.find((key) => languages.includes(key.toLowerCase())) ??
    keys.find((key) => languages.some((tag) => tag.split("-")[0] === key.toLowerCase().split("-")[0])) ??
    (keys.includes("none") ? "none" : null) ??
    (keys.includes("en") ? "en" : null) ??
    keys[0];
  const values = pick === undefined ? [] : [map[pick]].flat().filter((value) => typeof value === "string");
  return values.length > 0 ? values.join("; ") : fallback;
}

/** A list member that may be one object or a list of them. */
function list(value) {
  return value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
}

function positive(value) {
  return Number.isFinite(value) && value > 0 ? value : null;
}

/** The Image API service of a content resource: its base URL (no `/info.json`), or null. */
function imageService(resource, base) {
  for (const service of list(resource.service)) {
    if (!service || typeof service !== "object") continue;
    const type = service.type ?? service["@type"] ?? "";
    const profile = String(service.profile ?? "");
    if (!/^ImageService[23]$/.test(type) && !profile.includes("iiif.io/api/image")) continue;
    const id = safeURL(String(service.id ?? service["@id"] ?? "").replace(/\/info\.json$/, ""), base);
    if (id) return id.replace(/\/$/, "");
  }
  return null;
}

/** The Image API qualities a selector may ask the viewer for. */
const QUALITIES = ["default", "color", "gray", "bitonal"];

/**
 * What a `SpecificResource`'s selectors ask of its source image: { region (an Image API region's
 * text, or null), rotation (degrees clockwise, a multiple of 90), quality }.
 */
function selection(resource) {
  const chosen = { region: null, rotation: 0, quality: "default" };
  for (const selector of list(resource.selector)) {
    if (!selector || typeof selector !== "object") continue;
    if (selector.type === "ImageApiSelector") {
      if (typeof selector.region === "string" && selector.region !== "full") chosen.region = selector.region;
      const degrees = Number(String(selector.rotation ?? "0").replace(/^!/, ""));
      if (Number.isFinite(degrees)) chosen.rotation = ((Math.round(degrees / 90) * 90) % 360 + 360) % 360;
      if (QUALITIES.includes(selector.quality)) chosen.quality = selector.quality;
    } else if (selector.type === "FragmentSelector" && /^xywh=/.test(String(selector.value ?? ""))) {
      chosen.region = String(selector.value);
    }
  }
  return chosen;
}

/**
 * The quarter turns (degrees clockwise) a stylesheet's rule for `.styleClass` gives by its CSS
 * `transform: rotate(…)` (cookbook 0040's other way to turn an image): 0 when it names none. Only
 * the turn is read; the translations that keep the turned image on the canvas are the viewer's own.
 */
function styledRotation(annotation, body) {
  const name = typeof body?.styleClass === "string" ? body.styleClass.trim() : "";
  if (!/^[A-Za-z_][\w-]*$/.test(name)) return 0;
  for (const sheet of list(annotation.stylesheet)) {
    const css = typeof sheet === "string" ? "" : String(sheet?.value ?? "");
    const rule = new RegExp(`\\.${name}\\s*\\{([^}]*)\\}`).exec(css);
    const turn = rule && /rotate\(\s*(-?[\d.]+)deg\s*\)/.exec(rule[1]);
    if (turn) return ((Math.round(Number(turn[1]) / 90) * 90) % 360 + 360) % 360;
  }
  return 0;
}

/** What a body is: "image", "video", "sound", or null for anything else (text, a model). */
function kindOf(body) {
  const type = String(body?.type ?? body?.["@type"] ?? "");
  if (type === "Image" || type === "dctypes:Image") return "image";
  if (type === "Video" || type === "dctypes:MovingImage") return "video";
  if (type === "Sound" || type === "Audio" || type === "dctypes:Sound") return "sound";
  return null;
}

/**
 * What paints a canvas: the first image, video or sound body of its painting annotations (the
 * first choice of a Choice; the source of a `SpecificResource`, with what its selectors ask), as
 * { body, kind, selected }; null when nothing the viewer shows paints it.
 */
function paintingOf(canvas) {
  for (const page of list(canvas.items)) {
    for (const annotation of list(page?.items)) {
      if (annotation?.motivation !== "painting" && !list(annotation?.motivation).includes("painting")) continue;
      for (let body of list(annotation.body)) {
        if (body?.type === "Choice") body = list(body.items)[0];
        let selected = { region: null, rotation: 0, quality: "default" };
        if (body?.type === "SpecificResource") {
          selected = selection(body);
          selected.rotation ||= styledRotation(annotation, body);
          body = typeof body.source === "string" ? { id: body.source, type: "Image" } : body.source;
        }
        const kind = kindOf(body);
        if (kind) return { body, kind, selected };
      }
    }
  }
  return null;
}

/** A canvas painted by a video or sound: { url, kind, format, duration } of its body. */
function mediaOf(body, kind, canvas, base) {
  const url = safeURL(body.id ?? body["@id"], base);
  if (!url) return null;
  const duration = positive(body.duration) ?? positive(canvas.duration);
  return { url, kind, format: typeof body.format === "string" ? body.format : null, duration };
}

/**
 * The manifest `json` (fetched from `url`) as { label, paged, rightToLeft, canvases }, each canvas
 * { id, label, width, height, service, image, region, rotation, quality, media, alone, thumbnail }:
 * `service` the Image API base URL or null, `image` the one image file when there is no service,
 * `region` the part of the image a selector shows (or null), `rotation` (a selector's or a
 * stylesheet's) and `quality` what it asks; `media` ({ url, kind, format, duration }) for a canvas
 * a video or sound paints; `blank` for one that paints nothing at all (a missing page); `alone`
 * for one never half of a spread. `start` is the index of the canvas the manifest opens at.
 * Canvases that paint only what the viewer does not show (text, a model) are left out.
 * @throws ManifestError when it is no Presentation 3.0 manifest or shows nothing at all.
 */
export function readManifest(json, url) {
  if (!json || typeof json !== "object") throw new ManifestError("it is not a JSON object");
  const context = list(json["@context"]).map(String);
  if (context.some((value) => value.includes("iiif.io/api/presentation/2"))) {
    throw new ManifestError("it is a Presentation 2 manifest; this viewer reads Presentation 3.0");
  }
  if (json.type !== "Manifest") throw new ManifestError("it is not a IIIF Presentation 3.0 Manifest");
  const behavior = list(json.behavior).map(String);
  const canvases = [];
  for (const canvas of list(json.items)) {
    if (canvas?.type !== "Canvas") continue;
    const painting = paintingOf(canvas);
    const named = list(canvas.thumbnail).map((thumbnail) => safeURL(thumbnail?.id ?? thumbnail?.["@id"], url)).find(Boolean);
    const label = labelText(canvas.label, String(canvases.length + 1));
    const id = typeof canvas.id === "string" ? canvas.id : null;
    if (!painting) {
      // A page whose image is missing (cookbook 0283) keeps its place, shown blank.
      const [width, height] = [positive(canvas.width), positive(canvas.height)];
      if (width && height && list(canvas.items).length === 0) {
        canvases.push({ id, label, width, height, service: null, image: null, media: null, blank: true, alone: true, thumbnail: named ?? null });
      }
      continue;
    }
    const { body, kind, selected } = painting;
    // A canvas a book shows by itself: a foldout (`non-paged`), or one that is not an image.
    const alone = list(canvas.behavior).includes("non-paged") || kind !== "image";
    if (kind !== "image") {
      const media = mediaOf(body, kind, canvas, url);
      if (media) {
        canvases.push({ id, label, width: positive(canvas.width), height: positive(canvas.height), service: null, image: null, media, alone, thumbnail: named ?? null });
      }
      continue;
    }
    const service = imageService(body, url);
    const image = service ? null : safeURL(body.id ?? body["@id"], url);
    if (!service && !image) continue;
    const width = positive(body.width) ?? positive(canvas.width);
    const height = positive(body.height) ?? positive(canvas.height);
    const thumbnail = named ?? (service ? `${service}/full/!${THUMBNAIL_SIDE},${THUMBNAIL_SIDE}/0/default.jpg` : image);
    canvases.push({ id, label, width, height, service, image, ...selected, media: null, alone, thumbnail });
  }
  if (canvases.every((canvas) => canvas.blank)) throw new ManifestError("it has no canvas showing an image, a video or a sound");
  // Where it opens: the canvas `start` names (itself, or a SpecificResource of it), else the first.
  const startID = typeof json.start?.id === "string" ? (json.start.type === "SpecificResource" ? json.start.source?.id ?? json.start.source : json.start.id) : null;
  const start = Math.max(0, canvases.findIndex((canvas) => canvas.id !== null && canvas.id === startID));
  return {
    label: labelText(json.label, ""),
    paged: behavior.includes("paged"),
    rightToLeft: json.viewingDirection === "right-to-left",
    canvases,
    start,
  };
}

/**
 * The collection `json` (fetched from `url`) as { label, items }, each item { label, id, type
 * ("Manifest" or "Collection"), thumbnail }: what a reader browses into. Null when it is no
 * Presentation 3.0 collection.
 */
export function readCollection(json, url) {
  if (!json || typeof json !== "object" || json.type !== "Collection") return null;
  const items = [];
  for (const item of list(json.items)) {
    if (item?.type !== "Manifest" && item?.type !== "Collection") continue;
    const id = safeURL(item.id, url);
    if (!id) continue;
    const thumbnail = list(item.thumbnail).map((thumbnail) => safeURL(thumbnail?.id, url)).find(Boolean) ?? null;
    items.push({ label: labelText(item.label, id), id, type: item.type, thumbnail });
  }
  return { label: labelText(json.label, ""), items };
}
