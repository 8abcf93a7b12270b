//! A thousand deterministic estimate inputs, for the native-against-wasm parity check.
//!
//! The inputs come from a seeded PRNG (no dependency): presets, bare parameter counts and
//! edited architectures; every mode and engine; every weight format; catalog GPUs and custom
//! memory sizes; ZeRO, LoRA, tensor and pipeline parallelism; and a share of inputs the estimator
//! refuses, so that errors are compared too.
//!
//! Always: the cases are the same on every run, every one estimates or is refused without
//! panicking, and inputs and estimates survive a JSON round trip unchanged.
//! With `VRAMFIT_WRITE_PARITY=1`: writes `target/parity/cases.json`, an array of
//! `{"input": …, "output": …}` or `{"input": …, "error": …}`, which
//! `crates/xtask/bench/parity.mjs` feeds to the npm package (in Node and in headless Chromium)
//! and compares field by field, exactly. It also writes `target/parity/bench.json`, the inputs
//! of the Node benchmark (`crates/xtask/bench/estimate.mjs`): the same as the native ones.

use serde_json::{Value, json};
use vramfit::estimate::{
    AttentionImpl, Checkpointing, Engine, Estimate, EstimateInput, Logits, Mode, Offload,
    Optimizer, Precision, estimate,
};
use vramfit::estimate::{HardwareInput, ModelInput, RunInput, ServingInput};
use vramfit::precision::{Dtype, GgufFileType, KvDtype, Quantization};

/// How many cases.
const CASES: usize = 1000;

/// SplitMix64: small, fast, and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize].clone()
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// A power of two from `2^lo` to `2^hi`, sometimes nudged off it.
    fn size(&mut self, lo: u32, hi: u32) -> f64 {
        let p = 1u64 << (lo + self.below(u64::from(hi - lo + 1)) as u32);
        let nudge = if self.chance(20) { self.below(p) } else { 0 };
        (p + nudge) as f64
    }
}

fn quantization(r: &mut Rng) -> Quantization {
    match r.below(12) {
        0..=2 => Quantization::None,
        3 => Quantization::Fp8,
        4 => Quantization::W8a8,
        5 => Quantization::W4a16 {
            group_size: r.pick(&[32, 64, 128]),
        },
        6 => Quantization::Gptq {
            bits: r.pick(&[2, 3, 4, 8]),
            group_size: r.pick(&[32, 64, 128]),
        },
        7 => Quantization::Awq {
            group_size: r.pick(&[64, 128]),
        },
        8 => Quantization::BnbInt8,
        9 => Quantization::BnbNf4 {
            double_quant: r.chance(50),
        },
        10 => Quantization::Mxfp4,
        _ => Quantization::Gguf {
            file_type: r.pick(&GgufFileType::ALL),
        },
    }
}

/// The `i`-th case of the seeded sequence.
fn case(r: &mut Rng) -> EstimateInput {
    let presets = vramfit::presets::presets();
    let gpus = vramfit::hardware::gpus();
    let (mode, engine) = r.pick(&[
        (Mode::Inference, Engine::Hf),
        (Mode::Inference, Engine::Hf),
        (Mode::Inference, Engine::Llamacpp),
        (Mode::Serve, Engine::Vllm),
        (Mode::Training, Engine::Hf),
        (Mode::Training, Engine::Hf),
    ]);
    let mut i = EstimateInput {
        model: ModelInput {
            // What the engine loads: llama.cpp GGUF files (or F16), the others any format.
            quantization: if engine == Engine::Llamacpp {
                let file_type = r.pick(&GgufFileType::ALL);
                r.pick(&[Quantization::None, Quantization::Gguf { file_type }])
            } else {
                quantization(r)
            },
            ..Default::default()
        },
        run: RunInput {
            mode,
            engine,
            batch: r.size(0, 6),
            seq_len: r.size(7, 15),
            new_tokens: r.pick(&[0.0, 1.0, 128.0, 256.0, 1024.0]),

            // The KV-cache types of the engine (training keeps none, so any is read and ignored).
            kv_dtype: match (mode, engine) {
                (Mode::Inference, Engine::Hf) => {
                    r.pick(&[KvDtype::Auto, KvDtype::Auto, KvDtype::Fp16, KvDtype::Bf16])
                }
                (_, Engine::Llamacpp) => {
                    r.pick(&[KvDtype::Auto, KvDtype::Fp16, KvDtype::Q8_0, KvDtype::Q4_0])
                }
                (Mode::Serve, _) => {
                    r.pick(&[KvDtype::Auto, KvDtype::Fp16, KvDtype::Bf16, KvDtype::Fp8])
                }
                _ => r.pick(&[
                    KvDtype::Auto,
                    KvDtype::Fp16,
                    KvDtype::Bf16,
                    KvDtype::Fp8,
                    KvDtype::Q8_0,
                    KvDtype::Q4_0,
                ]),
            },
            attention: r.pick(&[
                AttentionImpl::Sdpa,
                AttentionImpl::Flash,
                AttentionImpl::Eager,
            ]),
            logits: r.pick(&[Logits::Last, Logits::Last, Logits::All]),
            ..Default::default()
        },
        ..Default::default()
    };
    match r.below(10) {
        0..=6 => i.model.model = Some(r.pick(presets).id.into()),
        7 => {
            // A bare parameter count: the guide's quick mode.
            let p = r.pick(&["125M", "1.5B", "7B", "13B", "70B", "405B", "7e9", "340M"]);
            i.model.params = Some(p.into());
        }
        _ => {
            // A preset's architecture with a few numbers changed.
            let mut a = r.pick(presets).arch;
            a.num_layers = (a.num_layers / 2).max(1) + r.below(a.num_layers.max(1));
            if r.chance(30) {
                a.vocab_size += r.below(100_000);
            }
            if r.chance(30) {
                a.tied_embeddings = !a.tied_embeddings;
            }
            i.model.arch = Some(a);
        }
    }
    if r.chance(40) {
        i.run.dtype = Some(r.pick(&[Dtype::Fp32, Dtype::Fp16, Dtype::Bf16]));
    }
    match r.below(4) {
        0 => {}
        1 => {
            i.hardware.gpu_memory = Some(
                r.pick(&["24GiB", "79.19GiB", "80GB", "16 GB", "141GB", "8GiB"])
                    .into(),
            )
        }
        _ => i.hardware.gpu = Some(r.pick(gpus).id.into()),
    }
    match mode {
        Mode::Training => {
            i.training.optimizer = r.pick(&Optimizer::ALL);
            i.training.fused_optimizer = r.chance(30);
            i.training.precision = r.pick(&[
                Precision::Fp32,
                Precision::Fp16,
                Precision::Bf16,
                Precision::AmpFp16,
                Precision::AmpBf16,
            ]);
            i.training.grad_checkpointing = r.pick(&[
                Checkpointing::None,
                Checkpointing::Full,
                Checkpointing::Selective,
            ]);
            if r.chance(35) {
                i.training.lora_rank = r.pick(&[8.0, 16.0, 64.0]);
                i.training.qlora = r.chance(40);
                if r.chance(50) {
                    i.training.lora_targets = r
                        .pick(&[
                            &["all-linear"][..],
                            &["q_proj", "v_proj"],
                            &["q_proj", "k_proj", "v_proj", "o_proj"],
                        ])
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                }
                // QLoRA brings its own weight format.
                if i.training.qlora {
                    i.model.quantization = Quantization::None;
                }
            }
            if r.chance(40) {
                i.placement.gpus = Some(r.size(1, 4));
                i.placement.zero = r.below(4) as f64;
                i.placement.offload =
                    r.pick(&[Offload::None, Offload::None, Offload::Cpu, Offload::Nvme]);
            }
        }
        Mode::Serve => {
            i.serving.gpu_memory_utilization = r.pick(&[0.8, 0.9, 0.95]);
            if r.chance(60) {
                i.serving.max_model_len = Some(r.size(10, 17));
            }
            if r.chance(30) {
                i.serving.max_num_seqs = Some(r.size(0, 10));
            }
            if r.chance(20) {
                i.serving.max_num_batched_tokens = Some(r.size(11, 14));
            }
            i.serving.cuda_graphs = r.chance(70);
            if r.chance(30) {
                let tp = r.size(0, 3);
                i.placement.tp = tp;
                i.placement.gpus = Some(tp);
            }
        }
        Mode::Inference => {
            if engine == Engine::Llamacpp {
                i.serving.ubatch = r.pick(&[128.0, 512.0, 2048.0]);
                if r.chance(40) {
                    i.placement.gpu_layers = Some(r.below(100) as f64);
                }
                if r.chance(50) {
                    i.serving.max_model_len = Some(r.size(10, 17));
                }
            } else if r.chance(25) {
                let tp = r.size(0, 2);
                i.placement.tp = tp;
                i.placement.gpus = Some(tp);
            }
        }
    }
    // About one case in twenty is out of range somewhere, so that refusals are compared too.
    if r.chance(5) {
        match r.below(5) {
            0 => i.run.batch = -1.0,
            1 => i.run.seq_len = 1.5,
            2 => i.hardware.gpu_memory = Some("80 parsecs".into()),
            3 => i.model.model = Some("no-such/model".into()),
            _ => i.placement.tp = 3.0,
        }
    }
    i
}

fn cases() -> Vec<EstimateInput> {
    let mut r = Rng(0x0005_EED0_F7A2_AF17);
    (0..CASES).map(|_| case(&mut r)).collect()
}

#[test]
fn thousand_cases_estimate_and_round_trip() {
    let cases = cases();
    assert_eq!(cases, self::cases(), "the sequence is deterministic");
    let mut out = Vec::with_capacity(CASES);
    let (mut ok, mut refused) = (0, 0);
    for input in &cases {
        let json_in = serde_json::to_value(input).unwrap();
        let back: EstimateInput = serde_json::from_value(json_in.clone()).unwrap();
        assert_eq!(&back, input, "the input survives JSON");
        out.push(match estimate(input) {
            Ok(e) => {
                ok += 1;
                let json_out = serde_json::to_value(&e).unwrap();
                let text = serde_json::to_string(&json_out).unwrap();
                let back: Estimate = serde_json::from_str(&text).unwrap();
                assert_eq!(back, e, "the estimate survives JSON");
                json!({ "input": json_in, "output": json_out })
            }
            Err(e) => {
                refused += 1;
                json!({ "input": json_in, "error": serde_json::to_value(&e).unwrap() })
            }
        });
    }
    // Most cases are answered; some are refused, on purpose or because a format does not
    // apply to a model.
    assert!(ok > CASES * 3 / 4, "{ok} answered, {refused} refused");
    assert!(refused > 10, "{ok} answered, {refused} refused");

    write("cases.json", &Value::Array(out));
}

/// Writes `target/parity/<name>` when `VRAMFIT_WRITE_PARITY=1`.
fn write(name: &str, v: &Value) {
    if std::env::var_os("VRAMFIT_WRITE_PARITY").is_some_and(|v| v == "1") {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/parity");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, serde_json::to_string(v).unwrap()).unwrap();
        eprintln!("wrote {}", path.display());
    }
}

/// The Node benchmark's inputs: the three single estimates of `benches/estimator.rs`, and the
/// sweep's presets, GPUs and formats.
#[test]
fn bench_inputs() {
    let llama = |mode: Mode, engine: Engine| EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode,
            engine,
            seq_len: if mode == Mode::Training {
                4096.0
            } else {
                2048.0
            },
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: (mode == Mode::Serve).then_some(8192.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let single = json!({
        "estimate/llama-3.1-8b-inference": llama(Mode::Inference, Engine::Hf),
        "estimate/llama-3.1-8b-training": llama(Mode::Training, Engine::Hf),
        "estimate/llama-3.1-8b-vllm-serve": llama(Mode::Serve, Engine::Vllm),
    });
    for input in single.as_object().unwrap().values() {
        let i: EstimateInput = serde_json::from_value(input.clone()).unwrap();
        estimate(&i).unwrap();
    }
    let formats = Quantization::every_format();
    let presets: Vec<&str> = vramfit::presets::presets().iter().map(|p| p.id).collect();
    let gpus: Vec<&str> = vramfit::hardware::gpus().iter().map(|g| g.id).collect();
    write(
        "bench.json",
        &json!({
            "single": single,
            "default": EstimateInput::default(),
            "presets": presets,
            "gpus": gpus,
            "formats": formats,
        }),
    );
}
