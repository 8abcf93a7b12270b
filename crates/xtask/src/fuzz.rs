//! `cargo xtask fuzz [SECONDS]`: runs every cargo-fuzz target of `fuzz/` for SECONDS each
//! (20 by default, as `cargo xtask test` does; an hour each is a real campaign).
//!
//! There is no nightly toolchain on these machines: cargo-fuzz passes `-Z` flags to rustc, and
//! `RUSTC_BOOTSTRAP=1` lets the stable compiler accept them. The targets are built without a
//! sanitizer (`-s none`: the estimator forbids `unsafe`, and it runs several times faster) but
//! with debug assertions (`-a`), so that an arithmetic overflow is a crash, not a wrong number.
//!
//! A crash leaves its input under `fuzz/artifacts/<target>/`; it becomes a case in
//! `crates/vramfit/tests/hostile.rs`.

use crate::tools::{self, cargo};
use crate::{Result, root};

/// The targets, each with the committed inputs that seed it (read-only: libFuzzer writes what
/// it finds to `fuzz/corpus/<target>/`, which git ignores).
pub const TARGETS: [(&str, &[&str]); 17] = [
    ("diagnose", &["tests/corpus/diagnose"]),
    ("config_json", &["crates/vramfit/tests/corpus/configs"]),
    ("safetensors", &["fuzz/seeds/safetensors"]),
    ("gguf", &["fuzz/seeds/gguf"]),
    // The seed is an input the fuzzer found overflowing the activations' formula (2026-12-07).
    ("estimate_input", &["fuzz/seeds/estimate_input"]),
    ("url_state", &[]),
    ("training_config", &["fuzz/seeds/training_config"]),
    // Each stack's reader alone, on every reader's seed file.
    ("config_trainer", &["fuzz/seeds/training_config"]),
    ("config_trl", &["fuzz/seeds/training_config"]),
    ("config_deepspeed", &["fuzz/seeds/training_config"]),
    ("config_torchtune", &["fuzz/seeds/training_config"]),
    ("config_llamafactory", &["fuzz/seeds/training_config"]),
    ("config_axolotl", &["fuzz/seeds/training_config"]),
    ("config_accelerate", &["fuzz/seeds/training_config"]),
    ("config_verl", &["fuzz/seeds/training_config"]),
    ("hub_address", &[]),
    ("ollama_manifest", &[]),
];

/// Installs cargo-fuzz from crates.io when it is missing (about 2 minutes of CPU).
fn ensure_cargo_fuzz() -> Result {
    if tools::output(cargo().args(["fuzz", "--version"])).is_some() {
        return Ok(());
    }
    tools::run(cargo().args(["install", "cargo-fuzz", "--version", "^0.13"]))
}

/// Builds every target, then runs each for `seconds`.
pub fn fuzz(seconds: u64) -> Result {
    ensure_cargo_fuzz()?;
    let fuzz_dir = root().join("fuzz");
    tools::run(
        cargo()
            .current_dir(&fuzz_dir)
            .args(["fuzz", "build", "-s", "none", "-a"])
            .env("RUSTC_BOOTSTRAP", "1"),
    )?;
    let mut crashed = Vec::new();
    for (target, seeds) in TARGETS {
        let corpus = fuzz_dir.join("corpus").join(target);
        std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
        let mut c = cargo();
        c.current_dir(&fuzz_dir)
            .args(["fuzz", "run", "-s", "none", "-a", target])
            .arg(&corpus)
            .args(seeds.iter().map(|s| root().join(s)).filter(|p| p.is_dir()))
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            // Pastes are read up to their last 4 MiB; 64 KiB inputs reach every parser's loops.
            .arg("-max_len=65536")
            .arg("-rss_limit_mb=2048")
            .arg("-timeout=10")
            .arg("-print_final_stats=1")
            .env("RUSTC_BOOTSTRAP", "1");
        eprintln!("\n--> fuzz {target} for {seconds} s");
        if let Err(e) = tools::run(&mut c) {
            eprintln!("{e}");
            crashed.push(target);
        }
    }
    if crashed.is_empty() {
        println!(
            "fuzz: {} targets, {seconds} s each, no crash",
            TARGETS.len()
        );
        Ok(())
    } else {
        Err(format!(
            "fuzz: {} crashed ({}); the inputs are under fuzz/artifacts/<target>/ — add each as a \
             case to crates/vramfit/tests/hostile.rs",
            crashed.len(),
            crashed.join(", ")
        ))
    }
}

/// `cargo xtask fuzz [SECONDS]`.
pub fn main(args: &[String]) -> Result {
    let seconds = match args {
        [] => 20,
        [s] => s
            .parse()
            .map_err(|_| format!("fuzz takes a number of seconds per target, not `{s}`"))?,
        _ => return Err(format!("unexpected arguments: {}", args.join(" "))),
    };
    fuzz(seconds)
}
