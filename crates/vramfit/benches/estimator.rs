//! How fast the estimator answers: one estimate, a sweep of every preset × GPU × format, the
//! solvers, the MIG planner, the diagnosis of a long `nvidia-smi` log and the speed model.
//!
//! `cargo bench -p vramfit` runs them all with criterion's defaults; `cargo xtask bench` runs
//! them with short settings and writes the figures into `book/generated/performance.md`.
//! The benchmark ids (`group/name`) are read by `crates/xtask/src/bench.rs`: keep them stable.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use vramfit::Bytes;
use vramfit::diagnose::diagnose;
use vramfit::estimate::{
    Engine, EstimateInput, Mode, estimate, fewest_gpus, largest_batch, largest_context,
};
use vramfit::estimate::{HardwareInput, ModelInput, RunInput, ServingInput};
use vramfit::hardware::mig::{MigOptions, plan_mig};
use vramfit::hardware::{Layout, PlanOptions, find_gpu, gpus, offers, plan};
use vramfit::precision::{GgufFileType, Quantization};
use vramfit::presets::presets;

const GIB: u64 = 1 << 30;

fn llama_8b(mode: Mode, engine: Engine) -> EstimateInput {
    EstimateInput {
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
    }
}

/// Estimates `models` presets × every GPU × every format; returns how many were answered
/// (a format a model cannot take is an `InputError`, and counts as an answer too).
fn sweep(models: usize, formats: &[Quantization]) -> usize {
    let mut n = 0;
    for p in &presets()[..models] {
        for g in gpus() {
            for &q in formats {
                let input = EstimateInput {
                    model: ModelInput {
                        model: Some(p.id.into()),
                        quantization: q,
                        ..Default::default()
                    },
                    hardware: HardwareInput {
                        gpu: Some(g.id.into()),
                        ..Default::default()
                    },
                    ..Default::default()
                };
                n += usize::from(black_box(estimate(black_box(&input))).is_ok()) + 1;
            }
        }
    }
    n
}

fn single(c: &mut Criterion) {
    let mut g = c.benchmark_group("estimate");
    for (name, mode, engine) in [
        ("llama-3.1-8b-inference", Mode::Inference, Engine::Hf),
        ("llama-3.1-8b-training", Mode::Training, Engine::Hf),
        ("llama-3.1-8b-vllm-serve", Mode::Serve, Engine::Vllm),
    ] {
        let input = llama_8b(mode, engine);
        estimate(&input).expect("the benchmark input is valid");
        g.bench_function(name, |b| b.iter(|| estimate(black_box(&input))));
    }
    let others = [
        ("llama-3.1-8b-llamacpp-q4_k_m", {
            let mut input = llama_8b(Mode::Inference, Engine::Llamacpp);
            input.run.engine = Engine::Llamacpp;
            input.model.quantization = Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            };
            input
        }),
        (
            "quick-7b-params-only",
            EstimateInput {
                model: ModelInput {
                    params: Some("7B".into()),
                    ..Default::default()
                },
                ..Default::default()
            },
        ),
    ];
    for (name, input) in others {
        estimate(&input).expect("the benchmark input is valid");
        g.bench_function(name, |b| b.iter(|| estimate(black_box(&input))));
    }
    g.finish();

    // The same runs with their numbers alone (`Workload::figures`: no formula or note text),
    // from the input: validation included.
    let mut g = c.benchmark_group("estimate-figures");
    for (name, mode, engine) in [
        ("llama-3.1-8b-inference", Mode::Inference, Engine::Hf),
        ("llama-3.1-8b-training", Mode::Training, Engine::Hf),
        ("llama-3.1-8b-vllm-serve", Mode::Serve, Engine::Vllm),
    ] {
        let input = llama_8b(mode, engine);
        g.bench_function(name, |b| {
            b.iter(|| black_box(&input).resolve().map(|w| w.figures()))
        });
    }
    g.finish();

    // How one estimate scales with the model: the same inference on models from 124 M to 671 B
    // parameters (MoE included).
    let mut g = c.benchmark_group("estimate-by-model");
    for id in [
        "openai-community/gpt2",
        "meta-llama/Llama-3.2-1B",
        "meta-llama/Llama-3.1-8B",
        "meta-llama/Llama-3.1-70B",
        "meta-llama/Llama-3.1-405B",
        "mistralai/Mixtral-8x7B-Instruct-v0.1",
        "deepseek-ai/DeepSeek-V3",
    ] {
        let input = EstimateInput {
            model: ModelInput {
                model: Some(id.into()),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("h100-sxm5-80gb".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let params = vramfit::presets::find(id).expect("a preset").params;
        g.bench_with_input(BenchmarkId::new("inference", params), &input, |b, i| {
            b.iter(|| estimate(black_box(i)))
        });
    }
    g.finish();
}

fn sweeps(c: &mut Criterion) {
    let formats = Quantization::every_format();
    let mut g = c.benchmark_group("sweep");
    g.sample_size(10);
    // How a sweep scales with its size: 1, 10 and every preset, each × every GPU × every format.
    // The id names the presets (`sweep/models/1`), which stay put as the catalogs grow; the
    // throughput gives the estimates.
    for models in [1, 10, presets().len()] {
        let n = models * gpus().len() * formats.len();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("models", models), &models, |b, &m| {
            b.iter(|| sweep(m, &formats))
        });
    }
    g.finish();
}

/// The reverse grid: every preset × every catalog GPU × the formats the engine loads, the most
/// precise format that fits per cell (`hardware::grid::grid`), as the site's grid and
/// `vramfit fits` compute it. The throughput counts the cells times the formats.
fn grids(c: &mut Criterion) {
    let all: Vec<&vramfit::hardware::Gpu> = gpus().iter().collect();
    let mut g = c.benchmark_group("grid");
    g.sample_size(10);
    for (name, engine) in [("hf", Engine::Hf), ("llamacpp", Engine::Llamacpp)] {
        let run = EstimateInput {
            run: RunInput {
                engine,
                ..Default::default()
            },
            ..Default::default()
        };
        let formats = vramfit::hardware::grid::formats(Mode::Inference, engine).len();
        g.throughput(Throughput::Elements(
            (presets().len() * all.len() * formats) as u64,
        ));
        g.bench_function(BenchmarkId::new("every-preset-every-gpu", name), |b| {
            b.iter(|| vramfit::hardware::grid::grid(black_box(&run), &all))
        });
    }
    g.finish();
}

fn solvers(c: &mut Criterion) {
    let mut g = c.benchmark_group("solve");
    let memory = Bytes::new(80 * GIB);
    let inference = llama_8b(Mode::Inference, Engine::Hf);
    let training = llama_8b(Mode::Training, Engine::Hf);
    let serve = llama_8b(Mode::Serve, Engine::Vllm);
    g.bench_function("largest-batch-inference", |b| {
        b.iter(|| largest_batch(black_box(&inference), memory))
    });
    g.bench_function("largest-batch-training", |b| {
        b.iter(|| largest_batch(black_box(&training), memory))
    });
    g.bench_function("largest-context-inference", |b| {
        b.iter(|| largest_context(black_box(&inference), memory))
    });
    g.bench_function("largest-context-serve", |b| {
        b.iter(|| largest_context(black_box(&serve), memory))
    });
    let big = {
        let mut input = training.clone();
        input.model.model = Some("meta-llama/Llama-3.1-405B".into());
        input
    };
    g.bench_function("fewest-gpus-405b-training", |b| {
        b.iter(|| fewest_gpus(black_box(&big), memory))
    });
    g.finish();
}

fn cheapest_fit(c: &mut Criterion) {
    // `vramfit recommend`: every offer, every layout (tensor / pipeline parallel, ZeRO-3), each
    // layout estimated with its own tp, pp and ZeRO stage.
    let training = llama_8b(Mode::Training, Engine::Hf);
    let per_gpu = |l: Layout, g: &vramfit::hardware::Gpu| {
        vramfit::hardware::layout_required_bytes(&training, l, g)
    };
    let options = PlanOptions::default();
    c.bench_function("plan/cheapest-fit-llama-3.1-8b-training", |b| {
        b.iter(|| plan(per_gpu, offers(), gpus(), black_box(&options)))
    });
}

fn mig(c: &mut Criterion) {
    let gpu = find_gpu("a100-sxm4-80gb").expect("the catalog has the A100 80 GB");
    // Ten jobs of mixed sizes, from a 5 GB notebook to a 35 GB fine-tune.
    let jobs: Vec<Bytes> = [5, 8, 9, 12, 15, 18, 20, 9, 35, 4]
        .into_iter()
        .map(|g| Bytes::new(g * 1_000_000_000))
        .collect();
    let options = MigOptions::default();
    plan_mig(gpu, &jobs, offers(), &options).expect("ten jobs fit");
    c.bench_function("mig/plan-10-jobs", |b| {
        b.iter(|| plan_mig(gpu, black_box(&jobs), offers(), &options))
    });
}

/// An `nvidia-smi --query-gpu=… --format=csv -l 1` log of about `bytes` bytes: a slow leak on
/// GPU 0 beside a flat GPU 1.
fn smi_log(bytes: usize) -> String {
    let mut s = String::from("timestamp, index, name, memory.used [MiB], memory.total [MiB]\n");
    let mut t = 0u64;
    while s.len() < bytes {
        let (h, m, sec) = (5 + t / 3600 % 19, t / 60 % 60, t % 60);
        let used = 2048 + t * 7 % 20_000;
        s.push_str(&format!(
            "2026/11/30 {h:02}:{m:02}:{sec:02}.100, 0, NVIDIA H100 80GB HBM3, {used} MiB, 81559 MiB\n\
             2026/11/30 {h:02}:{m:02}:{sec:02}.100, 1, NVIDIA H100 80GB HBM3, 40123 MiB, 81559 MiB\n"
        ));
        t += 1;
    }
    s
}

fn diagnosis(c: &mut Criterion) {
    let log = smi_log(100 * 1024);
    let mut g = c.benchmark_group("diagnose");
    g.throughput(Throughput::Bytes(log.len() as u64));
    g.bench_function("nvidia-smi-csv-100kb", |b| {
        b.iter(|| diagnose(black_box(&log)))
    });
    g.finish();
}

/// The speed model: its numbers (no allocation; a sweep computes them for every estimate) and,
/// apart, the text of one formula (written only when shown).
fn speed(c: &mut Criterion) {
    use vramfit::throughput::{
        Compute, Device, InferenceFigure, InferenceInput, Runtime, TrainingInput, inference,
        training,
    };
    let h100 = Device::of(find_gpu("h100-sxm5-80gb").expect("the catalog has the H100"));
    // Llama-3.1-8B in BF16 with vLLM: 7.5e9 parameters in matrix multiplications, 15.01 GB of
    // weights read per step, 128 KiB of KV cache per token; batch 8, 2,048 + 256 tokens.
    let serve = InferenceInput {
        runtime: Runtime::Batched,
        compute: Compute::Bits16,
        active_params: 7_504_924_672,
        dense_weight_bytes: 15_009_849_344,
        kv_bytes_per_token: 131_072,
        layers: 32,
        hidden: 4096,
        heads: 32,
        head_dim: 128,
        batch: 8,
        prompt_tokens: 2048,
        output_tokens: 256,
        tp: 1,
        pp: 1,
        ..InferenceInput::default()
    };
    let train = TrainingInput {
        compute: Compute::Bits16,
        active_params: 7_504_924_672,
        trainable_params: 7_504_924_672,
        layers: 32,
        heads: 32,
        head_dim: 128,
        seq_len: 4096,
        tokens_per_step: 1 << 20,
        gpus: 8,
        pp: 1,
        microbatches: 1,
        ..TrainingInput::default()
    };
    let done = inference(&serve, &h100).expect("the benchmark input is valid");
    let mut g = c.benchmark_group("throughput");
    g.bench_function("device-h100", |b| {
        b.iter(|| Device::of(black_box(find_gpu("h100-sxm5-80gb").unwrap())))
    });
    g.bench_function("inference-llama-3.1-8b-vllm", |b| {
        b.iter(|| inference(black_box(&serve), black_box(&h100)))
    });
    g.bench_function("training-llama-3.1-8b", |b| {
        b.iter(|| training(black_box(&train), black_box(&h100)))
    });
    g.bench_function("formula-decode-step", |b| {
        b.iter(|| black_box(&done).formula(InferenceFigure::DecodeStep))
    });
    g.finish();
}

criterion_group!(
    benches,
    single,
    sweeps,
    grids,
    solvers,
    cheapest_fit,
    mig,
    diagnosis,
    speed
);
criterion_main!(benches);
