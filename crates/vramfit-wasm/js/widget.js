// <vramfit-calculator>: the vramfit estimate as an embeddable custom element.
//
//   <script type="module">import "vramfit/widget";</script>
//   <vramfit-calculator model="meta-llama/Llama-3.1-8B" mode="inference" gpu="rtx-4090"></vramfit-calculator>
//
// Attributes: model (preset id), mode (inference | serve | training), lang (en | zh),
// layout (compact | full), theme (light | dark | auto), batch, seq-len, gpu (catalog id).
// The element fires `vramfit-change` (a CustomEvent whose `detail` is the estimate) whenever
// the result changes. Bad input shows the error in the element; nothing is thrown to the page.
// The widget runs on the package's main module (the estimator and the catalogs, under 195 KB
// gzip), loaded once however many entries of the package a page imports.
import { estimate, gpus, models } from "./index.js";

const GIB = 2 ** 30;
const MODES = ["inference", "serve", "training"];
const ATTRS = ["model", "mode", "lang", "layout", "theme", "batch", "seq-len", "gpu"];
const DEFAULTS = { model: "meta-llama/Llama-3.1-8B", mode: "inference", batch: "1", "seq-len": "2048" };

// The breakdown bar: estimate field, colour, English and Chinese labels.
const PARTS = [
  ["weights_bytes", "#4e79a7", "weights", "权重"],
  ["kv_cache_bytes", "#f28e2b", "KV cache", "KV 缓存"],
  ["activations_bytes", "#59a14f", "activations", "激活"],
  ["gradients_bytes", "#e15759", "gradients", "梯度"],
  ["optimizer_bytes", "#b07aa1", "optimizer", "优化器"],
  ["temporaries_bytes", "#edc948", "temporaries", "临时"],
  ["overhead_bytes", "#76b7b2", "overhead", "系统开销"],
  ["allocator_reserve_bytes", "#9c755f", "allocator", "分配器预留"],
];

const TEXT = {
  en: {
    model: "Model", mode: "Mode", batch: "Batch", seq: "Sequence", gpu: "GPU", none: "—",
    inference: "inference", serve: "serve", training: "training",
    total: "Total", rec: "Recommended (guide)", fits: "fits on", nofit: "does not fit on",
    headroom: "headroom", short: "short by",
  },
  zh: {
    model: "模型", mode: "模式", batch: "批大小", seq: "序列长度", gpu: "显卡", none: "—",
    inference: "推理", serve: "服务", training: "训练",
    total: "总显存", rec: "推荐显存（指南）", fits: "可以放入", nofit: "放不下",
    headroom: "余量", short: "还差",
  },
};

const STYLE = `
:host { display: block; font: 14px/1.4 system-ui, sans-serif; color: var(--vf-fg); background: var(--vf-bg);
  border: 1px solid var(--vf-line); border-radius: 8px; padding: 12px; max-width: 560px;
  --vf-fg: #1b1b1f; --vf-bg: #fff; --vf-line: #d0d0d7; --vf-muted: #5f5f6b; --vf-bad: #b3261e; --vf-good: #1e7b34; }
:host([theme="dark"]) { --vf-fg: #e6e6ea; --vf-bg: #1b1b1f; --vf-line: #44444c; --vf-muted: #a4a4ae; --vf-bad: #ff8a80; --vf-good: #7ee29a; }
@media (prefers-color-scheme: dark) { :host([theme="auto"]) { --vf-fg: #e6e6ea; --vf-bg: #1b1b1f; --vf-line: #44444c; --vf-muted: #a4a4ae; --vf-bad: #ff8a80; --vf-good: #7ee29a; } }
[hidden] { display: none !important; }
form { display: grid; grid-template-columns: repeat(auto-fit, minmax(110px, 1fr)); gap: 8px; margin: 0 0 10px; }
label { display: grid; gap: 2px; font-size: 12px; color: var(--vf-muted); }
.model { grid-column: 1 / -1; }
select, input { font: inherit; color: var(--vf-fg); background: var(--vf-bg); border: 1px solid var(--vf-line); border-radius: 4px; padding: 3px 4px; min-width: 0; }
.total { font-size: 22px; font-weight: 600; }
.bar { display: flex; height: 12px; border-radius: 3px; overflow: hidden; background: var(--vf-line); margin: 6px 0; }
.bar span { display: block; height: 100%; }
ul { list-style: none; padding: 0; margin: 4px 0; display: flex; flex-wrap: wrap; gap: 2px 12px; font-size: 12px; }
li::before { content: ""; display: inline-block; width: 9px; height: 9px; margin-right: 4px; background: var(--c); border-radius: 2px; }
.muted { color: var(--vf-muted); font-size: 12px; }
.fit.yes { color: var(--vf-good); } .fit.no { color: var(--vf-bad); }
.error { color: var(--vf-bad); white-space: pre-wrap; }
:host([layout="compact"]) ul, :host([layout="compact"]) .rec { display: none; }
`;

function gib(bytes) {
  return `${(bytes / GIB).toFixed(2)} GiB`;
}

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...children);
  return e;
}

let catalogs = null;
function catalog() {
  catalogs ??= { models: models(), gpus: gpus() };
  return catalogs;
}

export class VramfitCalculator extends HTMLElement {
  static observedAttributes = ATTRS;

  #estimate = null;
  #error = null;
  #last = null;
  #ui = null;

  constructor() {
    super();
    this.attachShadow({ mode: "open" });
  }

  /** The last estimate, or null while the input is invalid. */
  get estimate() {
    return this.#estimate;
  }

  /** The last error message, or null. */
  get error() {
    return this.#error;
  }

  connectedCallback() {
    if (!this.#ui) this.#build();
    this.#update();
  }

  attributeChangedCallback() {
    if (this.#ui) this.#update();
  }

  #attr(name) {
    return this.getAttribute(name) ?? DEFAULTS[name] ?? "";
  }

  #build() {
    const { models: ms, gpus: gs } = catalog();
    const model = el("select", { name: "model" });
    model.append(...ms.map((m) => el("option", { value: m.id, textContent: m.name })));
    const mode = el("select", { name: "mode" });
    mode.append(...MODES.map((m) => el("option", { value: m })));
    const gpu = el("select", { name: "gpu" }, el("option", { value: "" }));
    gpu.append(...gs.map((g) => el("option", { value: g.id, textContent: g.name })));
    const batch = el("input", { name: "batch", type: "number", min: 1, step: 1 });
    const seq = el("input", { name: "seq-len", type: "number", min: 1, step: 1 });
    const labels = {};
    const field = (key, control, cls = "") => {
      labels[key] = el("span");
      return el("label", { className: cls }, labels[key], control);
    };
    const form = el("form", {}, field("model", model, "model"), field("mode", mode),
      field("batch", batch), field("seq", seq), field("gpu", gpu));
    form.addEventListener("submit", (e) => e.preventDefault());
    // A change in a control becomes an attribute change, so that attributes stay the truth.
    form.addEventListener("change", (e) => {
      const t = e.target;
      if (t.value === "" && t.name === "gpu") this.removeAttribute("gpu");
      else this.setAttribute(t.name, t.value);
    });
    const ui = {
      form, labels, model, mode, gpu, batch, seq,
      total: el("div", { className: "total", part: "total" }),
      bar: el("div", { className: "bar", part: "bar" }),
      legend: el("ul"),
      rec: el("div", { className: "rec muted", part: "recommended" }),
      fit: el("div", { className: "fit", part: "fit" }),
      error: el("div", { className: "error", role: "alert", part: "error" }),
    };
    const result = el("output", { className: "result" }, ui.total, ui.bar, ui.legend, ui.rec, ui.fit);
    ui.result = result;
    // A constructed style sheet, which a strict CSP (no inline <style>) allows.
    if (this.shadowRoot.adoptedStyleSheets !== undefined && typeof CSSStyleSheet.prototype.replaceSync === "function") {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLE);
      this.shadowRoot.adoptedStyleSheets = [sheet];
    } else {
      this.shadowRoot.append(el("style", { textContent: STYLE }));
    }
    this.shadowRoot.append(form, result, ui.error);
    this.#ui = ui;
  }

  #input() {
    const input = {
      model: this.#attr("model"),
      mode: this.#attr("mode"),
      batch: Number(this.#attr("batch")),
      seq_len: Number(this.#attr("seq-len")),
    };
    const gpu = this.#attr("gpu");
    if (gpu) input.gpu = gpu;
    if (input.mode === "serve") input.engine = "vllm";
    return input;
  }

  #update() {
    const ui = this.#ui;
    const lang = this.#attr("lang").startsWith("zh") ? "zh" : "en";
    const t = TEXT[lang];
    for (const [k, span] of Object.entries(ui.labels)) span.textContent = t[k];
    for (const o of ui.mode.options) o.textContent = t[o.value];
    ui.gpu.options[0].textContent = t.none;
    ui.model.value = this.#attr("model");
    ui.mode.value = this.#attr("mode");
    ui.batch.value = this.#attr("batch");
    ui.seq.value = this.#attr("seq-len");
    ui.gpu.value = this.#attr("gpu");

    let e;
    try {
      e = estimate(this.#input());
    } catch (err) {
      this.#estimate = null;
      // The estimator's input errors come in Chinese too (`message_zh`).
      this.#error = String((lang === "zh" && err?.message_zh) || (err?.message ?? err));
      ui.error.textContent = this.#error;
      ui.error.hidden = false;
      ui.result.hidden = true;
      this.#last = null;
      return;
    }
    this.#error = null;
    ui.error.hidden = true;
    ui.result.hidden = false;
    this.#estimate = e;

    ui.total.textContent = `${t.total}: ${gib(e.total_bytes)}`;
    const sum = PARTS.reduce((s, [k]) => s + e[k], 0) || 1;
    ui.bar.replaceChildren(...PARTS.filter(([k]) => e[k] > 0).map(([k, c, en, zh]) => {
      const span = el("span", { title: `${lang === "zh" ? zh : en}: ${gib(e[k])}` });
      // CSSOM, not a style attribute: pages with a strict CSP (style-src 'self') allow it.
      span.style.width = `${(100 * e[k]) / sum}%`;
      span.style.background = c;
      return span;
    }));
    ui.legend.replaceChildren(...PARTS.filter(([k]) => e[k] > 0).map(([k, c, en, zh]) => {
      const li = el("li", { textContent: `${lang === "zh" ? zh : en} ${gib(e[k])}` });
      li.style.setProperty("--c", c);
      return li;
    }));
    ui.rec.textContent = `${t.rec}: ${gib(e.recommended_bytes)}`;
    if (e.fit) {
      const name = ui.gpu.selectedOptions[0]?.textContent || e.fit.gpu;
      ui.fit.className = `fit ${e.fit.fits ? "yes" : "no"}`;
      ui.fit.textContent = e.fit.fits
        ? `✓ ${t.fits} ${name} (${t.headroom} ${gib(e.fit.headroom_bytes)})`
        : `✗ ${t.nofit} ${name} (${t.short} ${gib(e.fit.shortfall_bytes)})`;
      ui.fit.hidden = false;
    } else {
      ui.fit.hidden = true;
    }

    const key = JSON.stringify(e);
    if (key !== this.#last) {
      this.#last = key;
      this.dispatchEvent(new CustomEvent("vramfit-change", { detail: e, bubbles: true, composed: true }));
    }
  }
}

if (!customElements.get("vramfit-calculator")) {
  customElements.define("vramfit-calculator", VramfitCalculator);
}
