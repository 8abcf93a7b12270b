// `import "vramfit/widget"` registers the custom element <vramfit-calculator>.
import type { Estimate } from "./index.js";

/** The element class of `<vramfit-calculator>`. */
export declare class VramfitCalculator extends HTMLElement {
  static readonly observedAttributes: string[];
  /** The last estimate, or `null` while the input is invalid. */
  readonly estimate: Estimate | null;
  /** The last error message (`field: problem; accepted: …`), or `null`. */
  readonly error: string | null;
  connectedCallback(): void;
  attributeChangedCallback(): void;
}

/** Fired by `<vramfit-calculator>` when its result changes; `detail` is the estimate. */
export type VramfitChangeEvent = CustomEvent<Estimate>;

declare global {
  interface HTMLElementTagNameMap {
    "vramfit-calculator": VramfitCalculator;
  }
  interface HTMLElementEventMap {
    "vramfit-change": VramfitChangeEvent;
  }
}
