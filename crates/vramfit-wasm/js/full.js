// `vramfit/full`: every function of the package in one module, loaded like the main entry's
// (top-level `await`): the estimator and catalogs of `vramfit`, plus `recommend`, `planMig`,
// `diagnose`, `parseConfig`, the weights-file header readers, `searchModels` and `repoId`; and
// `fetchModel`, which looks a model up with the module's `HubLookup` (hub.js). Import from here or
// from `vramfit`, not both: each entry loads its own module.
import init from "./vramfit_full.js";
import { load } from "./load.js";

export * from "./vramfit_full.js";
export { fetchModel } from "./hub.js";

await load(init, new URL("./vramfit_full_bg.wasm", import.meta.url));
