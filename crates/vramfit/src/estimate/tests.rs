//! Estimator tests: every figure against a hand calculation written here, or a cited measurement.

use super::*;
use crate::model::{Architecture, Moe, Role};
use crate::precision::{Dtype, KvDtype, Quantization};
use crate::units::{Bytes, GIB, MIB, fixed};
use ComponentKind as K;
use alloc::string::String;
use alloc::vec::Vec;

fn llama8b() -> Architecture {
    crate::model::tests::llama31_8b()
}

fn input(arch: Architecture) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            arch: Some(arch),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The activations' formula and its bytes per token per block (`… × N B per token per block …`).
fn activation_formula(e: &Estimate) -> (String, u64) {
    let f = e
        .components
        .iter()
        .find(|c| c.key == K::Activations)
        .unwrap()
        .formula
        .clone();
    let per_tok = f
        .split(" B per token per block")
        .next()
        .and_then(|x| x.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no bytes per token in {f}"));
    (f, per_tok)
}

/// The part `key` (alive at the peak, or [`off`] it), 0 when absent.
fn comp(e: &Estimate, key: impl Into<ComponentKey>) -> u64 {
    let key = key.into();
    e.components
        .iter()
        .find(|c| c.key == key)
        .map_or(0, |c| c.bytes.get())
}

/// The key of a part not alive at the peak.
fn off(kind: ComponentKind) -> ComponentKey {
    ComponentKey {
        kind,
        at_peak: false,
    }
}

/// Asserts that the estimate's difference `key` holds `en` in English and `zh` in Chinese.
fn difference_says(e: &Estimate, key: &str, en: &str, zh: &str) {
    let d = e
        .differences
        .iter()
        .find(|d| d.key == key)
        .unwrap_or_else(|| panic!("no `{key}` difference"));
    assert!(d.en.contains(en), "{}", d.en);
    assert!(d.zh.contains(zh), "{}", d.zh);
}

#[test]
fn hf_inference_kv_cache_uses_kv_heads() {
    let e = estimate(&{
        let mut input = input(llama8b());
        input.run.batch = 4.0;
        input.run.seq_len = 4096.0;
        input.run.new_tokens = 4096.0;
        input
    })
    .unwrap();
    // Decode end: 2 × 8 kv heads × 128 × 32 layers × 2 B = 131,072 B per token × 4 × 8192 tokens = 4 GiB.
    assert_eq!(e.kv_cache_bytes.get(), 131_072 * 4 * 8192);
    assert_eq!(e.kv_bytes_per_token, 131_072);
    // The guide's MHA formula gives 2 × 4 × 8192 × 4096 × 32 × 2 = 16 GiB: 4× more (32 heads / 8 KV heads).
    assert_eq!(e.quick.kv_cache_bytes.get(), 4 * e.kv_cache_bytes.get());
    difference_says(
        &e,
        "gqa",
        "32 heads stores K and V; this model has 8 KV heads (grouped-query attention), so its cache is 4× smaller",
        "只有 8 个 KV 头（GQA），缓存小 4 倍",
    );
}

/// Gemma 3 1B: 4 query heads share one KV head, multi-query attention, and the note says so in
/// the singular: the guide's cache of 2 × hidden 1152 values per token per layer, against
/// 2 × 1 × 256 = 512 per layer, would be 4.5× larger, 4× for the heads (the note) and 1152 /
/// (4 × 256) = 1.125 for head_dim (its own note).
#[test]
fn one_kv_head_is_multi_query_attention() {
    let a = crate::presets::find("google/gemma-3-1b-it").unwrap().arch;
    let e = estimate(&input(a)).unwrap();
    difference_says(
        &e,
        "gqa",
        "4 heads stores K and V; this model has 1 KV head (multi-query attention), so its cache is 4× smaller",
        "只有 1 个 KV 头（MQA），缓存小 4 倍",
    );
    assert!(e.differences.iter().any(|d| d.key == "head_dim"));
}

#[test]
fn hf_inference_prefill_by_hand() {
    let e = estimate(&{
        let mut input = input(llama8b());
        input.run.batch = 1.0;
        input.run.seq_len = 2048.0;
        input.run.new_tokens = 256.0;
        input
    })
    .unwrap();
    assert_eq!(e.peak_phase, Phase::Prefill);
    // Weights: 8,030,261,248 × 2 B.
    assert_eq!(e.weights_bytes.get(), 16_060_522_496);
    // KV for prompt + generated tokens: 2304 × 131,072 B = 301,989,888; at the prefill peak only
    // the prompt's 2048 × 131,072 = 268,435,456 are filled.
    assert_eq!(e.kv_cache_bytes.get(), 301_989_888);
    // Widest op per token: 2 B × (2 × 4096 residual + norm, + max(q,k,v,out = 48 × 128 + 4096 = 10,240; gate, up, act = 3 × 14,336 = 43,008))
    // + 8 × 4096 (two fp32 norm temporaries) = 2 × 51,200 + 32,768 = 135,168 B; × 2048 tokens = 276,824,064.
    assert_eq!(e.activations_bytes.get(), 276_824_064);
    // Logits: a decode step's last position, 128,256 × 2 B + generate's fp32 copy 128,256 × 4 B
    // = 769,536 (larger than the prefill's 128,256 × 2 B = 256,512).
    assert_eq!(e.temporaries_bytes.get(), 769_536);
    // The prefill holds one block or, at the LM head, the final norm's output (2048 × 4096 × 2 B
    // = 16,777,216) with the last position's logits (256,512): 276,824,064 > 17,033,728, so the
    // block. Peak allocated = weights + the prompt's KV + one block + 32 MiB cuBLAS workspace; the
    // decode steps (301,989,888 + 769,536 = 302,759,424) stay under the prefill's
    // 268,435,456 + 276,824,064 = 545,259,520.
    assert_eq!(
        e.peak_allocated_bytes.get(),
        16_060_522_496 + 268_435_456 + 276_824_064 + 33_554_432
    );
    // nvidia-smi adds the 0.51 GiB context and the allocator reserve (5 % of transients + 32 MiB).
    let reserve = (276_824_064 + 769_536) / 20 + 32 * MIB;
    assert_eq!(e.allocator_reserve_bytes.get(), reserve);
    assert_eq!(
        e.total_bytes.get(),
        e.peak_allocated_bytes.get() + CUDA_CONTEXT.get() + reserve
    );
    // M_rec = 1.2 × (peak + 2e9).
    assert_eq!(e.recommended_bytes, m_rec(e.peak_allocated_bytes));
}

#[test]
fn vllm_pool_matches_calibration_run() {
    // vLLM 0.19, H100-80GB (79.19 GiB), gpu_memory_utilization 0.95, max_model_len 8192, bf16:
    // measured weights 14.99 GiB, KV pool 58.11 GiB = 476,016 tokens, max concurrency 58.11
    // (llm-d planner accuracy study, ../shared/reference/vllm-h100-v0.19-calibration.csv).
    let e = estimate(&{
        let mut input = input(llama8b());
        input.run.mode = Mode::Serve;
        input.run.engine = Engine::Vllm;
        input.hardware.gpu_memory = Some("79.19GiB".into());
        input.serving.gpu_memory_utilization = 0.95;
        input.serving.max_model_len = Some(8192.0);
        input.run.engine_version = Some("0.19.0".into());
        input
    })
    .unwrap();
    let gib = |x: u64| x as f64 / GIB as f64;
    assert!(
        (gib(e.weights_bytes.get()) / 14.99 - 1.0).abs() < 0.005,
        "{}",
        gib(e.weights_bytes.get())
    );
    let tokens = e.kv_cache_tokens.unwrap();
    assert!((tokens as f64 / 476_016.0 - 1.0).abs() < 0.01, "{tokens}");
    assert_eq!(tokens % 16, 0);
    assert_eq!(e.max_concurrency, Some(tokens / 8192));
    // The pool is whole blocks: tokens × 131,072 B per token.
    assert_eq!(e.kv_cache_bytes.get(), tokens * 131_072);
    // fp8 KV doubles the tokens (measured 952,032).
    let f = estimate(&{
        let mut input = input(llama8b());
        input.run.kv_dtype = KvDtype::Fp8;
        input.run.mode = Mode::Serve;
        input.run.engine = Engine::Vllm;
        input.hardware.gpu_memory = Some("79.19GiB".into());
        input.serving.gpu_memory_utilization = 0.95;
        input.serving.max_model_len = Some(8192.0);
        input.run.engine_version = Some("0.19.0".into());
        input
    })
    .unwrap();
    assert!((f.kv_cache_tokens.unwrap() as f64 / 952_032.0 - 1.0).abs() < 0.01);
}

#[test]
fn full_training_amp_adamw_is_16_bytes_per_param_plus_step() {
    let e = estimate(&{
        let mut input = input(llama8b());
        input.run.mode = Mode::Training;
        input.run.batch = 1.0;
        input.run.seq_len = 2048.0;
        input
    })
    .unwrap();
    let p = 8_030_261_248u64;
    // fp32 master weights 4 B, fp32 gradients 4 B, two fp32 moments 8 B.
    assert_eq!(e.weights_bytes.get(), 4 * p);
    assert_eq!(e.gradients_bytes.get(), 4 * p);
    assert_eq!(e.optimizer_bytes.get(), 8 * p);
    // foreach AdamW: one fp32 copy of the second moment (sqrt) at the step: 4 B per param.
    assert_eq!(comp(&e, K::StepTemporaries), 4 * p);
    assert_eq!(e.peak_phase, Phase::OptimizerStep);
    // Fused AdamW has no such temporary, and the peak moves to the end of forward here.
    let f = estimate(&{
        let mut input = input(llama8b());
        input.run.mode = Mode::Training;
        input.training.fused_optimizer = true;
        input.run.batch = 1.0;
        input.run.seq_len = 2048.0;
        input
    })
    .unwrap();
    assert_eq!(comp(&f, K::StepTemporaries), 0);
    assert!(f.peak_allocated_bytes < e.peak_allocated_bytes);
    assert!(e.differences.iter().any(|d| d.key == "amp_adam"));
    // The loss at the start of backward, once: 2048 tokens × 128,256 × (4 B fp32 log-softmax +
    // 4 B its gradient + 4 B the logits' gradient) = 3,152,019,456 B = 2.94 GiB, off the peak here
    // (the step is), and not counted twice.
    assert_eq!(comp(&e, off(K::Logits)), 3_152_019_456);
    let l = e.differences.iter().find(|d| d.key == "logits").unwrap();
    assert!(l.en.contains("take 2.94 GiB alone"), "{}", l.en);
    // Training keeps no KV cache and the guide's training rule has no KV term: no GQA difference,
    // which the same model's inference estimate does carry (hf_inference_kv_cache_uses_kv_heads).
    assert!(!e.differences.iter().any(|d| d.key == "gqa"));
}

#[test]
fn training_activations_by_hand() {
    // Pure bf16, SDPA, no checkpointing: per token per block (bytes)
    // norms 2 × (4 × 4096 fp32 input + 2 × 4096 output) = 49,152; qkv input 2 × 4096 = 8,192;
    // kernel: q 2 × 32 × 128 = 8,192, k and v at their 8 KV heads 2 × 2 × 8 × 128 = 4,096, output
    // 8,192 (o_proj reads it as a view), lse 4 × 32 = 128 → 20,608; FFN input 8,192; gate, silu,
    // up 3 × 2 × 14,336 = 86,016; down input 28,672 → 200,832 B.
    let e = estimate(&{
        let mut input = input(llama8b());
        input.run.mode = Mode::Training;
        input.training.precision = Precision::Bf16;
        input.run.batch = 2.0;
        input.run.seq_len = 1024.0;
        input
    })
    .unwrap();
    let per_token = 49_152 + 8_192 + 20_608 + 8_192 + 86_016 + 28_672;
    assert_eq!(per_token, 200_832);
    let acts = 2 * 1024 * per_token * 32;
    let key = ComponentKey {
        kind: K::Activations,
        at_peak: e.peak_phase == Phase::ForwardLoss,
    };
    assert_eq!(comp(&e, key), acts);
    // The loss: 2048 tokens × 128,256 × 12 B (fp32 log-softmax, its gradient, the logits'
    // gradient).
    let lk = ComponentKey {
        kind: K::Logits,
        at_peak: e.peak_phase == Phase::ForwardLoss,
    };
    assert_eq!(comp(&e, lk), 2048 * 128_256 * 12);
    // Pure bf16 AdamW: 2 + 2 + 4 = 8 B per parameter.
    assert_eq!(
        e.weights_bytes.get() + e.gradients_bytes.get() + e.optimizer_bytes.get(),
        8 * 8_030_261_248
    );
}

#[test]
fn checkpointing_keeps_block_inputs_only() {
    let base = {
        let mut input = input(llama8b());
        input.run.mode = Mode::Training;
        input.training.precision = Precision::Bf16;
        input.run.batch = 1.0;
        input.run.seq_len = 4096.0;
        input
    };
    let full = estimate(&{
        let mut input = base.clone();
        input.training.grad_checkpointing = Checkpointing::Full;
        input
    })
    .unwrap();
    let none = estimate(&base).unwrap();
    let get = |e: &Estimate| comp(e, K::Activations) + comp(e, off(K::Activations));
    // Kept: 4096 tokens × 2 B × 4096 × 32 blocks = 1,073,741,824; plus one block recomputed
    // (4096 × 200,832 B, the per-token figure of `training_activations_by_hand`) = 822,607,872.
    assert_eq!(get(&full), 1_073_741_824 + 822_607_872);
    // The guide (§5.1): checkpointing saves at least 50 % of activation memory.
    assert!(get(&full) * 2 <= get(&none));
    // The recomputed block is alive only once the loss's tensors are freed: the end of forward
    // holds the kept inputs and the larger of the two. At batch 8 the loss, 32,768 tokens ×
    // 128,256 × 12 B = 50,432,311,296, beats one block, 32,768 × 200,832 = 6,580,862,976, and
    // that moment beats the step (pure bf16: weights 2 B, moments 4 B, gradients 2 B and the
    // foreach temporary 2 B per parameter): weights 16,060,522,496 + moments 32,121,044,992 +
    // kept 8 × 1,073,741,824 = 8,589,934,592 + the loss + 32 MiB cuBLAS workspace.
    let b8 = estimate(&{
        let mut input = base.clone();
        input.training.grad_checkpointing = Checkpointing::Full;
        input.run.batch = 8.0;
        input
    })
    .unwrap();
    assert_eq!(b8.peak_phase, Phase::ForwardLoss);
    assert_eq!(comp(&b8, K::Activations), 8_589_934_592 + 6_580_862_976);
    assert_eq!(comp(&b8, K::Logits), 50_432_311_296);
    assert_eq!(
        b8.peak_allocated_bytes.get(),
        16_060_522_496 + 32_121_044_992 + 8_589_934_592 + 50_432_311_296 + 33_554_432
    );
}

#[test]
fn lora_trains_few_params_but_keeps_activations() {
    let e = estimate(&{
        let mut input = input(llama8b());
        input.run.mode = Mode::Training;
        input.training.lora_rank = 16.0;
        input.run.batch = 1.0;
        input.run.seq_len = 2048.0;
        input
    })
    .unwrap();
    // Default targets q_proj, v_proj: 32 layers × 16 × ((4096 + 4096) + (4096 + 1024)) = 6,815,744.
    assert_eq!(e.trainable_params, 6_815_744);
    // Base in bf16 + fp32 adapters.
    assert_eq!(e.weights_bytes.get(), 16_060_522_496 + 6_815_744 * 4);
    assert_eq!(e.optimizer_bytes.get(), 6_815_744 * 8);
    // Frozen projections keep no input, but norms, the kernel and the FFN still save: per token
    // per block the RMSNorms' fp32 copies 2 × 4 × 4096 = 32,768; q's and v's adapters under
    // autocast each the bf16 cast of their input and lora_A's bf16 output, 2 × 2 × (4096 + 16) =
    // 16,448; the kernel 20,608 and the FFN's gate, SiLU and up 86,016 (as in
    // `training_activations_by_hand`): 155,840 B, 78 % of full fine-tuning's 200,832 there.
    assert_eq!(activation_formula(&e).1, 32_768 + 16_448 + 20_608 + 86_016);
    // Activations stay in the gigabytes (why LoRA still runs out at long context):
    // 2048 × 155,840 × 32 = 10,213,130,240 B.
    assert_eq!(comp(&e, K::Activations), 2048 * 155_840 * 32);
    assert!(comp(&e, K::Activations) > 2 * GIB);
}

/// PEFT keeps LoRA adapters in fp32 over a 16-bit base (`autocast_adapter_dtype=True`) and casts
/// each adapted module's input to fp32 for its adapter: in pure bf16 every adapted projection keeps
/// its own fp32 copy of its input (`lora_A` saves it) and `lora_A`'s fp32 output (`lora_B` saves
/// it); under autocast that copy is cast back to bf16 for `lora_A`, which saves the cast. The
/// frozen base projections keep nothing. Llama-3.1-8B, rank 16 on q, k, v and o.
#[test]
fn peft_lora_keeps_a_copy_of_each_adapted_input() {
    let run = |precision, zero: f64| {
        estimate(&{
            let mut input = input(llama8b());
            input.run.mode = Mode::Training;
            input.training.precision = precision;
            input.training.lora_rank = 16.0;
            input.training.lora_targets = ["q_proj", "k_proj", "v_proj", "o_proj"]
                .map(String::from)
                .to_vec();
            input.placement.zero = zero;
            input.placement.gpus = Some(if zero > 0.0 { 2.0 } else { 1.0 });
            input.run.batch = 1.0;
            input.run.seq_len = 1024.0;
            input
        })
        .unwrap()
    };
    let e = run(Precision::Bf16, 0.0);
    // 32 layers × 16 × ((4096 + 4096) q + (4096 + 1024) k + (4096 + 1024) v + (4096 + 4096) o).
    assert_eq!(e.trainable_params, 13_631_488);
    // Adapters, their gradients and AdamW's two moments in fp32, over the bf16 base.
    assert_eq!(e.weights_bytes.get(), 16_060_522_496 + 13_631_488 * 4);
    assert_eq!(e.gradients_bytes.get(), 13_631_488 * 4);
    assert_eq!(e.optimizer_bytes.get(), 13_631_488 * 8);
    // Per token per block, pure bf16: the RMSNorms' fp32 copies (frozen weights: no normalised
    // tensor) 2 × 4 × 4096 = 32,768; q, k, v and o each an fp32 copy of its 4096-wide input and
    // lora_A's fp32 output, 4 × (4096 + 16) = 16,448, four times = 65,792; the kernel's q, k and v
    // at 8 KV heads, output and log-sum-exp 2 × (4096 + 2 × 1024 + 4096) + 4 × 32 = 20,608; gate,
    // SiLU and up 3 × 2 × 14,336 = 86,016: 205,184 B.
    assert_eq!(activation_formula(&e).1, 32_768 + 65_792 + 20_608 + 86_016);
    assert_eq!(activation_formula(&e).1, 205_184);
    // Under autocast each adapted module keeps the bf16 cast of that copy and a bf16 lora_A
    // output, 2 × (4096 + 16) = 8,224, four times = 32,896: 172,288 B.
    let amp = run(Precision::AmpBf16, 0.0);
    assert_eq!(
        activation_formula(&amp).1,
        32_768 + 32_896 + 20_608 + 86_016
    );
    assert_eq!(activation_formula(&amp).1, 172_288);
    // DeepSpeed holds the adapters in bf16 like the rest of the model: no cast, so q, k and v share
    // the norm's output, 2 × 4096 = 8,192, o_proj reads the kernel's output as a view, and each
    // lora_A's bf16 output is 2 × 16 = 32, four times = 128: 147,712 B.
    let zero = run(Precision::Bf16, 2.0);
    assert_eq!(
        activation_formula(&zero).1,
        32_768 + 8_192 + 128 + 20_608 + 86_016
    );
    assert_eq!(activation_formula(&zero).1, 147_712);
}

/// GPT-2 and BERT under bf16 autocast over fp32 weights. A LayerNorm (`native_layer_norm`) keeps
/// only its fp32 input; SDPA drops the attention probabilities inside its kernel, leaving two bool
/// dropout masks per block; GPT-2's tanh-GELU runs `pow` in fp32 under CUDA autocast, so x's fp32
/// cast, tanh and 1 + tanh are fp32; its fused `c_attn` output stays alive whole (the kernel's q is
/// a view of it); and autocast's bf16 weight copies include the tied embedding that the LM head
/// reads. Per token per block (h 768, FFN 3,072, 12 heads), as traced in
/// `tests/reference/FINDINGS-31.md`.
#[test]
fn layer_norm_models_under_autocast_by_hand() {
    let run = |model: &str| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some(model.into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Training,
                batch: 4.0,
                seq_len: 1024.0,
                ..Default::default()
            },
            training: TrainingInput {
                precision: Precision::AmpBf16,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    let gpt2 = run("openai-community/gpt2");
    // The norms' fp32 inputs 2 × 4 × 768 = 6,144; c_attn's bf16 cast of its fp32 input 2 × 768 =
    // 1,536; c_attn's output 2 × 2,304 = 4,608, the cache's k and v 2 × 2 × 768 = 3,072, the
    // attention output 2 × 768 = 1,536 and log-sum-exp 4 × 12 = 48; c_fc's cast 1,536; the GELU's
    // fp32 x, tanh and 1 + tanh 12 × 3,072 = 36,864 and bf16 0.5·x 2 × 3,072 = 6,144; c_proj's
    // cast of the fp32 product 6,144; two masks 2 × 768 = 1,536: 69,168 B = 26h + 16i + 4H.
    let per_token =
        6_144 + 1_536 + 4_608 + 3_072 + 1_536 + 48 + 1_536 + 36_864 + 6_144 + 6_144 + 1_536;
    assert_eq!(per_token, 26 * 768 + 16 * 3_072 + 4 * 12);
    assert_eq!(activation_formula(&gpt2).1, per_token);
    // Autocast's copies: per block c_attn 768 × 2,304, c_proj 768², c_fc and the MLP's c_proj
    // 768 × 3,072 each = 7,077,888 × 12 blocks = 84,934,656, and the tied wte/lm_head 50,257 × 768
    // = 38,597,376, at 2 B each.
    let copies = comp(&gpt2, K::AutocastCopies) + comp(&gpt2, off(K::AutocastCopies));
    assert_eq!(copies, (84_934_656 + 38_597_376) * 2);
    let bert = run("google-bert/bert-base-uncased");
    // The norms' fp32 inputs 6,144; q, k and v each their own bf16 cast 3 × 1,536 = 4,608; the
    // kernel's q, k, v and output 2 × 4 × 768 = 6,144 and log-sum-exp 48; the intermediate
    // dense's cast 1,536; GELU's input and the output dense's input 2 × 2 × 3,072 = 12,288; two
    // masks 1,536: 32,304 B = 26h + 4i + 4H.
    let per_token = 6_144 + 4_608 + 6_144 + 48 + 1_536 + 12_288 + 1_536;
    assert_eq!(per_token, 26 * 768 + 4 * 3_072 + 4 * 12);
    assert_eq!(activation_formula(&bert).1, per_token);
}

/// A prefill that returns the logits of every position peaks at the LM head, where every block's
/// tensors are freed: the final norm's output and the bf16 logits it gives. Llama-3.2-1B, 4 × 2,048
/// tokens in bf16: weights 1,235,814,400 × 2 B = 2,471,628,800; KV 8,192 tokens × 2 × 8 × 64 × 16
/// layers × 2 B = 268,435,456; logits 8,192 × 128,256 × 2 B = 2,101,346,304; the final norm's
/// output 8,192 × 2,048 × 2 B = 33,554,432 (one block, 8,192 × 73,728 B = 603,979,776, is
/// smaller); cuBLAS workspace 33,554,432: 4,908,519,424 B. PyTorch's accounting of the same run
/// (`tests/reference/torch-peaks.csv`, `llama3.2-1b-infer-prefill-logitsall-bf16-b4-s2048`) is
/// 4,908,585,984 B, the 66,560 B more being the input ids.
#[test]
fn prefill_with_every_logit_peaks_at_the_head() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.2-1B".into()),
            ..Default::default()
        },
        run: RunInput {
            batch: 4.0,
            seq_len: 2048.0,
            new_tokens: 0.0,
            logits: Logits::All,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(e.peak_phase, Phase::Prefill);
    assert_eq!(comp(&e, K::Activations), 603_979_776);
    assert_eq!(comp(&e, K::Logits), 2_101_346_304);
    assert_eq!(
        e.peak_allocated_bytes.get(),
        2_471_628_800 + 268_435_456 + 2_101_346_304 + 33_554_432 + 33_554_432
    );
    assert_eq!(e.peak_allocated_bytes.get(), 4_908_519_424);
}

/// HF's inference forward op by op. GPT-2's `gelu_new` holds four FFN-wide tensors at once (x,
/// 0.5·x, a tanh-chain temporary, the product), where a fused GELU holds two: bf16, per token
/// 2 × (2 × 768 + 4 × 3,072) + 8 × 768 = 33,792 B. Eager attention's softmax casts bf16 scores to
/// fp32 first: the scores, their fp32 copy and the fp32 probabilities, 2 + 4 + 4 = 10 B per head
/// per query–key pair (fp32 scores: no copy, 8 B). Llama-3.2-1B, 1 × 2,048 tokens: one block
/// 2,048 × (2 × (2 × 2,048 + 3 × 8,192) + 8 × 2,048) = 150,994,944 B plus 32 heads × 2,048² × 10 B
/// = 1,342,177,280; in fp32 2,048 × (4 × 28,672 + 16,384) = 268,435,456 plus 32 × 2,048² × 8 =
/// 1,073,741,824.
#[test]
fn hf_inference_composite_gelu_and_eager_softmax_by_hand() {
    let gpt2 = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("openai-community/gpt2".into()),
            ..Default::default()
        },
        run: RunInput {
            dtype: Some(Dtype::Bf16),
            seq_len: 512.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(comp(&gpt2, K::Activations), 512 * 33_792);
    let eager = |dtype| {
        let e = estimate(&EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.2-1B".into()),
                ..Default::default()
            },
            run: RunInput {
                dtype: Some(dtype),
                attention: AttentionImpl::Eager,
                seq_len: 2048.0,
                new_tokens: 0.0,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        comp(&e, K::Activations)
    };
    assert_eq!(eager(Dtype::Bf16), 150_994_944 + 1_342_177_280);
    assert_eq!(eager(Dtype::Fp32), 268_435_456 + 1_073_741_824);
}

#[test]
fn qlora_uses_nf4_base() {
    let e = estimate(&{
        let mut input = input(llama8b());
        input.run.mode = Mode::Training;
        input.training.qlora = true;
        input.training.lora_rank = 16.0;
        input
    })
    .unwrap();
    // The NF4 base is about 4.13 bits per block weight: well under a quarter of bf16 plus the upcast embeddings.
    assert!(e.weights_bytes.get() < 16_060_522_496 / 2);
    assert!(comp(&e, K::DequantBuffer) == 4096 * 14_336 * 2);
}

/// QLoRA over NF4 without double quantization (TRL's `use_bnb_nested_quant` default, the
/// `bnb-nf4` format) holds a 4-byte absmax per 64 weights: 0.5 bits more per block weight
/// than 4 bits, against 0.127 with double quantization (an 8-bit absmax per 64 and an fp32
/// per 256 of those): by hand, 0.373 bits × the block weights more.
#[test]
fn qlora_without_double_quantization_keeps_its_fp32_scales() {
    let weights = |q: Quantization| {
        let e = estimate(&{
            let mut input = input(llama8b());
            input.run.mode = Mode::Training;
            input.training.qlora = true;
            input.training.lora_rank = 16.0;
            input.model.quantization = q;
            input
        })
        .unwrap();
        comp(&e, K::Weights)
    };
    let dq = weights(Quantization::None);
    let plain = weights(Quantization::BnbNf4 {
        double_quant: false,
    });
    // Llama-3.1-8B's block linears: 32 × (4096 × (4096 + 2 × 1024 + 4096) + 3 × 4096 × 14336).
    let block: u64 = 32 * (4096 * (4096 + 2 * 1024 + 4096) + 3 * 4096 * 14_336);
    // 4.5 − 4.127 bits per weight: (32/64 − 8/64 − 32/(64 × 256)) bits = 0.373 bits.
    let expected = block * (64 * 256 * 32 / 64 - 64 * 256 * 8 / 64 - 32) / (64 * 256 * 8);
    let got = plain - dq;
    assert!(got.abs_diff(expected) < 1 << 20, "{got} vs {expected}");
}

#[test]
fn zero3_partitions_and_data_parallel_does_not() {
    let base = {
        let mut input = input(llama8b());
        input.run.mode = Mode::Training;
        input.placement.gpus = Some(8.0);
        input.run.batch = 1.0;
        input.run.seq_len = 1024.0;
        input
    };
    let ddp = estimate(&base).unwrap();
    let single = estimate(&{
        let mut input = base.clone();
        input.placement.gpus = Some(1.0);
        input
    })
    .unwrap();
    // Data parallel (ZeRO-0) holds a full replica on each GPU — and DDP's buckets on top.
    assert_eq!(ddp.weights_bytes, single.weights_bytes);
    assert!(ddp.peak_allocated_bytes > single.peak_allocated_bytes);
    let z3 = estimate(&{
        let mut input = base.clone();
        input.placement.zero = 3.0;
        input
    })
    .unwrap();
    let p = 8_030_261_248u64;
    // ZeRO-3, bf16 model: (2 + 2 + 12) × P / 8 over weights, gradients, fp32 master + moments.
    assert_eq!(z3.weights_bytes.get(), (2 * p).div_ceil(8));
    assert_eq!(z3.gradients_bytes.get(), (2 * p).div_ceil(8));
    assert_eq!(z3.optimizer_bytes.get(), (12 * p).div_ceil(8));
    let z2off = estimate(&{
        let mut input = base.clone();
        input.placement.zero = 2.0;
        input.placement.offload = Offload::Cpu;
        input
    })
    .unwrap();
    assert_eq!(z2off.optimizer_bytes.get(), 0);
    // Offloaded to CPU: fp32 master + 2 moments + the fp32 gradient partition DeepSpeed's CPU
    // step holds = 16 B per parameter, per data-parallel rank (its ZeRO-2 estimator's 16 Ψ / N).
    assert_eq!(z2off.cpu_bytes.get(), (16 * p).div_ceil(8));
    assert_eq!(z2off.nvme_bytes.get(), 0);
    // On the GPU, ZeRO-2's step casts this rank's gradient partition to fp32 (4 B × P / 8) beside
    // foreach AdamW's one-moment temporary (4 B × P / 8).
    let z2 = estimate(&{
        let mut input = base.clone();
        input.placement.zero = 2.0;
        input
    })
    .unwrap();
    assert_eq!(comp(&z2, K::StepTemporaries), 2 * (4 * p).div_ceil(8));
    // ZeRO-Infinity to NVMe (a ZeRO-3 feature): the same partitions and the 16-bit parameters
    // (18 B per parameter / 8) on the drive, none in CPU memory; below ZeRO-3 it is refused.
    let z3nvme = estimate(&{
        let mut input = base.clone();
        input.placement.zero = 3.0;
        input.placement.offload = Offload::Nvme;
        input
    })
    .unwrap();
    assert_eq!(z3nvme.nvme_bytes.get(), (18 * p).div_ceil(8));
    assert_eq!(z3nvme.cpu_bytes.get(), 0);
    assert_eq!(z3nvme.weights_bytes.get(), 0);
    let z2nvme = estimate(&EstimateInput {
        placement: PlacementInput {
            zero: 2.0,
            offload: Offload::Nvme,
            ..base.placement
        },
        ..base
    })
    .unwrap_err();
    assert_eq!(z2nvme.field, "offload");
}

#[test]
fn tensor_parallel_splits_weights() {
    let e = estimate(&{
        let mut input = input(llama8b());
        input.run.mode = Mode::Serve;
        input.placement.tp = 2.0;
        input.placement.gpus = Some(2.0);
        input.hardware.gpu_memory = Some("79.19GiB".into());
        input.serving.gpu_memory_utilization = 0.95;
        input.serving.max_model_len = Some(8192.0);
        input
    })
    .unwrap();
    // Measured at tp = 2: weights 7.51 GiB per GPU, KV 1,044,688 tokens (calibration data).
    let w = e.weights_bytes.get() as f64 / GIB as f64;
    assert!((w / 7.51 - 1.0).abs() < 0.01, "{w}");
    let t = e.kv_cache_tokens.unwrap() as f64;
    assert!((t / 1_044_688.0 - 1.0).abs() < 0.05, "{t}");
}

#[test]
fn llamacpp_partial_offload_by_hand() {
    let e = estimate(&{
        let mut input = input(llama8b());
        input.run.engine = Engine::Llamacpp;
        input.placement.gpu_layers = Some(16.0);
        input.serving.max_model_len = Some(4096.0);
        input.model.quantization = Quantization::Gguf {
            file_type: crate::precision::GgufFileType::Q8_0,
        };
        input
    })
    .unwrap();
    // -ngl 16 puts the output layer on the GPU first, then the last 15 of 32 blocks, in Q8_0:
    // 15 × (218,103,808 weights × 34/32 B + 8,192 norm floats × 4 B), the output matrix
    // 128,256 × 4,096 × 34/32 B and the final norm's 4,096 floats.
    assert_eq!(
        e.weights_bytes.get(),
        15 * (218_103_808 / 32 * 34 + 8192 * 4) + 128_256 * 4096 / 32 * 34 + 4096 * 4
    );
    // KV f16 for 15 layers: 2048 values × 2 B × 15 × 4096 = 251,658,240.
    assert_eq!(e.kv_cache_bytes.get(), 251_658_240);
    assert!(e.cpu_bytes.get() > e.weights_bytes.get());
}

#[test]
fn moe_keeps_all_experts_resident() {
    // Mixtral-8x7B: 32 layers, hidden 4096, 8 experts of 14,336, top-2; published 46,702,792,704 params.
    let a = Architecture {
        vocab_size: 32_000,
        intermediate_size: 14_336,
        moe: Some(Moe {
            num_experts: 8,
            experts_per_token: 2,
            expert_intermediate_size: 14_336,
            shared_intermediate_size: 0,
            shared_expert_gate: false,
            first_dense_layers: 0,
            router_bias: false,
            expert_bias: false,
        }),
        max_position_embeddings: 32_768,
        ..llama8b()
    };
    assert_eq!(a.params(), 46_702_792_704);
    // Active: 46.7B − 32 layers × 6 idle experts × 3 × 4096 × 14,336 = 12,879,925,248.
    assert_eq!(
        a.active_params(),
        46_702_792_704 - 32 * 6 * 3 * 4096 * 14_336
    );
    let e = estimate(&input(a)).unwrap();
    assert_eq!(e.weights_bytes.get(), 2 * 46_702_792_704);
}

#[test]
fn bad_input_names_the_field() {
    let cases: [(EstimateInput, &str); 9] = [
        (
            {
                let mut input = input(llama8b());
                input.run.batch = 0.0;
                input
            },
            "batch",
        ),
        (
            {
                let mut input = input(llama8b());
                input.run.batch = f64::NAN;
                input
            },
            "batch",
        ),
        (
            {
                let mut input = input(llama8b());
                input.run.seq_len = 1.5;
                input
            },
            "seq_len",
        ),
        (
            {
                let mut input = input(llama8b());
                input.run.seq_len = -4.0;
                input
            },
            "seq_len",
        ),
        (
            {
                let mut input = input(llama8b());
                input.hardware.gpu_memory = Some("80".into());
                input
            },
            "gpu_memory",
        ),
        (
            {
                let mut input = input(llama8b());
                input.placement.gpus = Some(3.0);
                input.placement.tp = 2.0;
                input
            },
            "gpus",
        ),
        (
            {
                let mut input = input(llama8b());
                input.serving.gpu_memory_utilization = 1.5;
                input
            },
            "gpu_memory_utilization",
        ),
        (
            {
                let mut input = input(llama8b());
                input.training.lora_targets = alloc::vec!["qq".into()];
                input
            },
            "lora_targets",
        ),
        (
            {
                let mut input = input(llama8b());
                input.model.arch = None;
                input
            },
            "model",
        ),
    ];
    for (inp, field) in cases {
        let e = estimate(&inp).unwrap_err();
        assert_eq!(e.field, field, "{e}");
        assert!(!e.accepted.is_empty());
    }
}

#[test]
fn quick_mode_from_params_only() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            params: Some("7B".into()),
            ..Default::default()
        },
        run: RunInput {
            dtype: Some(Dtype::Fp16),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(e.params, 7_000_000_000);
    assert_eq!(e.weights_bytes.get(), 14_000_000_000);
    assert_eq!(e.quick.weights_bytes.get(), 14_000_000_000);
    assert!(e.differences.iter().any(|d| d.key == "quick_only"));
    let t = estimate(&EstimateInput {
        model: ModelInput {
            params: Some("7B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            dtype: Some(Dtype::Fp16),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(t.quick.theory_bytes.get(), 49_000_000_000);
    // vLLM from a bare count: no head_dim or positions, so no rotary cache term in the formula,
    // and the weights are the bare 7e9 × 2 B.
    let v = estimate(&EstimateInput {
        model: ModelInput {
            params: Some("7B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            dtype: Some(Dtype::Fp16),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(v.weights_bytes.get(), 14_000_000_000);
    let w = v.components.iter().find(|c| c.key == K::Weights).unwrap();
    assert!(!w.formula.contains("rotary"), "{}", w.formula);
}

#[test]
fn fit_against_a_device() {
    let e = estimate(&{
        let mut input = input(llama8b());
        input.hardware.gpu_memory = Some("16GiB".into());
        input
    })
    .unwrap();
    let f = e.fit.unwrap();
    assert!(!f.fits);
    assert_eq!(f.headroom_bytes.get(), 0);
    assert_eq!(f.shortfall_bytes.get(), e.total_bytes.get() - 16 * GIB);
}

#[test]
fn serving_fits_only_when_the_pool_holds_the_sequences() {
    let base = {
        let mut input = input(llama8b());
        input.run.mode = Mode::Serve;
        input.hardware.gpu_memory = Some("24GiB".into());
        input
    };
    // Default max_model_len = 131,072 (max_position_embeddings); the pool on 24 GiB at 0.9 is about
    // 21.6 − 14.99 − 0.46 − 0.25 ≈ 5.9 GiB = ~48k tokens at 128 KiB: vLLM refuses to start.
    let e = estimate(&base).unwrap();
    let f = e.fit.unwrap();
    assert!(!f.fits);
    assert_eq!(f.reason.unwrap().key, "kv_pool_too_small");
    let ok = estimate(&EstimateInput {
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..base.serving
        },
        ..base
    })
    .unwrap();
    assert!(ok.fit.unwrap().fits);
    // M_theory for 1 sequence of 8192 tokens at the latest release, whose budget holds the
    // graphs too (from 0.21): (weights + profile peak + non-torch + graphs + 8192 × 128 KiB) / 0.9,
    // whose rest (a tenth, 1.9 GiB) holds the context and the allocator's reserve (0.56 GiB), and
    // M_rec = 1.2 × (that + 2 GB).
    let per_tok = 131_072u64;
    let budget =
        ok.weights_bytes.get() + ok.activations_bytes.get() + VLLM_NON_TORCH.get() + 8192 * per_tok;
    let cg = ok
        .components
        .iter()
        .find(|c| c.key == K::CudaGraphs)
        .unwrap()
        .bytes
        .get();
    let theory = Bytes::from_f64((budget + cg) as f64 / 0.9).get();
    assert!(theory / 10 > CUDA_CONTEXT.get() + ok.allocator_reserve_bytes.get());
    assert_eq!(ok.recommended_bytes, m_rec(Bytes::new(theory)));
}

#[test]
fn presets_ship_in_their_released_format() {
    // gpt-oss model card (arXiv:2508.10925, Table 1): checkpoint sizes 60.8 GiB (120b) and
    // 12.8 GiB (20b), with MXFP4 MoE weights and bf16 elsewhere.
    let w = |id: &str| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some(id.into()),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
        .weights_bytes
        .as_gib()
    };
    assert!(
        (w("openai/gpt-oss-120b") - 60.8).abs() < 0.1,
        "{}",
        w("openai/gpt-oss-120b")
    );
    assert!(
        (w("openai/gpt-oss-20b") - 12.8).abs() < 0.1,
        "{}",
        w("openai/gpt-oss-20b")
    );
    // Asking for another format overrides the shipped one.
    let bf16 = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("openai/gpt-oss-20b".into()),
            quantization: Quantization::W8a8,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert!(bf16.weights_bytes.as_gib() > 19.0);
}

#[test]
fn a_count_says_whether_it_is_fractional_or_out_of_range() {
    let batch = |v: f64| {
        super::workload::int("batch", v, 1, super::MAX_BATCH)
            .unwrap_err()
            .problem
    };
    assert_eq!(batch(1.5), "1.5 is not a whole number");
    assert_eq!(batch(0.0), "0 is out of range");
    assert_eq!(batch(-1.0), "-1 is out of range");
    // Fractional and past the bound: the bound is what to fix.
    assert_eq!(batch(2e6 + 0.5), "2000000.5 is out of range");
    assert_eq!(batch(f64::NAN), "not a finite number");
    assert_eq!(batch(f64::INFINITY), "not a finite number");
    assert_eq!(
        super::workload::int("batch", 8.0, 1, super::MAX_BATCH),
        Ok(8)
    );
}

#[test]
fn too_few_gpus_for_the_parallel_layout_says_how_many_it_needs() {
    let with = |gpus: f64, tp: f64| {
        let mut i = input(llama8b());
        i.placement.gpus = Some(gpus);
        i.placement.tp = tp;
        super::estimate(&i).unwrap_err()
    };
    // `--tp 2` with the default one GPU: one model copy needs tp × pp = 2 GPUs.
    let e = with(1.0, 2.0);
    assert_eq!(e.field, "gpus");
    assert_eq!(
        e.problem,
        "1 GPU for tp = 2 × pp = 1, which needs 2 per model copy"
    );
    assert_eq!(e.accepted, "a multiple of tp × pp = 2");
    // Enough GPUs, but not whole groups: 6 into groups of 4.
    assert_eq!(
        with(6.0, 4.0).problem,
        "6 GPUs cannot be split into tp = 4 × pp = 1 groups"
    );
}

#[test]
fn vllm_without_a_card_holds_batch_full_length_sequences() {
    // No card: the pool is what `batch` sequences of max_model_len need. Llama 3.1 8B keeps
    // 2 × 32 layers × 8 kv heads × 128 × 2 B = 131,072 B per token, so 8192 tokens are 1 GiB.
    // The formula showed max_num_seqs (256) where it multiplied by the batch.
    let kv = |batch: f64| {
        let e = estimate(&{
            let mut input = input(llama8b());
            input.run.mode = Mode::Serve;
            input.run.engine = Engine::Vllm;
            input.run.batch = batch;
            input.serving.max_model_len = Some(8192.0);
            input
        })
        .unwrap();
        let c = e.components.iter().find(|c| c.key == K::KvCache).unwrap();
        (
            c.bytes.get(),
            e.kv_cache_tokens,
            c.formula.clone(),
            c.formula_zh.clone(),
        )
    };
    let (bytes, tokens, formula, _) = kv(4.0);
    assert_eq!(bytes, 4 * 8192 * 131_072);
    assert_eq!(tokens, Some(4 * 8192));
    assert!(
        formula.starts_with("4 seqs × 8192 max_model_len × 131,072 B per token = 4.00 GiB"),
        "{formula}"
    );
    // One sequence is named in the singular, as the other formulas write it.
    let (_, _, formula, zh) = kv(1.0);
    assert!(
        formula.starts_with("1 seq × 8192 max_model_len × 131,072 B per token = 1.00 GiB"),
        "{formula}"
    );
    assert!(
        zh.starts_with("1 条序列 × 8192 max_model_len × 131,072 B 每 token = 1.00 GiB"),
        "{zh}"
    );
}

#[test]
fn vllm_past_the_trained_context_is_noted() {
    // Llama 3.1 8B's max_position_embeddings is 131,072; vLLM refuses a longer max_model_len
    // unless told to allow it.
    let serve = |len: f64| {
        estimate(&{
            let mut input = input(llama8b());
            input.run.mode = Mode::Serve;
            input.run.engine = Engine::Vllm;
            input.serving.max_model_len = Some(len);
            input
        })
        .unwrap()
    };
    let note = |e: &Estimate| {
        e.notes
            .iter()
            .any(|n| n.en.contains("VLLM_ALLOW_LONG_MAX_MODEL_LEN"))
    };
    assert!(note(&serve(1_000_000.0)));
    assert!(!note(&serve(131_072.0)));
}

#[test]
fn offload_without_zero_is_refused_not_ignored() {
    // Before, `--offload cpu` alone kept all 59.83 GiB of AdamW states on the GPU in silence.
    let train = |zero: f64, offload: Offload| {
        estimate(&{
            let mut input = input(llama8b());
            input.run.mode = Mode::Training;
            input.placement.zero = zero;
            input.placement.offload = offload;
            input
        })
    };
    let e = train(0.0, Offload::Cpu).unwrap_err();
    assert_eq!(e.field, "offload");
    assert!(
        e.accepted
            .starts_with("none with zero 0, or zero 1, 2 or 3"),
        "{}",
        e.accepted
    );
    // With ZeRO-1 the optimizer states (the moments and the fp32 master copy) leave the GPU.
    let z1 = train(1.0, Offload::Cpu).unwrap();
    assert_eq!(comp(&z1, K::Optimizer), 0);
    assert!(train(0.0, Offload::None).is_ok());
    // Inference ignores the training options (the site keeps them while its mode changes).
    let infer = estimate(&{
        let mut input = input(llama8b());
        input.placement.offload = Offload::Cpu;
        input
    });
    assert!(infer.is_ok());
}

#[test]
fn a_sequence_past_the_trained_context_is_noted() {
    // Llama 3.1 8B: max_position_embeddings 131,072. Inference counts the prompt and the new
    // tokens (131,000 + 256 = 131,256 is past it); training the sequence length.
    let run = |mode: Mode, seq: f64| {
        estimate(&{
            let mut input = input(llama8b());
            input.run.mode = mode;
            input.run.seq_len = seq;
            input
        })
        .unwrap()
    };
    let noted = |e: &Estimate| {
        e.notes
            .iter()
            .find(|n| n.en.contains("past the model's max_position_embeddings"))
            .map(|n| n.en.clone())
    };
    let e = run(Mode::Inference, 131_000.0);
    assert!(
        noted(&e).is_some_and(|n| n.starts_with("131,256 tokens per sequence")),
        "{:?}",
        noted(&e)
    );
    assert!(noted(&run(Mode::Inference, 2048.0)).is_none());
    assert!(noted(&run(Mode::Training, 131_072.0)).is_none());
    assert!(noted(&run(Mode::Training, 131_073.0)).is_some());
}

#[test]
fn tensor_parallel_must_split_the_heads() {
    // Llama-3.1-8B: 32 query heads, 8 KV heads. tp 16 splits the queries 2 per GPU and keeps
    // 16 / 8 = 2 copies of each KV head; tp 3 splits neither, tp 64 exceeds the query heads.
    for (tp, ok) in [
        (2.0, true),
        (16.0, true),
        (32.0, true),
        (3.0, false),
        (64.0, false),
    ] {
        let r = estimate(&{
            let mut input = input(llama8b());
            input.placement.tp = tp;
            input.placement.gpus = Some(tp);
            input
        });
        match r {
            Ok(_) => assert!(ok, "tp {tp} accepted"),
            Err(e) => {
                assert!(!ok, "tp {tp}: {e}");
                assert_eq!(e.field, "tp");
                assert_eq!(e.accepted, "one of 1, 2, 4, 8, 16, 32");
                assert!(
                    e.problem.contains("32 attention heads and 8 KV heads"),
                    "{e}"
                );
            }
        }
    }
}

#[test]
fn each_engine_takes_its_own_formats() {
    let refused = |i: EstimateInput| estimate(&i).unwrap_err();
    // KV-cache types: q8_0 and q4_0 are llama.cpp's, fp8 is vLLM's.
    let e = refused({
        let mut input = input(llama8b());
        input.run.kv_dtype = KvDtype::Q8_0;
        input
    });
    assert_eq!(e.field, "kv_dtype");
    assert_eq!(
        e.problem,
        "q8_0 is not a KV-cache type of Hugging Face transformers"
    );
    assert_eq!(
        e.accepted,
        "one of auto, fp16, bf16 with Hugging Face transformers"
    );
    let e = refused({
        let mut input = input(llama8b());
        input.run.mode = Mode::Serve;
        input.run.engine = Engine::Vllm;
        input.run.kv_dtype = KvDtype::Q4_0;
        input
    });
    assert_eq!(e.accepted, "one of auto, fp16, bf16, fp8 with vLLM");
    let e = refused({
        let mut input = input(llama8b());
        input.run.engine = Engine::Llamacpp;
        input.run.kv_dtype = KvDtype::Fp8;
        input
    });
    assert_eq!(
        e.accepted,
        "one of auto, fp16, bf16, q8_0, q4_0 with llama.cpp"
    );
    // llama.cpp loads GGUF files, not GPTQ checkpoints.
    let e = refused({
        let mut input = input(llama8b());
        input.run.engine = Engine::Llamacpp;
        input.model.quantization = Quantization::Gptq {
            bits: 4,
            group_size: 128,
        };
        input
    });
    assert_eq!(
        (e.field.as_str(), e.problem.as_str()),
        ("quantization", "llama.cpp loads GGUF files, not gptq")
    );
    // Training keeps no KV cache: its KV dtype is not checked.
    assert!(
        estimate(&{
            let mut input = input(llama8b());
            input.run.mode = Mode::Training;
            input.run.kv_dtype = KvDtype::Q4_0;
            input
        })
        .is_ok()
    );
    // transformers dequantizes a GGUF file on load: Llama-3.1-8B's weights are the bf16
    // 8,030,261,248 × 2 B, not the Q4_K_M file's 4.9 GB, and the estimate says why.
    let h = estimate(&{
        let mut input = input(llama8b());
        input.model.quantization = Quantization::Gguf {
            file_type: crate::precision::GgufFileType::Q4_K_M,
        };
        input
    })
    .unwrap();
    assert_eq!(h.weights_bytes.get(), 16_060_522_496);
    assert!(h.notes.iter().any(|n| n.key == "gguf_dequantized"));
    let l = estimate(&{
        let mut input = input(llama8b());
        input.run.engine = Engine::Llamacpp;
        input.model.quantization = Quantization::Gguf {
            file_type: crate::precision::GgufFileType::Q4_K_M,
        };
        input
    })
    .unwrap();
    assert!(l.weights_bytes.get() + l.cpu_bytes.get() < 5_000_000_000);
    assert!(!l.notes.iter().any(|n| n.key == "gguf_dequantized"));
}

#[test]
fn pipeline_training_counts_the_busiest_stages_parameters() {
    // Llama-3.1-70B over pp = 8: 10 layers per stage. A layer is q, o 8192² = 67,108,864 each,
    // k, v 8192 × 1024 = 8,388,608 each, gate, up, down 8192 × 28,672 = 234,881,024 each, and two
    // norms of 8192: 855,654,400. The last stage adds the head (8192 × 128,256 = 1,050,673,152)
    // and the final norm: 9,607,225,344 parameters, against 70,553,706,496 / 8 = 8,819,213,312.
    let arch = crate::presets::find("meta-llama/Llama-3.1-70B")
        .unwrap()
        .arch;
    let e = estimate(&{
        let mut input = input(arch);
        input.run.mode = Mode::Training;
        input.placement.pp = 8.0;
        input.placement.gpus = Some(8.0);
        input.training.grad_checkpointing = Checkpointing::Full;
        input
    })
    .unwrap();
    let last = 10 * 855_654_400 + 1_050_673_152 + 8192;
    assert_eq!(last, 9_607_225_344);
    // Mixed-precision AdamW: fp32 gradients (4 B) and two fp32 moments (8 B) per parameter.
    assert_eq!(e.gradients_bytes.get(), last * 4);
    assert_eq!(e.optimizer_bytes.get(), last * 8);
}

#[test]
fn llama_cpp_caches_only_the_window_for_interleaved_sliding_layers() {
    // Gemma 3 27B, Q8_0, n_ctx 32768: 10 global layers keep 32,768 cells; the 52 sliding layers
    // keep min(32768, pad256(1024 × 1 sequence + 512 ubatch)) = 1536 (llama_kv_cache_iswa).
    // 2 × 16 KV heads × 128 = 4096 f16 values per token and layer:
    // 4096 × (10 × 32,768 + 52 × 1536) × 2 B = 3,338,665,984 B.
    let arch = crate::presets::find("google/gemma-3-27b-it").unwrap().arch;
    let e = estimate(&{
        let mut input = input(arch);
        input.run.engine = Engine::Llamacpp;
        input.model.quantization = Quantization::Gguf {
            file_type: crate::precision::GgufFileType::Q8_0,
        };
        input.serving.max_model_len = Some(32_768.0);
        input
    })
    .unwrap();
    assert_eq!(comp(&e, K::KvCache), 4096 * (10 * 32_768 + 52 * 1536) * 2);
    // Mistral 7B v0.1 slides on every layer: llama.cpp runs it as plain llama, the whole
    // context on every layer: 2 × 8 × 128 × 32 layers × 32,768 × 2 B = 4 GiB.
    let m = crate::presets::find("mistralai/Mistral-7B-v0.1")
        .unwrap()
        .arch;
    let e = estimate(&{
        let mut input = input(m);
        input.run.engine = Engine::Llamacpp;
        input.serving.max_model_len = Some(32_768.0);
        input
    })
    .unwrap();
    assert_eq!(comp(&e, K::KvCache), 2 * 8 * 128 * 32 * 32_768 * 2);
}

/// vLLM's hybrid KV manager on Gemma 3 27B (62 layers: 10 global, 52 with a 1,024-token window;
/// 16 KV heads × 128 × 2 × 2 B = 8,192 B per token per layer): groups of 10 layers, 1 global and
/// 6 sliding (the last padded). One request of 131,072 tokens needs 8,192 blocks in each global
/// layer and cdiv(min(1,023 + 8,192, 131,072), 16) + 1 = 577 in each sliding one
/// (`SlidingWindowSpec.max_memory_usage_bytes`): 8,192 B × 16 × (10 × 8,192 + 52 × 577) =
/// 14,670,102,528 B. It fits an H100's pool, where counting every layer at full length (17.3 GB)
/// did not, and the pool's blocks serve (8,192 + 6 × 577) = 11,654 of them per request. The
/// server is text-only (`language_model_only`): with its SigLIP tower loaded the start-up
/// profile's dummy images (`vllm/encoder.rs`) leave the pool just under one such request.
#[test]
fn vllm_sliding_window_requests_by_hand() {
    let gemma = |gpu: Option<&str>| EstimateInput {
        model: ModelInput {
            model: Some("google/gemma-3-27b-it".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            language_model_only: true,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(131_072.0),
            max_num_batched_tokens: Some(8192.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: gpu.map(String::from),
            ..Default::default()
        },
        ..Default::default()
    };
    let none = estimate(&gemma(None)).unwrap();
    assert_eq!(none.kv_cache_bytes.get(), 14_670_102_528);
    let e = estimate(&gemma(Some("h100-sxm5-80gb"))).unwrap();
    assert!(e.fit.as_ref().unwrap().fits, "{:?}", e.fit);
    let block = 10 * 16 * 8192;
    assert_eq!(e.kv_cache_bytes.get() % block, 0);
    let blocks = e.kv_cache_bytes.get() / block;
    let exact = blocks as f64 / 11_654.0;
    assert_eq!(
        e.max_concurrency_exact,
        Some(libm::floor(exact * 100.0) / 100.0)
    );
    assert_eq!(e.max_concurrency, Some(1));
    // vLLM logs the tokens as the blocks shared by the 7 groups: blocks / 7 × 16.
    assert_eq!(e.kv_cache_tokens, Some(blocks / 7 * 16));
    // Four such requests at once: vLLM starts, but the run does not fit as asked (the pool holds
    // one of the four at once), and the reason says how many it holds and what card holds all.
    let four = estimate(&{
        let mut input = gemma(Some("h100-sxm5-80gb"));
        input.run.batch = 4.0;
        input
    })
    .unwrap();
    let fit = four.fit.as_ref().unwrap();
    assert!(!fit.fits);
    let reason = fit.reason.as_ref().unwrap();
    assert_eq!(reason.key, "kv_pool_below_batch");
    let held = fixed(exact, 2);
    assert!(
        reason
            .en
            .contains(&alloc::format!("holds {held} of the 4 sequences")),
        "{}",
        reason.en
    );
    assert!(
        reason.en.contains(&four.required_bytes.display_auto()),
        "{}",
        reason.en
    );
    // The serving M_theory holds the four: 4 × 14,670,102,528 B of KV in the budget.
    assert!(four.required_bytes.get() > 4 * 14_670_102_528);
    // A request that does not fit the pool: vLLM refuses to start, and the reason says by how much.
    let long = estimate(&{
        let mut input = gemma(None);
        input.hardware.gpu = Some("l4".into());
        input
    })
    .unwrap();
    let fit = long.fit.unwrap();
    assert!(!fit.fits);
    let reason = fit.reason.unwrap();
    assert_eq!(reason.key, "kv_pool_too_small");
    assert!(reason.en.contains("needs 13.66 GiB"), "{}", reason.en);
}

/// llama.cpp's compute buffer is the graph's largest stage: Llama-3.1-8B at ubatch 512 and n_ctx
/// 8,192 without flash attention is max(output 512 × (128,256 + 4,096) × 4 B = 258.5 MiB,
/// feed-forward 512 × (4,096 × 4 + 14,336 × 2) × 4 B = 88 MiB, attention 512 × 8,192 × (32 heads +
/// mask) × 4 B + 4 × 512 × 4,096 × 4 B = 560 MiB) = 560 MiB, which two published Ollama logs of
/// this model print (560.00 MiB, tests/data/llamacpp-buffers.csv). With flash attention it is the
/// output's 258.5 MiB, which llama.cpp prints for Llama-3-8B at n_ctx 512 (258.50 MiB). Those
/// are builds before llama.cpp PR #23861 (b9508 here); the latest reserves one output per
/// sequence (`llamacpp_tests.rs`, `one_output_per_sequence_leaves_a_block_leading`).
#[test]
fn llamacpp_compute_buffer_by_hand() {
    let run = |attention| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".into()),
                quantization: Quantization::Gguf {
                    file_type: crate::precision::GgufFileType::Q4_K_M,
                },
                ..Default::default()
            },
            run: RunInput {
                engine_version: Some("b9508".into()),
                engine: Engine::Llamacpp,
                attention,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(8192.0),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    let eager = run(AttentionImpl::Eager);
    assert_eq!(
        comp(&eager, K::ComputeBuffer),
        512 * 8192 * 33 * 4 + 4 * 512 * 4096 * 4
    );
    assert_eq!(comp(&eager, K::ComputeBuffer), 560 * MIB);
    let flash = run(AttentionImpl::Flash);
    assert_eq!(comp(&flash, K::ComputeBuffer), 512 * (128_256 + 4096) * 4);
    assert_eq!(comp(&flash, K::ComputeBuffer) * 2, 517 * MIB);
}

/// llama.cpp from a bare parameter count: the guide's bytes per parameter, all on the GPU by
/// default (7B in bf16: 14 GB; in a 4-bit GGUF: 3.5 GB), not nothing.
#[test]
fn llamacpp_from_a_parameter_count() {
    let run = |quantization| {
        estimate(&EstimateInput {
            model: ModelInput {
                params: Some("7B".into()),
                quantization,
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Llamacpp,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    assert_eq!(run(Quantization::None).weights_bytes.get(), 14_000_000_000);
    let q4 = run(Quantization::Gguf {
        file_type: crate::precision::GgufFileType::Q4_K_M,
    });
    assert_eq!(q4.weights_bytes.get(), 3_500_000_000);
    assert!(q4.total_bytes.get() > 3_500_000_000);
}

/// LoRA under ZeRO-3 partitions the frozen base too (PEFT's DeepSpeed guide trains Llama-2-70B
/// LoRA this way on 8 GPUs). Llama-3.1-70B, r 16 on q_proj and v_proj: 80 layers × 16 ×
/// ((8,192 + 8,192) + (8,192 + 1,024)) = 32,768,000 adapter parameters; the base
/// 70,553,706,496 parameters. On each of 8 GPUs: (70,553,706,496 + 32,768,000) × 2 B / 8 of
/// weights, 2 B / 8 of gradients and (4 B master + 8 B moments) / 8 of optimizer per adapter
/// parameter. Offloaded, the base's 16-bit copy and the adapters' 16 B states go to the CPU, once.
#[test]
fn lora_under_zero3_partitions_the_base() {
    let base = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-70B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            ..Default::default()
        },
        training: TrainingInput {
            lora_rank: 16.0,
            ..Default::default()
        },
        placement: PlacementInput {
            zero: 3.0,
            gpus: Some(8.0),
            ..Default::default()
        },
        ..Default::default()
    };
    let e = estimate(&base).unwrap();
    let (p, t) = (70_553_706_496u64, 32_768_000u64);
    assert_eq!(e.params, p);
    assert_eq!(e.trainable_params, t);
    assert_eq!(e.weights_bytes.get(), ((p + t) * 2).div_ceil(8));
    assert_eq!(e.gradients_bytes.get(), (t * 2).div_ceil(8));
    assert_eq!(e.optimizer_bytes.get(), (t * 12).div_ceil(8));
    let off = estimate(&EstimateInput {
        placement: PlacementInput {
            offload: Offload::Cpu,
            ..base.placement
        },
        ..base
    })
    .unwrap();
    assert_eq!(off.weights_bytes.get(), 0);
    assert_eq!(off.cpu_bytes.get(), (t * 16 + p * 2).div_ceil(8));
}

/// Lion keeps one momentum, so its foreach temporary is one moment of the partition, as AdamW's:
/// Llama-3.1-8B under ZeRO-1 on 8 GPUs, 4 B × P / 8, plus the fp32 gradient partition 4 B × P / 8.
#[test]
fn lion_under_zero_has_one_moment_of_temporary() {
    let p = 8_030_261_248u64;
    let e = estimate(&{
        let mut input = input(llama8b());
        input.run.mode = Mode::Training;
        input.training.optimizer = Optimizer::Lion;
        input.placement.zero = 1.0;
        input.placement.gpus = Some(8.0);
        input
    })
    .unwrap();
    assert_eq!(comp(&e, K::StepTemporaries), 2 * (4 * p).div_ceil(8));
}

/// Eager attention keeps the fp32 softmax and, in 16-bit training, its cast back: 4 + 2 B per
/// head per query–key pair in bf16, 4 B in fp32 (softmax(dtype=float32).to(float32) is the same
/// tensor). Llama-3.1-8B, 1 × 1,024 tokens: 32 layers × 1,024² × 32 heads × that.
///
/// Per token it keeps q, k and v expanded to the 32 query heads (`repeat_kv`) and o_proj's
/// contiguous copy of the output, 4 × 4096 elements, where SDPA keeps q, k and v at the 8 KV
/// heads and the output that o_proj reads as a view, 4096 + 2 × 1024 + 4096 = 10,240 elements,
/// and an fp32 log-sum-exp per head (4 × 32 = 128 B): 6,144 elements more, less 128 B, per token
/// per block; 12,160 B in bf16, 24,448 B in fp32.
#[test]
fn eager_scores_by_hand_in_bf16_and_fp32() {
    let run = |precision, attention| {
        estimate(&{
            let mut input = input(llama8b());
            input.run.mode = Mode::Training;
            input.training.precision = precision;
            input.run.attention = attention;
            input.run.seq_len = 1024.0;
            input
        })
        .unwrap()
        .activations_bytes
        .get()
    };
    let scores = 32 * 1024 * 1024 * 32;
    let tokens = 1024 * 32;
    for (precision, bytes, per_token) in [
        (Precision::Bf16, 6, 2 * 6_144 - 128),
        (Precision::Fp32, 4, 4 * 6_144 - 128),
    ] {
        let diff = run(precision, AttentionImpl::Eager) - run(precision, AttentionImpl::Sdpa);
        assert_eq!(diff, scores * bytes + tokens * per_token, "{precision:?}");
    }
}

/// vLLM splits 28 layers over 3 stages as 9, 10, 9 (`get_pp_indices`: the remainder before the
/// last stage). Qwen2.5-7B in bf16: a layer is 233,057,792 parameters, the embedding and the head
/// 152,064 × 3,584 = 544,997,376 each; the last stage (9 layers, the head and the final norm of
/// 3,584) is the busiest: (9 × 233,057,792 + 544,997,376 + 3,584) × 2 B = 5,285,042,176 B.
#[test]
fn pipeline_stages_split_as_vllm_does() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("Qwen/Qwen2.5-7B-Instruct".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Vllm,
            ..Default::default()
        },
        placement: PlacementInput {
            pp: 3.0,
            gpus: Some(3.0),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let rope = 32_768 * 128 * 2; // the rotary cos/sin cache vLLM adds to the weights
    assert_eq!(e.weights_bytes.get(), 5_285_042_176 + rope);
    let a = crate::presets::find("Qwen/Qwen2.5-7B-Instruct")
        .unwrap()
        .arch;
    let stage = |l| {
        weights::pp_stage(
            &crate::model::Tensor {
                role: Role::Q,
                layer: Some(l),
                rows_in: 1,
                rows_out: 1,
                count: 1,
            },
            a.num_layers,
            3,
        )
    };
    assert_eq!(
        (stage(8), stage(9), stage(18), stage(19), stage(27)),
        (0, 1, 1, 2, 2)
    );
}

/// llama.cpp on two GPUs splits the 33 positions of Llama-3.1-8B (32 blocks and the output
/// layer) at its split point 0.5 (equal shares): block `il` on GPU 0 while il / 33 < 0.5, i.e.
/// blocks 0–16, and blocks 17–31 with the output layer (Q6_K: 4,096 × 128,256 / 256 × 210 B =
/// 430,940,160 B, and the fp32 final norm 16,384 B) on GPU 1, which is the busier. Q4_K_M gives
/// attn_v and ffn_down Q6_K in the blocks `use_more_bits` picks (i < 4, i ≥ 28, (i − 4) % 3 = 2):
/// such a block is 138,936,320 B, another 122,716,160 B (q and o 9,437,184, k and v 2,359,296,
/// gate, up and down 33,030,144, norms 32,768; Q6_K v 3,440,640 and down 48,168,960). Blocks
/// 17–31 hold 8 of the first kind: 8 × 138,936,320 + 7 × 122,716,160 + 430,956,544 =
/// 2,401,460,224 B; their 15 layers' KV cache 2 × 8 × 128 × 8,192 × 15 × 2 B = 503,316,480 B.
/// tp is refused.
#[test]
fn llamacpp_splits_layers_across_gpus() {
    let run = |gpus: f64, tp: f64| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".into()),
                quantization: Quantization::Gguf {
                    file_type: crate::precision::GgufFileType::Q4_K_M,
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
            placement: PlacementInput {
                gpus: Some(gpus),
                tp,
                ..Default::default()
            },
            ..Default::default()
        })
    };
    let one = run(1.0, 1.0).unwrap();
    let two = run(2.0, 1.0).unwrap();
    let out = 430_940_160 + 16_384;
    let (more, plain) = (138_936_320u64, 122_716_160u64);
    assert_eq!(one.weights_bytes.get(), 16 * more + 16 * plain + out);
    assert_eq!(two.weights_bytes.get(), 8 * more + 7 * plain + out);
    assert_eq!(two.weights_bytes.get(), 2_401_460_224);
    assert_eq!(one.kv_cache_bytes.get(), 32 * 33_554_432);
    assert_eq!(two.kv_cache_bytes.get(), 503_316_480);
    assert_eq!(two.gpus, 2);
    assert_eq!(run(2.0, 2.0).unwrap_err().field, "tp");
}

/// Under tensor parallelism vLLM replicates DeepSeek's MLA down-projections and the MoE routers
/// on every GPU. DeepSeek-V3 at tp 8: q_a + kv_a are 7,168 × (1,536 + 576) × 61 layers =
/// 923,467,776 weights (fp8, ≥ 1 B each) and the routers 7,168 × 256 × 58 MoE layers in bf16 =
/// 212,860,928 B, so each GPU holds at least 7/8 of those beyond an eighth of the model.
#[test]
fn mla_down_projections_and_routers_are_replicated_under_tp() {
    let run = |tp: f64| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some("deepseek-ai/DeepSeek-V3".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Serve,
                engine: Engine::Vllm,
                ..Default::default()
            },
            placement: PlacementInput {
                tp,
                gpus: Some(tp),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    // The rotary cache is not part of MLA's weights (vLLM keeps none for it here).
    let (one, eight) = (run(1.0).weights_bytes.get(), run(8.0).weights_bytes.get());
    let replicated = 923_467_776 + 212_860_928;
    assert!(
        eight >= one / 8 + replicated * 7 / 8,
        "{eight} against {one}"
    );
    let a = crate::presets::find("deepseek-ai/DeepSeek-V3")
        .unwrap()
        .arch;
    let t = |role| crate::model::Tensor {
        role,
        layer: Some(5),
        rows_in: 7168,
        rows_out: 1536,
        count: 1,
    };
    for (role, d) in [
        (Role::QA, 1),
        (Role::KvA, 1),
        (Role::Router, 1),
        (Role::QB, 8),
    ] {
        assert_eq!(weights::tp_divisor(&a, &t(role), 8), d, "{role:?}");
    }
}

/// A ViT sees its patches and class token, (224 / 16)² + 1 = 197 per image, whatever seq_len says;
/// Whisper's encoder always runs its 1,500 frames (30 s of audio) beside the decoder's seq_len.
#[test]
fn vision_and_audio_models_see_their_own_sequences() {
    let vit = |seq: f64| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some("google/vit-large-patch16-224".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Training,
                seq_len: seq,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    let (a, b) = (vit(2048.0), vit(16.0));
    assert_eq!(a.activations_bytes, b.activations_bytes);
    let (f, per_tok) = activation_formula(&a);
    assert!(f.starts_with("197 tokens × "), "{f}");
    assert_eq!(a.activations_bytes.get(), 197 * per_tok * 24);
    // Whisper-tiny (4 encoder and 4 decoder blocks): 448 decoder tokens and 1,500 frames.
    let w = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("openai/whisper-tiny".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            seq_len: 448.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let (_, per_tok) = activation_formula(&w);
    // Plus each decoder block's cross-attention: per decoder token its LayerNorm's fp32 input,
    // 4·384 (under autocast it saves nothing else); q_proj's cast of the norm's fp32 output,
    // 2·384; the kernel's q and output (which o_proj reads as a view), 2·2·384, and log-sum-exp,
    // 4·6: 3,864 B. Per frame: the kernel's k and v, 2·2·384, and k_proj's and v_proj's casts of
    // the encoder's fp32 output, 2·2·384: 3,072 B. 4 × (448 × 3,864 + 1,500 × 3,072) =
    // 25,356,288 B.
    assert_eq!(
        w.activations_bytes.get(),
        (448 + 1500) * per_tok * 4 + 25_356_288
    );
}

/// gpt-oss in llama.cpp runs from its MXFP4_MOE GGUF: ggml-org/gpt-oss-20b-GGUF is 11.27 GiB
/// (llama.cpp's load log: 72 MXFP4 tensors, the experts; 98 Q8_0, the 4 × 24 attention matrices,
/// the token embedding and the output; the rest F32), of which the token embedding, 201,088 ×
/// 2,880 in Q8_0 = 0.573 GiB, stays in CPU memory: 10.70 GiB on the GPU. Counting the non-expert
/// matrices in bf16 said 11.74.
#[test]
fn gpt_oss_in_llamacpp_is_its_mxfp4_gguf() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("openai/gpt-oss-20b".into()),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(131_072.0),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let gib = |x: u64| x as f64 / GIB as f64;
    let (gpu, cpu) = (gib(e.weights_bytes.get()), gib(e.cpu_bytes.get()));
    assert!((gpu / 10.70 - 1.0).abs() < 0.005, "{gpu}");
    assert!(
        (cpu / (201_088.0 * 2_880.0 / 32.0 * 34.0 / GIB as f64) - 1.0).abs() < 0.001,
        "{cpu}"
    );
    assert!(((gpu + cpu) / 11.27 - 1.0).abs() < 0.005, "{}", gpu + cpu);
}

/// bitsandbytes' 8-bit AdamW keeps each moment in 1 B per parameter plus one fp32 absmax per block
/// of 256: Llama-3.1-8B, 2 × 8,030,261,248 B + ⌈8,030,261,248 / 256⌉ × 2 × 4 B = 16,311,468,160 B
/// (the scales: 250.9 MB).
#[test]
fn adamw_8bit_counts_its_block_scales() {
    let e = estimate(&{
        let mut input = input(llama8b());
        input.run.mode = Mode::Training;
        input.training.optimizer = Optimizer::Adamw8bit;
        input.training.precision = Precision::Bf16;
        input
    })
    .unwrap();
    let p = 8_030_261_248u64;
    assert_eq!(e.optimizer_bytes.get(), 2 * p + p.div_ceil(256) * 8);
    assert_eq!(e.optimizer_bytes.get(), 16_311_468_160);
}

/// Adafactor's update needs a full-size fp32 temporary of the largest trainable tensor on the GPU:
/// Llama-3.1-8B's embedding, 128,256 × 4,096 × 4 B = 2,101,346,304 B, half of it at tp 2; under
/// LoRA (r 16 on q_proj and v_proj) the largest adapter matrix, 16 × 4,096 × 4 B = 262,144 B, not
/// the frozen embedding.
#[test]
fn adafactor_temporary_is_the_largest_trainable_tensor() {
    let run = |lora_rank: f64, tp: f64| {
        let e = estimate(&{
            let mut input = input(llama8b());
            input.run.mode = Mode::Training;
            input.training.optimizer = Optimizer::Adafactor;
            input.training.lora_rank = lora_rank;
            input.training.lora_targets = alloc::vec!["q_proj".into(), "v_proj".into()];
            input.placement.tp = tp;
            input.placement.gpus = Some(tp);
            input
        })
        .unwrap();
        e.components
            .iter()
            .find(|c| c.key == K::StepTemporaries)
            .map_or(0, |c| c.bytes.get())
    };
    assert_eq!(run(0.0, 1.0), 2_101_346_304);
    assert_eq!(run(0.0, 2.0), 2_101_346_304 / 2);
    assert_eq!(run(16.0, 1.0), 262_144);
}

/// Transformers' sparse MoE block (Mixtral, Qwen-MoE) gathers each of a token's k routed slots into
/// its own tensor; under autocast each expert's gate and up projections save their own bf16 cast
/// of it, where a dense FFN saves its input once; the routing multiply saves each slot's expert
/// output, and the router its own cast of the input. Mixtral (h 4,096, 32 heads, 8 KV heads of
/// 128, k 2 experts of 14,336), AMP bf16: 2 × (2 − 1) × 4,096 × 2 B + 2 × 4,096 × 2 B + 4,096 ×
/// 2 B = 40,960 B more per token per layer than 356,528 (the norms' fp32 copies and normalised
/// tensors 2 × (4 + 4) × 4,096 = 65,536, the casts for q, k, v 3 × 2 × 4,096 = 24,576, the
/// kernel's q, k and v at 8 KV heads and output 2 × (4,096 + 2,048 + 4,096) + the fp32
/// log-sum-exp 4 × 32 = 20,608, the casts for gate and up 2 × 2 × 4,096 = 16,384, gate, SiLU and
/// up over both slots 3 × 2 × 28,672 = 172,032, down's input 2 × 28,672 = 57,344, the router's
/// fp32 logits and routing weights 4 × 8 + 8 × 2 = 48): 397,488. Qwen3-30B-A3B (h 2,048, 32
/// heads, 4 KV heads of 128, k 8 experts of 768): 2 × 7 × 2,048 × 2 + 8 × 2,048 × 2 + 2,048 × 2
/// = 94,208 more than 149,184 (norms 32,768, q/k/v casts 12,288, kernel 2 × (4,096 + 1,024 +
/// 4,096) + 128 = 18,560, the q/k RMSNorm's fp32 copies and normalised tensors (4 + 2) × 36 ×
/// 128 = 27,648, gate/up casts 8,192, gate, SiLU and up 3 × 2 × 6,144 = 36,864, down's input
/// 12,288, router 4 × 128 + 8 × 8 = 576): 243,392.
#[test]
fn moe_training_saves_every_routed_slot() {
    for (model, per_tok) in [
        ("mistralai/Mixtral-8x7B-v0.1", 397_488u64),
        ("Qwen/Qwen3-30B-A3B", 243_392),
    ] {
        let e = estimate(&EstimateInput {
            model: ModelInput {
                model: Some(model.into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Training,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        assert_eq!(activation_formula(&e).1, per_tok, "{model}");
    }
}

/// Whisper's decoder keeps, for every sequence and decoder layer, the keys and values of the
/// encoder's 1,500 frames (transformers' `EncoderDecoderCache` cross cache), and the encoder's
/// output, from its first step to its last. Whisper-tiny (4 decoder layers, 6 heads × 64, fp32),
/// 16 sequences of 4 + 444 tokens: self-attention 2 × 384 × 448 × 4 × 16 × 4 B = 88,080,384 B;
/// cross-attention 2 × 384 × 1,500 × 4 × 16 × 4 B = 294,912,000 B; the encoder's output 16 ×
/// 1,500 × 384 × 4 B = 36,864,000 B. The peak is the encoder's pass, before any of it exists:
/// one block over 16 × 1,500 frames.
#[test]
fn whisper_keeps_cross_attention_keys_and_values() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("openai/whisper-tiny".into()),
            ..Default::default()
        },
        run: RunInput {
            batch: 16.0,
            seq_len: 4.0,
            new_tokens: 444.0,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        e.kv_cache_bytes.get(),
        88_080_384 + 294_912_000 + 36_864_000
    );
    // One encoder block's widest op per frame, fp32: 4 × (2 × 384 + max(q, k, v and the output
    // 4 × 384, the FFN's 1,536 up and 1,536 GELU)) + 8 × 384 for the norm = 18,432 B.
    let encoder = 16 * 1_500 * 18_432;
    assert_eq!(e.activations_bytes.get(), encoder);
    // Weights 37,760,640 × 4 B, the encoder's block, the cuBLAS workspace (32 MiB on Hopper; none
    // named here, so the larger).
    let ws = e.peak_allocated_bytes.get() - 37_760_640 * 4 - encoder;
    assert!(ws <= 32 * MIB + 128 * 1024, "{ws}");
    // The decoder's last step holds both caches, the encoder's output and the logits, less than
    // the encoder's pass here: a cache of 16 × 448 tokens was 84 MiB, 80 % of what it holds now.
    assert!(88_080_384 + 294_912_000 + 36_864_000 < encoder);
}

/// vLLM caches Whisper's cross-attention in its own KV group (`CrossAttentionSpec`:
/// cdiv(1,500, 16) = 94 blocks per request) beside the self-attention group (cdiv(448, 16) = 28
/// blocks), and runs the fp32 checkpoint in bf16 (dtype "auto" downcasts fp32). On an H100 SXM5
/// (81,090 MiB × 0.9): 72,977.4 MiB less weights 37,760,640 × 2 B, the profile run and the
/// non-torch memory, in blocks of 16 tokens × 4 layers × 2 × 384 × 2 B = 98,304 B; a request
/// takes 28 + 94 of them.
#[test]
fn vllm_serves_whisper_with_a_cross_attention_group() {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("openai/whisper-tiny".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(e.weights_bytes.get(), 37_760_640 * 2);
    assert!(e.notes.iter().any(|n| n.key == "vllm_downcast"));
    let kv = e.components.iter().find(|c| c.key == K::KvCache).unwrap();
    let blocks = kv.bytes.get() / 98_304;
    assert_eq!(kv.bytes.get() % 98_304, 0);
    let budget = (81_090.0 * MIB as f64 * 0.9) as u64;
    // The latest release takes the CUDA graphs out of the budget too (from 0.21).
    let cg = e
        .components
        .iter()
        .find(|c| c.key == K::CudaGraphs)
        .unwrap()
        .bytes
        .get();
    let used = e.weights_bytes.get() + e.activations_bytes.get() + 256 * MIB + cg;
    assert_eq!(blocks, (budget - used) / 98_304);
    let c = e.max_concurrency_exact.unwrap();
    assert!(
        (c - (blocks as f64 / 122.0 * 100.0).floor() / 100.0).abs() < 1e-9,
        "{c}"
    );
    // Two groups share the pool: the tokens are blocks / 2 × 16.
    assert_eq!(e.kv_cache_tokens, Some(blocks / 2 * 16));
    // On a V100 (no bf16) vLLM picks fp16; an explicit dtype is kept.
    let v100 = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("openai/whisper-tiny".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("v100-sxm2-32gb".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let w = v100
        .components
        .iter()
        .find(|c| c.key == K::Weights)
        .unwrap();
    assert!(w.formula.contains("(fp16)"), "{}", w.formula);
    let fp32 = estimate(&EstimateInput {
        model: ModelInput {
            model: Some("openai/whisper-tiny".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            dtype: Some(Dtype::Fp32),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    assert_eq!(fp32.weights_bytes.get(), 37_760_640 * 4);
    assert!(!fp32.notes.iter().any(|n| n.key == "vllm_downcast"));
}

/// A network as autograd sees it, for counting convolutional networks by hand: tensors (their
/// elements per image) and the operations over them, with what each saves for backward.
#[derive(Default)]
struct Net {
    sizes: Vec<u64>,
    /// (inputs, output, saved tensors, int64 indices saved)
    ops: Vec<(Vec<usize>, usize, Vec<usize>, u64)>,
}

impl Net {
    fn tensor(&mut self, n: u64) -> usize {
        self.sizes.push(n);
        self.sizes.len() - 1
    }
    fn op(&mut self, ins: &[usize], out: u64, saves: &[usize], indices: u64) -> usize {
        let o = self.tensor(out);
        self.ops.push((ins.to_vec(), o, saves.to_vec(), indices));
        o
    }
    /// An operation that writes over its input (ReLU(inplace=True), `+=`), saving `saves`.
    fn in_place(&mut self, ins: &[usize], saves: &[usize]) -> usize {
        self.ops.push((ins.to_vec(), ins[0], saves.to_vec(), 0));
        ins[0]
    }
    /// conv → BatchNorm → activation: the conv saves its input, the BatchNorm its input; an
    /// in-place ReLU saves its output, SiLU its input.
    fn conv_bn(&mut self, x: usize, out: u64, act: Option<&str>) -> usize {
        let y = self.op(&[x], out, &[x], 0);
        let z = self.op(&[y], out, &[y], 0);
        match act {
            Some("relu") => self.in_place(&[z], &[z]),
            Some(_) => self.op(&[z], out, &[z], 0),
            None => z,
        }
    }
    /// (elements saved for backward, indices saved)
    fn saved(&self) -> (u64, u64) {
        let mut kept = alloc::collections::BTreeSet::new();
        let mut indices = 0;
        for (_, _, saves, i) in &self.ops {
            kept.extend(saves.iter().copied());
            indices += i;
        }
        (kept.iter().map(|&t| self.sizes[t]).sum(), indices)
    }
}

/// The per-image counts of the ResNet-50 and YOLOv5s presets, counted again: what training saves,
/// layer by layer over torchvision's resnet50 (v1.5, stride on the 3×3; transformers' ResNet saves
/// the same tensors) at 224 × 224 and models/yolov5s.yaml (v6+) at 640 × 640, and the widest point
/// of an inference pass by hand. Training activations are then the batch × (elements ×
/// activation bytes + indices × 8 B), and inference the batch × the widest point.
#[test]
fn convnets_are_counted_layer_by_layer() {
    // ResNet-50.
    let mut n = Net::default();
    let mut x = n.tensor(3 * 224 * 224);
    x = n.conv_bn(x, 64 * 112 * 112, Some("relu"));
    x = n.op(&[x], 64 * 56 * 56, &[x], 64 * 56 * 56);
    let mut hw = 56;
    for (width, blocks, stride) in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)] {
        for b in 0..blocks {
            let st = if b == 0 { stride } else { 1 };
            let o = hw / st;
            let y = n.conv_bn(x, width * hw * hw, Some("relu"));
            let y = n.conv_bn(y, width * o * o, Some("relu"));
            let y = n.conv_bn(y, 4 * width * o * o, None);
            let id = if b == 0 {
                n.conv_bn(x, 4 * width * o * o, None)
            } else {
                x
            };
            let y = n.in_place(&[y, id], &[]);
            x = n.in_place(&[y], &[y]);
            hw = o;
        }
    }
    let pooled = n.op(&[x], 2048, &[], 0);
    n.op(&[pooled], 1000, &[pooled], 0);
    let r = crate::presets::find("microsoft/resnet-50").unwrap().arch;
    assert_eq!(n.saved(), (r.image_activations, r.image_indices));
    // Inference, as transformers' modules hold their tensors, is widest in the first stage's
    // second block, at its third conv's BatchNorm: the image (3 × 224²), the stage's input (the
    // max-pool's 64 × 56², `ResNetStage`'s argument), the block's input (256 × 56², `residual`),
    // the second ReLU's output (64 × 56², `nn.Sequential`'s input to the third layer), and the
    // conv's and the BatchNorm's outputs (256 × 56² each).
    let widest = 3 * 224 * 224 + 64 * 3136 + 256 * 3136 + 64 * 3136 + 2 * 256 * 3136;
    assert_eq!((r.image_size, r.image_working), (224, widest));

    // YOLOv5s: width 0.5, depth 0.33.
    let mut n = Net::default();
    let input = n.tensor(3 * 640 * 640);
    let conv = |n: &mut Net, x: usize, c: u64, hw: u64| n.conv_bn(x, c * hw * hw, Some("silu"));
    let c3 = |n: &mut Net, x: usize, c2: u64, depth: u64, hw: u64, shortcut: bool| {
        let c = c2 / 2;
        let mut a = conv(n, x, c, hw);
        for _ in 0..depth {
            let b = conv(n, a, c, hw);
            let b = conv(n, b, c, hw);
            a = if shortcut {
                n.op(&[a, b], c * hw * hw, &[], 0)
            } else {
                b
            };
        }
        let d = conv(n, x, c, hw);
        let cat = n.op(&[a, d], 2 * c * hw * hw, &[], 0);
        conv(n, cat, c2, hw)
    };
    let l0 = conv(&mut n, input, 32, 320);
    let l1 = conv(&mut n, l0, 64, 160);
    let l2 = c3(&mut n, l1, 64, 1, 160, true);
    let l3 = conv(&mut n, l2, 128, 80);
    let l4 = c3(&mut n, l3, 128, 2, 80, true);
    let l5 = conv(&mut n, l4, 256, 40);
    let l6 = c3(&mut n, l5, 256, 3, 40, true);
    let l7 = conv(&mut n, l6, 512, 20);
    let l8 = c3(&mut n, l7, 512, 1, 20, true);
    // SPPF: three chained 5×5 max-pools over a 256-channel reduction, concatenated.
    let a = conv(&mut n, l8, 256, 20);
    let mut pools = alloc::vec![a];
    for _ in 0..3 {
        let p = *pools.last().unwrap();
        pools.push(n.op(&[p], 256 * 400, &[p], 256 * 400));
    }
    let cat = n.op(&pools, 1024 * 400, &[], 0);
    let l9 = conv(&mut n, cat, 512, 20);
    let l10 = conv(&mut n, l9, 256, 20);
    let up = n.op(&[l10], 256 * 1600, &[], 0);
    let cat = n.op(&[up, l6], 512 * 1600, &[], 0);
    let l13 = c3(&mut n, cat, 256, 1, 40, false);
    let l14 = conv(&mut n, l13, 128, 40);
    let up = n.op(&[l14], 128 * 6400, &[], 0);
    let cat = n.op(&[up, l4], 256 * 6400, &[], 0);
    let p3 = c3(&mut n, cat, 128, 1, 80, false);
    let l18 = conv(&mut n, p3, 128, 40);
    let cat = n.op(&[l18, l14], 256 * 1600, &[], 0);
    let p4 = c3(&mut n, cat, 256, 1, 40, false);
    let l21 = conv(&mut n, p4, 256, 20);
    let cat = n.op(&[l21, l10], 512 * 400, &[], 0);
    let p5 = c3(&mut n, cat, 512, 1, 20, false);
    // Detect: a 1×1 conv to 3 × 85 per cell at each scale; the loss keeps the permuted copies.
    for (p, cells) in [(p3, 6400), (p4, 1600), (p5, 400)] {
        let y = n.op(&[p], 255 * cells, &[p], 0);
        let copy = n.op(&[y], 255 * cells, &[], 0);
        n.in_place(&[copy], &[copy]);
    }
    let y = crate::presets::find("ultralytics/yolov5s").unwrap().arch;
    assert_eq!(n.saved(), (y.image_activations, y.image_indices));
    // Inference (convs fused with their BatchNorms, as detect.py loads the model) is widest at
    // Detect's final torch.cat(z, 1): the image; the outputs _forward_once keeps for later layers
    // (4: 128 × 80², 6: 256 × 40², 10: 256 × 20², 14: 128 × 40², 17: 128 × 80², 20: 256 × 40²,
    // 23: 512 × 20²); Detect's three contiguous copies, three decoded outputs and their
    // concatenation (255 × (80² + 40² + 20²) each); the last scale's sigmoid (255 × 20²) and its xy
    // and wh (3 × 20² × 2 each).
    let kept =
        128 * 6400 + 256 * 1600 + 256 * 400 + 128 * 1600 + 128 * 6400 + 256 * 1600 + 512 * 400;
    let detect = 3 * 255 * 8400 + 255 * 400 + 2 * 3 * 400 * 2;
    assert_eq!(
        (y.image_size, y.image_working),
        (640, 3 * 640 * 640 + kept + detect)
    );
}

/// A convolutional network's activations grow with the batch: ResNet-50 in fp32 training keeps
/// 21,075,968 × 4 B + 200,704 × 8 B = 85,909,504 B per image (81.9 MiB), so 112 images take
/// 9,621,864,448 B; in inference the widest point is
/// 2,960,384 × 4 B per image. The largest batch on a card is the one whose estimate fits and
/// whose next does not.
#[test]
fn convnet_activations_grow_with_the_batch() {
    let run = |mode: Mode, batch: f64| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some("microsoft/resnet-50".into()),
                ..Default::default()
            },
            run: RunInput {
                mode,
                batch,
                ..Default::default()
            },
            training: TrainingInput {
                precision: Precision::Fp32,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap()
    };
    assert_eq!(
        run(Mode::Training, 112.0).activations_bytes.get(),
        9_621_864_448
    );
    assert_eq!(run(Mode::Training, 1.0).activations_bytes.get(), 85_909_504);
    assert_eq!(
        run(Mode::Inference, 64.0).activations_bytes.get(),
        64 * 2_960_384 * 4
    );
    let v100 = crate::catalog::find_device("v100-sxm2-16gb").unwrap();
    let input = EstimateInput {
        model: ModelInput {
            model: Some("microsoft/resnet-50".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            ..Default::default()
        },
        training: TrainingInput {
            precision: Precision::Fp32,
            ..Default::default()
        },
        ..Default::default()
    };
    let s = solve(&input, &v100);
    let b = s.max_batch.unwrap();
    assert!(s.max_context.is_none());
    assert!(run(Mode::Training, b as f64).required_bytes <= v100.memory);
    assert!(run(Mode::Training, (b + 1) as f64).required_bytes > v100.memory);
    assert!((112..=200).contains(&b), "{b}");
}

/// The layers of a stage by their attention, by hand from the models' layer patterns: the
/// stage holds its share of the full layers rounded up, so that the busiest stage is not
/// under-counted. llama.cpp's `-ngl 10` puts the output layer and the last 9 blocks on the GPU:
/// Gemma 3 27B (62 blocks, every 6th full from block 5) has 2 full blocks among 53..61 (53, 59),
/// which the old count (the sliding share rounded up: ceil(9 × 52 / 62) = 8 sliding, 1 full)
/// missed; gpt-oss-20b (24 blocks, every other full from block 1) has 5 among 15..23.
#[test]
fn the_full_layers_of_a_stage_are_rounded_up() {
    let arch = |id: &str| crate::catalog::find_model(id).unwrap().1;
    assert_eq!(arch("google/gemma-3-27b-it").stage_layers(9), (2, 7));
    assert_eq!(arch("openai/gpt-oss-20b").stage_layers(9), (5, 4));
    // Four pipeline stages of 16 blocks of Gemma 3: 10 × 16 / 62 = 2.6 full layers, counted 3
    // (blocks 16..31 hold 17, 23 and 29).
    assert_eq!(arch("google/gemma-3-27b-it").stage_layers(16), (3, 13));
    // No window: every layer full; every layer sliding (Mistral 7B v0.1's 4,096): none full.
    assert_eq!(llama8b().stage_layers(32), (32, 0));
    let mistral = Architecture {
        sliding_window: 4096,
        sliding_layers: 32,
        ..llama8b()
    };
    assert_eq!(mistral.stage_layers(32), (0, 32));
}

/// NVFP4 keeps 4-bit values and one FP8 scale per 16 of them: 16 values in 8 + 1 = 9 bytes, so
/// Llama-3.1-8B's 131,072 B a token in bf16 (2 × 8 × 128 × 32 × 2) is 36,864 B in nvfp4.
#[test]
fn nvfp4_takes_nine_bytes_per_sixteen_values() {
    assert_eq!(KvDtype::Nvfp4.bytes_for(16, Dtype::Bf16), 9);
    assert_eq!(KvDtype::Nvfp4.bytes_for(17, Dtype::Bf16), 18);
    assert_eq!(
        KvDtype::Nvfp4.bytes_for(2 * 8 * 128 * 32, Dtype::Bf16),
        36_864
    );
    assert_eq!(KvDtype::parse("kv_dtype", "nvfp4").unwrap(), KvDtype::Nvfp4);
}

/// TensorRT-LLM keeps an fp8 cache only where the card computes in FP8 (Ada, Hopper, Blackwell)
/// and an nvfp4 one only on Blackwell; vLLM stores fp8 on an A100 too; no other engine takes
/// nvfp4. `free_gpu_memory_fraction` is a fraction from 0.01 to 1.
#[test]
fn trtllms_kv_formats_need_the_card_and_its_fraction_a_range() {
    let run = |engine, kv_dtype, gpu: &str| {
        EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Serve,
                engine,
                kv_dtype,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some(gpu.into()),
                ..Default::default()
            },
            ..Default::default()
        }
        .resolve()
    };
    let e = run(Engine::Trtllm, KvDtype::Fp8, "a100-sxm4-80gb").unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_str()),
        (crate::ErrorKind::Unsupported, "kv_dtype")
    );
    assert!(run(Engine::Trtllm, KvDtype::Fp8, "h100-sxm5-80gb").is_ok());
    assert!(run(Engine::Trtllm, KvDtype::Fp8, "rtx-4090").is_ok());
    assert!(run(Engine::Vllm, KvDtype::Fp8, "a100-sxm4-80gb").is_ok());
    assert!(run(Engine::Trtllm, KvDtype::Nvfp4, "h100-sxm5-80gb").is_err());
    assert!(run(Engine::Trtllm, KvDtype::Nvfp4, "b200-180gb").is_ok());
    assert_eq!(
        run(Engine::Vllm, KvDtype::Nvfp4, "b200-180gb")
            .unwrap_err()
            .field,
        "kv_dtype"
    );
    for (f, ok) in [
        (0.9, true),
        (1.0, true),
        (0.01, true),
        (0.0, false),
        (1.5, false),
    ] {
        let r = EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".into()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Serve,
                engine: Engine::Trtllm,
                ..Default::default()
            },
            serving: ServingInput {
                free_gpu_memory_fraction: Some(f),
                ..Default::default()
            },
            ..Default::default()
        }
        .resolve();
        assert_eq!(r.is_ok(), ok, "{f}");
        if let Err(e) = r {
            assert_eq!(
                (e.kind, e.field.as_str()),
                (crate::ErrorKind::OutOfRange, "free_gpu_memory_fraction")
            );
        }
    }
}

/// Packing (TRL `packing`, torchtune `dataset.packed`, axolotl `sample_packing`): rows packed
/// to `seq_len` hold batch × seq_len tokens, as unpacked rows of that length do, so every
/// figure is the same byte for byte (only a note is added); with eager attention the scores
/// span the packed row as they span a padded one. By hand: the packed row's tokens are
/// batch × seq_len whether they come from one document or several.
#[test]
fn packing_counts_the_packed_row_as_a_row() {
    for attention in [AttentionImpl::Sdpa, AttentionImpl::Eager] {
        let run = |packing: bool| {
            estimate(&{
                let mut input = input(llama8b());
                input.run.mode = Mode::Training;
                input.run.batch = 2.0;
                input.run.seq_len = 2048.0;
                input.run.attention = attention;
                input.training.packing = packing;
                input
            })
            .unwrap()
        };
        let (plain, packed) = (run(false), run(true));
        assert_eq!(plain.peak_allocated_bytes, packed.peak_allocated_bytes);
        assert_eq!(plain.total_bytes, packed.total_bytes);
        assert_eq!(plain.components.len(), packed.components.len());
        for (a, b) in plain.components.iter().zip(&packed.components) {
            assert_eq!((a.key, a.bytes, a.torch), (b.key, b.bytes, b.torch));
        }
    }
}
