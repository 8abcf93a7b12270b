//! llama.cpp's run shape checked by hand: `--n-cpu-moe`'s experts in CPU memory, the copies a
//! prompt batch makes of CPU-resident weights (op offload), and a vision tower left to its
//! `mmproj` file.

use crate::estimate::{
    Engine, EstimateInput, HardwareInput, ModelInput, PlacementInput, RunInput, ServingInput,
    estimate,
};
use crate::precision::{GgufFileType, Quantization};

fn qwen3_30b_a3b(n_cpu_moe: Option<f64>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("Qwen/Qwen3-30B-A3B".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q8_0,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("rtx-4090".into()),
            ..Default::default()
        },
        placement: PlacementInput {
            n_cpu_moe,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// `--n-cpu-moe N` moves the routed experts of the first N blocks, and nothing else, to CPU
/// memory. Qwen3-30B-A3B: 128 experts per block, each gate, up and down 2,048 × 768, in
/// Q8_0 (34 B per 32 values): 3 × 128 × 2,048 × 768 × 34 / 32 = 641,728,512 B a block.
#[test]
fn n_cpu_moe_moves_the_first_blocks_experts_to_the_cpu() {
    let per_block = 3 * 128 * 2048 * 768 / 32 * 34;
    assert_eq!(per_block, 641_728_512);
    let all = estimate(&qwen3_30b_a3b(None)).unwrap();
    let ten = estimate(&qwen3_30b_a3b(Some(10.0))).unwrap();
    assert_eq!(
        all.weights_bytes.get() - ten.weights_bytes.get(),
        10 * per_block
    );
    assert_eq!(ten.cpu_bytes.get() - all.cpu_bytes.get(), 10 * per_block);
    // The KV cache stays with its blocks on the GPU.
    assert_eq!(all.kv_cache_bytes, ten.kv_cache_bytes);
    // --cpu-moe: every block's experts, 48 of them (28.7 GiB) off a 24 GiB card.
    let every = estimate(&qwen3_30b_a3b(Some(48.0))).unwrap();
    assert_eq!(
        all.weights_bytes.get() - every.weights_bytes.get(),
        48 * per_block
    );
    assert!(!all.fit.unwrap().fits && every.fit.unwrap().fits);
}

/// A prompt batch (512 tokens ≥ op offload's 32) copies a CPU block's experts to the GPU:
/// the compute buffer is the block's feed-forward of the latest build (one output per
/// sequence reserved, so the block leads): the f16 mask 512 × 8,192 × 2 B = 8,388,608 B, the
/// token embeddings 512 × 2,048 × 4 B = 4,194,304 B and 512 × (3 × 2,048 + 3 × 8 × 768 + the
/// 8 experts' down projections 8 × 2,048) × 4 B = 83,886,080 B, 96,468,992 B; and the copy,
/// 641,728,512 B.
#[test]
fn a_prompt_batch_copies_a_cpu_blocks_experts_into_the_compute_buffer() {
    let compute = |e: &crate::estimate::Estimate| {
        e.components
            .iter()
            .find(|c| c.key.kind == crate::estimate::ComponentKind::ComputeBuffer)
            .unwrap()
            .bytes
            .get()
    };
    let ten = estimate(&qwen3_30b_a3b(Some(10.0))).unwrap();
    assert_eq!(
        compute(&ten),
        8_388_608 + 4_194_304 + 83_886_080 + 641_728_512
    );
    // A batch of 16 tokens runs the CPU's experts on the CPU: no copy, the buffer is as
    // without --n-cpu-moe.
    let small = {
        let mut input = qwen3_30b_a3b(Some(10.0));
        input.serving.ubatch = 16.0;
        input
    };
    let none = {
        let mut input = qwen3_30b_a3b(None);
        input.serving.ubatch = 16.0;
        input
    };
    assert_eq!(
        compute(&estimate(&small).unwrap()),
        compute(&estimate(&none).unwrap())
    );
}

/// The output layer in CPU memory (here -ngl 0): a prompt batch of 256 tokens (≥ op
/// offload's 32) copies Mistral-7B's output matrix, Q6_K in a Q4_K_M file, to the GPU:
/// 32,000 × 4,096 × 210 / 256 = 107,520,000 B, beside 256 × (32,000 logits + 4,096) × 4 B =
/// 36,962,304 B: 144,482,304 B = 137.79 MiB, the CUDA0 compute buffer that a published log
/// prints for this model with its output layer on the CPU (arXiv 2509.11947, Appendix B,
/// -c 768 -ub 256 -fa; tests/data/llamacpp-buffers.csv). With -ngl 0 the blocks' weights are
/// copied too (not modelled: the figure is a floor there).
#[test]
fn a_prompt_batch_copies_the_cpu_output_layer_and_its_logits() {
    let input = |ubatch: f64| EstimateInput {
        model: ModelInput {
            model: Some("mistralai/Mistral-7B-v0.1".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            seq_len: 1.0,
            new_tokens: 0.0,
            attention: crate::estimate::AttentionImpl::Flash,

            // The paper's build (2025) reserved every token's logits (before llama.cpp PR #23861).
            engine_version: Some("b7000".into()),
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(768.0),
            ubatch,
            ..Default::default()
        },
        placement: PlacementInput {
            gpu_layers: Some(0.0),
            ..Default::default()
        },
        ..Default::default()
    };
    let compute = |e: &crate::estimate::Estimate| {
        e.components
            .iter()
            .find(|c| c.key.kind == crate::estimate::ComponentKind::ComputeBuffer)
            .unwrap()
            .bytes
            .get()
    };
    assert_eq!(32_000 * 4096 / 256 * 210, 107_520_000);
    assert_eq!(
        compute(&estimate(&input(256.0)).unwrap()),
        107_520_000 + 256 * (32_000 + 4096) * 4
    );
    // A batch of 16 runs the output layer on the CPU: its logits stay there too.
    assert_eq!(compute(&estimate(&input(16.0)).unwrap()), 0);
}

fn compute_of(e: &crate::estimate::Estimate) -> u64 {
    e.components
        .iter()
        .find(|c| c.key.kind == crate::estimate::ComponentKind::ComputeBuffer)
        .unwrap()
        .bytes
        .get()
}

const MIB: f64 = 1_048_576.0;

/// Hermes 3 Llama 3.1 8B Q4_0 under Ollama's llama-server of June 2026 (`build 1 (74ade5274)`,
/// Ollama pinned b9781): `-c 32768 -np 1 -b 512 -ub 512 --flash-attn auto`, RTX 2060, which
/// prints `n_outputs_max = 1` and llama-server's fit projections (tests/data/
/// llamacpp-buffers.notes.md, "A build with one output per sequence"; find_string id
/// 61471163053; repository not identified, so not a CSV row).
fn hermes_llama31(gpu_layers: f64, build: &str) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_0,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            seq_len: 1.0,
            new_tokens: 0.0,
            attention: crate::estimate::AttentionImpl::Flash,
            engine_version: Some(build.into()),
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(32768.0),
            ubatch: 512.0,
            ..Default::default()
        },
        placement: PlacementInput {
            gpu_layers: Some(gpu_layers),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// One output reserved (llama.cpp PR #23861 on): the logits are 1 × (128,256 + 4,096) × 4 B,
/// and a block leads: the f16 mask 512 × 32,768 × 2 B = 32 MiB, the token embeddings copied in
/// 512 × 4,096 × 4 B = 8 MiB and 512 × (3 × 4,096 + 3 × 14,336) × 4 B = 108 MiB: 148 MiB, over
/// the 140 MiB the log projects for all 33 layers by 8 MiB (5.7 %, the safe side; the printed
/// parts are 32 + 8 + 100, 100 = 512 × (2 × 4,096 + 3 × 14,336) × 4 B). The same load by a
/// build before the PR reserves 512 outputs: 512 × (128,256 + 4,096) × 4 B = 258.5 MiB.
#[test]
fn one_output_per_sequence_leaves_a_block_leading() {
    let new = compute_of(&estimate(&hermes_llama31(33.0, "b9781")).unwrap());
    assert_eq!(new, (32 + 8 + 108) << 20);
    assert_eq!(new - (140 << 20), 8 << 20);
    let old = compute_of(&estimate(&hermes_llama31(33.0, "b9000")).unwrap());
    assert_eq!(old, 512 * (128_256 + 4096) * 4);
    // The latest build (the default) follows the newest rule.
    let latest = {
        let mut input = hermes_llama31(33.0, "b9781");
        input.run.engine_version = None;
        input
    };
    assert_eq!(compute_of(&estimate(&latest).unwrap()), new);
}

/// The same load with blocks in CPU memory: a prompt batch copies a CPU block's weights to the
/// GPU (op offload). A Q4_0 block of Llama-3.1-8B: (2 × 4,096² + 2 × 4,096 × 1,024 + 3 × 4,096
/// × 14,336) × 18 / 32 B = 122,683,392 B, and its two norms 2 × 4,096 × 4 B = 32,768 B. The log
/// prints 248.00 MiB at 15 of 33 layers (and projects 248 MiB with none): 140 + 108 MiB, the
/// block without its o (9 MiB). vramfit: 148 MiB + 117.03 MiB = 265.03 MiB, over by 17.03 MiB
/// (6.9 %), the safe side. The output layer's one row of logits is no prompt batch: its matrix
/// is not copied (op offload wants 32 rows).
#[test]
fn cpu_blocks_are_copied_for_a_prompt_batch_in_builds_with_one_output() {
    let block = (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14_336) / 32 * 18 + 2 * 4096 * 4;
    assert_eq!(block, 122_716_160);
    for layers in [15.0, 0.0] {
        let ours = compute_of(&estimate(&hermes_llama31(layers, "b9781")).unwrap());
        assert_eq!(ours, (148 << 20) + block, "{layers}");
        let over = ours as f64 / MIB - 248.0;
        assert!((over - 17.03).abs() < 0.01, "{over}");
    }
}

/// Qwen3-4B Q4_K_M, `llama-server -ngl 99 -c 8192` of October 2026 (4 slots, `kv_unified`),
/// flash attention, n_ubatch 512 (find_string id 71453436919; tests/data/
/// llamacpp-buffers.notes.md): the mask 512 × 8,192 × 2 B = 8 MiB, the embeddings 512 × 2,560 ×
/// 4 B = 5 MiB and 512 × (3 × 2,560 + 3 × 9,728) × 4 B = 72 MiB: 85.00 MiB against the 85.01
/// MiB printed (`sched_reserve: CUDA0 compute buffer size`), where builds before PR #23861
/// gave 512 × (151,936 + 2,560) × 4 B = 301.75 MiB.
#[test]
fn qwen3_4b_with_four_slots_is_its_block() {
    let input = |build: &str| EstimateInput {
        model: ModelInput {
            model: Some("Qwen/Qwen3-4B".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            seq_len: 1.0,
            new_tokens: 0.0,
            batch: 4.0,
            attention: crate::estimate::AttentionImpl::Flash,
            engine_version: Some(build.into()),
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ubatch: 512.0,
            ..Default::default()
        },
        ..Default::default()
    };
    let new = compute_of(&estimate(&input("b10615")).unwrap());
    assert_eq!(new, (8 + 5 + 72) << 20);
    assert!((new as f64 / MIB - 85.01).abs() < 0.015);
    let old = compute_of(&estimate(&input("b9000")).unwrap());
    assert_eq!(old, 512 * (151_936 + 2560) * 4);
}

/// The solver's fewest blocks of experts in CPU memory that fit a 24 GiB card: that many
/// fit, one fewer does not.
#[test]
fn the_fewest_cpu_expert_blocks_that_fit_are_a_fix() {
    let input = qwen3_30b_a3b(None);
    let card = crate::gpu::find_gpu("rtx-4090").unwrap().memory;
    let fixes = crate::estimate::fixes(&input, card);
    let fix = fixes.iter().find(|f| f.field == "n_cpu_moe").unwrap();
    let n: f64 = fix.value.parse().unwrap();
    let at = |n: f64| estimate(&qwen3_30b_a3b(Some(n))).unwrap();
    assert!(at(n).fit.unwrap().fits, "{n}");
    assert!(!at(n - 1.0).fit.unwrap().fits, "{n}");
    assert_eq!(fix.required_bytes, at(n).required_bytes);
}

#[test]
fn n_cpu_moe_is_llama_cpps_and_a_moe_models() {
    let past = qwen3_30b_a3b(Some(49.0));
    assert_eq!(estimate(&past).unwrap_err().field, "n_cpu_moe");
    let dense = {
        let mut input = qwen3_30b_a3b(Some(4.0));
        input.model.model = Some("meta-llama/Llama-3.1-8B".into());
        input
    };
    assert!(
        estimate(&dense)
            .unwrap_err()
            .problem
            .contains("no routed experts")
    );
    let vllm = {
        let mut input = qwen3_30b_a3b(Some(4.0));
        input.run.engine = Engine::Vllm;
        input.run.mode = crate::estimate::Mode::Serve;
        input.model.quantization = Quantization::None;
        input
    };
    assert!(estimate(&vllm).unwrap_err().problem.contains("vLLM"));
}

/// Gemma 3 4B's SigLIP tower (419,816,304 parameters) is no tensor of the text model's GGUF:
/// llama.cpp's converter writes it to the `mmproj` file. So nothing of it is on the GPU or in CPU
/// memory (it was counted there at 4 B a parameter, 1,679,265,216 B), and a note says so. The
/// tied embedding in Q6_K is the output layer on the GPU: CPU memory holds nothing.
/// Ollama's gemma3:4b file carries the tower beside the text in F16: the text GGUF
/// 2,483,352,832 B + 419,816,304 × 2 B = 3,322,985,440 B, 0.7 % from the 3.3 GB the library
/// lists (`sourcegen_ollama`).
#[test]
fn a_vision_tower_stays_in_its_mmproj_file() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("google/gemma-3-4b-it".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            seq_len: 2048.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(e.weights_bytes.get(), 2_483_352_832);
    assert_eq!(e.cpu_bytes.get(), 0);
    let note = e
        .notes
        .iter()
        .find(|n| n.key == "llamacpp_vision_tower")
        .expect("the note");
    assert!(
        note.en.contains("419816304 parameters") && note.en.contains("--mmproj"),
        "{}",
        note.en
    );
    let a = crate::catalog::find_model("google/gemma-3-4b-it")
        .unwrap()
        .1;
    let q = Quantization::Gguf {
        file_type: GgufFileType::Q4_K_M,
    };
    let file: u64 = a
        .tensors()
        .iter()
        .map(|t| crate::estimate::tensor_bytes(&q, &a, crate::precision::Dtype::Bf16, t))
        .sum();
    assert_eq!(file, 2_483_352_832 + 419_816_304 * 2);
}
