// The entry of the npm package `vramfit`: loads the WebAssembly module, then re-exports its
// functions. The top-level `await` means that once `import … from "vramfit"` resolves, every
// function is ready: no init call, in Node 20+, in browsers (`<script type="module">`) and in
// bundlers that keep ES2022 modules (Vite, webpack 5, esbuild, Rollup). The literal
// `new URL("./vramfit_bg.wasm", import.meta.url)` is what bundlers look for to ship the module.
//
// This is the small module (under 195 KB gzip): the estimator (`estimate`, `solve`) and every
// catalog (`gpus`, `models`, `offers`, `platforms`). `vramfit/full` has every function in one
// larger module.
import init from "./vramfit.js";
import { load } from "./load.js";

export * from "./vramfit.js";

await load(init, new URL("./vramfit_bg.wasm", import.meta.url));
