//! The faces of `EstimateInput` that live outside a crate of their own tests: the fuzz target
//! (its own workspace, `fuzz/`) and the book's JavaScript reference. The other faces check
//! themselves against the same list (`tests/input_fields.rs`): the CLI's flags
//! (`crates/vramfit-cli/src/faces.rs`), the site's form and URL (`web/src/fields.rs`,
//! `web/src/state.rs`), the TypeScript types (`crates/vramfit-wasm/tests/dts.rs`).

use crate::input_fields::input_fields;

fn read(path: &str) -> String {
    let path = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The field list is the one serde writes: every key of a serialized input is in it (a field
/// written only when set, under `skip_serializing_if`, is in it too, though not always written).
#[test]
fn the_input_fields_are_those_serde_writes() {
    let fields = input_fields();
    let json = serde_json::to_value(vramfit::estimate::EstimateInput::default()).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for k in &keys {
        assert!(fields.contains(k), "`{k}` is written but not in the list");
    }
    assert!(
        fields.len() >= keys.len() && fields.len() > 30,
        "{fields:?}"
    );
}

/// The fuzz target builds its structured `EstimateInput` with every field, each drawn from the
/// fuzzer's bytes. The fuzz crate is outside the workspace, so this check is textual: each
/// field is written as `name:` (or `name,`, shorthand) at the start of a line of the struct
/// literal the target returns, inside its section's literal (`run: RunInput { batch: …, … }`).
/// No section's literal ends in a `..` spread, so a new field also stops the fuzz build, but
/// that build runs only under `cargo xtask fuzz`.
#[test]
fn the_fuzz_target_sets_every_field() {
    let dir = format!("{}/../fuzz/fuzz_targets", env!("CARGO_MANIFEST_DIR"));
    let mut targets: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("estimate_input") && n.ends_with(".rs"))
        .collect();
    targets.sort();
    assert!(!targets.is_empty(), "no estimate_input target in {dir}");
    for target in targets {
        let source = read(&format!("fuzz/fuzz_targets/{target}"));
        let (_, literal) = source
            .split_once("Ok(EstimateInput {")
            .unwrap_or_else(|| panic!("{target}: no `Ok(EstimateInput {{` literal"));
        assert!(
            !literal.lines().any(|l| l.trim_start().starts_with("..")),
            "{target}: a section of its `EstimateInput` is spread from a default, not built whole"
        );
        for field in input_fields() {
            assert!(
                literal
                    .lines()
                    .map(str::trim_start)
                    .any(|l| l.starts_with(&format!("{field}:")) || l == format!("{field},")),
                "the fuzz target {target} does not set `{field}`"
            );
        }
    }
}

/// The book's JavaScript reference (both languages) names every field of the input in the row
/// of `estimate(input)`.
#[test]
fn the_books_js_reference_names_every_field() {
    for lang in ["en", "zh"] {
        let path = format!("book/{lang}/src/reference/js.md");
        let text = read(&path);
        let row = text
            .lines()
            .find(|l| l.starts_with("| `estimate(input)`"))
            .unwrap_or_else(|| panic!("{path}: no row for estimate(input)"));
        for field in input_fields() {
            assert!(
                row.contains(&format!("`{field}`")),
                "{path}: the row of estimate(input) does not name `{field}`"
            );
        }
    }
}
