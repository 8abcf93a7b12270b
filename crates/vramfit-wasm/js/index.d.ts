// The entry of the npm package `vramfit`: the estimator and every catalog. Every function is
// ready once the import resolves (the module initialises itself with top-level `await`); the
// types of the data are generated from the Rust serde types.
export * from "./vramfit.js";
