//! The launches written by hand from each engine's documentation, and every launch read back
//! into the same estimate.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{launch_input, read_command};
use crate::estimate::{AttentionImpl, Engine, EstimateInput, Mode, estimate};
use crate::estimate::{
    HardwareInput, ModelInput, PlacementInput, RunInput, ServingInput, TrainingInput,
};
use crate::precision::{GgufFileType, KvDtype, Quantization};

fn words(s: &[&str]) -> Vec<String> {
    s.iter().map(|w| w.to_string()).collect()
}

fn serve(model: &str, engine: Engine) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(model.into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine,
            batch: 16.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn vllm_serve_sets_every_number_the_estimate_assumed() {
    let l = launch_input(&serve("meta-llama/Llama-3.1-8B", Engine::Vllm)).unwrap();
    // vLLM's defaults on an H100 (not an A100, 70 GiB or more): 1,024 sequences and 8,192
    // batched tokens; utilisation 0.9; the checkpoint's bf16.
    assert_eq!(
        l.commands,
        [words(&[
            "vllm",
            "serve",
            "meta-llama/Llama-3.1-8B",
            "--max-model-len",
            "8192",
            "--gpu-memory-utilization",
            "0.9",
            "--max-num-seqs",
            "1024",
            "--max-num-batched-tokens",
            "8192",
            "--dtype",
            "bfloat16",
        ])]
    );
    assert_eq!(
        l.script,
        "vllm serve meta-llama/Llama-3.1-8B \\\n  --max-model-len 8192 \\\n  --gpu-memory-utilization 0.9 \\\n  --max-num-seqs 1024 \\\n  --max-num-batched-tokens 8192 \\\n  --dtype bfloat16\n"
    );
    assert!(l.files.is_empty() && l.env.is_empty() && l.notes.is_empty());
}

#[test]
fn parallel_sizes_fp8_and_eager_are_flags_of_each_engine() {
    let input = {
        let mut input = serve("meta-llama/Llama-3.1-70B", Engine::Vllm);
        input.placement.tp = 2.0;
        input.run.kv_dtype = KvDtype::Fp8;
        input.serving.cuda_graphs = false;
        input
    };
    let v = launch_input(&input).unwrap().commands.concat();
    for w in [
        "--tensor-parallel-size",
        "2",
        "--kv-cache-dtype",
        "fp8",
        "--enforce-eager",
    ] {
        assert!(v.iter().any(|x| x == w), "{w} in {v:?}");
    }
    let s = launch_input(&{
        let mut input = input.clone();
        input.run.engine = Engine::Sglang;
        input
    })
    .unwrap();
    let s = s.commands.concat();
    assert_eq!(
        s[..5],
        words(&[
            "python",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "meta-llama/Llama-3.1-70B"
        ])
    );
    for w in [
        "--tp-size",
        "--kv-cache-dtype",
        "fp8_e4m3",
        "--cuda-graph-backend-decode",
        "disabled",
        "--mem-fraction-static",
    ] {
        assert!(s.iter().any(|x| x == w), "{w} in {s:?}");
    }
    // TensorRT-LLM has no flag for the cache's type or CUDA graphs: a YAML of LLM API options.
    let t = launch_input(&EstimateInput {
        run: RunInput {
            engine: Engine::Trtllm,
            ..input.run
        },
        ..input
    })
    .unwrap();
    assert_eq!(t.files.len(), 1);
    assert_eq!(t.files[0].name, "extra-llm-api-options.yaml");
    assert_eq!(
        t.files[0].text,
        "kv_cache_config:\n  dtype: fp8\ncuda_graph_config: null\n"
    );
    let argv = &t.commands[0];
    assert_eq!(
        argv[..2],
        words(&["trtllm-serve", "meta-llama/Llama-3.1-70B"])
    );
    assert!(
        argv.windows(2)
            .any(|w| w == ["--extra_llm_api_options", "extra-llm-api-options.yaml"])
    );
    assert!(
        t.script
            .starts_with("cat > extra-llm-api-options.yaml <<'EOF'\nkv_cache_config:\n")
    );
}

#[test]
fn fp8_of_a_bf16_checkpoint_is_quantized_on_load_or_named_as_needed() {
    let input = {
        let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Vllm);
        input.model.quantization = Quantization::Fp8;
        input
    };
    let v = launch_input(&input).unwrap();
    assert!(
        v.commands[0]
            .windows(2)
            .any(|w| w == ["--quantization", "fp8"])
    );
    // TensorRT-LLM loads a checkpoint quantized beforehand (ModelOpt): a note says so.
    let t = launch_input(&EstimateInput {
        run: RunInput {
            engine: Engine::Trtllm,
            ..input.run
        },
        ..input
    })
    .unwrap();
    assert!(!t.commands[0].iter().any(|w| w == "--quantization"));
    assert!(t.notes[0].en.contains("fp8"), "{:?}", t.notes);
}

#[test]
fn llama_server_and_ollama_speak_their_own_settings() {
    let local = EstimateInput {
        model: ModelInput {
            model: Some("Qwen/Qwen3-32B".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            kv_dtype: KvDtype::Q8_0,
            attention: AttentionImpl::Flash,
            batch: 2.0,
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
        ..Default::default()
    };
    let l = launch_input(&{
        let mut input = local.clone();
        input.run.engine = Engine::Llamacpp;
        input
    })
    .unwrap();
    let argv = &l.commands[0];
    assert_eq!(
        argv[..3],
        words(&["llama-server", "-m", "Qwen3-32B-Q4_K_M.gguf"])
    );
    for pair in [
        ["-c", "8192"],
        ["-np", "2"],
        ["-ctk", "q8_0"],
        ["-ctv", "q8_0"],
        ["-fa", "on"],
    ] {
        assert!(argv.windows(2).any(|w| w == pair), "{pair:?} in {argv:?}");
    }
    assert!(l.notes[0].en.contains("Qwen3-32B-Q4_K_M.gguf"));
    let o = launch_input(&EstimateInput {
        run: RunInput {
            engine: Engine::Ollama,
            ..local.run
        },
        ..local
    })
    .unwrap();
    // Qwen3-32B in Q4_K_M is Ollama's `qwen3:32b`.
    assert_eq!(o.files[0].name, "Modelfile");
    assert_eq!(o.files[0].text, "FROM qwen3:32b\nPARAMETER num_ctx 8192\n");
    let env: Vec<_> = o
        .env
        .iter()
        .map(|e| (e.name.as_str(), e.value.as_str()))
        .collect();
    assert_eq!(
        env,
        [
            ("OLLAMA_NUM_PARALLEL", "2"),
            ("OLLAMA_FLASH_ATTENTION", "1"),
            ("OLLAMA_KV_CACHE_TYPE", "q8_0")
        ]
    );
    assert_eq!(
        o.commands[1],
        words(&["ollama", "run", "qwen3-32b-ctx8192"])
    );
}

#[test]
fn runs_without_a_launch_say_why() {
    let hf = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    assert_eq!(launch_input(&hf).unwrap_err().field, "engine");
    let bare = {
        let mut input = serve("x", Engine::Vllm);
        input.model.model = None;
        input.model.params = Some("7B".into());
        input
    };
    assert_eq!(launch_input(&bare).unwrap_err().field, "model");
}

/// The input a launch of `input` reads back as, with what a command does not say (the card,
/// the requests' shape) from `input`.
fn read_back(input: &EstimateInput, line: &str) -> EstimateInput {
    let r = read_command(line).unwrap_or_else(|e| panic!("{line}: {e:?}"));
    assert!(r.not_read.is_empty(), "{line}: not read {:?}", r.not_read);
    EstimateInput {
        run: RunInput {
            batch: if input.run.engine == Engine::Llamacpp {
                r.input.run.batch
            } else {
                input.run.batch
            },
            seq_len: input.run.seq_len,
            new_tokens: input.run.new_tokens,
            ..r.input.run
        },
        hardware: HardwareInput {
            gpu: input.hardware.gpu.clone(),
            ..r.input.hardware
        },
        ..r.input
    }
}

#[test]
fn every_launch_reads_back_as_the_same_estimate() {
    let gguf = Quantization::Gguf {
        file_type: GgufFileType::Q4_K_M,
    };
    let cases = [
        serve("meta-llama/Llama-3.1-8B", Engine::Vllm),
        {
            let mut input = serve("meta-llama/Llama-3.1-70B", Engine::Vllm);
            input.placement.tp = 2.0;
            input.run.kv_dtype = KvDtype::Fp8;
            input.serving.cuda_graphs = false;
            input.model.quantization = Quantization::Fp8;
            input
        },
        // vLLM's LoRA slots: --enable-lora --max-loras --max-lora-rank --max-cpu-loras.
        {
            let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Vllm);
            input.serving.enable_lora = true;
            input.serving.max_loras = Some(4.0);
            input.serving.max_lora_rank = Some(64.0);
            input.serving.max_cpu_loras = Some(16.0);
            input.placement.tp = 2.0;
            input
        },
        // vLLM's speculative decoding: --speculative-config's JSON, a draft model and a head.
        {
            let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Vllm);
            input.serving.speculative_method = Some(crate::estimate::SpecMethod::DraftModel);
            input.serving.draft_model = Some("meta-llama/Llama-3.2-1B-Instruct".into());
            input.serving.num_speculative_tokens = Some(4.0);
            input
        },
        {
            let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Vllm);
            input.serving.speculative_method = Some(crate::estimate::SpecMethod::Eagle3);
            input.serving.draft_model = Some("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B".into());
            input.serving.num_speculative_tokens = Some(3.0);
            input.placement.tp = 2.0;
            input
        },
        // vLLM's KV offloading: --kv-offloading-size, and LMCache's backend by name.
        {
            let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Vllm);
            input.serving.kv_offloading_size = Some(64.0);
            input
        },
        {
            let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Vllm);
            input.serving.kv_offloading_size = Some(0.5);
            input.serving.kv_offloading_backend =
                Some(crate::estimate::KvOffloadingBackend::Lmcache);
            input
        },
        serve("Qwen/Qwen3-32B", Engine::Sglang),
        {
            let mut input = serve("Qwen/Qwen3-32B", Engine::Sglang);
            input.placement.tp = 2.0;
            input.serving.max_num_seqs = Some(64.0);
            input.run.kv_dtype = KvDtype::Fp8;
            input
        },
        {
            let mut input = serve("meta-llama/Llama-3.1-70B", Engine::Trtllm);
            input.placement.tp = 2.0;
            input
        },
        {
            let mut input = serve("Qwen/Qwen3-32B", Engine::Llamacpp);
            input.run.engine = Engine::Llamacpp;
            input.run.mode = Mode::Inference;
            input.model.quantization = gguf;
            input.run.kv_dtype = KvDtype::Q8_0;
            input.run.attention = AttentionImpl::Flash;
            input.run.batch = 2.0;
            input.placement.gpu_layers = Some(40.0);
            input
        },
        {
            let mut input = serve("Qwen/Qwen3-30B-A3B", Engine::Llamacpp);
            input.run.engine = Engine::Llamacpp;
            input.run.mode = Mode::Inference;
            input.model.quantization = gguf;
            input.placement.n_cpu_moe = Some(20.0);
            input
        },
    ];
    for input in cases {
        let l = launch_input(&input).unwrap();
        let line = super::command_text(&l.commands[0]);
        let back = read_back(&input, &line);
        let (a, b) = (input.resolve().unwrap(), back.resolve().unwrap());
        assert_eq!(a.figures(), b.figures(), "{line}");
    }
}

#[test]
fn ollama_read_from_its_environment_and_tag() {
    let r = read_command(
        "OLLAMA_NUM_PARALLEL=2 OLLAMA_CONTEXT_LENGTH=8192 OLLAMA_KV_CACHE_TYPE=q8_0 OLLAMA_FLASH_ATTENTION=1 CUDA_VISIBLE_DEVICES=0 ollama run qwen3:32b",
    )
    .unwrap();
    let i = r.input;
    assert_eq!(
        (
            i.run.engine,
            i.model.model.as_deref(),
            i.run.batch,
            i.serving.max_model_len
        ),
        (Engine::Ollama, Some("qwen3:32b"), 2.0, Some(8192.0))
    );
    assert_eq!(
        (i.run.kv_dtype, i.run.attention),
        (KvDtype::Q8_0, AttentionImpl::Flash)
    );
    assert_eq!(r.not_read, ["CUDA_VISIBLE_DEVICES=0"]);
}

#[test]
fn a_pasted_command_is_read_as_written_and_the_rest_listed() {
    let r = read_command(
        "vllm serve Qwen/Qwen3-32B -tp 2 --max-model-len=32k --port 8000 --trust-remote-code \\\n --gpu-memory-utilization 0.95 --served-model-name qwen",
    )
    .unwrap();
    let i = &r.input;
    assert_eq!((i.run.engine, i.run.mode), (Engine::Vllm, Mode::Serve));
    assert_eq!(
        (i.placement.tp, i.serving.max_model_len),
        (2.0, Some(32_000.0))
    );
    assert_eq!(i.serving.gpu_memory_utilization, 0.95);
    assert_eq!(
        r.not_read,
        [
            "--port",
            "8000",
            "--trust-remote-code",
            "--served-model-name",
            "qwen"
        ]
    );
    // The older entry point and SGLang's aliases.
    let old =
        read_command("python3 -m vllm.entrypoints.openai.api_server --model m --max-model-len 4K")
            .unwrap();
    assert_eq!(
        (
            old.input.model.model.as_deref(),
            old.input.serving.max_model_len
        ),
        (Some("m"), Some(4096.0))
    );
    let s = read_command("python -m sglang.launch_server --model m --tp 4 --dp 2").unwrap();
    assert_eq!(
        (
            s.input.run.engine,
            s.input.placement.tp,
            s.input.placement.gpus
        ),
        (Engine::Sglang, 4.0, Some(8.0))
    );
    // llama.cpp's older `-fa` switch, and `-ngl 999` for every layer.
    let l = read_command(
        "./build/bin/llama-server -m /models/Qwen3-32B-Q4_K_M.gguf -fa -ngl 999 -c 16384",
    )
    .unwrap();
    assert_eq!(l.input.model.model.as_deref(), Some("Qwen/Qwen3-32B"));
    assert_eq!(l.input.run.attention, AttentionImpl::Flash);
    assert_eq!(l.input.placement.gpu_layers, None);
    assert_eq!(l.input.serving.max_model_len, Some(16384.0));
    // llama.cpp's MoE offload: --cpu-moe is every block of the model.
    let moe = read_command("llama-server -m Qwen3-30B-A3B-Q8_0.gguf -cmoe").unwrap();
    assert_eq!(moe.input.placement.n_cpu_moe, Some(48.0));
    let some = read_command("llama-server -m Qwen3-30B-A3B-Q8_0.gguf --n-cpu-moe 12").unwrap();
    assert_eq!(some.input.placement.n_cpu_moe, Some(12.0));
}

#[test]
fn bad_command_lines_name_what_is_wrong() {
    for (line, field, problem) in [
        (
            "vllm serve m --max-model-len",
            "command",
            "--max-model-len without its value",
        ),
        (
            "vllm serve m --max-model-len lots",
            "command",
            "--max-model-len lots is not a count",
        ),
        (
            "vllm serve 'm",
            "command",
            "an unclosed quote or a trailing backslash",
        ),
        (
            "docker run vllm/vllm-openai",
            "command",
            "`docker run vllm/vllm-openai` starts no engine vramfit reads",
        ),
        ("", "command", "`` starts no engine vramfit reads"),
    ] {
        let e = read_command(line).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.problem.as_str()),
            (field, problem),
            "{line}"
        );
    }
}

/// SGLang's DP attention: `--attn-dp-size 8` (0.5.23's spelling) with the whole prefill chunk
/// (SGLang divides it among the groups), read back to the same estimate, as is the deprecated
/// `--dp-size 8 --enable-dp-attention`; copies of such a server are its router's, not one
/// command, and SGLang refuses `--dp-size` beside `--attn-dp-size`.
#[test]
fn sglang_dp_attention_is_written_and_read_back() {
    let input = {
        let mut input = serve("deepseek-ai/DeepSeek-V3", Engine::Sglang);
        input.placement.tp = 8.0;
        input.placement.enable_dp_attention = true;
        input.placement.dp_size = Some(8.0);
        input.hardware.gpu = Some("h200-sxm-141gb".into());
        input
    };
    let l = launch_input(&input).unwrap();
    let line = super::command_text(&l.commands[0]);
    let flat = line.replace(" \\\n  ", " ");
    assert!(
        flat.contains("--tp-size 8 --attn-dp-size 8 --context-length"),
        "{line}"
    );
    assert!(!flat.contains("--dp-size"), "{line}");
    assert!(flat.contains("--chunked-prefill-size 8192"), "{line}");
    let back = read_back(&input, &line);
    assert!(back.placement.enable_dp_attention);
    assert_eq!(
        (back.placement.dp_size, back.placement.gpus),
        (Some(8.0), None)
    );
    let (a, b) = (input.resolve().unwrap(), back.resolve().unwrap());
    assert_eq!(a.figures(), b.figures(), "{line}");
    let old = flat.replace("--attn-dp-size 8", "--dp-size 8 --enable-dp-attention");
    let old_back = read_back(&input, &old);
    assert_eq!(
        (old_back.placement.dp_size, old_back.placement.gpus),
        (Some(8.0), None)
    );
    assert_eq!(b.figures(), old_back.resolve().unwrap().figures(), "{old}");
    let both = flat.replace("--attn-dp-size 8", "--attn-dp-size 8 --dp-size 2");
    assert_eq!(
        crate::launch::read_command(&both).err().unwrap().field,
        "command"
    );
    let copies = EstimateInput {
        placement: PlacementInput {
            gpus: Some(16.0),
            ..input.placement
        },
        ..input
    };
    assert_eq!(launch_input(&copies).err().unwrap().field, "gpus");
}

#[test]
fn vllm_lora_flags_are_written_and_read_back() {
    let input = {
        let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Vllm);
        input.serving.enable_lora = true;
        input.serving.max_loras = Some(4.0);
        input
    };
    let l = launch_input(&input).unwrap();
    let line = super::command_text(&l.commands[0]);
    assert!(
        line.replace(" \\\n  ", " ")
            .contains("--enable-lora --max-loras 4 --max-lora-rank 16 --max-cpu-loras 4"),
        "{line}"
    );
    let back = read_back(&input, &line);
    assert!(back.serving.enable_lora);
    assert_eq!(
        (
            back.serving.max_loras,
            back.serving.max_lora_rank,
            back.serving.max_cpu_loras
        ),
        (Some(4.0), Some(16.0), Some(4.0))
    );
}

/// SGLang's LoRA flags in its own spellings (SGLang 0.5.23 `arg_groups/fields/lora.py`), the
/// target modules as `nargs="*"` words, read back into the same slots: the estimate of the
/// command read back is the launched one's.
#[test]
fn sglang_lora_flags_are_written_and_read_back() {
    let input = {
        let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Sglang);
        input.serving.enable_lora = true;
        input.serving.max_lora_rank = Some(64.0);
        input.training.lora_targets =
            alloc::vec!["q_proj".into(), "v_proj".into(), "o_proj".into()];
        input
    };
    let l = launch_input(&input).unwrap();
    let line = super::command_text(&l.commands[0]);
    let flat = line.replace(" \\\n  ", " ");
    assert!(
        flat.contains(
            "--enable-lora --max-loras-per-batch 8 --max-lora-rank 64 --lora-target-modules q_proj k_proj v_proj o_proj"
        ),
        "{line}"
    );
    let back = read_back(&input, &line);
    assert!(back.serving.enable_lora);
    assert_eq!(
        (
            back.serving.max_loras,
            back.serving.max_lora_rank,
            back.training.lora_targets.len()
        ),
        (Some(8.0), Some(64.0), 4)
    );
    let (e, b) = (estimate(&input).unwrap(), estimate(&back).unwrap());
    assert_eq!(e.components, b.components);
    // Without targets the estimate counts `all`, and the command says so.
    let all = EstimateInput {
        training: TrainingInput {
            lora_targets: alloc::vec::Vec::new(),
            ..input.training
        },
        ..input
    };
    let line = super::command_text(&launch_input(&all).unwrap().commands[0]);
    assert!(line.contains("--lora-target-modules all"), "{line}");
}

#[test]
fn vllm_speculative_config_is_written_and_read_back() {
    use crate::estimate::SpecMethod;
    let input = {
        let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Vllm);
        input.serving.speculative_method = Some(SpecMethod::Eagle);
        input.serving.draft_model = Some("yuhuili/EAGLE-LLaMA3.1-Instruct-8B".into());
        input.serving.num_speculative_tokens = Some(3.0);
        input
    };
    let l = launch_input(&input).unwrap();
    let line = super::command_text(&l.commands[0]);
    assert!(
        line.contains(
            r#"--speculative-config '{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}'"#
        ),
        "{line}"
    );
    let back = read_back(&input, &line);
    assert_eq!(back.serving.speculative_method, Some(SpecMethod::Eagle));
    assert_eq!(back.serving.draft_model, input.serving.draft_model);
    assert_eq!(back.serving.num_speculative_tokens, Some(3.0));
    // N-grams name no model; an EAGLE head without its repository cannot be launched.
    let ngram = {
        let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Vllm);
        input.serving.speculative_method = Some(SpecMethod::Ngram);
        input.serving.num_speculative_tokens = Some(5.0);
        input
    };
    let line = super::command_text(&launch_input(&ngram).unwrap().commands[0]);
    assert!(
        line.contains(r#"'{"method": "ngram", "num_speculative_tokens": 5}'"#),
        "{line}"
    );
    let headless = EstimateInput {
        serving: ServingInput {
            draft_model: None,
            ..input.serving
        },
        ..input
    };
    let e = launch_input(&headless).unwrap_err();
    assert_eq!(e.field, "draft_model");
    // A pasted config: keys the estimate does not count are listed, a bad one is refused.
    let r = crate::launch::read_command(
        r#"vllm serve meta-llama/Llama-3.1-8B --speculative-config '{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}'"#,
    )
    .unwrap();
    assert_eq!(r.input.serving.speculative_method, Some(SpecMethod::Ngram));
    assert!(
        r.not_read.iter().any(|w| w.contains("prompt_lookup_max")),
        "{:?}",
        r.not_read
    );
    let bad = crate::launch::read_command(
        "vllm serve meta-llama/Llama-3.1-8B --speculative-config '{\"method\": \"medusa\", \"num_speculative_tokens\": 2}'",
    )
    .unwrap_err();
    assert_eq!(bad.field, "speculative_method");
}

/// A llama.cpp run over unlike cards: `-ts 3,1` written and read back to the same estimate (the
/// cards, which a command does not name, from the input); `-sm none -mg 1` likewise; without a
/// tensor split, a note says llama.cpp splits by free memory. The reader takes llama.cpp's `/`
/// too, and `-ts 3,1` alone means two GPUs.
#[test]
fn llama_server_carries_the_split_over_unlike_cards() {
    let base = EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
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
            cards: alloc::vec!["rtx-3090".into(), "rtx-3060-12gb".into()],
            ..Default::default()
        },
        ..Default::default()
    };
    let cases = [
        {
            let mut input = base.clone();
            input.placement.tensor_split = alloc::vec![3.0, 1.0];
            input
        },
        {
            let mut input = base.clone();
            input.placement.split_mode = crate::estimate::SplitMode::None;
            input.placement.main_gpu = 1.0;
            input
        },
    ];
    for input in cases {
        let l = launch_input(&input).unwrap();
        let line = super::command_text(&l.commands[0]);
        let r = read_command(&line).unwrap();
        assert!(r.not_read.is_empty(), "{line}: {:?}", r.not_read);
        let back = EstimateInput {
            run: RunInput {
                batch: r.input.run.batch,
                ..r.input.run
            },
            hardware: HardwareInput {
                cards: input.hardware.cards.clone(),
                ..r.input.hardware
            },
            placement: PlacementInput {
                gpus: None,
                ..r.input.placement
            },
            ..r.input
        };
        let (a, b) = (input.resolve().unwrap(), back.resolve().unwrap());
        assert_eq!(a.figures(), b.figures(), "{line}");
    }
    let ts = launch_input(&cases_line_input(&base, &[3.0, 1.0])).unwrap();
    let argv = &ts.commands[0];
    assert!(
        argv.windows(2).any(|w| w[0] == "-ts" && w[1] == "3,1"),
        "{argv:?}"
    );
    let plain = launch_input(&base).unwrap();
    assert!(!super::command_text(&plain.commands[0]).contains("-ts"));
    assert!(plain.notes.iter().any(|n| n.en.contains("free memory")));
    let r =
        read_command("llama-server -m Llama-3.1-8B-Q4_K_M.gguf -ts 3/1 -sm layer -mg 0").unwrap();
    assert_eq!(r.input.placement.tensor_split, [3.0, 1.0]);
    assert_eq!(r.input.placement.gpus, Some(2.0));
    assert!(r.not_read.is_empty());
    assert_eq!(
        read_command("llama-server -m x.gguf -sm diagonal")
            .unwrap_err()
            .field,
        "command"
    );
}

fn cases_line_input(base: &EstimateInput, ts: &[f64]) -> EstimateInput {
    {
        let mut input = base.clone();
        input.placement.tensor_split = ts.to_vec();
        input
    }
}

/// mlx-lm's launches as its own parsers spell them (`mlx_lm/generate.py`, `server.py` and
/// `convert.py` at d78bf58): the conversion to the format counted, the wired limit, then
/// `mlx_lm.generate` or `mlx_lm.server`; each read back into the same estimate.
#[test]
fn mlx_launches_are_written_and_read_back() {
    let mac = |mode: Mode| EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode,
            engine: Engine::Mlx,
            seq_len: 4000.0,
            new_tokens: 500.0,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("apple-m3-max-64gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let q4 = Quantization::parse("quantization", "mlx-4bit-g32").unwrap();
    let generate = {
        let mut input = mac(Mode::Inference);
        input.model.quantization = q4;
        input.serving.kv_bits = Some(8.0);
        input.serving.quantized_kv_start = Some(1000.0);
        input.hardware.wired_limit_mb = Some(57344.0);
        input
    };
    let l = launch_input(&generate).unwrap();
    assert_eq!(
        l.commands,
        [
            words(&["sudo", "sysctl", "iogpu.wired_limit_mb=57344"]),
            words(&[
                "mlx_lm.convert",
                "--hf-path",
                "meta-llama/Llama-3.1-8B",
                "--mlx-path",
                "Llama-3.1-8B-mlx-4bit-g32",
                "-q",
                "--q-bits",
                "4",
                "--q-group-size",
                "32",
            ]),
            words(&[
                "mlx_lm.generate",
                "--model",
                "Llama-3.1-8B-mlx-4bit-g32",
                "--prompt",
                "-",
                "--max-tokens",
                "500",
                "--prefill-step-size",
                "2048",
                "--kv-bits",
                "8",
                "--quantized-kv-start",
                "1000",
            ]),
        ]
    );
    let server = {
        let mut input = mac(Mode::Serve);
        input.run.batch = 4.0;
        input.serving.max_num_batched_tokens = Some(512.0);
        input.model.quantization = Quantization::parse("quantization", "mlx-mxfp4").unwrap();
        input
    };
    let s = launch_input(&server).unwrap();
    assert_eq!(
        s.commands[1],
        words(&[
            "mlx_lm.server",
            "--model",
            "Llama-3.1-8B-mlx-mxfp4",
            "--prefill-step-size",
            "512",
            "--decode-concurrency",
            "4",
        ])
    );
    assert!(s.commands[0].ends_with(&words(&["--q-mode", "mxfp4"])));
    let rotating = {
        let mut input = mac(Mode::Inference);
        input.serving.max_kv_size = Some(2048.0);
        input
    };
    for input in [
        EstimateInput {
            hardware: HardwareInput {
                wired_limit_mb: None,
                ..generate.hardware
            },
            ..generate
        },
        server,
        rotating,
    ] {
        let l = launch_input(&input).unwrap();
        let line = super::command_text(l.commands.last().unwrap());
        let r = read_command(&line).unwrap();
        // The prompt's text is not what the estimate counts: its tokens are seq_len.
        assert_eq!(
            r.not_read,
            words(&["--prompt", "-"])[..usize::from(input.run.mode == Mode::Inference) * 2]
        );
        // The requests' shape is the server's clients': from the input.
        let back = EstimateInput {
            run: RunInput {
                seq_len: input.run.seq_len,
                new_tokens: input.run.new_tokens,
                ..r.input.run
            },
            hardware: HardwareInput {
                gpu: input.hardware.gpu.clone(),
                ..r.input.hardware
            },
            ..r.input
        };
        let (a, b) = (input.resolve().unwrap(), back.resolve().unwrap());
        assert_eq!(a.figures(), b.figures(), "{line}");
    }
    // mlx-community's names read as their format (affine, groups of 64).
    let community = read_command("mlx_lm.server --model mlx-community/Llama-3.1-8B-4bit").unwrap();
    assert_eq!(
        community.input.model.model.as_deref(),
        Some("meta-llama/Llama-3.1-8B")
    );
    assert_eq!(community.input.model.quantization.name(), "mlx-4bit");
    // The server takes no --kv-bits: refused by name.
    let e = launch_input(&{
        let mut input = mac(Mode::Serve);
        input.serving.kv_bits = Some(4.0);
        input
    })
    .unwrap_err();
    assert_eq!(e.field, "kv_bits");
}

/// TEI's launch as its README writes it (v1.9.3: `docker run --gpus all -p 8080:80 -v
/// $volume:/data --pull always ghcr.io/huggingface/text-embeddings-inference:cuda-1.9
/// --model-id $model`), with the dtype and `--max-batch-tokens` the estimate used, read back
/// (from `docker run` and from `text-embeddings-router` itself) into the same estimate; the
/// router's flags vramfit does not count are listed.
#[test]
fn tei_launch_is_written_and_read_back() {
    let input = {
        let mut input = serve("BAAI/bge-m3", Engine::Tei);
        input.serving.max_num_batched_tokens = Some(8192.0);
        input
    };
    let l = launch_input(&input).unwrap();
    assert_eq!(
        l.commands[0],
        words(&[
            "docker",
            "run",
            "--gpus",
            "all",
            "-p",
            "8080:80",
            "-v",
            "tei-data:/data",
            "ghcr.io/huggingface/text-embeddings-inference:cuda-1.9",
            "--model-id",
            "BAAI/bge-m3",
            "--dtype",
            "float16",
            "--max-batch-tokens",
            "8192",
        ])
    );
    let line = super::command_text(&l.commands[0]);
    let router = alloc::format!("text-embeddings-router {}", l.commands[0][9..].join(" "));
    for line in [line, router] {
        let back = read_back(&input, &line);
        assert_eq!(back.run.engine, Engine::Tei, "{line}");
        let (a, b) = (input.resolve().unwrap(), back.resolve().unwrap());
        assert_eq!(a.figures(), b.figures(), "{line}");
    }
    let r = read_command(
        "docker run --gpus all ghcr.io/huggingface/text-embeddings-inference:hopper-1.9 --model-id Qwen/Qwen3-Embedding-0.6B --dtype float32 --pooling last-token --max-batch-requests 8",
    )
    .unwrap();
    assert_eq!(r.input.run.engine, Engine::Tei);
    assert_eq!(r.input.run.dtype, Some(crate::precision::Dtype::Fp32));
    assert_eq!(
        r.not_read,
        words(&["--pooling", "last-token", "--max-batch-requests", "8"])
    );
}
