//! Writes the catalogs that the estimator does not use as the JSON text that `offers()` and
//! `platforms()` return: serialized here, natively, by the same serde code from the same tables the
//! estimator compiles in, so the text is what `serde_json::to_string` would give at run time
//! (a test in `src/lib.rs` checks it). Shipping the text instead of the tables and the code
//! that serializes them keeps the npm package's main module several KB smaller (the book's
//! performance chapter has the figure).

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let catalogs = [
        ("offers", serde_json::to_string(vramfit::hardware::offers())),
        (
            "platforms",
            serde_json::to_string(vramfit::hardware::platforms()),
        ),
    ];
    for (name, json) in catalogs {
        let json = json.unwrap_or_else(|e| panic!("the {name} catalog as JSON: {e}"));
        let path = out.join(format!("{name}.json"));
        std::fs::write(&path, json).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
