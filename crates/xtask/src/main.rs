//! `cargo xtask`: the commands CI runs, and nothing else.
//!
//! Few dependencies on purpose, all pure Rust: `zopfli` (it precompresses the site's modules),
//! `wasmparser` and `wasm-encoder` (they rewrite each module in an order that compresses better,
//! `reorder`). It must build in seconds on a fresh machine, before anything else is installed,
//! and then install what the build needs.
//!
//! - `cargo xtask dist` builds the site into `dist/` (installing missing tools first);
//! - `cargo xtask serve [--port 8080]` builds, serves `dist/` and rebuilds on change;
//! - `cargo xtask test` runs every check CI runs and ends with `N passed, N failed`;
//! - `cargo xtask npm` builds the npm package.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod bench;
mod fuzz;
mod http;
mod npm;
mod reorder;
mod site;
mod size;
mod test;
mod tools;

/// What a command reports when it fails: a sentence for a person.
pub type Result<T = ()> = std::result::Result<T, String>;

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  dist [--book] [--base /vramfit/]
                        build the site into dist/ (installs missing tools first); --book adds
                        the books under dist/book/ (BASE: the site's path, for mdBook's 404 page)
  serve [--port PORT] [--release]
                        build, serve dist/ on http://127.0.0.1:PORT/ (default 8080), rebuild on
                        change in seconds (a quick unoptimised build; --release: the shipped one)
  test                  run every check CI runs; ends with `N passed, N failed`
  e2e [FILTER]          build dist/ and run only the end-to-end tests (those whose name has FILTER)
  npm                   build the npm package
  size [--ceilings]     sizes of dist/ and target/npm/ (raw, gzip) against budgets (with
                        --ceilings, also against the regression ceilings the test suite enforces); no eval; CSP
  bench [--full]        builds the npm package and dist/, then benchmarks (native, wasm under Node, the page) → book/generated/performance.md
  bench --page          only the page's timings (first result on screen, unthrottled and on a
                        throttled 10 Mbit/s, 40 ms link with the CPU 4x slower; re-render) of
                        dist/ as built, printed (VRAMFIT_PAGE_RUNS loads a median, default 3)
  fuzz [SECONDS]        run each fuzz target for SECONDS (default 20)
  parity                native against the npm package on 1000 estimates, in Node and in Chromium
  book-data             regenerate the book's tables in book/generated/ from vramfit and the reference data
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("dist") => site::dist_command(&args[1..]),
        Some("serve") => {
            let release = args.iter().any(|a| a == "--release");
            let rest: Vec<String> = args[1..]
                .iter()
                .filter(|a| *a != "--release")
                .cloned()
                .collect();
            parse_port(&rest).and_then(|port| site::serve(port, release))
        }
        Some("test") => test::run(),
        Some("e2e") => site::dist()
            .and_then(|_| site::book("/vramfit/"))
            .and_then(|()| test::e2e(args.get(1).map(String::as_str)).map(drop)),
        Some("npm") => npm::npm(),
        Some("size") if args.get(1).map(String::as_str) == Some("--ceilings") => size::guard(),
        Some("size") => size::size(),
        Some("bench") => bench::main(&args[1..]),
        Some("fuzz") => fuzz::main(&args[1..]),
        Some("parity") => bench::parity(),
        Some("book-data") => book_data(),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            Ok(())
        }
        _ => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_port(args: &[String]) -> Result<u16> {
    match args {
        [] => Ok(8080),
        [flag, port] if flag == "--port" => port
            .parse()
            .map_err(|_| format!("--port takes a number from 0 to 65535, not `{port}`")),
        [flag] if flag.starts_with("--port=") => {
            let port = &flag["--port=".len()..];
            port.parse()
                .map_err(|_| format!("--port takes a number from 0 to 65535, not `{port}`"))
        }
        _ => Err(format!("unexpected arguments: {}\n{USAGE}", args.join(" "))),
    }
}

/// The workspace root (the folder above `crates/xtask`).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/xtask sits two levels below the workspace root")
        .to_path_buf()
}

/// Regenerates `book/generated/*.md`: the freshness test rewrites stale files and fails once, so
/// it runs twice and only the second run must pass.
fn book_data() -> Result {
    let run = || {
        std::process::Command::new(env!("CARGO"))
            .args([
                "test",
                "-q",
                "-p",
                "vramfit-tests",
                "--test",
                "it",
                "book_data",
            ])
            .current_dir(root())
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))
    };
    run()?;
    if run()?.success() {
        Ok(())
    } else {
        Err(String::from("book tables could not be generated"))
    }
}
