//! Every face that promises every engine and run shape builds vramfit with every feature that
//! adds one: the CLI, the npm package's modules, this test crate and the site's full build.
//!
//! `cargo test --workspace` unifies the features of the whole workspace, so a feature missing
//! from one face's list passes every test there and is missing only where that face is built
//! alone (`cargo install vramfit-cli`, `cargo xtask npm`): Text Embeddings Inference (`tei`)
//! was refused by the CLI and the npm package built alone until this test.

use std::collections::BTreeSet;

fn manifest(path: &str) -> toml::Table {
    let path = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.parse().unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn strings(v: &toml::Value) -> BTreeSet<String> {
    v.as_array()
        .expect("a list of features")
        .iter()
        .map(|f| f.as_str().expect("a feature's name").to_owned())
        .collect()
}

/// The features vramfit turns on by default: every engine and run shape, the CLI's build.
fn vramfits_default() -> BTreeSet<String> {
    strings(&manifest("crates/vramfit/Cargo.toml")["features"]["default"])
}

/// The vramfit features a manifest's entry for it asks for, in `[dependencies]` or, for a
/// crate of tests, `[dev-dependencies]`.
fn dependency_features(path: &str) -> BTreeSet<String> {
    let m = manifest(path);
    let entry = ["dependencies", "dev-dependencies"]
        .iter()
        .find_map(|t| m.get(*t)?.get("vramfit"))
        .unwrap_or_else(|| panic!("{path} does not depend on vramfit"));
    strings(&entry["features"])
}

/// A feature list of the site's crate, `vramfit/NAME` entries only, as vramfit's names.
fn site_features(feature: &str) -> BTreeSet<String> {
    strings(&manifest("web/Cargo.toml")["features"][feature])
        .into_iter()
        .filter_map(|f| f.strip_prefix("vramfit/").map(str::to_owned))
        .collect()
}

#[test]
fn every_face_that_has_every_engine_builds_every_feature() {
    let all = vramfits_default();
    assert!(all.contains("tei") && all.contains("training"), "{all:?}");
    let missing = |have: &BTreeSet<String>, allowed: &[&str]| -> Vec<String> {
        all.iter()
            .filter(|f| !have.contains(*f) && !allowed.contains(&f.as_str()))
            .cloned()
            .collect()
    };
    // The CLI: every feature.
    let cli = dependency_features("crates/vramfit-cli/Cargo.toml");
    assert_eq!(missing(&cli, &[]), Vec::<String>::new(), "the CLI");
    // This crate: every feature but the readers of files and hubs, which it does not test.
    let tests = dependency_features("tests/Cargo.toml");
    assert_eq!(
        missing(&tests, &["hub", "stack-config"]),
        Vec::<String>::new(),
        "vramfit-tests"
    );
    // The npm package: `std` is native only, `hub` is `vramfit/full`'s (its feature `full`).
    let npm = dependency_features("crates/vramfit-wasm/Cargo.toml");
    assert_eq!(
        missing(&npm, &["std", "hub"]),
        Vec::<String>::new(),
        "the npm package"
    );
    // The site's full build: every feature but `std`, as its `en` and `zh` bring the text.
    let mut site = site_features("full");
    site.extend(site_features("en"));
    site.extend(site_features("zh"));
    assert_eq!(
        missing(&site, &["std", "serde"]),
        Vec::<String>::new(),
        "the site's full build"
    );
}
