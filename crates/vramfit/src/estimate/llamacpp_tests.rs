//! llama.cpp's run shape checked by hand: `--n-cpu-moe`'s experts in CPU memory, the copies a
//! prompt batch makes of CPU-resident weights (op offload), and a vision tower left to its
//! `mmproj` file.

use crate::estimate::{Engine, EstimateInput, estimate};
use crate::precision::{GgufFileType, Quantization};

fn qwen3_30b_a3b(n_cpu_moe: Option<f64>) -> EstimateInput {
    EstimateInput {
        model: Some("Qwen/Qwen3-30B-A3B".into()),
        engine: Engine::Llamacpp,
        quantization: Quantization::Gguf {
            file_type: GgufFileType::Q8_0,
        },
        max_model_len: Some(8192.0),
        gpu: Some("rtx-4090".into()),
        n_cpu_moe,
        ..EstimateInput::default()
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
/// the compute buffer is the block's feed-forward, 512 × (4 × 2,048 + 2 × 8 × 768) × 4 B =
/// 41,943,040 B, and the copy, 641,728,512 B.
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
    assert_eq!(compute(&ten), 41_943_040 + 641_728_512);
    // A batch of 16 tokens runs the CPU's experts on the CPU: no copy, the output's logits
    // set the buffer as without --n-cpu-moe.
    let small = EstimateInput {
        ubatch: 16.0,
        ..qwen3_30b_a3b(Some(10.0))
    };
    let none = EstimateInput {
        ubatch: 16.0,
        ..qwen3_30b_a3b(None)
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
        model: Some("mistralai/Mistral-7B-v0.1".into()),
        engine: Engine::Llamacpp,
        quantization: Quantization::Gguf {
            file_type: GgufFileType::Q4_K_M,
        },
        max_model_len: Some(768.0),
        seq_len: 1.0,
        new_tokens: 0.0,
        ubatch,
        attention: crate::estimate::AttentionImpl::Flash,
        gpu_layers: Some(0.0),
        // The paper's build (2025) reserved every token's logits (before llama.cpp PR #23861).
        engine_version: Some("b7000".into()),
        ..EstimateInput::default()
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
    let dense = EstimateInput {
        model: Some("meta-llama/Llama-3.1-8B".into()),
        ..qwen3_30b_a3b(Some(4.0))
    };
    assert!(
        estimate(&dense)
            .unwrap_err()
            .problem
            .contains("no routed experts")
    );
    let vllm = EstimateInput {
        engine: Engine::Vllm,
        mode: crate::estimate::Mode::Serve,
        quantization: Quantization::None,
        ..qwen3_30b_a3b(Some(4.0))
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
        model: Some("google/gemma-3-4b-it".into()),
        engine: Engine::Llamacpp,
        quantization: Quantization::Gguf {
            file_type: GgufFileType::Q4_K_M,
        },
        seq_len: 2048.0,
        ..EstimateInput::default()
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
