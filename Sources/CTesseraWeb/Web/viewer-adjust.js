// Adjustments for reading faint writing: brightness, contrast, saturation, invert and grayscale,
// applied by the browser to the tiles already drawn (a CSS filter on the views: nothing is fetched
// again), and the image service's own `gray` and `bitonal` qualities, which are new tiles.

const SLIDERS = ["brightness", "contrast", "saturation"];
const CHECKS = ["invert", "grayscale"];

export class Adjustments {
  #inputs = {};
  #quality;
  #onchange;
  #onquality;

  /**
   * Reads the panel's inputs (by id); `onchange(filter)` gets the CSS filter whenever one moves,
   * `onquality(quality)` the IIIF quality chosen.
   */
  constructor({ onchange, onquality }) {
    this.#onchange = onchange;
    this.#onquality = onquality;
    for (const id of [...SLIDERS, ...CHECKS]) {
      const input = document.getElementById(id);
      this.#inputs[id] = input;
      input.addEventListener("input", () => {
        this.#showValues();
        this.#onchange(this.filter);
      });
    }
    this.#quality = document.getElementById("quality");
    this.#quality.addEventListener("change", () => this.#onquality(this.#quality.value));
    document.getElementById("reset-adjustments").addEventListener("click", () => this.reset());
  }

  /** The CSS filter of the current settings; `none` when nothing is changed. */
  get filter() {
    const parts = [];
    const percent = (id) => Number(this.#inputs[id].value);
    if (percent("brightness") !== 100) parts.push(`brightness(${percent("brightness")}%)`);
    if (percent("contrast") !== 100) parts.push(`contrast(${percent("contrast")}%)`);
    if (percent("saturation") !== 100) parts.push(`saturate(${percent("saturation")}%)`);
    if (this.#inputs.grayscale.checked) parts.push("grayscale(1)");
    if (this.#inputs.invert.checked) parts.push("invert(1)");
    return parts.length > 0 ? parts.join(" ") : "none";
  }

  /** Each slider's value beside its name. */
  #showValues() {
    for (const id of SLIDERS) document.getElementById(`${id}-value`).textContent = `${this.#inputs[id].value}%`;
  }

  get quality() {
    return this.#quality.value;
  }

  /**
   * Offers the qualities an image service lists beyond `default` (`gray`, `bitonal`; `color` is
   * the default of a colour image), keeping the one chosen if it is still offered.
   */
  offer(qualities) {
    const wanted = ["default", ...["gray", "bitonal"].filter((quality) => qualities.includes(quality))];
    const current = this.#quality.value;
    this.#quality.replaceChildren(
      ...wanted.map((quality) => {
        const option = document.createElement("option");
        option.value = quality;
        option.textContent = quality === "default" ? "Default" : quality === "gray" ? "Gray (from the server)" : "Bitonal (from the server)";
        return option;
      }),
    );
    this.#quality.value = wanted.includes(current) ? current : "default";
    this.#quality.disabled = wanted.length === 1;
  }

  /** Every setting back to its start, the quality too. */
  reset() {
    for (const id of SLIDERS) this.#inputs[id].value = "100";
    for (const id of CHECKS) this.#inputs[id].checked = false;
    this.#showValues();
    this.#onchange(this.filter);
    if (this.#quality.value !== "default") {
      this.#quality.value = "default";
      this.#onquality("default");
    }
  }
}
