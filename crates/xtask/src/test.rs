//! `cargo xtask test`: every check CI runs, in order, each one counted; the last line is
//! `N passed, N failed`. A failing step does not stop the ones after it (except those that
//! need its output), so one run shows everything that is wrong.
//!
//! Counting: a `cargo test` step counts its tests (from cargo's `test result:` lines); every
//! other step counts as one.

use std::process::Command;
use std::time::Instant;

use crate::tools::{self, CHROMEDRIVER, CHROMIUM, cargo, cmd, show};
use crate::{Result, http, root, site};

/// What one step did.
struct Outcome {
    passed: usize,
    failed: usize,
    /// Why it failed, in a few lines (the error, the failing tests), for the summary.
    why: Vec<String>,
}

impl Outcome {
    fn one(ok: bool) -> Outcome {
        Outcome {
            passed: usize::from(ok),
            failed: usize::from(!ok),
            why: Vec::new(),
        }
    }
}

/// How many lines of a failed step's reasons the summary repeats.
const WHY_LINES: usize = 16;

/// A named step.
type Step = (&'static str, Box<dyn Fn() -> Outcome>);

/// The steps, in the order they run.
fn steps() -> Vec<Step> {
    let mut steps: Vec<Step> = vec![
        (
            "cargo fmt --all --check",
            Box::new(|| plain(cargo().args(["fmt", "--all", "--check"]))),
        ),
        (
            "cargo clippy --workspace --all-targets -- -D warnings",
            Box::new(|| {
                plain(cargo().args([
                    "clippy",
                    "--workspace",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ]))
            }),
        ),
        (
            "cargo test --workspace",
            Box::new(|| cargo_tests(cargo().args(["test", "--workspace"]))),
        ),
        (
            "the calculator builds' shape: vramfit's left_out and the site's tests, in English and in Chinese",
            Box::new(calculator_shape),
        ),
        (
            "no_std build (thumbv7em-none-eabihf)",
            Box::new(|| {
                step_result(
                    tools::ensure_target("thumbv7em-none-eabihf").and_then(|()| {
                        tools::run(cargo().args([
                            "build",
                            "-p",
                            "vramfit",
                            "--no-default-features",
                            "--target",
                            "thumbv7em-none-eabihf",
                        ]))
                    }),
                )
            }),
        ),
        (
            "wasm tests in headless Chromium (vramfit-wasm)",
            Box::new(|| {
                // The first step to build for wasm32 on a fresh machine: the target too.
                let ready = tools::ensure_target(site::WASM_TARGET)
                    .and_then(|()| tools::ensure_wasm_bindgen());
                if let Err(e) = ready {
                    eprintln!("{e}");
                    return Outcome::one(false);
                }
                let ran = cargo_tests(
                    cargo()
                        .args(["test", "-p", "vramfit-wasm", "--target", site::WASM_TARGET])
                        .env("CHROMEDRIVER", CHROMEDRIVER)
                        .env("WASM_BINDGEN_TEST_TIMEOUT", "300"),
                );
                // A runner that finds no browser, or a test file compiled to nothing, reports
                // "0 passed" and exits 0: count the tests the sources declare instead.
                at_least(ran, wasm_bindgen_tests(), "wasm-bindgen tests")
            }),
        ),
        (
            "npm package: same numbers as the CLI, packed install, tsc --strict, widget in Chromium",
            Box::new(|| step_result(crate::npm::test())),
        ),
        (
            "cargo xtask dist --book",
            Box::new(|| step_result(site::dist().and_then(|_| site::book("/vramfit/")))),
        ),
        (
            "end-to-end tests of dist/ in headless Chromium",
            Box::new(|| match e2e(None) {
                Ok(flaky) => Outcome {
                    why: flaky,
                    ..Outcome::one(true)
                },
                Err(e) => step_result(Err(e)),
            }),
        ),
        (
            "benchmarks, each run once",
            Box::new(|| step_result(crate::bench::smoke())),
        ),
        (
            "sizes against their budgets and ceilings, no eval, strict CSP",
            Box::new(|| step_result(crate::size::guard())),
        ),
        (
            "native against wasm parity (Node and headless Chromium)",
            Box::new(|| step_result(crate::bench::parity())),
        ),
        (
            "cargo xtask fuzz 20",
            Box::new(|| step_result(crate::fuzz::fuzz(20))),
        ),
        (
            "book: the same chapters in both languages, every cited test exists (book/check.sh)",
            Box::new(|| plain(cmd("sh").args(["book/check.sh", "--no-mdbook"]))),
        ),
    ];
    {
        for lang in ["en", "zh"] {
            let build: Step = (
                if lang == "en" {
                    "mdbook build book/en"
                } else {
                    "mdbook build book/zh"
                },
                Box::new(move || {
                    step_result(tools::ensure_mdbook().and_then(|()| {
                        tools::run(cmd("mdbook").args(["build", &format!("book/{lang}")]))
                    }))
                }),
            );
            steps.push(build);
        }
        for lang in ["en", "zh"] {
            let test: Step = (
                if lang == "en" {
                    "mdbook test book/en"
                } else {
                    "mdbook test book/zh"
                },
                Box::new(move || {
                    step_result(tools::run(
                        cmd("mdbook").args(["test", &format!("book/{lang}")]),
                    ))
                }),
            );
            steps.push(test);
        }
        steps.push((
            "book: every relative link leads to a file (book/links.mjs)",
            Box::new(|| step_result(tools::run(cmd("node").arg("book/links.mjs")))),
        ));
    }
    steps
}

/// The tests of the site's calculator builds, which `cargo test --workspace` (every feature on)
/// does not compile: vramfit's refusals of what those builds leave out (`tests/left_out.rs`) and
/// the site crate's own tests, each built as `cargo xtask dist` builds the calculator of one
/// language (`--no-default-features --features en`, or `zh`).
fn calculator_shape() -> Outcome {
    let mut total = Outcome {
        passed: 0,
        failed: 0,
        why: Vec::new(),
    };
    for lang in ["en", "zh"] {
        let estimator = format!("serde,{lang},own-float-text");
        let runs = [
            cargo_tests(
                cargo()
                    .args(["test", "-p", "vramfit", "--test", "left_out"])
                    .args(["--no-default-features", "--features", &estimator]),
            ),
            cargo_tests(cargo().args(["test", "-p", "vramfit-web", "--lib"]).args([
                "--no-default-features",
                "--features",
                lang,
            ])),
        ];
        for o in runs {
            total.passed += o.passed;
            total.failed += o.failed;
            total.why.extend(o.why);
        }
    }
    total
}

/// Runs every step and prints the tally.
pub fn run() -> Result {
    // The browser tests are part of the suite: without a browser, stop now and say how to get
    // one, rather than skip them or fail an hour later.
    tools::ensure_chromium()?;
    let started = Instant::now();
    let mut report = Vec::new();
    let mut why = Vec::new();
    let (mut passed, mut failed) = (0, 0);
    for (name, step) in steps() {
        eprintln!("\n==> {name}");
        let t = Instant::now();
        let o = step();
        let secs = t.elapsed().as_secs_f64();
        let mark = if o.failed == 0 { "ok  " } else { "FAIL" };
        report.push(format!(
            "{mark} {name}: {} passed, {} failed ({secs:.0} s)",
            o.passed, o.failed
        ));
        passed += o.passed;
        failed += o.failed;
        why.extend(reasons(name, o));
    }
    println!("\nsummary ({:.0} s):", started.elapsed().as_secs_f64());
    for line in &report {
        println!("  {line}");
    }
    // The reasons come last, next to the tally: CI keeps only the end of a long log.
    if !why.is_empty() {
        println!("failures and warnings:");
        for line in &why {
            println!("  {line}");
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        Ok(())
    } else {
        Err(format!("{failed} failed"))
    }
}

/// The summary's lines for one step: a failed step's reasons, or what a passed one warns of
/// (a test that passed on a retry), at most [`WHY_LINES`] of them under the step's name.
fn reasons(name: &str, o: Outcome) -> Vec<String> {
    if o.why.is_empty() && o.failed == 0 {
        return Vec::new();
    }
    let more = o.why.len().saturating_sub(WHY_LINES);
    let mut out = vec![format!("{name}:")];
    out.extend(o.why.into_iter().take(WHY_LINES).map(|l| format!("  {l}")));
    if more > 0 {
        out.push(format!("  … {more} more lines above, under ==> {name}"));
    }
    out
}

fn step_result(r: Result) -> Outcome {
    let mut o = Outcome::one(r.is_ok());
    if let Err(e) = r {
        eprintln!("{e}");
        o.why = e.lines().map(str::to_owned).collect();
    }
    o
}

fn plain(c: &mut Command) -> Outcome {
    step_result(tools::run(c))
}

/// Runs a `cargo test` command, echoing its output and counting its `test result:` lines.
/// A run that fails without a failing test (a build error) counts as one failure.
fn cargo_tests(c: &mut Command) -> Outcome {
    let (mut passed, mut failed) = (0, 0);
    let mut why = Vec::new();
    let status = tools::run_echoing(c, |line| {
        if let Some((p, f)) = parse_test_result(line) {
            passed += p;
            failed += f;
        }
        // `test estimate::tests::kv ... FAILED`
        if line.starts_with("test ") && line.ends_with(" FAILED") {
            why.push(line.to_owned());
        }
    });
    let ok = match status {
        Ok(s) => s.success(),
        Err(e) => {
            eprintln!("{e}");
            false
        }
    };
    if !ok && failed == 0 {
        failed = 1;
        why.push(format!(
            "`{}` failed before any test failed (a build error?)",
            show(c)
        ));
    }
    Outcome {
        passed,
        failed,
        why,
    }
}

/// The `#[wasm_bindgen_test]` functions in `crates/vramfit-wasm` (its `src/` and `tests/`).
fn wasm_bindgen_tests() -> usize {
    let dir = root().join("crates/vramfit-wasm");
    [dir.join("src"), dir.join("tests")]
        .iter()
        .flat_map(|d| crate::size::files(d))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            std::fs::read_to_string(&p)
                .map(|t| count_wasm_bindgen_tests(&t))
                .unwrap_or(0)
        })
        .sum()
}

/// Lines that are exactly a `#[wasm_bindgen_test]` attribute.
fn count_wasm_bindgen_tests(source: &str) -> usize {
    source
        .lines()
        .filter(|l| l.trim() == "#[wasm_bindgen_test]")
        .count()
}

/// A test step's outcome, failed as well when fewer than `expected` tests passed (and at
/// least one is expected): a step that silently ran nothing is not a pass.
fn at_least(o: Outcome, expected: usize, what: &str) -> Outcome {
    if o.passed < expected.max(1) {
        let short = format!(
            "{} {what} passed, but the sources declare {expected}: the tests did not all run",
            o.passed
        );
        eprintln!("{short}");
        let mut why = o.why;
        why.push(short);
        Outcome {
            passed: o.passed,
            failed: o.failed.max(1),
            why,
        }
    } else {
        o
    }
}

/// `test result: ok. 12 passed; 0 failed; 0 ignored; …` → (12, 0).
fn parse_test_result(line: &str) -> Option<(usize, usize)> {
    let rest = line.trim().strip_prefix("test result: ")?;
    let count = |word: &str| {
        rest.split(';')
            .find_map(|part| {
                part.trim()
                    .trim_start_matches("ok.")
                    .trim_start_matches("FAILED.")
                    .trim()
                    .strip_suffix(word)
            })
            .and_then(|n| n.trim().parse::<usize>().ok())
    };
    Some((count("passed")?, count("failed")?))
}

/// Serves `dist/` under `/vramfit/` (as GitHub Pages does) on a free loopback port and runs
/// `tests/e2e/run.mjs` against it. The test compares the page's numbers with the CLI's, so
/// the CLI is built first. Returns what the run reported of tests that passed only on a second
/// try (`FLAKY`); an error holds the failures (`FAIL`).
pub fn e2e(filter: Option<&str>) -> Result<Vec<String>> {
    tools::ensure_chromium()?;
    tools::run(cargo().args(["build", "-p", "vramfit-cli"]))?;
    let (listener, addr) = http::bind(0)?;
    http::spawn(listener, site::dist_dir(), "/vramfit/");
    let url = format!("http://{addr}/vramfit/");
    eprintln!("serving dist/ at {url}");
    // The mock hub that the hub lookup's tests (tests/e2e/hub.mjs) answer the page's requests from.
    let hub = vramfit_mock_hub::MockHub::start();
    tools::run_reporting(
        cmd("node")
            .arg("tests/e2e/run.mjs")
            .args(filter)
            .env("VRAMFIT_URL", &url)
            .env("VRAMFIT_HUB_URL", hub.url())
            .env("VRAMFIT_CLI", root().join("target/debug/vramfit"))
            .env("CHROMIUM", CHROMIUM),
        |l| l.starts_with("FAIL ") || l.starts_with("FLAKY "),
    )
}

#[cfg(test)]
mod tests {
    use super::{
        Outcome, WHY_LINES, at_least, count_wasm_bindgen_tests, parse_test_result, reasons,
        step_result,
    };

    #[test]
    fn the_summary_repeats_why_a_step_failed() {
        let failed = step_result(Err(
            "`node run.mjs` failed (exit status: 1)\n  FAIL a test\n    its reason".into(),
        ));
        assert_eq!((failed.passed, failed.failed), (0, 1));
        assert_eq!(
            reasons("e2e", failed),
            [
                "e2e:",
                "  `node run.mjs` failed (exit status: 1)",
                "    FAIL a test",
                "      its reason"
            ]
        );
        // A passed step with nothing to say says nothing; one that warns is shown.
        assert!(reasons("fmt", step_result(Ok(()))).is_empty());
        let warned = Outcome {
            why: vec!["FLAKY a test: passed on its second try".into()],
            ..Outcome::one(true)
        };
        assert_eq!(
            reasons("e2e", warned),
            ["e2e:", "  FLAKY a test: passed on its second try"]
        );
        // Long reasons are cut, saying where the rest is.
        let long = Outcome {
            why: (0..WHY_LINES + 5).map(|i| format!("line {i}")).collect(),
            ..Outcome::one(false)
        };
        let r = reasons("npm", long);
        assert_eq!(r.len(), 1 + WHY_LINES + 1);
        assert_eq!(r[WHY_LINES + 1], "  … 5 more lines above, under ==> npm");
    }

    #[test]
    fn a_step_that_ran_no_test_fails() {
        let ran = |passed, failed| Outcome {
            passed,
            failed,
            why: Vec::new(),
        };
        let o = at_least(ran(0, 0), 10, "wasm-bindgen tests");
        assert_eq!((o.passed, o.failed), (0, 1));
        let o = at_least(ran(9, 0), 10, "wasm-bindgen tests");
        assert_eq!((o.passed, o.failed), (9, 1));
        let o = at_least(ran(10, 0), 10, "wasm-bindgen tests");
        assert_eq!((o.passed, o.failed), (10, 0));
        // Nothing declared still expects one test to have run.
        let o = at_least(ran(0, 0), 0, "wasm-bindgen tests");
        assert_eq!(o.failed, 1);
        // Failures are kept as counted.
        let o = at_least(ran(3, 2), 10, "wasm-bindgen tests");
        assert_eq!((o.passed, o.failed), (3, 2));
        assert_eq!(
            count_wasm_bindgen_tests(
                "#[wasm_bindgen_test]\nfn a() {}\n    #[wasm_bindgen_test]\nfn b() {}\n// #[wasm_bindgen_test] in a comment\nwasm_bindgen_test_configure!(run_in_browser);"
            ),
            2
        );
    }

    #[test]
    fn the_wasm_crate_declares_its_browser_tests() {
        assert!(super::wasm_bindgen_tests() >= 10);
    }

    #[test]
    fn reads_cargo_test_result_lines() {
        assert_eq!(
            parse_test_result(
                "test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s"
            ),
            Some((12, 0))
        );
        assert_eq!(
            parse_test_result(
                "test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out"
            ),
            Some((3, 2))
        );
        assert_eq!(parse_test_result("running 3 tests"), None);
    }
}
