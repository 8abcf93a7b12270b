//! `vramfit estimate`'s report as text: the table of components with their formulas, the
//! speed with its working, the solvers' answers in words.

use std::fmt::Write as _;

use vramfit::Bytes;
use vramfit::estimate::{Estimate, EstimateInput, Solutions};

/// The solvers' answers in words: each with what bounds it, and the changes that make the run
/// fit when it does not.
pub fn solutions_text(sol: &Solutions, input: &EstimateInput) -> String {
    use vramfit::estimate::{Bound, Context, LayerOffload, thousands};
    let rules = input.runner().rules();
    let shared = matches!(rules.context, Context::Shared { .. });
    let batch = match (sol.max_batch, sol.batch_bound) {
        (Some(b), Some(Bound::SharedContext)) => format!(
            "{} (the sequences of prompt and output that the context holds; the memory holds more)",
            thousands(b)
        ),
        (Some(b), _) => thousands(b),
        (None, _) => String::from("none"),
    };
    let context_name = match rules.context {
        Context::PerSequence { setting } if setting == "max_model_len" => setting.to_string(),
        Context::PerSequence { setting } => format!("{setting} (--max-model-len)"),
        Context::Shared { setting } => format!("context ({setting}, max_model_len)"),
        Context::Sequence | Context::Prompt => String::from("sequence"),
    };
    let context = match (sol.max_context, sol.context_bound) {
        (Some(c), Some(Bound::TrainedContext)) => format!(
            "{} (the model's trained context{}; the memory holds more)",
            thousands(c),
            if shared { " for each sequence" } else { "" }
        ),
        // Ollama offloads layers to the CPU rather than fail: its largest context is the one
        // that keeps every layer on the GPU.
        (Some(c), _) if rules.offload == LayerOffload::EngineDecides => {
            format!("{} (every layer on the GPU)", thousands(c))
        }
        (Some(c), _) => thousands(c),
        (None, _) => String::from("none"),
    };
    let cards = match sol.min_gpus {
        Some(n) if rules.offload.splits_layers() && n > 1 => {
            format!("{n} ({} splits the layers over them)", rules.name)
        }
        Some(n) => thousands(n),
        None => String::from("none up to 64"),
    };
    let mut s = format!(
        "On this card: largest batch {batch}, largest {context_name} {context}, fewest cards {cards}.\n"
    );
    if !sol.fixes.is_empty() {
        let _ = writeln!(s, "It does not fit; each of these alone makes it fit:");
        for f in &sol.fixes {
            let flag = format!("--{}", f.field.replace('_', "-"));
            let _ = writeln!(
                s,
                "  {flag} {}: needs {}",
                f.value,
                gib(f.required_bytes).trim()
            );
        }
    }
    s
}

/// The speed lines of the report: each figure with its working.
fn speed_text(t: &vramfit::estimate::Throughput) -> String {
    let mut s = String::new();
    let lines = [
        (
            "prefill",
            t.prefill_tokens_per_s.map(|x| format!("{x:.0} tokens/s")),
            "prefill_tokens_per_s",
        ),
        (
            "first token",
            t.time_to_first_token_s.map(seconds),
            "time_to_first_token_s",
        ),
        (
            "decode, a sequence",
            t.decode_tokens_per_s_per_sequence
                .map(|x| format!("{x:.1} tokens/s")),
            "decode_tokens_per_s_per_sequence",
        ),
        (
            "decode, batch",
            t.decode_tokens_per_s.map(|x| format!("{x:.1} tokens/s")),
            "decode_tokens_per_s",
        ),
        ("generation", t.generation_s.map(seconds), "generation_s"),
        (
            "decode, drafting",
            t.speculative_decode_tokens_per_s
                .map(|x| format!("{x:.1} tokens/s")),
            "speculative_decode_tokens_per_s",
        ),
        ("step time", t.step_time_s.map(seconds), "step_time_s"),
        (
            "training",
            t.tokens_per_s.map(|x| format!("{x:.0} tokens/s")),
            "tokens_per_s",
        ),
    ];
    for (name, value, key) in lines {
        let Some(value) = value else { continue };
        let working = t
            .formulas
            .iter()
            .find(|f| f.key == key)
            .map_or("", |f| f.en.as_str());
        let _ = writeln!(s, "  {name:<20}{value:>14}  {working}");
    }
    s
}

/// Seconds in the unit that reads best: ms under a second, s under an hour, h above.
fn seconds(x: f64) -> String {
    if x < 1.0 {
        format!("{:.1} ms", x * 1e3)
    } else if x < 3600.0 {
        format!("{x:.2} s")
    } else {
        format!("{:.2} h", x / 3600.0)
    }
}

/// The GPUs the figures are for: `per GPU × 2`, or, where Ollama loads the model on one GPU of
/// several, that one (`on one GPU (rtx-4090) of the 2 given: Ollama loads it there alone, the
/// other idle`).
fn gpus_text(e: &Estimate) -> String {
    match e.ollama.as_ref().and_then(|o| o.loaded_on.as_deref()) {
        Some(card) if e.gpus > 1 => {
            let others = if e.gpus == 2 {
                "the other idle"
            } else {
                "the others idle"
            };
            format!(
                "on one GPU ({card}) of the {} given: Ollama loads it there alone, {others}",
                e.gpus
            )
        }
        _ => format!("per GPU × {}", e.gpus),
    }
}

/// Ollama loads the model on one GPU of several.
fn one_of_several(e: &Estimate) -> bool {
    e.gpus > 1 && e.ollama.as_ref().is_some_and(|o| o.loaded_on.is_some())
}

fn gib(b: Bytes) -> String {
    format!("{:>10.2} GiB", b.as_gib())
}

/// The readable report: components with their formulas, totals, the quick estimate and the reasons they differ.
pub fn table(e: &Estimate) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} — {} parameters ({} active), {}",
        e.model,
        vramfit::estimate::thousands(e.params),
        vramfit::estimate::thousands(e.active_params),
        gpus_text(e)
    );
    let _ = writeln!(s);
    for c in &e.components {
        let off = !c.key.at_peak;
        let key = c.key.kind.name();
        let _ = writeln!(
            s,
            "  {:<20}{}{}  {}",
            key,
            gib(c.bytes),
            if off { " (not at peak)" } else { "" },
            c.formula
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "  {:<20}{}  ({}, at {})",
        "peak allocated",
        gib(e.peak_allocated_bytes),
        e.peak_source.describe(),
        e.peak_phase.describe()
    );
    step_lines(&mut s, e);
    let _ = writeln!(
        s,
        "  {:<20}{}  ({} MiB, as nvidia-smi shows it)",
        "total",
        gib(e.total_bytes),
        vramfit::estimate::thousands(e.total_bytes.get().div_ceil(1 << 20))
    );
    let _ = writeln!(
        s,
        "  {:<20}{}  ({:.2} GB: 1.2 × (M_theory + 2 GB))",
        "recommended",
        gib(e.recommended_bytes),
        e.recommended_bytes.as_gb()
    );
    if let (Some(t), Some(c)) = (e.kv_cache_tokens, e.max_concurrency_exact) {
        let _ = writeln!(
            s,
            "  {:<20}{:>14}  tokens in the KV pool; {:.2} sequences of max_model_len at once",
            "kv cache tokens",
            vramfit::estimate::thousands(t),
            c
        );
    }
    if let Some(o) = &e.ollama {
        let split = match o.cpu_percent {
            0 => String::from("100% GPU"),
            100 => String::from("100% CPU"),
            c => format!("{c}%/{}% CPU/GPU", 100 - c),
        };
        let _ = writeln!(
            s,
            "  {:<20}{:>14}  of {} layers on the GPU (ollama ps: {split}; context {} tokens)",
            "ollama offload",
            o.gpu_layers,
            o.model_layers,
            vramfit::estimate::thousands(o.context)
        );
    }
    if let Some(t) = &e.throughput {
        let _ = write!(s, "{}", speed_text(t));
    }
    if e.cpu_bytes.get() > 0 {
        let _ = writeln!(
            s,
            "  {:<20}{}  in CPU memory (offloaded)",
            "cpu",
            gib(e.cpu_bytes)
        );
    }
    if e.nvme_bytes.get() > 0 {
        let _ = writeln!(
            s,
            "  {:<20}{}  on the NVMe drive (offloaded)",
            "nvme",
            gib(e.nvme_bytes)
        );
    }
    if let Some(f) = &e.fit {
        let verdict = if let Some(r) = &f.reason {
            format!("does NOT fit: {}", r.en)
        } else if f.fits && one_of_several(e) {
            format!(
                "fits on the one GPU Ollama uses, {} free",
                f.headroom_bytes.display_gib()
            )
        } else if f.fits {
            format!("fits, {} free", f.headroom_bytes.display_gib())
        } else {
            format!("does NOT fit: {} short", f.shortfall_bytes.display_gib())
        };
        // With memory already in use, the card's memory and what is free of it, which the
        // verdict is said against.
        let memory = if f.in_use_bytes.get() > 0 {
            format!(
                "{} ({} in use, {} free before the run)",
                gib(f.memory_bytes),
                f.in_use_bytes.display_gib(),
                f.memory_bytes.minus(f.in_use_bytes).display_gib()
            )
        } else {
            gib(f.memory_bytes)
        };
        let _ = writeln!(s, "  {:<20}{memory}  {verdict}", f.gpu);
    }
    // llama.cpp over several cards: each card's share against its own memory.
    for (i, c) in e.cards.iter().enumerate() {
        let output = if c.output_layer { " + output" } else { "" };
        let verdict = if c.fits {
            format!("{} free", c.headroom_bytes.display_gib())
        } else {
            format!("{} short", c.shortfall_bytes.display_gib())
        };
        let limits = if c.limits { ", limits" } else { "" };
        let _ = writeln!(
            s,
            "  CUDA{i} {:<14}{} of {}  {} blocks{output}: weights {}, KV {}, compute {}; {verdict}{limits}",
            c.gpu,
            gib(c.used_bytes),
            c.memory_bytes.display_gib(),
            c.layers,
            c.weights_bytes.display_gib(),
            c.kv_cache_bytes.display_gib(),
            c.compute_bytes.display_gib(),
        );
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "Guide's quick estimate: {}", e.quick.formula);
    for d in &e.differences {
        let _ = writeln!(s, "  - {}", d.en);
    }
    for n in &e.notes {
        let _ = writeln!(s, "  note: {}", n.en);
    }
    s
}

/// The run's moments under the peak (a training step's, an inference's, a serving engine's
/// start-up): each one's total and words, the peak named.
fn step_lines(s: &mut String, e: &Estimate) {
    for m in &e.step {
        let peak = if m.phase == e.peak_phase {
            ", the peak"
        } else {
            ""
        };
        let words = if m.en.is_empty() {
            m.phase.describe()
        } else {
            &m.en
        };
        let _ = writeln!(s, "  {:<20}{}  (moment: {words}{peak})", "", gib(m.bytes));
    }
}
