//! JavaScript bindings of the vramfit estimator. The only crate that knows about JavaScript.
#![deny(missing_docs)]

use wasm_bindgen::prelude::*;

/// The estimator's version.
#[wasm_bindgen]
pub fn version() -> String {
    vramfit::VERSION.to_string()
}
