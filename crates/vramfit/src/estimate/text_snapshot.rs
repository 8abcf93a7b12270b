//! The estimates held to readable snapshots, and the numbers-only estimate held to the full one.
//!
//! `Workload::figures` builds no text; `Workload::estimate` builds it only when asked, through
//! the same code. Two checks keep that honest over every run shape of `formula_zh`'s list
//! (about 1,600 inputs):
//!
//! - every estimate reads as its block in `tests/snapshots/<group>.txt` (one file per engine and
//!   mode, the blocks in the list's order): a header with the run shape's place in the list and
//!   its input, then every figure of the estimate, one per line, in exact bytes (and in KiB, MiB
//!   or GiB for reading), and a last line `text <digest>`, the FNV-1a digest of all its text
//!   (formulas, notes, differences, in both languages). A failure lists the changed blocks with
//!   their lines that went and came: a number's change as the line of that figure, a change of
//!   wording as the `text` line. `UPDATE_EXPECT=1 cargo test -p vramfit --lib text_snapshot`
//!   writes the files again after a deliberate change (expect-test's `expect_file!`);
//! - the numbers-only estimate equals the full one with its text removed.

use super::run_shapes::run_shapes;
use super::{Engine, Estimate, EstimateInput, Mode, within_reach};
use crate::units::Bytes;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;

/// FNV-1a, 64 bits: a stable digest of a text.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The snapshot files, each with the run shapes it holds.
const GROUPS: [&str; 9] = [
    "hf-inference",
    "training",
    "vllm",
    "sglang",
    "llamacpp",
    "ollama",
    "trtllm",
    "mlx",
    "other",
];

/// The file a run shape's block is in: by its input alone, so that a run shape keeps its file
/// whatever its estimate becomes (an error included).
fn group(input: &EstimateInput) -> &'static str {
    match (input.run.mode, input.run.engine) {
        (Mode::Training, _) => "training",
        (Mode::Inference, Engine::Hf) => "hf-inference",
        (_, Engine::Vllm) => "vllm",
        (_, Engine::Sglang) => "sglang",
        (_, Engine::Llamacpp) => "llamacpp",
        (_, Engine::Ollama) => "ollama",
        (_, Engine::Trtllm) => "trtllm",
        (_, Engine::Mlx) => "mlx",
        _ => "other",
    }
}

/// The header of a run shape's block: its place in the list, what it estimates, and every input
/// that differs from the default (as JSON, by field name).
fn header(i: usize, input: &EstimateInput) -> String {
    let mut h = format!(
        "#{i} {} {:?} {:?} {:?} gpu={} tp={} pp={}",
        input
            .model
            .model
            .as_deref()
            .or(input.model.params.as_deref())
            .unwrap_or("arch"),
        input.run.mode,
        input.run.engine,
        input.model.quantization,
        input.hardware.gpu.as_deref().unwrap_or("-"),
        input.placement.tp,
        input.placement.pp,
    );
    let shown = [
        "model",
        "params",
        "mode",
        "engine",
        "quantization",
        "gpu",
        "tp",
        "pp",
    ];
    let json = |x: &EstimateInput| serde_json::to_value(x).expect("an input is JSON");
    let (serde_json::Value::Object(given), serde_json::Value::Object(default)) =
        (json(input), json(&EstimateInput::default()))
    else {
        panic!("an input is a JSON object")
    };
    for (key, value) in &given {
        if !shown.contains(&key.as_str()) && default.get(key) != Some(value) {
            let _ = write!(h, " {key}={value}");
        }
    }
    h
}

/// `b` bytes, exact and in a binary unit for reading (written here, not by `units`, so that the
/// snapshot holds the estimator's numbers alone).
fn size(b: Bytes) -> String {
    let n = b.get();
    let (x, unit) = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)]
        .into_iter()
        .find(|(_, shift)| n >= 1 << shift)
        .map_or((n as f64, "B"), |(unit, shift)| {
            (n as f64 / (1u64 << shift) as f64, unit)
        });
    if unit == "B" {
        format!("{n} ({n} B)")
    } else {
        format!("{n} ({x:.2} {unit})")
    }
}

/// An optional figure, `-` when absent.
fn opt<T: core::fmt::Display>(x: Option<T>) -> String {
    x.map_or_else(|| "-".to_string(), |x| x.to_string())
}

/// A block being written: its lines, and every text of the estimate in order (hashed as one
/// JSON array at the end).
struct Writer<'e> {
    lines: String,
    text: Vec<&'e str>,
}

impl<'e> Writer<'e> {
    fn line(&mut self, s: String) {
        self.lines.push_str("  ");
        self.lines.push_str(&s);
        self.lines.push('\n');
    }

    /// One line per part, indented deeper than the estimate's other figures.
    fn components(&mut self, components: &'e [super::Component]) {
        for c in components {
            let super::Component {
                key,
                bytes,
                torch,
                formula,
                formula_zh,
                note_en,
                note_zh,
            } = c;
            let place = if *torch { "torch" } else { "outside" };
            self.line(format!("  {key} {} {place}", size(*bytes)));
            self.text
                .extend([formula, formula_zh, note_en, note_zh].map(String::as_str));
        }
    }

    /// The estimate's sizes by kind that are not already a part's line (weights, kv_cache, …).
    fn sums(
        &mut self,
        components: &[super::Component],
        sums: [(&str, Option<super::ComponentKind>, Bytes); 8],
    ) {
        let mut line = String::from("sums");
        for (name, kind, bytes) in sums {
            let part = kind.and_then(|k| {
                let key = super::ComponentKey::at_peak(k);
                components.iter().find(|c| c.key == key)
            });
            if part.map_or(Bytes::ZERO, |c| c.bytes) != bytes {
                let _ = write!(line, " {name}={}", bytes.get());
            }
        }
        if line != "sums" {
            self.line(line);
        }
    }

    fn fit(&mut self, f: &'e super::Fit) {
        let super::Fit {
            gpu,
            memory_bytes,
            in_use_bytes,
            fits,
            headroom_bytes,
            shortfall_bytes,
            reason,
        } = f;
        // Memory in use is written only where a shape sets it: the shapes before it unchanged.
        if *in_use_bytes != crate::units::Bytes::ZERO {
            self.line(format!("in-use {}", in_use_bytes.get()));
        }
        self.line(format!(
            "fit {} on {gpu} of {} headroom={} shortfall={} reason={}",
            if *fits { "fits" } else { "does-not-fit" },
            memory_bytes.get(),
            headroom_bytes.get(),
            shortfall_bytes.get(),
            reason.as_ref().map_or("-", |r| r.key.as_str()),
        ));
        if let Some(r) = reason {
            self.text.extend([r.en.as_str(), r.zh.as_str()]);
        }
    }

    fn ollama(&mut self, o: &super::OllamaLoad) {
        let super::OllamaLoad {
            gpu_layers,
            requested_layers,
            model_layers,
            vram_bytes,
            total_bytes,
            cpu_percent,
            kv_bytes,
            graph_bytes,
            context,
            loaded_on,
        } = o;
        self.line(format!(
            "ollama layers={gpu_layers}/{model_layers} requested={requested_layers} \
             cpu={cpu_percent}% context={context}"
        ));
        self.line(format!(
            "ollama vram={} total={} kv={} graph={}",
            vram_bytes.get(),
            total_bytes.get(),
            kv_bytes.get(),
            graph_bytes.get()
        ));
        if let Some(card) = loaded_on {
            self.line(format!("ollama loaded_on={card}"));
        }
    }

    fn quick(&mut self, quick: &'e super::Quick) {
        let super::Quick {
            weights_bytes,
            kv_cache_bytes,
            activations_bytes,
            gradients_bytes,
            optimizer_bytes,
            theory_bytes,
            components_sum_bytes,
            recommended_bytes,
            formula,
            formula_zh,
        } = quick;
        let mut parts = String::from("quick");
        for (name, bytes) in [
            ("weights", weights_bytes),
            ("kv_cache", kv_cache_bytes),
            ("activations", activations_bytes),
            ("gradients", gradients_bytes),
            ("optimizer", optimizer_bytes),
        ] {
            if bytes.get() != 0 {
                let _ = write!(parts, " {name}={}", bytes.get());
            }
        }
        self.line(parts);
        self.line(format!(
            "quick theory={} components_sum={} recommended={}",
            theory_bytes.get(),
            components_sum_bytes.get(),
            recommended_bytes.get()
        ));
        self.text.extend([formula.as_str(), formula_zh.as_str()]);
    }

    fn speed(&mut self, t: &'e super::Throughput) {
        let super::Throughput {
            runtime,
            prefill_tokens_per_s,
            time_to_first_token_s,
            decode_tokens_per_s_per_sequence,
            decode_tokens_per_s,
            generation_s,
            speculative_tokens_per_step,
            speculative_decode_tokens_per_s_per_sequence,
            speculative_decode_tokens_per_s,
            step_time_s,
            tokens_per_s,
            formulas,
        } = t;
        self.line(format!("speed {runtime:?}"));
        for (name, x) in [
            ("prefill_tokens_per_s", prefill_tokens_per_s),
            ("time_to_first_token_s", time_to_first_token_s),
            (
                "decode_tokens_per_s_per_sequence",
                decode_tokens_per_s_per_sequence,
            ),
            ("decode_tokens_per_s", decode_tokens_per_s),
            ("generation_s", generation_s),
            ("speculative_tokens_per_step", speculative_tokens_per_step),
            (
                "speculative_decode_tokens_per_s_per_sequence",
                speculative_decode_tokens_per_s_per_sequence,
            ),
            (
                "speculative_decode_tokens_per_s",
                speculative_decode_tokens_per_s,
            ),
            ("step_time_s", step_time_s),
            ("tokens_per_s", tokens_per_s),
        ] {
            if let Some(x) = x {
                // Rust's shortest text that reads back as the same f64: exact and stable.
                self.line(format!("speed {name} {x}"));
            }
        }
        for f in formulas {
            self.text
                .extend([f.key.as_str(), f.en.as_str(), f.zh.as_str()]);
        }
    }

    /// The notes' and differences' keys on a line each; their words into the text.
    fn keyed(&mut self, name: &str, list: &'e [super::Difference]) {
        if !list.is_empty() {
            let keys: Vec<&str> = list.iter().map(|d| d.key.as_str()).collect();
            self.line(format!("{name} {}", keys.join(" ")));
        }
        for d in list {
            self.text.extend([d.en.as_str(), d.zh.as_str()]);
        }
    }
}

/// The block of one estimate: each figure on a line of its own, the text as one digest.
///
/// Every struct is taken apart without `..`, so a field added to the estimate fails to compile
/// here until the snapshot shows it.
fn block(e: &Estimate, name: &str) -> String {
    let Estimate {
        model,
        params,
        active_params,
        trainable_params,
        weights_bytes,
        kv_cache_bytes,
        activations_bytes,
        gradients_bytes,
        optimizer_bytes,
        temporaries_bytes,
        overhead_bytes,
        allocator_reserve_bytes,
        peak_phase,
        peak_allocated_bytes,
        peak_source,
        total_bytes,
        recommended_bytes,
        required_bytes,
        kv_cache_tokens,
        max_concurrency,
        max_concurrency_exact,
        kv_bytes_per_token,
        cpu_bytes,
        nvme_bytes,
        gpus,
        nodes,
        components,
        quick,
        differences,
        fit,
        throughput,
        notes,
        ollama,
        rl,
        cards,
        step,
    } = e;
    let mut w = Writer {
        lines: String::new(),
        text: Vec::new(),
    };
    let model = if model == name {
        String::new()
    } else {
        format!("model={model} ")
    };
    w.line(format!(
        "{model}params={params} active={active_params} trainable={trainable_params}"
    ));
    w.components(components);
    use super::ComponentKind as K;
    w.sums(
        components,
        [
            ("weights", Some(K::Weights), *weights_bytes),
            ("kv_cache", Some(K::KvCache), *kv_cache_bytes),
            ("activations", Some(K::Activations), *activations_bytes),
            ("gradients", Some(K::Gradients), *gradients_bytes),
            ("optimizer", Some(K::Optimizer), *optimizer_bytes),
            ("temporaries", None, *temporaries_bytes),
            ("overhead", None, *overhead_bytes),
            (
                "allocator_reserve",
                Some(K::AllocatorReserve),
                *allocator_reserve_bytes,
            ),
        ],
    );
    w.line(format!(
        "peak_allocated {} at {peak_phase:?} from {peak_source:?}",
        size(*peak_allocated_bytes)
    ));
    w.line(format!("total {}", size(*total_bytes)));
    w.line(format!("recommended {}", size(*recommended_bytes)));
    w.line(format!("required {}", size(*required_bytes)));
    let mut kv = format!("gpus={gpus} kv_bytes_per_token={kv_bytes_per_token}");
    if *nodes > 1 {
        let _ = write!(kv, " nodes={nodes}");
    }
    if kv_cache_tokens.is_some() || max_concurrency.is_some() || max_concurrency_exact.is_some() {
        let _ = write!(
            kv,
            " kv_cache_tokens={} max_concurrency={} exact={}",
            opt(*kv_cache_tokens),
            opt(*max_concurrency),
            opt(*max_concurrency_exact),
        );
    }
    w.line(kv);
    if cpu_bytes.get() != 0 || nvme_bytes.get() != 0 {
        w.line(format!(
            "offloaded cpu={} nvme={}",
            size(*cpu_bytes),
            size(*nvme_bytes)
        ));
    }
    if let Some(f) = fit {
        w.fit(f);
    }
    if let Some(o) = ollama {
        w.ollama(o);
    }
    for c in cards {
        w.line(format!(
            "card {} layers={} output={} weights {} kv {} compute {} used {} of {} fits={} limits={}",
            c.gpu,
            c.layers,
            c.output_layer,
            size(c.weights_bytes),
            size(c.kv_cache_bytes),
            size(c.compute_bytes),
            size(c.used_bytes),
            size(c.memory_bytes),
            c.fits,
            c.limits
        ));
    }
    for m in step {
        w.line(format!("step {:?} {}", m.phase, size(m.bytes)));
    }
    if let Some(r) = rl {
        w.line(format!(
            "rl {:?} rollout={:?} reference={} reward_and_value={} rollout_phase {} training_phase {} limiting {:?} sequences={} held={} training_sequences={}",
            r.algorithm,
            r.rollout,
            r.reference_model,
            r.reward_and_value_models,
            size(r.rollout_phase_bytes),
            size(r.training_phase_bytes),
            r.limiting_phase,
            r.rollout_sequences,
            opt(r.rollout_sequences_held),
            r.training_sequences,
        ));
    }
    w.quick(quick);
    if let Some(t) = throughput {
        w.speed(t);
    }
    w.keyed("notes", notes);
    w.keyed("differences", differences);
    let texts = serde_json::to_string(&w.text).expect("strings are JSON");
    w.line(format!("text {:016x}", fnv(&texts)));
    w.lines
}

/// A run shape's block: its header, then its estimate's figures or its error.
fn shape_block(i: usize, input: &EstimateInput) -> String {
    let mut b = header(i, input);
    b.push('\n');
    match input.resolve().map(|w| within_reach(w.estimate())) {
        Ok(Ok(e)) => {
            let name = input
                .model
                .model
                .as_deref()
                .or(input.model.params.as_deref());
            b.push_str(&block(&e, name.unwrap_or("arch")));
        }
        Ok(Err(e)) | Err(e) => {
            let _ = writeln!(b, "  error {e}");
        }
    }
    b
}

/// The blocks of a snapshot file, by their header line.
fn blocks(s: &str) -> Vec<(&str, Vec<&str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for l in s.lines() {
        match out.last_mut() {
            Some((_, body)) if l.starts_with("  ") => body.push(l),
            _ => out.push((l, Vec::new())),
        }
    }
    out
}

/// What changed between two snapshot files, block by block: each changed block's header, then
/// its lines that went (`-`) and came (`+`). At most `limit` blocks are shown.
fn changes(want: &str, got: &str, limit: usize) -> (usize, String) {
    let place = |h: &str| h.split(' ').next().unwrap_or("").to_string();
    let (want, got) = (blocks(want), blocks(got));
    let mut out = String::new();
    let mut n = 0;
    let mut show = |out: &mut String, title: String, gone: Vec<&str>, came: Vec<&str>| {
        n += 1;
        if n <= limit {
            let _ = writeln!(out, "{title}");
            for l in gone {
                let _ = writeln!(out, "-{l}");
            }
            for l in came {
                let _ = writeln!(out, "+{l}");
            }
        }
    };
    for (h, body) in &got {
        match want.iter().find(|(w, _)| place(w) == place(h)) {
            None => show(&mut out, format!("{h}   (new)"), Vec::new(), Vec::new()),
            Some((w, old)) if w != h || old != body => {
                let gone = old.iter().filter(|l| !body.contains(l)).copied().collect();
                let came = body.iter().filter(|l| !old.contains(l)).copied().collect();
                let title = if w == h {
                    (*h).to_string()
                } else {
                    format!("{h}\n    (was {w})")
                };
                show(&mut out, title, gone, came);
            }
            _ => {}
        }
    }
    for (w, _) in &want {
        if !got.iter().any(|(h, _)| place(h) == place(w)) {
            show(&mut out, format!("{w}   (gone)"), Vec::new(), Vec::new());
        }
    }
    (n, out)
}

/// The changed run shapes shown per file when the test fails.
const LIMIT: usize = 20;

#[test]
fn every_estimate_reads_as_the_snapshot() {
    let mut files: Vec<(&str, String)> = GROUPS.iter().map(|g| (*g, String::new())).collect();
    for (i, input) in run_shapes().iter().enumerate() {
        let g = group(input);
        let file = files.iter_mut().find(|(name, _)| *name == g);
        file.expect("every group has a file")
            .1
            .push_str(&shape_block(i, input));
    }
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut failed = Vec::new();
    for (name, got) in &files {
        let file = expect_test::expect_file![format!(
            "{}/tests/snapshots/{name}.txt",
            env!("CARGO_MANIFEST_DIR")
        )];
        let want = file.data();
        if update || want == *got {
            // Writes the file under UPDATE_EXPECT=1.
            file.assert_eq(got);
        } else {
            // expect-test would print both files whole; the changed blocks say what moved.
            let (n, shown) = changes(&want, got, LIMIT);
            let more = if n > LIMIT {
                format!("… and {} more\n", n - LIMIT)
            } else {
                String::new()
            };
            failed.push(format!(
                "tests/snapshots/{name}.txt: {n} run shapes changed\n{shown}{more}"
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "the estimates differ from their snapshots (a `text` line: the formulas' or notes' \
         wording; after a deliberate change, `UPDATE_EXPECT=1 cargo test -p vramfit --lib \
         text_snapshot` writes them again):\n\n{}",
        failed.join("\n")
    );
}

/// `e` with every text emptied, as `figures` gives it.
fn without_text(mut e: Estimate) -> Estimate {
    for c in &mut e.components {
        for s in [
            &mut c.formula,
            &mut c.formula_zh,
            &mut c.note_en,
            &mut c.note_zh,
        ] {
            s.clear();
        }
    }
    e.quick.formula.clear();
    e.quick.formula_zh.clear();
    e.notes.clear();
    e.differences.clear();
    if let Some(t) = e.throughput.as_mut() {
        t.formulas.clear();
    }
    if let Some(r) = e.fit.as_mut().and_then(|f| f.reason.as_mut()) {
        r.en.clear();
        r.zh.clear();
    }
    for m in &mut e.step {
        m.en.clear();
        m.zh.clear();
    }
    e
}

#[test]
fn the_numbers_alone_are_the_full_estimates_numbers() {
    let mut n = 0;
    for input in run_shapes() {
        let Ok(w) = input.resolve() else { continue };
        let (full, bare) = (w.estimate(), w.figures());
        assert!(bare.components.iter().all(|c| c.formula.is_empty()));
        assert_eq!(without_text(full), bare, "{input:?}");
        n += 1;
    }
    assert!(n > 1000, "{n} run shapes compared");
}
