//! `cargo xtask bench`: the estimator's speed, natively (criterion, `crates/vramfit/benches/`),
//! as wasm under Node (`crates/xtask/bench/estimate.mjs`, when `target/npm/` is built) and on
//! the page (headless Chromium, when `dist/` is built), written to
//! `book/generated/performance.md` with the machine it ran on.
//!
//! Also the short checks `cargo xtask test` runs: the benchmarks once each ([`smoke`]) and the
//! native-against-wasm parity of a thousand estimates ([`parity`]).

use std::path::Path;
use std::time::Instant;

use crate::tools::{self, CHROMIUM, cargo, cmd};
use crate::{Result, http, root, site, size};

/// The criterion settings of `cargo xtask bench` (short: two cores are shared); `--full` uses
/// criterion's defaults.
const QUICK: [&str; 6] = [
    "--warm-up-time",
    "0.5",
    "--measurement-time",
    "2",
    "--sample-size",
    "10",
];

/// One figure: a benchmark id and its mean time in nanoseconds.
#[derive(Clone, Debug)]
struct Figure {
    id: String,
    ns: f64,
    /// The estimates a sweep made (criterion's throughput), when the benchmark counts them.
    elements: Option<f64>,
}

/// `cargo xtask bench [--full | --page]`.
pub fn main(args: &[String]) -> Result {
    let full = match args {
        [] => false,
        [f] if f == "--full" => true,
        [f] if f == "--page" => return page_only(),
        _ => {
            return Err(format!(
                "bench takes `--full`, `--page` or nothing, not `{}`",
                args.join(" ")
            ));
        }
    };
    let started = Instant::now();
    // What the wasm and page figures measure, built from the sources as they are now, so that
    // the chapter never mixes figures of different builds.
    crate::npm::npm()?;
    site::dist()?;
    let mut c = cargo();
    c.args([
        "bench",
        "-p",
        "vramfit",
        "--profile",
        "release-native",
        "--bench",
        "estimator",
        "--",
    ]);
    if !full {
        c.args(QUICK);
    }
    // Only this run's figures: a benchmark renamed or gone leaves its old directory behind.
    let results = root().join("target/criterion");
    if results.exists() {
        std::fs::remove_dir_all(&results)
            .map_err(|e| format!("could not clear {}: {e}", results.display()))?;
    }
    tools::run(&mut c)?;
    let native = criterion_figures(&results);
    if native.is_empty() {
        return Err("no criterion results under target/criterion/".into());
    }

    // The package and dist/ were built above: a failure below is the benchmark's own.
    let mut notes = Vec::new();
    let mut measured = |what: &str, got: Result<Vec<Figure>>| {
        got.unwrap_or_else(|e| {
            notes.push(format!("{what} failed: {e}"));
            Vec::new()
        })
    };
    let node = measured(
        "The Node benchmark",
        write_cases().and_then(|()| {
            node_figures(
                cmd("node")
                    .arg("crates/xtask/bench/estimate.mjs")
                    .arg(root().join("target/npm"))
                    .arg(root().join("target/parity/bench.json")),
            )
        }),
    );
    let page = measured("The page timings", page_figures());
    // The reverse grid as wasm: in Node with the other wasm figures, and in Chromium.
    let mut node = node;
    node.extend(measured("The Node grid benchmark", grid_figures(false)));
    let chromium = measured("The Chromium grid benchmark", grid_figures(true));
    let sizes = size::measure();
    let md = render(&native, &node, &page, &chromium, &sizes, &notes, full);
    let out = root().join("book/generated/performance.md");
    std::fs::create_dir_all(out.parent().expect("book/generated"))
        .map_err(|e| format!("book/generated: {e}"))?;
    std::fs::write(&out, md).map_err(|e| format!("{}: {e}", out.display()))?;
    println!(
        "wrote {} ({} native, {} Node, {} page figures) in {:.0} s",
        out.strip_prefix(root()).unwrap_or(&out).display(),
        native.len(),
        node.len(),
        page.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Every benchmark but the two largest sweeps, run once to prove it works (criterion's test
/// mode, in the test profile that `cargo test` has already built): the short run of
/// `cargo xtask test`. The sweeps of ten and of every preset (some ten and seventy-five thousand
/// unoptimised estimates) would take minutes; the one of a single preset runs the same code.
pub fn smoke() -> Result {
    tools::run(cargo().args([
        "test",
        "-p",
        "vramfit",
        "--bench",
        "estimator",
        "--",
        "^(estimate|estimate-figures|estimate-by-model|grid|solve|plan|mig|diagnose)/|^sweep/models/1$",
    ]))
}

/// `{"id": …, "ns": …}` lines from criterion's `target/criterion/**/new/`.
fn criterion_figures(dir: &Path) -> Vec<Figure> {
    let mut out: Vec<Figure> = size::files(dir)
        .into_iter()
        .filter(|p| {
            p.file_name().is_some_and(|n| n == "benchmark.json")
                && p.parent()
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == "new")
        })
        .filter_map(|p| {
            let bench = std::fs::read_to_string(&p).ok()?;
            let est = std::fs::read_to_string(p.with_file_name("estimates.json")).ok()?;
            Some(Figure {
                id: json_str(&bench, "full_id")?,
                ns: json_after(&est, "\"mean\"").and_then(|m| json_num(m, "point_estimate"))?,
                elements: json_num(&bench, "Elements"),
            })
        })
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

fn json_after<'a>(s: &'a str, key: &str) -> Option<&'a str> {
    s.find(key).map(|i| &s[i + key.len()..])
}

/// The string value of `"key":"…"` (no escapes in criterion's ids).
fn json_str(s: &str, key: &str) -> Option<String> {
    let rest = json_after(s, &format!("\"{key}\""))?;
    let rest = rest
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

/// The number value of `"key":123.4`.
fn json_num(s: &str, key: &str) -> Option<f64> {
    let rest = json_after(s, &format!("\"{key}\""))?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+')))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// Runs a script that prints `{"id": …, "ns": …}` lines.
fn node_figures(c: &mut std::process::Command) -> Result<Vec<Figure>> {
    let shown = tools::show(c);
    eprintln!("$ {shown}");
    let out = c
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("could not start `{shown}`: {e}"))?;
    if !out.status.success() {
        return Err(format!("`{shown}` failed ({})", out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .lines()
        .filter_map(|l| {
            Some(Figure {
                id: json_str(l, "id")?,
                ns: json_num(l, "ns")?,
                elements: None,
            })
        })
        .collect())
}

/// `vramfit/full`'s `grid` timed in Node, or in headless Chromium (`crates/xtask/bench/grid.mjs`).
fn grid_figures(browser: bool) -> Result<Vec<Figure>> {
    tools::ensure_npm()?;
    let mut c = cmd("node");
    c.arg("crates/xtask/bench/grid.mjs")
        .arg(root().join("target/npm"));
    if browser {
        c.arg("--browser").env("CHROMIUM", CHROMIUM);
    }
    node_figures(&mut c)
}

/// `cargo xtask bench --page`: the page's timings alone, of `dist/` as it is built (`cargo
/// xtask dist` first), printed rather than written to the chapter, with the machine's load:
/// what a change to the page is measured by (issue #43). `VRAMFIT_PAGE_RUNS` sets the loads of
/// each median (3).
fn page_only() -> Result {
    if !site::dist_dir().join("index.html").exists() {
        return Err("dist/ is not built: run `cargo xtask dist` first".into());
    }
    let load = |when: &str| {
        let l = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        let l: Vec<&str> = l.split_whitespace().take(3).collect();
        println!("load average {when} (1, 5, 15 min): {}", l.join(" "));
    };
    load("before");
    let figures = page_figures()?;
    if figures.is_empty() {
        return Err("the page gave no figures (see the lines above)".into());
    }
    for f in &figures {
        println!("{}: {}", f.id, fmt_ns(f.ns));
    }
    load("after");
    Ok(())
}

/// Serves `dist/` on loopback and times the page in headless Chromium.
fn page_figures() -> Result<Vec<Figure>> {
    tools::ensure_npm()?;
    let (listener, addr) = http::bind(0)?;
    http::spawn(listener, site::dist_dir(), "/vramfit/");
    node_figures(
        cmd("node")
            .arg("crates/xtask/bench/page.mjs")
            .env("VRAMFIT_URL", format!("http://{addr}/vramfit/"))
            .env("CHROMIUM", CHROMIUM),
    )
}

/// Writes `target/parity/cases.json` (the thousand parity cases with their native answers)
/// and `target/parity/bench.json` (the inputs of the Node benchmark).
fn write_cases() -> Result {
    tools::run(
        cargo()
            .args(["test", "-p", "vramfit", "--test", "parity_cases"])
            .env("VRAMFIT_WRITE_PARITY", "1"),
    )
}

/// `cargo xtask test`'s parity step: writes the thousand native cases, then compares the npm
/// package's answers with them in Node and in headless Chromium.
pub fn parity() -> Result {
    let npm = root().join("target/npm");
    if !npm.is_dir() {
        return Err(
            "parity: target/npm/ is missing, so wasm cannot be compared with native (`cargo xtask npm` builds it)"
                .into(),
        );
    }
    write_cases()?;
    tools::ensure_npm()?;
    let cases = root().join("target/parity/cases.json");
    tools::run(
        cmd("node")
            .arg("crates/xtask/bench/parity.mjs")
            .arg(&npm)
            .arg(&cases),
    )?;
    tools::run(
        cmd("node")
            .arg("crates/xtask/bench/parity.mjs")
            .arg(&npm)
            .arg(&cases)
            .arg("--browser")
            .env("CHROMIUM", CHROMIUM),
    )
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn first_line(c: &mut std::process::Command) -> String {
    tools::output(c)
        .and_then(|s| s.lines().next().map(str::trim).map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    format!(
        "- CPU: {cpu}; `nproc`: {}\n- load average when written (1, 5, 15 min): {load} \
         (figures taken on a busy machine are slower than on an idle one)\n- {}\n- node {}\n",
        first_line(&mut std::process::Command::new("nproc")),
        first_line(std::process::Command::new("rustc").arg("--version")),
        first_line(std::process::Command::new("node").arg("--version")),
    )
}

/// `estimate-by-model/inference/8030261248` → `8.0 B`.
fn params(s: &str) -> String {
    s.parse::<f64>()
        .map(|p| {
            if p >= 1e9 {
                format!("{:.1} B", p / 1e9)
            } else {
                format!("{:.0} M", p / 1e6)
            }
        })
        .unwrap_or_else(|_| s.to_string())
}

fn render(
    native: &[Figure],
    node: &[Figure],
    page: &[Figure],
    chromium: &[Figure],
    sizes: &size::Report,
    notes: &[String],
    full: bool,
) -> String {
    let mut s =
        String::from("<!-- @generated by `cargo xtask bench`; do not edit: run it again -->\n\n");
    s.push_str(&format!(
        "Mean times, measured by `cargo xtask bench` ({}). The benchmarks are in \
         `crates/vramfit/benches/estimator.rs`; the wasm ones in `crates/xtask/bench/`.\n\n",
        if full {
            "criterion's default settings"
        } else {
            "short criterion settings: 0.5 s warm-up, 2 s and 10 samples per benchmark"
        }
    ));
    s.push_str("## Machine\n\n");
    s.push_str(&machine());
    one_estimate(&mut s, native, node);
    by_model(&mut s, native);
    sweeps(&mut s, native, node);
    figures_alone(&mut s, native);
    grid(&mut s, native, node, chromium);
    solvers(&mut s, native);
    page_and_sizes(&mut s, page, sizes, notes);
    s.push_str("\n## Every figure\n\n| benchmark | mean |\n|---|---:|\n");
    for (prefix, figures) in [("", native), ("wasm-node/", node), ("", page)] {
        for f in figures {
            s.push_str(&format!("| `{prefix}{}` | {} |\n", f.id, fmt_ns(f.ns)));
        }
    }
    s
}

/// The mean time of benchmark `id` among `figures`.
fn mean(figures: &[Figure], id: &str) -> Option<f64> {
    figures.iter().find(|f| f.id == id).map(|f| f.ns)
}

/// A mean time, or `—` where the benchmark did not run.
fn time_or_dash(ns: Option<f64>) -> String {
    ns.map_or("—".into(), fmt_ns)
}

/// One estimate of Llama-3.1-8B, native and in Node.
fn one_estimate(s: &mut String, native: &[Figure], node: &[Figure]) {
    s.push_str("\n## One estimate\n\nLlama-3.1-8B on an H100 SXM5 80 GB.\n\n| run | native | wasm (Node) |\n|---|---:|---:|\n");
    for (name, id) in [
        (
            "inference (Hugging Face, 2,048 + 256 tokens)",
            "estimate/llama-3.1-8b-inference",
        ),
        (
            "training (AdamW, AMP bf16, 4,096 tokens)",
            "estimate/llama-3.1-8b-training",
        ),
        (
            "vLLM serve (max_model_len 8,192)",
            "estimate/llama-3.1-8b-vllm-serve",
        ),
    ] {
        s.push_str(&format!(
            "| {name} | {} | {} |\n",
            time_or_dash(mean(native, id)),
            time_or_dash(mean(node, id))
        ));
    }
}

/// One estimate by parameter count.
fn by_model(s: &mut String, native: &[Figure]) {
    s.push_str("\n## How one estimate scales with the model\n\nInference on an H100, by parameter count.\n\n| parameters | native |\n|---:|---:|\n");
    let mut by_model: Vec<&Figure> = native
        .iter()
        .filter(|f| f.id.starts_with("estimate-by-model/"))
        .collect();
    by_model.sort_by_key(|f| f.id.rsplit('/').next().and_then(|p| p.parse::<u64>().ok()));
    for f in by_model {
        s.push_str(&format!(
            "| {} | {} |\n",
            params(f.id.rsplit('/').next().unwrap_or("")),
            fmt_ns(f.ns)
        ));
    }
}

/// The sweeps by their number of estimates, native and in Node, whole and per estimate.
fn sweeps(s: &mut String, native: &[Figure], node: &[Figure]) {
    s.push_str("\n## How a sweep scales with its size\n\nPresets × every catalog GPU × every weight format (nine formats and every GGUF file type); an estimate the format does not apply to is refused, and counted.\n\n| estimates | native | per estimate | wasm (Node) | per estimate |\n|---:|---:|---:|---:|---:|\n");
    let mut sweeps: Vec<&Figure> = native
        .iter()
        .filter(|f| f.id.starts_with("sweep/"))
        .collect();
    sweeps.sort_by(|a, b| {
        a.elements
            .unwrap_or(0.0)
            .total_cmp(&b.elements.unwrap_or(0.0))
    });
    for f in sweeps {
        let n = f.elements.unwrap_or(1.0);
        let wasm = mean(node, &f.id);
        s.push_str(&format!(
            "| {n:.0} | {} | {} | {} | {} |\n",
            fmt_ns(f.ns),
            fmt_ns(f.ns / n),
            wasm.map_or("—".into(), fmt_ns),
            wasm.map_or("—".into(), |w| fmt_ns(w / n)),
        ));
    }
}

/// One estimate's numbers alone (`Workload::figures`).
fn figures_alone(s: &mut String, native: &[Figure]) {
    s.push_str("\n## One estimate, numbers alone\n\nThe same runs as `Workload::figures` (from the input, validation included; no formula or note text), as the grid and the solvers compute them.\n\n| run | native |\n|---|---:|\n");
    for (name, id) in [
        ("inference", "estimate-figures/llama-3.1-8b-inference"),
        ("training", "estimate-figures/llama-3.1-8b-training"),
        ("vLLM serve", "estimate-figures/llama-3.1-8b-vllm-serve"),
    ] {
        s.push_str(&format!(
            "| {name} | {} |\n",
            time_or_dash(mean(native, id))
        ));
    }
}

/// The reverse grid, native, in Node and in Chromium.
fn grid(s: &mut String, native: &[Figure], node: &[Figure], chromium: &[Figure]) {
    s.push_str("\n## The reverse grid\n\nEvery preset × every catalog GPU × the formats the engine loads, the most precise format that fits per cell (`hardware::grid::grid`, `grid` of `vramfit/full`), as the site's grid recomputes it when an input changes; one frame is 16.7 ms.\n\n| run | native | wasm (Node) | wasm (Chromium) |\n|---|---:|---:|---:|\n");
    for (name, id) in [
        ("Hugging Face inference", "grid/every-preset-every-gpu/hf"),
        ("llama.cpp", "grid/every-preset-every-gpu/llamacpp"),
    ] {
        s.push_str(&format!(
            "| {name} | {} | {} | {} |\n",
            time_or_dash(mean(native, id)),
            time_or_dash(mean(node, id)),
            time_or_dash(mean(chromium, id)),
        ));
    }
}

/// The solvers, the planners and the diagnosis, native.
fn solvers(s: &mut String, native: &[Figure]) {
    s.push_str("\n## Solvers, planners, diagnosis\n\n| what | native |\n|---|---:|\n");
    for (name, id) in [
        (
            "largest batch, Llama-3.1-8B inference, 80 GiB",
            "solve/largest-batch-inference",
        ),
        (
            "largest batch, Llama-3.1-8B training, 80 GiB",
            "solve/largest-batch-training",
        ),
        (
            "largest context, Llama-3.1-8B inference, 80 GiB",
            "solve/largest-context-inference",
        ),
        (
            "largest max_model_len, Llama-3.1-8B vLLM, 80 GiB",
            "solve/largest-context-serve",
        ),
        (
            "fewest GPUs, Llama-3.1-405B training, 80 GiB",
            "solve/fewest-gpus-405b-training",
        ),
        (
            "cheapest fit over every offer and layout, Llama-3.1-8B training",
            "plan/cheapest-fit-llama-3.1-8b-training",
        ),
        ("MIG plan, ten jobs on A100 80 GB", "mig/plan-10-jobs"),
        (
            "diagnose a 100 KB nvidia-smi CSV log",
            "diagnose/nvidia-smi-csv-100kb",
        ),
    ] {
        s.push_str(&format!(
            "| {name} | {} |\n",
            time_or_dash(mean(native, id))
        ));
    }
}

/// The page's times in Chromium, the sizes against their budgets, and the notes.
fn page_and_sizes(s: &mut String, page: &[Figure], sizes: &size::Report, notes: &[String]) {
    s.push_str("\n## The page\n\nHeadless Chromium on `dist/` served from loopback, a fresh profile each time.\n\n| what | time |\n|---|---:|\n");
    if page.is_empty() {
        s.push_str("| (not measured) | — |\n");
    }
    for f in page {
        s.push_str(&format!("| {} | {} |\n", f.id, fmt_ns(f.ns)));
    }

    s.push_str("\n## Sizes\n\nWhat the site and the npm package ship, raw and `gzip -9` (`cargo xtask size`).\n\n");
    s.push_str(&size::table(sizes));
    if !sizes.problems.is_empty() {
        s.push_str("\nBroken budgets and other problems:\n\n");
        for p in &sizes.problems {
            s.push_str(&format!("- {p}\n"));
        }
    }
    if !notes.is_empty() {
        s.push_str("\n## Notes\n\n");
        for n in notes {
            s.push_str(&format!("- {n}\n"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{criterion_figures, json_num, json_str};

    #[test]
    fn reads_criterion_json() {
        let b = r#"{"group_id":"sweep","full_id":"sweep/models/1","throughput":{"Elements":936}}"#;
        assert_eq!(json_str(b, "full_id").as_deref(), Some("sweep/models/1"));
        assert_eq!(json_num(b, "Elements"), Some(936.0));
        let e = r#"{"mean":{"confidence_interval":{"lower_bound":1.0},"point_estimate":430802.26,"standard_error":5.0}}"#;
        assert_eq!(json_num(e, "point_estimate"), Some(430802.26));
        assert_eq!(json_num(r#"{"ns": 1.5e3}"#, "ns"), Some(1500.0));
    }

    #[test]
    fn takes_each_benchmarks_newest_run_only() {
        let dir = std::env::temp_dir().join(format!("vramfit-criterion-{}", std::process::id()));
        for (run, ns) in [("new", 2.0), ("base", 9.0)] {
            let d = dir.join("solve/largest-batch").join(run);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(
                d.join("benchmark.json"),
                r#"{"full_id":"solve/largest-batch"}"#,
            )
            .unwrap();
            std::fs::write(
                d.join("estimates.json"),
                format!(r#"{{"mean":{{"point_estimate":{ns}}}}}"#),
            )
            .unwrap();
        }
        let got = criterion_figures(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].id.as_str(), got[0].ns),
            ("solve/largest-batch", 2.0)
        );
    }
}
