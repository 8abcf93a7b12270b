// The entry of the npm package `vramfit`: loads the WebAssembly module, then re-exports its
// functions. The top-level `await` means that once `import … from "vramfit"` resolves, every
// function is ready: no init call, in Node 20+, in browsers (`<script type="module">`) and in
// bundlers that keep ES2022 modules (Vite, webpack 5, esbuild, Rollup).
import init from "./vramfit.js";

export * from "./vramfit.js";

const wasm = new URL("./vramfit_bg.wasm", import.meta.url);

await init({
  module_or_path: wasm.protocol === "file:" ? await readLocal(wasm) : wasm,
});

// Node (and Deno) have no `fetch` for `file:` URLs: read the module from disk. The name is in
// a variable, and marked for webpack and Vite, so that browser bundles never try to resolve it.
async function readLocal(url) {
  const fs = "node:fs/promises";
  const { readFile } = await import(/* webpackIgnore: true */ /* @vite-ignore */ fs);
  return readFile(url);
}
