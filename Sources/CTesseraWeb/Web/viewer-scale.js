// The scale bar of an image whose info.json gives its physical scale (the IIIF physical dimensions
// service, `physdim`: a slide scanner's µm per pixel): a bar of a round length (1, 2 or 5 × a
// power of ten, in µm or mm) as long as that length is on screen now, and the magnification
// a microscope would show it at. No service, no bar: a print resolution is not a scale, and the
// server never offers one.

/** µm per CSS pixel of a microscope's 10× eyepiece view at 1× (the conventional 10 µm per pixel
 * at 1×: a 0.25 µm/px scan is "40×" at 100 %). */
const MICRONS_AT_ONE_TIMES = 10;
const UNIT_MICRONS = { mm: 1000, cm: 10000, in: 25400 };

/** µm per image pixel from `info` (an IIIF Image info.json), or null when it gives no physical scale. */
export function micronsPerPixel(info) {
  const services = Array.isArray(info?.service) ? info.service : [];
  const physical = services.find((s) => String(s?.profile ?? "").endsWith("/physdim"));
  const scale = Number(physical?.physicalScale), unit = UNIT_MICRONS[physical?.physicalUnits];
  return unit && Number.isFinite(scale) && scale > 0 ? scale * unit : null;
}

/** The longest round length whose bar fits in `maxWidth` CSS pixels at `micronsPerCSSPixel`:
 * { width (CSS px), microns, label }. */
export function scaleBar(micronsPerCSSPixel, maxWidth = 160) {
  const most = micronsPerCSSPixel * maxWidth;
  const power = 10 ** Math.floor(Math.log10(most));
  const microns = [5, 2, 1].map((step) => step * power).find((length) => length <= most) ?? power;
  const label = microns >= 1000 ? `${Number((microns / 1000).toPrecision(6))} mm` : `${Number(microns.toPrecision(6))} µm`;
  return { width: microns / micronsPerCSSPixel, microns, label };
}

/** One view's bar: `element` holds a `.scale-line` and a `.scale-label`. */
export class ScaleBar {
  #element;
  #line;
  #label;
  /** What is drawn now ({ width, microns, label, magnification }), or null when hidden. */
  state = null;

  constructor(element) {
    this.#element = element;
    this.#line = element.querySelector(".scale-line");
    this.#label = element.querySelector(".scale-label");
  }

  /** Shows the bar for an image of `micronsPerImagePixel` (null: none) drawn at `cssPerImagePixel`. */
  update(micronsPerImagePixel, cssPerImagePixel) {
    if (!(micronsPerImagePixel > 0) || !(cssPerImagePixel > 0)) {
      this.#element.hidden = true;
      this.state = null;
      return;
    }
    const bar = scaleBar(micronsPerImagePixel / cssPerImagePixel);
    const magnification = (MICRONS_AT_ONE_TIMES * cssPerImagePixel) / micronsPerImagePixel;
    const text = `${bar.label} · ${Number(magnification.toPrecision(3))}×`;
    this.#line.style.width = `${bar.width}px`;
    if (this.#label.textContent !== text) this.#label.textContent = text;
    this.#element.hidden = false;
    this.state = { ...bar, magnification };
  }
}
