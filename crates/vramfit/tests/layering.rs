//! The crate's layers, read from its source: GPUs below, the estimator on them, planners above.
//!
//! - `gpu` (the cards, their generations, the lookups, the fit search) uses neither the
//!   estimator nor the planners;
//! - `estimate`, and what it reads below itself (`catalog`, `throughput`), use no `hardware`:
//!   the planners call the estimator, never the other way round.
//!
//! Test code is exempt (a `#[cfg(test)]` item or module, a file such a module declares), and so
//! are comments (a doc link names a module without depending on it).

use std::fs;
use std::path::{Path, PathBuf};

/// Modules a layer may not name, and the files of the layer (relative to `src/`).
const LAYERS: &[(&[&str], &[&str])] = &[
    (&["hardware", "estimate", "catalog"], &["gpu.rs", "gpu"]),
    (
        &["hardware"],
        &["estimate", "catalog.rs", "throughput", "gpu.rs", "gpu"],
    ),
];

/// Every `.rs` file at or under `path`.
fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for e in entries {
            files(&e, out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The code of `text` outside comments and `#[cfg(test)]` items, as `(line number, line)`, and
/// the names of the modules declared there as test-only files (`#[cfg(test)] mod tests;`).
fn code(text: &str) -> (Vec<(usize, String)>, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let (mut out, mut test_files) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim();
        if t == "#[cfg(test)]" {
            // The item it applies to: past further attributes, to its `;` or its closing brace.
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim().starts_with("#[") {
                j += 1;
            }
            let item = lines.get(j).map_or("", |l| l.trim());
            if let Some(name) = item
                .strip_prefix("pub ")
                .unwrap_or(item)
                .strip_prefix("mod ")
                .and_then(|r| r.strip_suffix(';'))
            {
                test_files.push(name.trim().to_string());
            }
            let mut depth = 0i64;
            let mut opened = false;
            while j < lines.len() {
                let l = lines[j];
                depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
                opened |= l.contains('{');
                j += 1;
                if (opened && depth <= 0) || (!opened && l.trim_end().ends_with(';')) {
                    break;
                }
            }
            i = j;
            continue;
        }
        if !t.starts_with("//") {
            out.push((i + 1, lines[i].to_string()));
        }
        i += 1;
    }
    (out, test_files)
}

/// Where `code` names one of `forbidden` as a path segment of the crate: `crate::x`,
/// `super::x`, `vramfit::x`, or `x` inside a `use crate::{…}` group.
fn violations(code: &[(usize, String)], forbidden: &[&str]) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_use_group = false;
    for (n, line) in code {
        let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if squeezed.starts_with("use") || squeezed.starts_with("pubuse") {
            in_use_group = squeezed.contains("crate::{") || squeezed.contains("super::{");
        }
        let hit = forbidden.iter().any(|m| {
            let segment = |prefix: &str| squeezed.contains(&format!("{prefix}{m}"));
            segment("crate::")
                || segment("super::")
                || segment("vramfit::")
                || (in_use_group
                    && squeezed
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| w == *m))
        });
        if hit {
            found.push((*n, line.trim().to_string()));
        }
        if squeezed.ends_with(';') {
            in_use_group = false;
        }
    }
    found
}

#[test]
fn the_estimator_and_the_gpus_name_no_module_above_them() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut report = Vec::new();
    for (forbidden, roots) in LAYERS {
        let mut all = Vec::new();
        for root in *roots {
            files(&src.join(root), &mut all);
        }
        assert!(!all.is_empty(), "{roots:?}");
        // Test-only files: `x/tests.rs` when `x/mod.rs` or `x.rs` declares `#[cfg(test)] mod tests;`.
        let mut skip = Vec::new();
        for f in &all {
            let (_, test_files) = code(&fs::read_to_string(f).unwrap());
            let dir = if f.file_name().is_some_and(|n| n == "mod.rs") {
                f.parent().unwrap().to_path_buf()
            } else {
                f.with_extension("")
            };
            skip.extend(test_files.iter().map(|m| dir.join(format!("{m}.rs"))));
        }
        for f in all.iter().filter(|f| !skip.contains(f)) {
            let (lines, _) = code(&fs::read_to_string(f).unwrap());
            for (n, line) in violations(&lines, forbidden) {
                let at = f.strip_prefix(&src).unwrap().display();
                report.push(format!(
                    "src/{at}:{n}: {line}  (names one of {forbidden:?})"
                ));
            }
        }
    }
    assert!(
        report.is_empty(),
        "a lower layer names one above it (GPUs below, the estimator on them, planners above; \
         move the code to the layer it needs, or the thing it needs below it):\n{}",
        report.join("\n")
    );
}

#[test]
fn the_checker_finds_what_it_forbids_and_exempts_tests() {
    let text = "\
//! A doc link: [`crate::hardware::plan`].
use crate::gpu::find_gpu;
use crate::{
    model::Architecture,
    hardware::Gpu,
};
fn f() { let g = crate::hardware::find_gpu(\"a10\"); }
#[cfg(test)]
mod tests {
    use crate::hardware::plan;
    fn g() {
        if true { crate::hardware::gpus(); }
    }
}
#[cfg(test)]
mod more;
#[cfg(test)]
fn h() { crate::hardware::gpus(); }
fn last() { super::super::hardware::plan(); }
";
    let (lines, test_files) = code(text);
    assert_eq!(test_files, ["more"]);
    let found: Vec<usize> = violations(&lines, &["hardware"])
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(found, [5, 7, 19]);
}
