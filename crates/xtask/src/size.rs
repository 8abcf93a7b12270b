//! `cargo xtask size`: what the site and the npm package ship, raw and gzip, against budgets;
//! and the security checks that need the built files (no `eval`, a strict CSP, pasted text
//! never rendered as HTML).
//!
//! Budgets (gzip, as a browser downloads it: `gzip -9 -c` of a file the server compresses, and
//! the file as it is for a module `cargo xtask dist` compressed itself, `NAME.gz`):
//! - the npm package's wasm under [`NPM_WASM_BUDGET`]: the module that `import "vramfit"`
//!   loads, with the estimator and every catalog (`vramfit/full`, every function in one module,
//!   is measured and held to a ceiling, not to this budget);
//! - the site's first load under [`FIRST_LOAD_BUDGET`] in each language: `index.html`,
//!   everything it references, and the calculator build of that language that `boot.js` starts
//!   (`vramfit_en`, `vramfit_zh`: its glue and module). What matters to a person is the time to
//!   the first result, which the end-to-end tests and `cargo xtask bench` measure; this budget
//!   keeps the download from drifting.
//!
//! Exits non-zero when a budget is broken, when `dist/` or `target/npm/` is missing (never a
//! silent skip), or when a security check fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{Result, root, site};

mod security;
use security::{no_eval, security_of_dist, text_only_rendering};

/// The npm package's wasm, gzip.
pub const NPM_WASM_BUDGET: u64 = 331 * 1000;
/// The site's first load in each language, as downloaded.
pub const FIRST_LOAD_BUDGET: u64 = 223 * 1000;

/// One shipped file.
pub struct Shipped {
    /// Path relative to the workspace root.
    pub path: String,
    /// Bytes on disk.
    pub raw: u64,
    /// Bytes a browser downloads: after `gzip -9`, or, for a file the build compressed itself
    /// (`.gz`, served as it is), its bytes on disk.
    pub gzip: u64,
}

/// What `gzip ARGS FILE` writes to its standard output, without the shell.
fn gzip_file(args: &[&str], path: &Path) -> Result<Vec<u8>> {
    let out = Command::new("gzip")
        .args(args)
        .arg(path)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("could not run gzip (Debian's gzip package): {e}"))?;
    if !out.status.success() {
        return Err(format!("gzip {} {} failed", args.join(" "), path.display()));
    }
    Ok(out.stdout)
}

/// `gzip -9 -c FILE | wc -c`.
fn gzip_size(path: &Path) -> Result<u64> {
    Ok(gzip_file(&["-9", "-c", "-n"], path)?.len() as u64)
}

/// `gzip -9 -c` of bytes held in memory.
fn gzip_len(bytes: &[u8]) -> Result<u64> {
    use std::io::Write;
    let mut child = Command::new("gzip")
        .args(["-9", "-c", "-n"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("could not run gzip (Debian's gzip package): {e}"))?;
    let mut stdin = child.stdin.take().ok_or("gzip has no stdin")?;
    let data = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("gzip failed: {e}"))?;
    writer
        .join()
        .map_err(|_| "gzip writer panicked".to_string())?
        .map_err(|e| format!("cannot feed gzip: {e}"))?;
    Ok(out.stdout.len() as u64)
}

/// A WebAssembly module's sections: (section id, contents), in file order; `None` when the
/// bytes are not a well-formed module.
pub fn wasm_sections(b: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    if b.get(..8)? != b"\0asm\x01\0\0\0" {
        return None;
    }
    let mut i = 8;
    let mut out = Vec::new();
    while i < b.len() {
        let id = b[i];
        i += 1;
        // The section's length: unsigned LEB128, at most 5 bytes for a u32.
        let (mut len, mut shift) = (0usize, 0u32);
        loop {
            let byte = *b.get(i)?;
            i += 1;
            len |= usize::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
            if shift > 28 {
                return None;
            }
        }
        out.push((id, b.get(i..i.checked_add(len)?)?));
        i += len;
    }
    Some(out)
}

/// Where a module's bytes go: (code, data, everything else), each (raw, gzip of that part alone).
pub struct Composition {
    /// Path relative to the workspace root.
    pub path: String,
    /// The code section (function bodies).
    pub code: (u64, u64),
    /// The data section (string literals, the catalogs' tables).
    pub data: (u64, u64),
    /// Types, imports, exports, names of the JS glue, and the header.
    pub other: (u64, u64),
}

fn composition(path: &Path) -> Result<Composition> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let sections =
        wasm_sections(&bytes).ok_or_else(|| format!("{} is not a wasm module", path.display()))?;
    let part = |want: &dyn Fn(u8) -> bool| -> Vec<u8> {
        sections
            .iter()
            .filter(|(id, _)| want(*id))
            .flat_map(|(_, body)| body.iter().copied())
            .collect()
    };
    let measure = |b: Vec<u8>| -> Result<(u64, u64)> { Ok((b.len() as u64, gzip_len(&b)?)) };
    let code = measure(part(&|id| id == 10))?;
    let data = measure(part(&|id| id == 11))?;
    let other_raw = bytes.len() as u64 - code.0 - data.0;
    let other = measure(part(&|id| id != 10 && id != 11))?;
    let rel = path.strip_prefix(root()).unwrap_or(path);
    Ok(Composition {
        path: rel.display().to_string(),
        code,
        data,
        other: (other_raw, other.1),
    })
}

fn shipped(path: &Path) -> Result<Shipped> {
    let raw = std::fs::metadata(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    let rel = path.strip_prefix(root()).unwrap_or(path);
    let packed = path.extension().is_some_and(|e| e == "gz");
    Ok(Shipped {
        path: rel.display().to_string(),
        raw,
        gzip: if packed { raw } else { gzip_size(path)? },
    })
}

/// A precompressed module must inflate, by `gzip -d` (not the compressor that wrote it), to
/// exactly the plain module beside it, which browsers without `DecompressionStream` load.
fn inflates_to_its_module(gz: &Path) -> Result {
    let plain = gz.with_extension("");
    let want = std::fs::read(&plain).map_err(|e| {
        format!(
            "{} has no plain module beside it ({}): {e}",
            gz.display(),
            plain.display()
        )
    })?;
    let got = gzip_file(&["-d", "-c"], gz)
        .map_err(|e| format!("gzip -d cannot inflate {}: {e}", gz.display()))?;
    if got != want {
        return Err(format!(
            "{} does not inflate to {} ({} bytes against {})",
            gz.display(),
            plain.display(),
            got.len(),
            want.len()
        ));
    }
    Ok(())
}

/// Every file under `dir`, sorted.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The local files `index.html` references (`src="./…"`, `href="./…"`), in order.
pub fn referenced(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["src=\"", "href=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            let Some(end) = rest.find('"') else { break };
            let v = &rest[..end];
            let v = v.strip_prefix("./").unwrap_or(v);
            if !v.is_empty()
                && !v.contains(':')
                && !v.starts_with('#')
                && !out.iter().any(|o| o == v)
            {
                out.push(v.to_string());
            }
        }
    }
    out
}

/// The runs of four or more Han characters in `bytes` read as UTF-8: Chinese text, where
/// shorter runs may be other bytes that happen to decode as Han.
fn han_runs(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut runs = Vec::new();
    let mut run = String::new();
    for c in text.chars().chain(['\0']) {
        if ('\u{4e00}'..='\u{9fff}').contains(&c) {
            run.push(c);
        } else {
            if run.chars().count() >= 4 {
                runs.push(std::mem::take(&mut run));
            }
            run.clear();
        }
    }
    runs
}

fn kb(b: u64) -> String {
    format!("{:.1} KB", b as f64 / 1000.0)
}

/// What `cargo xtask size` measured, for `cargo xtask bench`'s page.
pub struct Report {
    /// Every shipped file.
    pub files: Vec<Shipped>,
    /// The site's first load in each language (`en`, `zh`; raw, as downloaded, and as it would
    /// be with the plain module at `gzip -9`), when `dist/` exists.
    pub first_loads: Vec<(&'static str, u64, u64, u64)>,
    /// The npm package's main wasm module (raw, gzip), when `target/npm/` exists.
    pub npm_wasm: Option<(u64, u64)>,
    /// Problems: missing folders, security findings.
    pub problems: Vec<String>,
    /// Budgets the build breaks.
    pub broken: Vec<String>,
    /// Remarks that do not fail the check.
    pub notes: Vec<String>,
    /// Code and data of every shipped wasm module.
    pub modules: Vec<Composition>,
}

/// Measures without printing.
pub fn measure() -> Report {
    let mut r = Report {
        files: Vec::new(),
        first_loads: Vec::new(),
        npm_wasm: None,
        problems: Vec::new(),
        broken: Vec::new(),
        notes: Vec::new(),
        modules: Vec::new(),
    };
    let dist = site::dist_dir();
    let npm = root().join("target/npm");
    if dist.join("index.html").exists() {
        measure_dist(&dist, &mut r);
    } else {
        r.problems.push(
            "dist/ is missing: the site's sizes cannot be checked (`cargo xtask dist` builds it)"
                .into(),
        );
    }
    if npm.is_dir() {
        measure_npm(&npm, &mut r);
    } else {
        r.problems.push(
            "target/npm/ is missing: the npm package's size cannot be checked (`cargo xtask npm` builds it)"
                .into(),
        );
    }
    for f in &r.files {
        if f.path.ends_with(".wasm") {
            match composition(&root().join(&f.path)) {
                Ok(c) => r.modules.push(c),
                Err(e) => r.problems.push(e),
            }
        }
    }
    text_only_rendering(&mut r);
    r
}

/// Every shipped file under `dir` (by its extension), measured; a file that cannot be read is
/// one of `r`'s problems.
fn measure_dir(dir: &Path, r: &mut Report) -> Vec<Shipped> {
    let mut got = Vec::new();
    for f in files(dir) {
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !matches!(
            ext,
            "wasm"
                | "js"
                | "mjs"
                | "cjs"
                | "css"
                | "html"
                | "json"
                | "svg"
                | "webmanifest"
                | "ts"
                | "gz"
        ) {
            continue;
        }
        match shipped(&f) {
            Ok(s) => got.push(s),
            Err(e) => r.problems.push(e),
        }
    }
    got
}

/// The site in `dist/`: its files, its first load in each language against the budget, the
/// precompressed modules, no Chinese in the English calculator, and the security checks.
fn measure_dist(dist: &Path, r: &mut Report) {
    let got = measure_dir(dist, r);
    let html = std::fs::read_to_string(dist.join("index.html")).unwrap_or_default();
    let mut page = vec!["index.html".to_string()];
    page.extend(referenced(&html));
    let (mut page_raw, mut page_gz) = (0, 0);
    for name in &page {
        let rel = dist.join(name);
        match got.iter().find(|s| root().join(&s.path) == rel) {
            Some(s) => {
                page_raw += s.raw;
                page_gz += s.gzip;
            }
            None => r.problems.push(format!(
                "dist/index.html references `{name}`, which dist/ lacks"
            )),
        }
    }
    for f in got.iter().filter(|s| s.path.ends_with(".gz")) {
        if let Err(e) = inflates_to_its_module(&root().join(&f.path)) {
            r.problems.push(e);
        }
    }
    for lang in ["en", "zh"] {
        first_load(lang, &got, (page_raw, page_gz), r);
    }
    no_chinese_in_english(&got, r);
    security_of_dist(dist, &html, r);
    r.files.extend(got);
}

/// The first load in `lang`: the page (`page`: raw, gzip), then the calculator build of the
/// language that boot starts, against [`FIRST_LOAD_BUDGET`].
fn first_load(
    lang: &'static str,
    got: &[Shipped],
    (page_raw, page_gz): (u64, u64),
    r: &mut Report,
) {
    // The calculator build's glue and module, by their logical names before the content hash;
    // the module as boot fetches it, precompressed, and as gzip -9 would send the plain one.
    let find = |prefix: &str, suffix: &str| {
        got.iter().find(|s| {
            s.path
                .strip_prefix("dist/")
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(suffix))
        })
    };
    let (mut raw, mut gz) = (page_raw, page_gz);
    let (glue, wasm, packed) = (
        find(&format!("vramfit_{lang}-"), ".js"),
        find(&format!("vramfit_{lang}_bg-"), ".wasm"),
        find(&format!("vramfit_{lang}_bg-"), ".wasm.gz"),
    );
    for (what, file) in [
        ("glue", glue),
        ("module", wasm),
        ("precompressed module", packed),
    ] {
        if file.is_none() {
            r.problems
                .push(format!("dist/ lacks the {lang} calculator's {what}"));
        }
    }
    let plain = glue.map_or(0, |g| g.gzip) + wasm.map_or(0, |w| w.gzip);
    raw += glue.map_or(0, |g| g.raw) + wasm.map_or(0, |w| w.raw);
    gz += glue.map_or(0, |g| g.gzip) + packed.or(wasm).map_or(0, |w| w.gzip);
    r.first_loads.push((lang, raw, gz, page_gz + plain));
    if gz > FIRST_LOAD_BUDGET {
        r.broken.push(format!(
            "the site's first load in {lang} is {} gzip, over its budget of {}",
            kb(gz),
            kb(FIRST_LOAD_BUDGET)
        ));
    }
}

/// The English calculator's module carries no Chinese text but its language menu's.
fn no_chinese_in_english(got: &[Shipped], r: &mut Report) {
    if let Some(en) = got
        .iter()
        .find(|s| s.path.starts_with("dist/vramfit_en_bg-") && s.path.ends_with(".wasm"))
    {
        let bytes = std::fs::read(root().join(&en.path)).unwrap_or_default();
        let found: Vec<String> = han_runs(&bytes)
            .into_iter()
            .filter(|t| t != "简体中文")
            .collect();
        if !found.is_empty() {
            r.problems.push(format!(
                "{} holds Chinese text: {}",
                en.path,
                found.join(" / ")
            ));
        }
    }
}

/// The npm package in `target/npm/`: its files, its main module against
/// [`NPM_WASM_BUDGET`], and no `eval` in its scripts.
fn measure_npm(npm: &Path, r: &mut Report) {
    let got = measure_dir(npm, r);
    let wasm: Vec<&Shipped> = got.iter().filter(|s| s.path.ends_with(".wasm")).collect();
    if wasm.is_empty() {
        r.problems.push("target/npm/ holds no .wasm file".into());
    }
    // The budget is the main module's, what `import "vramfit"` (and the widget) loads;
    // `vramfit/full`'s module is held to its ceiling by `guard`.
    match wasm.iter().find(|w| w.path == "target/npm/vramfit_bg.wasm") {
        Some(w) => {
            r.npm_wasm = Some((w.raw, w.gzip));
            if w.gzip > NPM_WASM_BUDGET {
                r.broken.push(format!(
                    "{} is {} gzip, over the npm package's wasm budget of {}",
                    w.path,
                    kb(w.gzip),
                    kb(NPM_WASM_BUDGET)
                ));
            }
        }
        None => r
            .problems
            .push("target/npm/ lacks the main module, vramfit_bg.wasm".into()),
    }
    for s in &got {
        if s.path.ends_with(".js") || s.path.ends_with(".mjs") || s.path.ends_with(".cjs") {
            no_eval(&root().join(&s.path), r);
        }
    }
    r.files.extend(got);
}

/// The table, as markdown.
pub fn table(r: &Report) -> String {
    let mut s = String::from(
        "The gzip column is what a browser downloads: the file after `gzip -9`, or, for a module \
         the build precompressed (`.wasm.gz`, served as it is), the file itself.\n\n\
         | file | raw | gzip |\n|---|---:|---:|\n",
    );
    for f in &r.files {
        s.push_str(&format!(
            "| `{}` | {} | {} |\n",
            f.path,
            kb(f.raw),
            kb(f.gzip)
        ));
    }
    let budget = |name: &str, got: Option<(u64, u64)>, budget: u64| match got {
        Some((raw, gz)) => format!(
            "| **{name}** | {} | **{}** (budget {}{}) |\n",
            kb(raw),
            kb(gz),
            kb(budget),
            if gz > budget { ", BROKEN" } else { "" }
        ),
        None => format!("| **{name}** | — | not built |\n"),
    };
    if r.first_loads.is_empty() {
        s.push_str(&budget("site first load", None, FIRST_LOAD_BUDGET));
    }
    for &(lang, raw, gz, plain) in &r.first_loads {
        let name = format!(
            "site first load, {} (the module precompressed; {} with it at gzip -9)",
            if lang == "zh" { "Chinese" } else { "English" },
            kb(plain)
        );
        s.push_str(&budget(&name, Some((raw, gz)), FIRST_LOAD_BUDGET));
    }
    s.push_str(&budget(
        "npm package wasm (`import \"vramfit\"`)",
        r.npm_wasm,
        NPM_WASM_BUDGET,
    ));
    if !r.modules.is_empty() {
        s.push_str(
            "\nWhere each module's bytes go, raw / gzip (each part compressed alone):\n\n\
             | module | code | data | other |\n|---|---:|---:|---:|\n",
        );
        let pair = |(raw, gz): (u64, u64)| format!("{} / {}", kb(raw), kb(gz));
        for m in &r.modules {
            s.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                m.path,
                pair(m.code),
                pair(m.data),
                pair(m.other)
            ));
        }
    }
    s
}

/// `cargo xtask size`.
pub fn size() -> Result {
    let r = measure();
    println!("{}", table(&r));
    for n in &r.notes {
        println!("note: {n}");
    }
    if r.problems.is_empty() && r.broken.is_empty() {
        println!("size: every budget met; no eval, a strict CSP, text rendered as text");
        Ok(())
    } else {
        for p in r.problems.iter().chain(&r.broken) {
            eprintln!("size: {p}");
        }
        Err(format!(
            "{} size or security problem(s)",
            r.problems.len() + r.broken.len()
        ))
    }
}

/// The site's full build (every view), loaded when a view beyond the calculator opens, gzip: a
/// ceiling that `cargo xtask test` enforces besides the budgets, a few percent above its size
/// when last set, so that the suite fails on a regression, not only on one past a budget. The
/// book's performance chapter keeps the sizes over time.
pub const FULL_BUILD_CEILING: u64 = 862 * 1000;
/// The npm package's module with every function (`vramfit/full`), gzip: a ceiling like
/// [`FULL_BUILD_CEILING`].
pub const NPM_FULL_CEILING: u64 = 682 * 1000;

/// The test suite's size step: security findings, missing builds, a broken budget and growth
/// past the ceilings fail it.
pub fn guard() -> Result {
    let mut r = measure();
    println!("{}", table(&r));
    let broken = std::mem::take(&mut r.broken);
    r.problems.extend(broken);
    for f in &r.files {
        if f.path.starts_with("dist/vramfit_full_bg-")
            && f.path.ends_with(".wasm")
            && f.gzip > FULL_BUILD_CEILING
        {
            r.problems.push(format!(
                "the site's full build grew to {} gzip, past its ceiling of {}",
                kb(f.gzip),
                kb(FULL_BUILD_CEILING)
            ));
        }
        if f.path == "target/npm/vramfit_full_bg.wasm" && f.gzip > NPM_FULL_CEILING {
            r.problems.push(format!(
                "the npm package's full module grew to {} gzip, past its ceiling of {}",
                kb(f.gzip),
                kb(NPM_FULL_CEILING)
            ));
        }
    }
    if r.problems.is_empty() {
        Ok(())
    } else {
        for p in &r.problems {
            eprintln!("size: {p}");
        }
        Err(format!("{} size or security problem(s)", r.problems.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::{han_runs, inflates_to_its_module, referenced, wasm_sections};

    /// Zopfli's gzip, read back by Debian's `gzip -d`, a second implementation: the same bytes.
    /// A copy that inflates to other bytes, or not at all, or has no plain module beside it, is
    /// reported.
    #[test]
    fn a_precompressed_module_must_inflate_to_its_plain_module() {
        let dir = std::env::temp_dir().join(format!("vramfit-precompress-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Compressible and not: a module-like header, text, then bytes of a simple generator.
        let mut plain = b"\0asm\x01\0\0\0".to_vec();
        plain.extend(b"the same words again and again, ".repeat(200));
        let mut x: u32 = 1;
        plain.extend((0..5000).map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 24) as u8
        }));
        let gz = crate::site::precompress(&plain).unwrap();
        assert_eq!(&gz[..3], b"\x1f\x8b\x08", "a gzip header, deflate");
        assert!(
            gz.len() < plain.len() / 2,
            "{} of {}",
            gz.len(),
            plain.len()
        );
        std::fs::write(dir.join("m.wasm"), &plain).unwrap();
        std::fs::write(dir.join("m.wasm.gz"), &gz).unwrap();
        inflates_to_its_module(&dir.join("m.wasm.gz")).unwrap();

        let mut other = plain.clone();
        other[100] ^= 1;
        std::fs::write(dir.join("m.wasm"), &other).unwrap();
        let e = inflates_to_its_module(&dir.join("m.wasm.gz")).unwrap_err();
        assert!(e.contains("does not inflate to"), "{e}");
        std::fs::write(dir.join("m.wasm.gz"), &plain).unwrap();
        let e = inflates_to_its_module(&dir.join("m.wasm.gz")).unwrap_err();
        assert!(e.contains("cannot inflate"), "{e}");
        std::fs::remove_file(dir.join("m.wasm")).unwrap();
        let e = inflates_to_its_module(&dir.join("m.wasm.gz")).unwrap_err();
        assert!(e.contains("no plain module beside it"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn finds_chinese_text_and_not_stray_bytes() {
        let mut m = b"\0asm\x01text".to_vec();
        m.extend("显存不足".as_bytes());
        m.extend([0xff, 0x00]);
        m.extend("两字".as_bytes());
        m.extend(b"; ");
        m.extend("简体中文".as_bytes());
        assert_eq!(han_runs(&m), ["显存不足", "简体中文"]);
        assert!(han_runs(b"plain ascii \xe4\xb8").is_empty());
    }

    #[test]
    fn splits_a_module_into_its_sections() {
        // Header, a 3-byte type section (id 1), a 130-byte data section (id 11: the length
        // 130 = 0x82 0x01 in LEB128), then a 1-byte custom section (id 0).
        let mut m = b"\0asm\x01\0\0\0".to_vec();
        m.extend([1, 3, 0xaa, 0xbb, 0xcc]);
        m.extend([11, 0x82, 0x01]);
        m.extend(std::iter::repeat_n(7u8, 130));
        m.extend([0, 1, 0x55]);
        let s = wasm_sections(&m).unwrap();
        let shape: Vec<(u8, usize)> = s.iter().map(|(id, b)| (*id, b.len())).collect();
        assert_eq!(shape, [(1, 3), (11, 130), (0, 1)]);
        assert_eq!(s[0].1, [0xaa, 0xbb, 0xcc]);
        // A length past the end, a bad magic number, and an empty module.
        assert!(wasm_sections(&m[..m.len() - 1]).is_none());
        assert!(wasm_sections(b"\0asn\x01\0\0\0").is_none());
        assert_eq!(wasm_sections(b"\0asm\x01\0\0\0").unwrap().len(), 0);
    }

    #[test]
    fn reads_what_index_html_loads() {
        let html = r##"<link rel="icon" href="./icon.svg"><link rel="stylesheet" href="./style-1.css">
<link rel="preload" href="./a_bg.wasm" as="fetch"><script type="module" src="./boot.js"></script>
<a href="https://example.com/">x</a><a href="#/faq">faq</a>"##;
        assert_eq!(
            referenced(html),
            ["boot.js", "icon.svg", "style-1.css", "a_bg.wasm"]
        );
    }
}
