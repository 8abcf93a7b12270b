// `vramfit/full`: every function of the package in one module; ready once the import resolves.
export * from "./vramfit_full.js";
export * from "./hub.js";
