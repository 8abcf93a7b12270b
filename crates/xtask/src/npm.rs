//! The npm package `vramfit` (`crates/vramfit-wasm` → `target/npm/`) and its embeddable widget.
//!
//! `cargo build` (release, wasm32) → `wasm-bindgen --target web` → `wasm-opt -Oz` → the files of
//! `crates/vramfit-wasm/js/` (the entry that loads the wasm, the widget, their types) →
//! `target/npm/` with a `package.json` whose version is the workspace's.
//!
//! The package, as shipped (and as `npm pack` lists it):
//!
//! - `index.js`: the entry (`import { estimate } from "vramfit"`); it loads `vramfit_bg.wasm`
//!   with top-level `await` (from disk under Node, by `fetch` elsewhere), so every function is
//!   ready once the import resolves. That module is the crate without its `full` feature: the
//!   estimator and every catalog, under the 195 KB gzip budget;
//! - `full.js`: `import { recommend } from "vramfit/full"`: every function, in the larger module
//!   `vramfit_full_bg.wasm` (the crate with `full`: plus recommend, planMig, diagnose,
//!   parseConfig and the weights-file header readers);
//! - `vramfit.js`, `vramfit_full.js`: wasm-bindgen's glue of each module;
//! - `hub.js`: `fetchModel`, exported by `full.js`: a model looked up on a hub, read with the
//!   full module's parsers;
//! - `load.js`: loads a module from disk (Node) or by URL (browsers, bundlers);
//! - `widget.js`: `import "vramfit/widget"` registers `<vramfit-calculator>`, on the main module;
//! - `index.d.ts`, `full.d.ts`, `hub.d.ts`, `vramfit.d.ts`, `vramfit_full.d.ts`, `widget.d.ts`: the types
//!   (the data types are generated from the serde types, see `crates/vramfit-wasm/tests/dts.rs`);
//! - `package.json`, `README.md`.

use std::path::{Path, PathBuf};

use crate::tools::{self, cargo, cmd, run};
use crate::{Result, root};

/// The files a page needs to run the widget (what [`build_widget_into`] copies).
pub const WIDGET_FILES: &[&str] = &[
    "index.js",
    "load.js",
    "vramfit.js",
    "vramfit_bg.wasm",
    "widget.js",
];

/// Every file of the package besides `package.json` and `README.md`.
pub const PACKAGE_FILES: &[&str] = &[
    "index.js",
    "index.d.ts",
    "full.js",
    "full.d.ts",
    "hub.js",
    "hub.d.ts",
    "load.js",
    "vramfit.js",
    "vramfit.d.ts",
    "vramfit_bg.wasm",
    "vramfit_full.js",
    "vramfit_full.d.ts",
    "vramfit_full_bg.wasm",
    "widget.js",
    "widget.d.ts",
];

/// Where `cargo xtask npm` writes the package.
pub fn npm_dir() -> PathBuf {
    root().join("target/npm")
}

/// `cargo xtask npm`: installs what is missing, then builds the package into `target/npm/`.
pub fn npm() -> Result {
    tools::ensure_wasm_tools()?;
    generate_types()?;
    let dir = npm_dir();
    build_package(&dir)?;
    eprintln!("npm package written to {}", dir.display());
    Ok(())
}

/// Regenerates `crates/vramfit-wasm/ts/types.d.ts` from the serde types when it is stale (the
/// generator is the test `tests/dts.rs`, which rewrites the file and fails; the second run
/// passes).
fn generate_types() -> Result {
    let dts = || run(cargo().args(["test", "-q", "-p", "vramfit-wasm", "--test", "dts"]));
    if dts().is_err() {
        dts()?;
        eprintln!("crates/vramfit-wasm/ts/types.d.ts was regenerated: commit it");
    }
    Ok(())
}

/// Builds the widget and copies the files a page needs into `dir` (for the site:
/// `build_widget_into(&dist.join("widget"))`, then `<script type="module"
/// src="./widget/widget.js">` and `<vramfit-calculator>` work in any page of the site).
/// Installs missing tools first.
pub fn build_widget_into(dir: &Path) -> Result {
    tools::ensure_wasm_tools()?;
    let stage = build_wasm()?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for f in WIDGET_FILES {
        copy(&stage.join(f), &dir.join(f))?;
    }
    Ok(())
}

/// Builds the package into `dir` (replacing it) with the tools already installed.
pub fn build_package(dir: &Path) -> Result {
    let stage = build_wasm()?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for f in PACKAGE_FILES {
        copy(&stage.join(f), &dir.join(f))?;
    }
    let js = root().join("crates/vramfit-wasm/js");
    copy(&js.join("README.md"), &dir.join("README.md"))?;
    write(
        &dir.join("package.json"),
        &package_json(&workspace_version()?),
    )?;
    for f in ["vramfit_bg.wasm", "vramfit_full_bg.wasm"] {
        let n = std::fs::metadata(dir.join(f)).map(|m| m.len()).unwrap_or(0);
        eprintln!("{f}: {:.1} KiB", n as f64 / 1024.0);
    }
    Ok(())
}

/// Both modules (the API's and the widget's) and the package's JS, in `target/npm-stage/`.
/// Returns that folder.
fn build_wasm() -> Result<PathBuf> {
    let stage = root().join("target/npm-stage");
    let _ = std::fs::remove_dir_all(&stage);
    // The main module (and the widget's): the estimator and the catalogs, with its floats
    // written by the estimator itself (see the feature in `vramfit-wasm`). The full one: every
    // function.
    build_module(
        &stage,
        "vramfit",
        &["--no-default-features", "--features", "own-float-text"],
    )?;
    build_module(&stage, "vramfit_full", &[])?;
    let js = root().join("crates/vramfit-wasm/js");
    for f in [
        "index.js",
        "index.d.ts",
        "full.js",
        "full.d.ts",
        "hub.js",
        "hub.d.ts",
        "load.js",
        "widget.js",
        "widget.d.ts",
    ] {
        copy(&js.join(f), &stage.join(f))?;
    }
    Ok(stage)
}

/// `cargo build` → `wasm-bindgen` → `wasm-opt`: `NAME.js`, `NAME.d.ts` and `NAME_bg.wasm` in
/// `stage`.
fn build_module(stage: &Path, name: &str, cargo_flags: &[&str]) -> Result {
    // The binary (`src/main.rs`, which links the library and does nothing).
    let (mut build, wasm) = tools::wasm_bin("vramfit-wasm", &root().join("target"), true);
    run(build.args(cargo_flags))?;
    let bindgen = stage.join(format!("bindgen-{name}"));
    tools::bindgen(&wasm, &bindgen, name, true)?;
    for ext in ["js", "d.ts"] {
        copy(
            &bindgen.join(format!("{name}.{ext}")),
            &stage.join(format!("{name}.{ext}")),
        )?;
    }
    tools::wasm_opt(
        &bindgen.join(format!("{name}_bg.wasm")),
        &stage.join(format!("{name}_bg.wasm")),
        &[
            stage.join(format!("{name}.js")),
            stage.join(format!("{name}.d.ts")),
        ],
    )
}

/// The workspace's version (`[workspace.package] version` in the root `Cargo.toml`).
fn workspace_version() -> Result<String> {
    let text = std::fs::read_to_string(root().join("Cargo.toml"))
        .map_err(|e| format!("cannot read Cargo.toml: {e}"))?;
    version_in(&text).ok_or_else(|| "Cargo.toml has no [workspace.package] version".into())
}

fn version_in(cargo_toml: &str) -> Option<String> {
    let mut in_section = false;
    for line in cargo_toml.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_section = line == "[workspace.package]";
        } else if in_section
            && let Some(v) = line.strip_prefix("version")
            && let Some(v) = v.trim_start().strip_prefix('=')
        {
            return Some(v.trim().trim_matches('"').to_string());
        }
    }
    None
}

fn package_json(version: &str) -> String {
    let files = PACKAGE_FILES
        .iter()
        .map(|f| format!("    \"{f}\""))
        .collect::<Vec<_>>()
        .join(",\n");
    format!(
        r#"{{
  "name": "vramfit",
  "version": "{version}",
  "description": "GPU memory calculator: will this model fit, on which card, at what cost. Estimates weights, KV cache, activations and optimizer states in WebAssembly, plus an embeddable <vramfit-calculator> widget.",
  "keywords": ["gpu", "vram", "llm", "memory", "estimator", "webassembly", "web-component"],
  "license": "MIT OR Apache-2.0",
  "repository": {{
    "type": "git",
    "url": "git+https://github.com/vramfit/vramfit.git",
    "directory": "crates/vramfit-wasm"
  }},
  "type": "module",
  "main": "./index.js",
  "types": "./index.d.ts",
  "exports": {{
    ".": {{
      "types": "./index.d.ts",
      "default": "./index.js"
    }},
    "./full": {{
      "types": "./full.d.ts",
      "default": "./full.js"
    }},
    "./widget": {{
      "types": "./widget.d.ts",
      "default": "./widget.js"
    }},
    "./vramfit_bg.wasm": "./vramfit_bg.wasm",
    "./vramfit_full_bg.wasm": "./vramfit_full_bg.wasm",
    "./package.json": "./package.json"
  }},
  "files": [
{files}
  ],
  "sideEffects": [
    "./index.js",
    "./full.js",
    "./widget.js"
  ],
  "engines": {{
    "node": ">=20"
  }}
}}
"#
    )
}

fn copy(from: &Path, to: &Path) -> Result {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))
}

fn write(p: &Path, text: &str) -> Result {
    std::fs::write(p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
}

/// The npm checks of `cargo xtask test`: builds the package and the CLI, then runs
/// `tests/npm/*.test.mjs` with `node --test` (numbers against the CLI, the packed tarball
/// installed into a scratch project, `tsc --strict` on a consumer and on a wrong one, the widget
/// in headless Chromium, a consumer app through Vite and webpack).
pub fn test() -> Result {
    tools::ensure_chromium()?;
    npm()?;
    run(cargo().args(["build", "-p", "vramfit-cli"]))?;
    // The mock hub that `fetchModel`'s tests (tests/npm/hub.test.mjs) look models up on.
    let hub = vramfit_mock_hub::MockHub::start();
    let tests: Vec<PathBuf> = std::fs::read_dir(root().join("tests/npm"))
        .map_err(|e| format!("cannot read tests/npm: {e}"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    // TAP (node's reporter when the output is not a terminal): a failure is a `not ok` line.
    tools::run_reporting(
        cmd("node")
            .arg("--test")
            .arg("--test-concurrency=1")
            .args(&tests)
            .env("VRAMFIT_NPM_DIR", npm_dir())
            .env("VRAMFIT_CLI", root().join("target/debug/vramfit"))
            .env("VRAMFIT_TSC", tools::node_bin("tsc"))
            .env("VRAMFIT_HUB_URL", hub.url())
            .env("CHROMIUM", tools::CHROMIUM),
        |l| l.trim_start().starts_with("not ok"),
    )
    .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_workspace_version() {
        let toml = "[workspace]\nmembers = []\n\n[workspace.package]\nversion = \"1.2.3\"\nedition = \"2024\"\n[profile.release]\nversion = \"no\"\n";
        assert_eq!(version_in(toml).as_deref(), Some("1.2.3"));
        assert_eq!(version_in("[package]\nversion = \"9\"\n"), None);
    }

    #[test]
    fn package_json_ships_only_the_package_files() {
        let p = package_json("0.1.0");
        assert!(p.contains("\"version\": \"0.1.0\""));
        for f in PACKAGE_FILES {
            assert!(p.contains(&format!("\"{f}\"")), "{f}");
        }
        assert!(!p.contains("_bg.wasm.d.ts"));
        for f in WIDGET_FILES {
            assert!(PACKAGE_FILES.contains(f), "{f}");
        }
    }
}
