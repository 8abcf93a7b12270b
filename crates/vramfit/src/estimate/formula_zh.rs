//! Tests of the estimator's formulas in Chinese ([`Component::formula_zh`](super::Component),
//! [`Quick::formula_zh`](super::Quick)): written beside the English at every formula
//! ([`formula!`](super)), they must carry the same numbers, units and names, and no English word
//! but the notation both languages share.

pub(super) mod tests {
    use super::super::run_shapes::run_shapes;
    use super::super::*;
    use crate::precision::{GgufFileType, Quantization};
    use alloc::string::String;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    /// The runs of digits (and the decimal marks in them), in order.
    fn numbers(s: &str) -> Vec<String> {
        s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .map(|n| n.trim_matches(|c| c == '.' || c == ','))
            .filter(|n| n.chars().any(|c| c.is_ascii_digit()))
            .map(str::to_string)
            .collect()
    }

    /// What stays in Latin letters: units, names, and the notation of the formulas.
    const NOTATION: &[&str] = &[
        "B",
        "KiB",
        "MiB",
        "GiB",
        "TiB",
        "GB",
        "KV",
        "KQ",
        "HF",
        "MLA",
        "CPU",
        "GPU",
        "NVMe",
        "CUDA",
        "cuBLAS",
        "NCCL",
        "DDP",
        "ZeRO",
        "LoRA",
        "PyTorch",
        "vLLM",
        "Hopper",
        "AdamW",
        "SGD",
        "Lion",
        "Adafactor",
        // vLLM's MXFP4 backends (`vllm/mxfp4.rs`): the format's and the kernels' names.
        "MXFP",
        "Marlin",
        // MLA's compressed latent as its config names it (transformers 5.15 on caches it).
        "kv_lora_rank",
        // mlx-lm's flags as it spells them (`--prefill-step-size`, `--quantized-kv-start`).
        "prefill",
        "step",
        "size",
        "quantized",
        "kv",
        "start",
        "Triton",
        "FlashInfer",
        "SM",
        // Part `optimizers`: the optimizers' and libraries' names and the matrices' letters.
        "AdEMAMix",
        "EMA",
        "GaLore",
        "Muon",
        "schedule",
        "free",
        "z",
        "torchao",
        "absmax",
        "denom",
        "Newton",
        "Schulz",
        "Gram",
        "SVD",
        "U",
        "Vh",
        "m",
        "n",
        "r",
        "bitsandbytes",
        "foreach",
        "eager",
        "sqrt",
        "handle",
        "stream",
        "fp",
        "bf",
        "mxfp",
        "bnb",
        "nf",
        "dq",
        "ubatch",
        "gptq",
        "hqq",
        "mlx",
        "MLX",
        "gguf",
        "q",
        "_k_m",
        "bit",
        "tp",
        "pp",
        "h",
        "H",
        "max",
        "max_model_len",
        "head_dim",
        "global_head_dim",
        "nope",
        "rope",
        "v",
        "cos",
        "sin",
        "logits",
        "log",
        "softmax",
        "all",
        "reduce",
        "allgather",
        "token",
        "rank",
        "torch",
        "prepare_model_for_kbit_training",
        "M_train",
        "M_theory",
        "M_rec",
        "M_infer",
        "config",
        "json",
        "Q",
        "rec",
        "train",
        "theory",
        "SGLang",
        "TensorRT",
        "LLM",
        "max_seq_len",
        "max_num_tokens",
        "free_gpu_memory_fraction",
        "gpu_memory_utilization",
        // vLLM's LoRA settings and the adapters' two matrices.
        "max_loras",
        "max_lora_rank",
        "A",
        "generate",
        "mem_fraction_static",
        "context_length",
        "max_running_requests",
        "chunked_prefill_size",
        "cuda_graph_max_bs",
        "int",
        "ep",
        "_",
        // FSDP's, DeepSpeed's and Megatron's own names for their settings.
        "reduce_bucket_size",
        "allgather_bucket_size",
        "overlap_comm",
        "FSDP",
        "FULL_SHARD",
        "SHARD_GRAD_OP",
        "reshard_after_forward",
        "True",
        "False",
        "scatter",
        "offload",
        "cp",
        "Megatron",
        "vp",
        "draft_model",
        "eagle",
        // SGLang's `--speculative-algorithm` values, as it spells them.
        "EAGLE",
        "STANDALONE",
        // The hybrids' mixers by their names, and SGLang's MambaPool settings.
        "Gated",
        "DeltaNet",
        "Kimi",
        "Delta",
        "Attention",
        "Mamba2",
        "mamba_full_memory_ratio",
        "max_mamba_cache_size",
        // SGLang's DP attention (its feature's name, `--enable-dp-attention`) and its groups.
        "DP",
        "attention",
        "dp_size",
        // SGLang's P/D decode side's settings.
        "disaggregation_decode_extra_slots",
        "num_reserved_decode_tokens",
    ];

    /// Every formula of every run shape, in English and in Chinese.
    fn formulas() -> Vec<(String, String)> {
        let mut out = alloc::collections::BTreeSet::new();
        for input in run_shapes() {
            let Ok(e) = estimate(&input) else { continue };
            for c in &e.components {
                out.insert((c.formula.clone(), c.formula_zh.clone()));
            }
            out.insert((e.quick.formula.clone(), e.quick.formula_zh.clone()));
        }
        out.into_iter().collect()
    }

    #[test]
    fn every_formula_of_every_run_shape_reads_in_chinese_with_the_same_numbers() {
        let formulas = formulas();
        assert!(formulas.len() > 900, "{} formulas", formulas.len());
        let mut left = Vec::new();
        for (f, zh) in &formulas {
            assert_eq!(numbers(f), numbers(zh), "{f}\n{zh}");
            let english: Vec<&str> = zh
                .split(|c: char| !(c.is_ascii_alphabetic() || c == '_'))
                .filter(|w| !w.is_empty() && !NOTATION.contains(w))
                .collect();
            if !english.is_empty() {
                left.push(alloc::format!("{english:?} left in\n{f}\n{zh}"));
            }
        }
        assert!(left.is_empty(), "{}", left.join("\n\n"));
    }

    /// The written Chinese of shapes the old phrase table left partly in English: a card before
    /// Hopper, llama.cpp over two GPUs, eager attention.
    #[test]
    fn the_formulas_the_phrase_table_missed_are_in_chinese() {
        let zh = |input: EstimateInput, key: ComponentKind| {
            let e = estimate(&input).unwrap();
            // The part, alive at the peak or not.
            let c = e.components.iter().find(|c| c.key == key).unwrap();
            c.formula_zh.clone()
        };
        let llama = || EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".to_string()),
                ..Default::default()
            },
            ..Default::default()
        };
        // cuBLAS before Hopper.
        let ws = zh(
            {
                let mut input = llama();
                input.hardware.gpu = Some("a100-sxm4-80gb".to_string());
                input
            },
            ComponentKind::Workspace,
        );
        assert!(
            ws.ends_with("，每个 handle 与 stream 各一份（Hopper 之前的架构）"),
            "{ws}"
        );
        // llama.cpp over two GPUs: 17 of the 32 blocks on the first, 15 and the output layer on
        // the second (llama.cpp's split point 0.5 over 33 positions).
        let w = zh(
            {
                let mut input = llama();
                input.run.engine = Engine::Llamacpp;
                input.placement.gpus = Some(2.0);
                input.model.quantization = Quantization::Gguf {
                    file_type: GgufFileType::Q4_K_M,
                };
                input
            },
            ComponentKind::Weights,
        );
        assert!(
            w.starts_with("32 / 32 块 + 输出层在 GPU 上（GPU 2 / 2：其中 15 块 + 输出层）；"),
            "{w}"
        );
        // Eager attention in training keeps batch × seq² scores per head: 1 × 2048² here.
        let a = zh(
            {
                let mut input = llama();
                input.run.mode = Mode::Training;
                input.run.attention = AttentionImpl::Eager;
                input
            },
            ComponentKind::Activations,
        );
        assert!(a.contains(" + 1 × 2048² × "), "{a}");
        assert!(a.contains("（eager 注意力分数） × 32 块 = "), "{a}");
    }

    #[test]
    fn chinese_formulas_by_hand() {
        let e = |input: EstimateInput| estimate(&input).unwrap();
        let of = |e: &Estimate, key: ComponentKind| {
            let c = e.components.iter().find(|c| c.key == key).unwrap();
            (c.formula.clone(), c.formula_zh.clone())
        };
        let llama = || EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".to_string()),
                ..Default::default()
            },
            ..Default::default()
        };
        // Llama-3.1-8B: 8 KV heads × 128 head_dim × 32 layers × 2 B, 2,048 + 256 tokens:
        // 2 × 8 × 128 × 32 × 2,304 × 2 B = 301,989,888 B = 288 MiB; 2,048 tokens of it 256 MiB.
        let (_, kv) = of(&e(llama()), ComponentKind::KvCache);
        assert_eq!(
            kv,
            "2 × 8 个 KV 头 × 128 head_dim × 1 条序列 × 32 层 × 2304 token × 2 B (bf16) = 288.00 MiB（预填充峰值时已填充 256.00 MiB）"
        );
        // AdamW on 8,030,261,248 parameters, fp32 states: × 8 B = 64,242,089,984 B = 59.83 GiB.
        let (en, adam) = of(
            &e({
                let mut input = llama();
                input.run.mode = Mode::Training;
                input
            }),
            ComponentKind::Optimizer,
        );
        assert_eq!(
            en,
            "8,030,261,248 trainable × (AdamW: 2 moments × 4 B) = 59.83 GiB"
        );
        assert_eq!(
            adam,
            "8,030,261,248 个可训练参数 × (AdamW：2 个矩 × 4 B) = 59.83 GiB"
        );
        let (_, sgd) = of(
            &e({
                let mut input = llama();
                input.run.mode = Mode::Training;
                input.training.optimizer = Optimizer::Sgd;
                input
            }),
            ComponentKind::Optimizer,
        );
        assert_eq!(sgd, "8,030,261,248 个可训练参数 × (SGD：无状态) = 0 B");
    }
}
