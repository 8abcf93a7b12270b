//! The site: `cargo build` → `wasm-bindgen` → `wasm-opt` → `www/` with content-hashed names →
//! `dist/`; and `serve`, which builds, serves and rebuilds on change.
//!
//! Names: the wasm, its JS glue, and every `.js`/`.css` of `www/` get a content hash in their
//! file name, so a new version never mixes with a cached old one. The files that must keep
//! their names (`index.html`, `404.html`, `sw.js`, `manifest.webmanifest`) are templates:
//! `{{name}}` becomes the hashed name of `name`, `{{VERSION}}` the build's version, and
//! `{{ASSETS}}` the JSON list of every file the service worker precaches, and `{{PACKED}}` in
//! `boot.js` is `true` when each module has a precompressed copy `NAME.gz`. Every URL is
//! relative, so the site works under any path (GitHub Pages serves it under `/vramfit/`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::tools::{self, cmd, read, run, write};
use crate::{Result, http, root};

/// The wasm target.
pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// Files of `www/` that keep their names and are filled in as templates.
const TEMPLATES: &[&str] = &["index.html", "404.html", "sw.js", "manifest.webmanifest"];
/// Scripts of `www/` written into the templates rather than shipped as files: `{{inline:NAME}}`
/// is the script (names filled in, minified as a classic script), `{{sha256:NAME}}` its SHA-256
/// in base64 for the CSP. `boot.js` is inlined so that the module's download starts with the
/// page, not one round trip later: `index.html` cannot preload the module itself, not knowing
/// the language. It is a classic script first in the head, which the parser runs at once,
/// before the style sheet is asked for (issue #43).
const INLINED: &[&str] = &["boot.js"];

/// The folder the site is written to.
pub fn dist_dir() -> PathBuf {
    root().join("dist")
}

/// `cargo xtask dist`: installs what is missing, then builds `dist/`. Returns the version.
pub fn dist() -> Result<String> {
    tools::ensure_wasm_tools()?;
    let version = build()?;
    // The embeddable widget ships with the site (`embed.html`, the book's live calculator).
    crate::npm::build_widget_into(&root().join("dist/widget"))?;
    Ok(version)
}

/// Builds `dist/` with the tools already installed. Returns the build's version.
pub fn build() -> Result<String> {
    build_with(false)
}

/// Logical names (`vramfit_en_bg.wasm`, `style.css`, …) → file names in `dist/`.
type Names = BTreeMap<String, String>;

/// Modules by their logical names, and their bytes.
type Modules = Vec<(String, Vec<u8>)>;

/// Builds `dist/`. `fast` is for `serve`: a separate target folder (`target/serve`) and a
/// release profile without LTO, with incremental compilation and no `wasm-opt`, so that a
/// change rebuilds in seconds; what ships is always the size-tuned build.
pub fn build_with(fast: bool) -> Result<String> {
    let started = Instant::now();
    let root = root();
    let stage = root.join(if fast {
        "target/serve/site"
    } else {
        "target/site"
    });
    let tmp = stage.join("dist.tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;

    let mut names: Names = BTreeMap::new();
    let (report, modules) = build_apps(&stage, &tmp, fast, &mut names)?;
    precompress_modules(&tmp, &modules, &mut names)?;
    let mut inline: BTreeMap<String, String> = BTreeMap::new();
    inline.insert("PACKED".into(), (!fast).to_string());
    let templates = copy_www(&stage, &tmp, fast, &mut names, &mut inline)?;
    let version = write_templates(&stage, &tmp, fast, &names, &inline, &templates)?;

    let dist = dist_dir();
    let _ = std::fs::remove_dir_all(&dist);
    std::fs::rename(&tmp, &dist).map_err(|e| format!("cannot move the build to dist/: {e}"))?;
    eprintln!(
        "dist/ written: version {version}, {} ({}), in {:.1} s",
        report.join(", "),
        if fast {
            "quick build for serve, not optimised"
        } else {
            "wasm-opt -Oz"
        },
        started.elapsed().as_secs_f64()
    );
    Ok(version)
}

/// Builds the app's modules and their glue into `tmp` under hashed names (added to `names`).
/// Returns a line of the report per build, and the modules to precompress (none when `fast`).
///
/// Three builds of the app: `vramfit_en` and `vramfit_zh` are the calculator alone in one
/// language (the first load), `vramfit_full` every view in both (`www/boot.js` picks one and
/// hands over). `serve` builds the full one only and serves it under every name, to rebuild
/// quickly.
fn build_apps(
    stage: &Path,
    tmp: &Path,
    fast: bool,
    names: &mut Names,
) -> Result<(Vec<String>, Modules)> {
    let mut report = Vec::new();
    let mut modules: Modules = Vec::new();
    let builds: &[(&str, &str)] = if fast {
        &[("vramfit_full", "full")]
    } else {
        &[
            ("vramfit_en", "en"),
            ("vramfit_zh", "zh"),
            ("vramfit_full", "full"),
        ]
    };
    for &(name, features) in builds {
        let (wasm, glue, raw_len) = build_app(stage, name, features, fast)?;
        let glue = if fast {
            glue
        } else {
            minify(stage, &format!("{name}.js"), &glue)?
        };
        let mut add = |logical: String, bytes: &[u8]| -> Result {
            let file = hashed(&logical, bytes);
            write(&tmp.join(&file), bytes)?;
            names.insert(logical, file);
            Ok(())
        };
        add(format!("{name}_bg.wasm"), &wasm)?;
        add(format!("{name}.js"), &glue)?;
        if fast {
            for other in ["vramfit_en", "vramfit_zh"] {
                add(format!("{other}_bg.wasm"), &wasm)?;
                add(format!("{other}.js"), &glue)?;
            }
        } else {
            modules.push((format!("{name}_bg.wasm"), wasm.clone()));
        }
        report.push(format!(
            "{name} {} raw (wasm-bindgen) → {}",
            kib(raw_len),
            kib(wasm.len() as u64)
        ));
    }
    Ok((report, modules))
}

/// Each module also as `NAME.gz`, compressed once here by Zopfli (`precompress`), which
/// `boot.js` fetches and inflates with the browser's
/// `DecompressionStream`: served as it is (`application/gzip`), it crosses the network smaller
/// than the plain module would at `gzip -9`, the best a server compressing on the fly does.
/// The plain module stays beside it for browsers without `DecompressionStream`, and for
/// `serve`'s quick build, which skips this.
fn precompress_modules(tmp: &Path, modules: &[(String, Vec<u8>)], names: &mut Names) -> Result {
    let packed = std::thread::scope(|s| {
        let jobs: Vec<_> = modules
            .iter()
            .map(|(logical, wasm)| s.spawn(move || (logical, precompress(wasm))))
            .collect();
        jobs.into_iter()
            .map(|j| j.join().map_err(|_| "the compressor panicked".to_string()))
            .collect::<Result<Vec<_>>>()
    })?;
    for (logical, gz) in packed {
        let file = format!("{}.gz", names[logical]);
        write(&tmp.join(&file), &gz?)?;
        names.insert(format!("{logical}.gz"), file);
    }
    Ok(())
}

/// www/: hashed assets first (they may name the wasm and glue), then plain copies; the scripts
/// of [`INLINED`] go into `inline`, not into `tmp`. Returns the templates (name, path), which
/// name everything and are written last ([`write_templates`]).
fn copy_www(
    stage: &Path,
    tmp: &Path,
    fast: bool,
    names: &mut Names,
    inline: &mut BTreeMap<String, String>,
) -> Result<Vec<(String, PathBuf)>> {
    let www = root().join("www");
    let mut files = Vec::new();
    walk(&www, &mut files)?;
    // Style sheets first: boot.js names them.
    files.sort_by_key(|f| (ext(f) != "css", f.clone()));
    let mut templates = Vec::new();
    for file in files {
        let rel = rel_name(&www, &file);
        if TEMPLATES.contains(&rel.as_str()) {
            templates.push((rel, file));
            continue;
        }
        let bytes = read(&file)?;
        let hash_it = matches!(ext(&file), "js" | "css");
        let bytes = match (hash_it, fast) {
            (false, _) => bytes,
            (true, true) => fill(&bytes, names, inline, "", "")?,
            (true, false) => minify(stage, &rel, &fill(&bytes, names, inline, "", "")?)?,
        };
        if INLINED.contains(&rel.as_str()) {
            let text = String::from_utf8(bytes)
                .map_err(|_| format!("www/{rel} is not UTF-8 once minified"))?;
            if text.to_ascii_lowercase().contains("</script") {
                return Err(format!(
                    "www/{rel} contains `</script`, which would end it inside index.html"
                ));
            }
            inline.insert(format!("sha256:{rel}"), sha256_base64(stage, &text)?);
            inline.insert(format!("inline:{rel}"), text);
            continue;
        }
        let name = if hash_it {
            hashed(&rel, &bytes)
        } else {
            rel.clone()
        };
        write(&tmp.join(&name), &bytes)?;
        names.insert(rel, name);
    }
    Ok(templates)
}

/// Fills in and writes the templates, with the build's version and the list of files the
/// service worker precaches. Returns the version.
fn write_templates(
    stage: &Path,
    tmp: &Path,
    fast: bool,
    names: &Names,
    inline: &BTreeMap<String, String>,
    templates: &[(String, PathBuf)],
) -> Result<String> {
    // The version covers every output: the hashed names, the inlined scripts, and the
    // templates as written.
    let mut fingerprint: Vec<u8> = names.values().flat_map(|n| n.bytes()).collect();
    fingerprint.extend(inline.values().flat_map(|v| v.bytes()));
    for (_, file) in templates {
        fingerprint.extend(read(file)?);
    }
    let version = short_hash(&fingerprint);
    let mut assets: Vec<String> = vec!["./".into()];
    assets.extend(names.values().map(|n| format!("./{n}")));
    assets.extend(
        templates
            .iter()
            .filter(|(rel, _)| rel != "sw.js" && rel != "404.html" && rel != "index.html")
            .map(|(rel, _)| format!("./{rel}")),
    );
    let assets_json = format!(
        "[{}]",
        assets
            .iter()
            .map(|a| format!("\"{a}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for (rel, file) in templates {
        let bytes = fill(&read(file)?, names, inline, &version, &assets_json)?;
        let bytes = if !fast && rel.ends_with(".webmanifest") {
            minify(stage, rel, &bytes)?
        } else {
            bytes
        };
        write(&tmp.join(rel), &bytes)?;
    }
    Ok(version)
}

/// One build of the app: `cargo build` with `features`, `full` (the crate's default: every
/// view, both languages) or the language of a calculator build (`en`, `zh`) → `wasm-bindgen`
/// named `name` → `wasm-opt` (not when `fast`). Returns the wasm, its JS glue, and the wasm's
/// size as wasm-bindgen wrote it.
fn build_app(
    stage: &Path,
    name: &str,
    features: &str,
    fast: bool,
) -> Result<(Vec<u8>, Vec<u8>, u64)> {
    let target_dir = if fast {
        root().join("target/serve")
    } else {
        root().join("target")
    };
    let (mut build, wasm) = tools::wasm_bin("vramfit-web", &target_dir, !fast);
    if features != "full" {
        build.args(["--no-default-features", "--features", features]);
    }
    if fast {
        build
            .env("CARGO_PROFILE_RELEASE_LTO", "false")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
            .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "true")
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1");
    }
    run(&mut build)?;
    let bindgen = stage.join(format!("bindgen-{name}"));
    tools::bindgen(&wasm, &bindgen, name, false)?;
    let raw = bindgen.join(format!("{name}_bg.wasm"));
    let opt = bindgen.join(format!("{name}_bg.opt.wasm"));
    if fast {
        std::fs::copy(&raw, &opt).map_err(|e| format!("cannot copy the wasm: {e}"))?;
    } else {
        tools::wasm_opt(&raw, &opt, &[bindgen.join(format!("{name}.js"))])?;
    }
    let raw_len = std::fs::metadata(&raw).map(|m| m.len()).unwrap_or(0);
    Ok((
        read(&opt)?,
        read(&bindgen.join(format!("{name}.js")))?,
        raw_len,
    ))
}

/// `name`'s script (an ES module) or style sheet, minified: terser and lightningcss, from the
/// workspace's npm tools, run by `minify.mjs` beside this crate; the web app manifest without
/// its spaces. `serve`'s quick build ships them as written.
fn minify(stage: &Path, name: &str, bytes: &[u8]) -> Result<Vec<u8>> {
    let file = stage.join("minify").join(name.replace('/', "_"));
    write(&file, bytes)?;
    let mut c = cmd("node");
    c.arg(root().join("crates/xtask/minify.mjs"));
    // The scripts written into the page are classic scripts, not modules (see `www/boot.js`).
    if INLINED.contains(&name) {
        c.arg("--script");
    }
    run(c.arg(&file).env("VRAMFIT_ROOT", root()))?;
    read(&file)
}

/// Builds the two books (`book/en`, `book/zh`) into `dist/book/en/` and `dist/book/zh/`, with
/// the language chooser `book/index.html` at `dist/book/`. `base` is the site's path on its
/// server (`/vramfit/` on GitHub Pages): only mdBook's 404 page needs it.
pub fn book(base: &str) -> Result {
    let root = root();
    if !root.join("book/en/book.toml").exists() {
        return Ok(());
    }
    tools::ensure_mdbook()?;
    let out = dist_dir().join("book");
    for lang in ["en", "zh"] {
        let dest = out.join(lang);
        run(cmd("mdbook")
            .args(["build", &format!("book/{lang}"), "--dest-dir"])
            .arg(&dest)
            .env(
                "MDBOOK_OUTPUT__HTML__SITE_URL",
                format!("{base}book/{lang}/"),
            ))?;
    }
    let index = read(&root.join("book/index.html"))?;
    write(&out.join("index.html"), &index)
}

/// `cargo xtask dist [--book] [--base /vramfit/]`.
pub fn dist_command(args: &[String]) -> Result {
    let mut with_book = false;
    let mut base = String::from("/vramfit/");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--book" => with_book = true,
            "--base" => {
                base = it
                    .next()
                    .cloned()
                    .ok_or("--base takes a path such as /vramfit/")?;
                if !base.starts_with('/') || !base.ends_with('/') {
                    return Err(format!("--base must start and end with `/`, not `{base}`"));
                }
            }
            other => {
                return Err(format!(
                    "unexpected argument `{other}` (dist takes --book and --base PATH)"
                ));
            }
        }
    }
    dist()?;
    if with_book { book(&base) } else { Ok(()) }
}

/// `cargo xtask serve [--release]`: builds, serves `dist/` on `port`, and rebuilds when a
/// source changes (in seconds: see [`build_with`]; `--release` serves the shipped build).
pub fn serve(port: u16, release: bool) -> Result {
    tools::ensure_wasm_tools()?;
    build_with(!release)?;
    // The widget (`embed.html`) is built once and copied in after every rebuild.
    let widget = root().join("target/serve/widget");
    if let Err(e) = crate::npm::build_widget_into(&widget) {
        eprintln!("the widget was not built: {e}");
    }
    copy_widget(&widget);
    // The book too, when mdBook is there (the site links to it); its absence is no reason not
    // to serve the calculator.
    if let Err(e) = book("/") {
        eprintln!("the book was not built: {e}");
    }
    let (listener, addr) = http::bind(port)?;
    let dir = dist_dir();
    std::thread::spawn(move || watch(!release));
    println!("serving dist/ on http://{addr}/  (Ctrl-C to stop; rebuilds on change)");
    http::serve(listener, dir, "/");
    Ok(())
}

/// Copies the widget built for `serve` into `dist/widget/`.
fn copy_widget(from: &Path) {
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    let to = dist_dir().join("widget");
    let _ = std::fs::create_dir_all(&to);
    for e in entries.flatten() {
        let _ = std::fs::copy(e.path(), to.join(e.file_name()));
    }
}

/// Polls the sources' modification times and rebuilds when one changes.
fn watch(fast: bool) {
    let root = root();
    let watched = [
        root.join("web/src"),
        root.join("web/Cargo.toml"),
        root.join("crates/vramfit/src"),
        root.join("www"),
    ];
    let stamp = || watched.iter().filter_map(|p| newest(p)).max();
    let mut last = stamp();
    loop {
        std::thread::sleep(Duration::from_millis(700));
        let now = stamp();
        if now != last {
            // Let an editor finish writing several files.
            std::thread::sleep(Duration::from_millis(300));
            last = stamp();
            eprintln!("change detected: rebuilding");
            let widget = root.join("target/serve/widget");
            match build_with(fast).and_then(|v| {
                copy_widget(&widget);
                book("/").map(|()| v)
            }) {
                Ok(v) => eprintln!("rebuilt: version {v}; reload the page"),
                Err(e) => eprintln!("rebuild failed: {e}"),
            }
        }
    }
}

/// The newest modification time under `path`.
fn newest(path: &Path) -> Option<SystemTime> {
    let own = tools::mtime(path);
    if path.is_dir() {
        let children = std::fs::read_dir(path).ok()?;
        children
            .flatten()
            .filter_map(|e| newest(&e.path()))
            .chain(own)
            .max()
    } else {
        own
    }
}

/// Replaces `{{name}}`, `{{VERSION}}` and `{{ASSETS}}` in a text file; an unknown
/// `{{token}}` is an error, so that a typo never ships.
fn fill(
    bytes: &[u8],
    names: &BTreeMap<String, String>,
    inline: &BTreeMap<String, String>,
    version: &str,
    assets: &str,
) -> Result<Vec<u8>> {
    let text = String::from_utf8(bytes.to_vec()).map_err(|_| "a www/ text file is not UTF-8")?;
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find("}}").ok_or("unclosed `{{` in a www/ file")?;
        let key = &after[..end];
        let value = match key {
            "VERSION" if !version.is_empty() => version,
            "ASSETS" if !assets.is_empty() => assets,
            _ => names
                .get(key)
                .or_else(|| inline.get(key))
                .map(String::as_str)
                .ok_or_else(|| format!("www/: `{{{{{key}}}}}` names no file built before it"))?,
        };
        out.push_str(value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out.into_bytes())
}

/// The SHA-256 of `text` in base64, as a CSP hash source takes it: computed by Node (which
/// the build runs anyway, for the minifier), as xtask carries no hashing crate.
pub(crate) fn sha256_base64(stage: &Path, text: &str) -> Result<String> {
    let file = stage.join("inline.sha256-input");
    write(&file, text.as_bytes())?;
    let script = "process.stdout.write(require('node:crypto').createHash('sha256')\
                  .update(require('node:fs').readFileSync(process.argv[1])).digest('base64'))";
    tools::output(cmd("node").args(["-e", script]).arg(&file))
        .filter(|h| h.len() == 44)
        .ok_or_else(|| "node could not hash an inlined script".into())
}

/// `bytes` as a gzip file, by Zopfli with its default options: gzip that any inflater reads,
/// smaller than `gzip -9` makes it, in a few seconds.
pub(crate) fn precompress(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    zopfli::compress(
        zopfli::Options::default(),
        zopfli::Format::Gzip,
        bytes,
        &mut out,
    )
    .map_err(|e| format!("Zopfli could not compress a module: {e}"))?;
    Ok(out)
}

/// `name-HASH.ext`.
fn hashed(name: &str, bytes: &[u8]) -> String {
    let h = short_hash(bytes);
    match name.rsplit_once('.') {
        Some((stem, ext)) => format!("{stem}-{h}.{ext}"),
        None => format!("{name}-{h}"),
    }
}

/// The first 10 hex digits of the 64-bit FNV-1a hash: enough to tell versions apart.
pub fn short_hash(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")[..10].to_string()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

fn rel_name(base: &Path, file: &Path) -> String {
    file.strip_prefix(base)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/")
}

fn ext(p: &Path) -> &str {
    p.extension().and_then(|e| e.to_str()).unwrap_or("")
}

fn kib(n: u64) -> String {
    format!("{:.1} KiB", n as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_names_version_and_assets() {
        let mut names = BTreeMap::new();
        names.insert("style.css".to_string(), "style-0123456789.css".to_string());
        let mut inline = BTreeMap::new();
        inline.insert("inline:boot.js".to_string(), "go()".to_string());
        inline.insert("sha256:boot.js".to_string(), "AbC=".to_string());
        let out = fill(
            b"<link href=\"./{{style.css}}\"> v{{VERSION}} {{ASSETS}} 'sha256-{{sha256:boot.js}}' <script>{{inline:boot.js}}</script>",
            &names,
            &inline,
            "abc",
            "[]",
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "<link href=\"./style-0123456789.css\"> vabc [] 'sha256-AbC=' <script>go()</script>"
        );
    }

    #[test]
    fn an_unknown_token_is_an_error() {
        let none = BTreeMap::new();
        assert!(fill(b"{{nope.js}}", &none, &none, "v", "[]").is_err());
        assert!(fill(b"{{VERSION}}", &none, &none, "", "").is_err());
        assert!(fill(b"{{inline:boot.js}}", &none, &none, "v", "[]").is_err());
    }

    #[test]
    fn hashes_a_script_as_the_csp_takes_it() {
        // The SHA-256 of "abc" (FIPS 180-2, appendix B.1), in base64.
        let stage = root().join("target/site-test");
        std::fs::create_dir_all(&stage).unwrap();
        assert_eq!(
            sha256_base64(&stage, "abc").unwrap(),
            "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
        );
    }

    #[test]
    fn boot_is_a_classic_script_before_the_style_sheet() {
        // Issue #43: the parser runs a classic script as it reads it, so the module and its glue
        // are asked for before the style sheet; after the CSP, whose hash admits it.
        let html = read_text(&root().join("www/index.html"));
        let boot = html
            .find("<script>{{inline:boot.js}}</script>")
            .expect("boot.js is written into index.html as a classic script");
        assert!(html.find("Content-Security-Policy").unwrap() < boot);
        assert!(boot < html.find("rel=\"stylesheet\"").unwrap());
        // What only a module may hold.
        let js = read_text(&root().join("www/boot.js"));
        for module_only in ["import.meta", "\nawait ", "\nexport ", "\nimport "] {
            assert!(!js.contains(module_only), "boot.js holds `{module_only}`");
        }
    }

    fn read_text(p: &Path) -> String {
        String::from_utf8(read(p).unwrap()).unwrap()
    }

    #[test]
    fn hashed_names_change_with_content() {
        assert_ne!(hashed("a.js", b"1"), hashed("a.js", b"2"));
        assert!(hashed("a.js", b"1").starts_with("a-") && hashed("a.js", b"1").ends_with(".js"));
    }
}
