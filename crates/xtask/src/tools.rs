//! Running commands, and installing the tools the build needs when they are missing.
//!
//! Every tool comes from a package registry (crates.io, npm, Debian): the machines that build
//! vramfit reach nothing else, so nothing here downloads a release binary.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use crate::{Result, root};

/// The Chromium and ChromeDriver the browser tests drive (Debian's packages, always matched).
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// See [`CHROMIUM`].
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// The mdBook version the book is written for.
pub const MDBOOK_VERSION: &str = "0.5.4";

/// A command that runs in the workspace root.
pub fn cmd(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = Command::new(program);
    c.current_dir(root());
    c
}

/// A `cargo` command (the cargo that runs this xtask).
pub fn cargo() -> Command {
    cmd(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Runs `c`, echoing it; an error if it cannot start or exits non-zero.
pub fn run(c: &mut Command) -> Result {
    let shown = show(c);
    eprintln!("$ {shown}");
    let status = c
        .status()
        .map_err(|e| format!("could not start `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// Runs `c`, echoing it and then its standard output, line by line, each line also passed to
/// `each`; its exit status, or an error if it cannot start or be waited for.
pub fn run_echoing(c: &mut Command, mut each: impl FnMut(&str)) -> Result<ExitStatus> {
    let shown = show(c);
    eprintln!("$ {shown}");
    let mut child = c
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start `{shown}`: {e}"))?;
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out)
            .lines()
            .map_while(std::result::Result::ok)
        {
            println!("{line}");
            each(&line);
        }
    }
    child
        .wait()
        .map_err(|e| format!("`{shown}` did not finish: {e}"))
}

/// Runs `c` like [`run`], echoing its standard output ([`run_echoing`]), and keeps what that
/// output reported: each line `starts` marks, with the indented lines under it (at most
/// [`DETAIL_LINES`] of them). When `c` fails they are in the error; when it passes (a test
/// that passed only on a second try, say) they are returned. CI shows only the end of a long
/// log, and the summary printed there repeats them, so they reach it.
pub fn run_reporting(c: &mut Command, starts: fn(&str) -> bool) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    let status = run_echoing(c, |l| lines.push(l.to_owned()))?;
    let kept = failures_in(lines.into_iter(), starts);
    if status.success() {
        return Ok(kept);
    }
    let mut e = format!("`{}` failed ({status})", show(c));
    for l in kept {
        e.push_str("\n  ");
        e.push_str(&l);
    }
    Err(e)
}

/// How many indented lines under a failure [`run_reporting`] keeps.
pub const DETAIL_LINES: usize = 6;

/// The failure lines of `lines` (those `starts` marks), each with up to [`DETAIL_LINES`] of
/// the indented lines under it. Every line is read, kept or not.
fn failures_in(lines: impl Iterator<Item = String>, starts: fn(&str) -> bool) -> Vec<String> {
    let mut kept = Vec::new();
    let mut under: Option<usize> = None;
    for l in lines {
        if starts(&l) {
            kept.push(l.trim_end().to_owned());
            under = Some(0);
        } else if let Some(n) = under.as_mut() {
            let detail = l.trim();
            if l.starts_with([' ', '\t']) && !detail.is_empty() {
                if *n < DETAIL_LINES {
                    kept.push(format!("  {detail}"));
                }
                *n += 1;
            } else if !detail.is_empty() {
                under = None;
            }
        }
    }
    kept
}

/// Runs `c` and returns its standard output, or `None` if it cannot start or fails.
pub fn output(c: &mut Command) -> Option<String> {
    let out = c.output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The command line of `c`, for messages.
pub fn show(c: &Command) -> String {
    let mut s = c.get_program().to_string_lossy().into_owned();
    for a in c.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// `rustup target add target` unless it is installed.
pub fn ensure_target(target: &str) -> Result {
    let installed = output(cmd("rustup").args(["target", "list", "--installed"]))
        .ok_or("`rustup target list --installed` failed: is rustup installed?")?;
    if installed.lines().any(|l| l.trim() == target) {
        return Ok(());
    }
    run(cmd("rustup").args(["target", "add", target]))
}

/// The exact `wasm-bindgen` version that `Cargo.lock` resolved: the CLI must match it.
pub fn wasm_bindgen_version() -> Result<String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\""
            && let Some(v) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
        {
            return Ok(v.trim_matches('"').to_string());
        }
    }
    Err("Cargo.lock has no wasm-bindgen package".into())
}

/// Installs `wasm-bindgen-cli` at the version in `Cargo.lock` unless both of its binaries are
/// already at that version. Not `--locked`: the CLI's own lock pins a `webpki-roots` that the
/// registry no longer serves.
pub fn ensure_wasm_bindgen() -> Result {
    let version = wasm_bindgen_version()?;
    let has = |bin: &str| {
        output(cmd(bin).arg("--version"))
            .is_some_and(|v| v.split_whitespace().nth(1) == Some(version.as_str()))
    };
    if has("wasm-bindgen") && has("wasm-bindgen-test-runner") {
        return Ok(());
    }
    eprintln!("installing wasm-bindgen-cli {version} (about 6 minutes on 2 cores)");
    run(cargo().args([
        "install",
        "wasm-bindgen-cli",
        "--version",
        &format!("={version}"),
    ]))
}

/// `cargo build --release` of the binary `bin` (of the package of the same name) for wasm32,
/// into `target_dir`. Add flags to the command, run it, then read the module at the path
/// returned. The `target_features` section is kept (the profile strips symbols): wasm-bindgen
/// reads it, and wasm-opt strips it afterwards. A binary, not a `cdylib`: the same exports come
/// out smaller.
///
/// With `lean_std`, the standard library is compiled with the module (`-Zbuild-std`) under the
/// `immediate-abort` panic strategy: a panic is a bare trap, so no panic message, location or
/// the formatting behind them is linked; and with its `optimize_for_size` feature (smaller sorts
/// and formatting, the same results). The book's performance chapter has what each saves. These
/// flags are unstable: `RUSTC_BOOTSTRAP=1` lets the stable compiler take them, as `cargo fuzz`
/// does (see `fuzz.rs`), and they need the `rust-src` component ([`ensure_rust_src`]). The
/// estimator never panics by design (fuzzed, `tests/hostile.rs`); with the default strategy a
/// panic aborted the module too, only with a message in the console. To see a panic's message
/// while debugging, build with `VRAMFIT_PANIC_MESSAGES=1` in the environment: the standard
/// library is then the prebuilt one (and the modules larger, maybe past the size budgets).
pub fn wasm_bin(bin: &str, target_dir: &Path, lean_std: bool) -> (Command, PathBuf) {
    let lean_std = lean_std && std::env::var_os("VRAMFIT_PANIC_MESSAGES").is_none();
    let mut c = cargo();
    c.args(["build", "-p", bin, "--bin", bin, "--target"])
        .arg(crate::site::WASM_TARGET)
        .arg("--release")
        .env("CARGO_TARGET_DIR", target_dir)
        .env("CARGO_PROFILE_RELEASE_STRIP", "false");
    if lean_std {
        c.arg("-Zbuild-std=std,panic_abort")
            .arg("-Zbuild-std-features=optimize_for_size")
            .env("RUSTC_BOOTSTRAP", "1")
            .env(
                "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
                "-Zunstable-options -Cpanic=immediate-abort",
            );
    }
    let wasm = target_dir
        .join(crate::site::WASM_TARGET)
        .join("release")
        .join(format!("{bin}.wasm"));
    (c, wasm)
}

/// Everything a wasm build ([`wasm_bin`] → [`bindgen`] → [`wasm_opt`]) needs, installed when
/// missing: the wasm32 target, the standard library's sources, `wasm-bindgen-cli` and the npm
/// tools (wasm-opt). What `dist`, `serve` and `npm` run first.
pub fn ensure_wasm_tools() -> Result {
    ensure_target(crate::site::WASM_TARGET)?;
    ensure_rust_src()?;
    ensure_wasm_bindgen()?;
    ensure_npm()
}

/// `rustup component add rust-src` unless the standard library's sources are installed: the
/// `lean_std` builds of [`wasm_bin`] compile them.
pub fn ensure_rust_src() -> Result {
    let sysroot = output(cmd("rustc").args(["--print", "sysroot"]))
        .ok_or("`rustc --print sysroot` failed")?;
    let lib = Path::new(sysroot.trim()).join("lib/rustlib/src/rust/library/Cargo.toml");
    if lib.exists() {
        return Ok(());
    }
    run(cmd("rustup").args(["component", "add", "rust-src"]))
}

/// `wasm-bindgen --target web --out-name NAME` of `wasm` into `out` (emptied first), with the
/// TypeScript declarations when `typescript`.
pub fn bindgen(wasm: &Path, out: &Path, name: &str, typescript: bool) -> Result {
    let _ = std::fs::remove_dir_all(out);
    let mut c = cmd("wasm-bindgen");
    c.args(["--target", "web", "--out-name", name]);
    if !typescript {
        c.arg("--no-typescript");
    }
    run(c.arg("--out-dir").arg(out).arg(wasm))
}

/// `wasm-opt -Oz` from the npm `binaryen` package, with the wasm features rustc emits and the
/// debug, producer and target-feature sections stripped: the one size pass of the site and the
/// npm package. The wasm parity tests (native, Node and Chromium give bit-identical results) run
/// on the optimized modules.
///
/// The import and export names are also shortened (`--minify-imports-and-exports-and-modules`):
/// wasm-bindgen names each import after its function and a 16-digit hash, which gzip cannot
/// shrink, and they stand in both the module and its glue. `rename.mjs` beside this crate then
/// gives the glue files in `glue` (its `.js` and `.d.ts`) the new names, from the mapping
/// wasm-opt prints, and checks that the glue provides every import the module names.
///
/// Then the functions are put in an order that compresses better (`crate::reorder`):
/// look-alike functions side by side, within deflate's reach of each other.
pub fn wasm_opt(input: &Path, output: &Path, glue: &[PathBuf]) -> Result {
    let map = output.with_extension("names.json");
    let map_file =
        std::fs::File::create(&map).map_err(|e| format!("cannot write {}: {e}", map.display()))?;
    run(cmd(node_bin("wasm-opt"))
        .stdout(map_file)
        .args([
            "-Oz",
            "--enable-bulk-memory",
            "--enable-nontrapping-float-to-int",
        ])
        .args([
            "--enable-sign-ext",
            "--enable-reference-types",
            "--enable-multivalue",
        ])
        .args([
            "--enable-mutable-globals",
            "--strip-debug",
            "--strip-producers",
            "--strip-target-features",
            "--minify-imports-and-exports-and-modules",
        ])
        .arg(input)
        .arg("-o")
        .arg(output))?;
    let wasm = crate::reorder::reorder(&read(output)?)
        .map_err(|e| format!("cannot reorder {}: {e}", output.display()))?;
    write(output, &wasm)?;
    rename_glue(output, &map, glue)?;
    std::fs::remove_file(&map).map_err(|e| format!("cannot remove {}: {e}", map.display()))
}

/// Gives the glue files the names of `wasm`'s imports and exports, from the mapping `map` that
/// wasm-opt printed (`crates/xtask/rename.mjs`); an error if the glue and the module disagree.
fn rename_glue(wasm: &Path, map: &Path, glue: &[PathBuf]) -> Result {
    run(cmd("node")
        .arg(root().join("crates/xtask/rename.mjs"))
        .arg(wasm)
        .arg(map)
        .args(glue))
}

/// The folder of the npm tools (`node_modules/.bin`).
pub fn node_bin(name: &str) -> PathBuf {
    root().join("node_modules/.bin").join(name)
}

/// `npm ci` from the committed lock, unless `node_modules` already matches it.
pub fn ensure_npm() -> Result {
    let root = root();
    let lock = root.join("package-lock.json");
    let installed = root.join("node_modules/.package-lock.json");
    if mtime(&installed).is_some_and(|i| mtime(&lock).is_some_and(|l| i >= l))
        && node_bin("wasm-opt").exists()
    {
        return Ok(());
    }
    run(cmd("npm").args(["ci", "--no-audit", "--no-fund"]))
}

/// Stops with the install command when Chromium or ChromeDriver is missing: the browser tests
/// are part of the suite and are never skipped.
pub fn ensure_chromium() -> Result {
    let missing: Vec<&str> = [CHROMIUM, CHROMEDRIVER]
        .into_iter()
        .filter(|p| !Path::new(p).exists())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} missing; install with:\n\n    apt-get install -y chromium chromium-driver\n",
            missing.join(" and ")
        ))
    }
}

/// Installs mdBook at the book's version unless it is already there.
pub fn ensure_mdbook() -> Result {
    let ok = output(cmd("mdbook").arg("--version")).is_some_and(|v| {
        v.trim()
            .trim_start_matches("mdbook ")
            .trim_start_matches('v')
            == MDBOOK_VERSION
    });
    if ok {
        return Ok(());
    }
    run(cargo().args([
        "install",
        "mdbook",
        "--version",
        &format!("={MDBOOK_VERSION}"),
        "--locked",
    ]))
}

/// A file's modification time.
pub fn mtime(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The file at `p`, or an error that names it.
pub fn read(p: &Path) -> Result<Vec<u8>> {
    std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
}

/// Writes `bytes` to `p`, creating its folder; an error names what failed.
pub fn write(p: &Path, bytes: &[u8]) -> Result {
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(p, bytes).map_err(|e| format!("cannot write {}: {e}", p.display()))
}

#[cfg(test)]
mod tests {
    use super::{DETAIL_LINES, failures_in, rename_glue, root};

    #[test]
    fn keeps_each_failure_with_the_indented_lines_under_it() {
        // The end-to-end runner's shape: `ok`/`FAIL` lines, the reason indented under a failure.
        let log = "ok   first (1.0 s)\nFAIL second\n     Timeout 30000ms exceeded.\n     at run.mjs:89\n\nok   third (2.0 s)\n     not a failure's detail\nFAIL fourth\n     expected 1, got 2\ne2e: 2 passed, 2 failed\n";
        let e2e = |l: &str| l.starts_with("FAIL ");
        assert_eq!(
            failures_in(log.lines().map(String::from), e2e),
            [
                "FAIL second",
                "  Timeout 30000ms exceeded.",
                "  at run.mjs:89",
                "FAIL fourth",
                "  expected 1, got 2",
            ]
        );
        // node --test's TAP: `not ok` and its indented YAML; at most DETAIL_LINES of it.
        let mut tap = String::from("ok 1 - a\nnot ok 2 - b\n");
        for i in 0..10 {
            tap.push_str(&format!("  line {i}\n"));
        }
        tap.push_str("ok 3 - c\n");
        let kept = failures_in(tap.lines().map(String::from), |l| l.starts_with("not ok"));
        assert_eq!(kept.len(), 1 + DETAIL_LINES);
        assert_eq!(kept[0], "not ok 2 - b");
        assert_eq!(kept[DETAIL_LINES], format!("  line {}", DETAIL_LINES - 1));
        // Nothing failed: nothing kept.
        assert!(failures_in("ok 1 - a\n  detail\n".lines().map(String::from), e2e).is_empty());
    }

    /// A module as wasm-opt leaves it: its one import `a` from module `a`, its one export `b`.
    const MINIFIED: [u8; 40] = [
        0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
        0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // types: () -> ()
        0x02, 0x07, 0x01, 0x01, b'a', 0x01, b'a', 0x00,
        0x00, // import "a" "a", function of type 0
        0x03, 0x02, 0x01, 0x00, // one function of type 0
        0x07, 0x05, 0x01, 0x01, b'b', 0x00, 0x01, // export "b": function 1
        0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b, // its body: nothing
    ];
    const MAP: &str = r#"{"imports": [["./x_bg.js", "__wbg_log_0123456789abcdef", "a"]],
        "exports": [["start", "b"]]}"#;

    /// Writes the module, the mapping and `glue` (as `x.js`) into a folder of their own, renames,
    /// and returns the glue as it came out, or the error.
    fn renamed(case: &str, glue: &str) -> Result<String, String> {
        renamed_file(case, "x.js", glue)
    }

    /// The same with the glue file named `file` (`x.d.ts`: TypeScript declarations).
    fn renamed_file(case: &str, file: &str, glue: &str) -> Result<String, String> {
        let dir = root().join("target/rename-test").join(case);
        std::fs::create_dir_all(&dir).unwrap();
        let (wasm, map, js) = (dir.join("x_bg.wasm"), dir.join("map.json"), dir.join(file));
        std::fs::write(&wasm, MINIFIED).unwrap();
        std::fs::write(&map, MAP).unwrap();
        std::fs::write(&js, glue).unwrap();
        rename_glue(&wasm, &map, std::slice::from_ref(&js))?;
        Ok(std::fs::read_to_string(&js).unwrap())
    }

    #[test]
    fn the_glue_takes_the_minified_names() {
        let glue = "const import0 = { __wbg_log_0123456789abcdef: function() {} };\n\
                    const imports = { \"./x_bg.js\": import0 };\n\
                    export function start() { wasm.start(); }\n";
        assert_eq!(
            renamed("ok", glue).unwrap(),
            "const import0 = { a: function() {} };\n\
             const imports = { \"a\": import0 };\n\
             export function start() { wasm.b(); }\n"
        );
    }

    #[test]
    fn the_declarations_rename_the_raw_exports_only() {
        // `start` is renamed where `InitOutput` lists the module's exports, and nowhere else.
        let dts = "export interface Gpu {\n    readonly start: number;\n}\n\
                   export interface InitOutput {\n    readonly start: () => void;\n}\n";
        assert_eq!(
            renamed_file("dts", "x.d.ts", dts).unwrap(),
            "export interface Gpu {\n    readonly start: number;\n}\n\
             export interface InitOutput {\n    readonly b: () => void;\n}\n"
        );
    }

    #[test]
    fn a_glue_that_disagrees_with_the_module_stops_the_build() {
        // The import the module names is missing from the glue.
        let missing = "const imports = { \"./x_bg.js\": {} }; wasm.start();";
        assert!(renamed("missing", missing).is_err());
        // The glue calls an export the module does not have.
        let stray = "const imports = { \"./x_bg.js\": { __wbg_log_0123456789abcdef: f } };\n\
                     wasm.start(); wasm.stop();";
        assert!(renamed("stray", stray).is_err());
    }
}
