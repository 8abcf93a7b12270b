//! The launches vramfit writes, parsed by the engines' own argument parsers: vLLM's
//! (`make_arg_parser`) and SGLang's (`ServerArgs.add_cli_args`), installed from PyPI and run by
//! `tests/launch/parse.py`, which reads `tests/data/launch-commands.json` and writes what each
//! parser made of each command to `tests/data/launch-parsed.json` (with the versions).
//!
//! `launch_commands_are_fresh` writes the commands again and fails when they changed: then run
//! the script again (its header says how) and commit both files.

use serde_json::{Value, json};
use vramfit::estimate::{
    DisaggregationMode, Engine, EstimateInput, Mode, TransferBackend, Workload,
};
use vramfit::estimate::{HardwareInput, ModelInput, RunInput, ServingInput};
use vramfit::hardware::Layout;
use vramfit::launch::launch;
use vramfit::precision::{KvDtype, Quantization};

/// The runs whose launches are parsed.
fn cases() -> Vec<(&'static str, EstimateInput)> {
    let serve = |model: &str, engine: Engine| EstimateInput {
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
    };
    vec![
        ("vllm-8b", serve("meta-llama/Llama-3.1-8B", Engine::Vllm)),
        ("vllm-70b-tp2-fp8-eager", {
            let mut input = serve("meta-llama/Llama-3.1-70B", Engine::Vllm);
            input.placement.tp = 2.0;
            input.run.kv_dtype = KvDtype::Fp8;
            input.serving.cuda_graphs = false;
            input.model.quantization = Quantization::Fp8;
            input
        }),
        ("vllm-qwen3-moe-dp2-ep", {
            let mut input = serve("Qwen/Qwen3-30B-A3B", Engine::Vllm);
            input.placement.gpus = Some(2.0);
            input.placement.ep = 2.0;
            input.serving.max_model_len = Some(32768.0);
            input
        }),
        ("sglang-32b", serve("Qwen/Qwen3-32B", Engine::Sglang)),
        ("sglang-8b-lora", {
            let mut input = serve("meta-llama/Llama-3.1-8B", Engine::Sglang);
            input.serving.enable_lora = true;
            input.serving.max_lora_rank = Some(64.0);
            input.training.lora_targets = vec!["q_proj".into(), "v_proj".into()];
            input
        }),
        ("sglang-70b-tp2-fp8-eager", {
            let mut input = serve("meta-llama/Llama-3.1-70B", Engine::Sglang);
            input.placement.tp = 2.0;
            input.run.kv_dtype = KvDtype::Fp8;
            input.serving.cuda_graphs = false;
            input.serving.max_num_seqs = Some(64.0);
            input
        }),
        // Disaggregated prefill and decode: each side's own server command.
        (
            "sglang-8b-pd-prefill",
            pd(Engine::Sglang, DisaggregationMode::Prefill),
        ),
        ("sglang-8b-pd-decode", {
            let mut input = pd(Engine::Sglang, DisaggregationMode::Decode);
            input.serving.num_reserved_decode_tokens = Some(256.0);
            input.serving.disaggregation_transfer_backend = Some(TransferBackend::Nixl);
            input
        }),
        (
            "vllm-8b-pd-prefill",
            pd(Engine::Vllm, DisaggregationMode::Prefill),
        ),
        ("vllm-8b-pd-decode", {
            let mut input = pd(Engine::Vllm, DisaggregationMode::Decode);
            input.serving.disaggregation_transfer_backend = Some(TransferBackend::Mooncake);
            input
        }),
        // The planner's serving layouts over two nodes of 8 (`hardware/plan_serving.rs`), the
        // second node's command: vLLM's wide expert parallel with its own data-parallel
        // launcher (`--headless`, `--data-parallel-start-rank 8`), replicas of TP=8 one a node,
        // and SGLang's DP attention with the experts over all 16 (`--node-rank 1`).
        (
            "vllm-deepseek-dp16-ep16-2-nodes",
            planned(
                "deepseek-ai/DeepSeek-V3",
                Engine::Vllm,
                Layout::expert(1, 16, 2),
            ),
        ),
        (
            "vllm-70b-dp2-tp8-2-nodes",
            planned(
                "meta-llama/Llama-3.1-70B",
                Engine::Vllm,
                Layout::data(2, 8, 2),
            ),
        ),
        (
            "sglang-deepseek-dp2-tp8-ep16-2-nodes",
            planned(
                "deepseek-ai/DeepSeek-V3",
                Engine::Sglang,
                Layout::expert(8, 2, 2),
            ),
        ),
    ]
}

/// `model` on `engine` serving 64 sequences of 4k, spread over the planner's `layout` on H100s.
fn planned(model: &str, engine: Engine, layout: Layout) -> EstimateInput {
    let run = EstimateInput {
        model: ModelInput {
            model: Some(model.into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine,
            seq_len: 4096.0,
            new_tokens: 0.0,
            batch: 64.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(4096.0),
            ..Default::default()
        },
        ..Default::default()
    };
    let h100 = vramfit::hardware::find_gpu("h100-sxm5-80gb").unwrap();
    vramfit::hardware::layout_input(&run, layout, h100).unwrap()
}

/// One side of Llama-3.1-8B served disaggregated on an H100.
fn pd(engine: Engine, mode: DisaggregationMode) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
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
            disaggregation_mode: Some(mode),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn data(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
}

/// Each case's workload and its command: the one command, a P/D side's own server command
/// (SGLang's prefill and decode servers come before its router, vLLM's prefill before decode),
/// or over several nodes the last node's.
fn commands() -> Vec<(&'static str, Workload, Vec<String>)> {
    cases()
        .into_iter()
        .map(|(name, input)| {
            let w = input.resolve().expect("a valid case");
            let l = launch(&w).expect("a serving case");
            let i = match w.disaggregation.map(|d| d.mode) {
                None if w.nodes.nodes > 1 => {
                    assert_eq!(l.commands.len() as u64, w.nodes.nodes, "{name}");
                    l.commands.len() - 1
                }
                None => {
                    assert_eq!(l.commands.len(), 1, "{name}");
                    0
                }
                Some(DisaggregationMode::Prefill) => 0,
                Some(DisaggregationMode::Decode) => 1,
            };
            (name, w, l.commands[i].clone())
        })
        .collect()
}

#[test]
fn launch_commands_are_fresh() {
    let list: Vec<Value> = commands()
        .into_iter()
        .map(|(name, w, argv)| json!({"name": name, "engine": w.engine, "argv": argv}))
        .collect();
    let want = serde_json::to_string_pretty(&list).unwrap() + "\n";
    let path = data("launch-commands.json");
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        std::fs::write(&path, &want).unwrap();
        panic!(
            "tests/data/launch-commands.json was stale and is rewritten: run tests/launch/parse.py"
        );
    }
}

/// The value the engine's parser gives `key` for `w`'s run, as `tests/launch/parse.py` writes it.
fn expected(w: &Workload, engine: Engine, key: &str) -> Value {
    let kv = |fp8: &str| match w.kv_dtype {
        KvDtype::Fp8 => json!(fp8),
        _ => json!("auto"),
    };
    let dtype = json!(match w.dtype {
        vramfit::precision::Dtype::Fp16 => "float16",
        vramfit::precision::Dtype::Fp32 => "float32",
        _ => "bfloat16",
    });
    match (engine, key) {
        (_, "tensor_parallel_size" | "tp_size") => json!(w.tp),
        (_, "pipeline_parallel_size" | "pp_size") => json!(w.pp),
        // SGLang 0.5.23: `--attn-dp-size` the groups, `--dp-size` copies of the server.
        (Engine::Sglang, "attn_dp_size") => json!(w.dp_attention.max(1)),
        (Engine::Sglang, "enable_dp_attention") => json!(false),
        (_, "data_parallel_size" | "dp_size") => json!(w.dp),
        // Over several nodes, the last node's command (`commands`): its ranks, its place.
        (_, "nnodes") => json!(w.nodes.nodes),
        (_, "node_rank") => json!(w.nodes.nodes - 1),
        (Engine::Vllm, "headless") => json!(w.nodes.nodes > 1 && w.dp > 1),
        (_, "data_parallel_size_local") => {
            if w.nodes.nodes > 1 && w.dp > 1 {
                json!(w.dp / w.nodes.nodes)
            } else {
                Value::Null
            }
        }
        (_, "data_parallel_start_rank") => {
            if w.nodes.nodes > 1 && w.dp > 1 {
                json!(w.dp / w.nodes.nodes * (w.nodes.nodes - 1))
            } else {
                Value::Null
            }
        }
        (Engine::Vllm, "enable_expert_parallel") => json!(w.ep > 1),
        (_, "ep_size") => json!(w.ep),
        (_, "max_model_len" | "context_length") => json!(w.max_model_len),
        (_, "gpu_memory_utilization") => json!(w.gpu_memory_utilization),
        (_, "mem_fraction_static") => json!(w.mem_fraction_static),
        (_, "max_num_seqs") => json!(w.max_num_seqs),
        (_, "max_running_requests") => json!(w.max_running_requests),
        // SGLang divides the chunk it is given among DP attention's groups: given whole.
        (Engine::Sglang, "chunked_prefill_size") => {
            json!(w.max_num_batched_tokens * w.dp_attention.max(1))
        }
        (_, "max_num_batched_tokens" | "chunked_prefill_size") => {
            json!(w.max_num_batched_tokens)
        }
        (_, "cuda_graph_max_bs_decode") => {
            if w.cuda_graphs {
                json!(w.cuda_graph_max_bs)
            } else {
                Value::Null
            }
        }
        (_, "cuda_graph_backend_decode") => {
            if w.cuda_graphs {
                Value::Null
            } else {
                json!("disabled")
            }
        }
        (_, "enforce_eager") => json!(!w.cuda_graphs),
        (Engine::Vllm, "kv_cache_dtype") => kv("fp8"),
        (_, "kv_cache_dtype") => kv("fp8_e4m3"),
        (_, "dtype") => dtype,
        // Quantized on load only where the checkpoint does not ship in it (DeepSeek-V3's fp8).
        (_, "quantization") => match w.quantization {
            Quantization::Fp8
                if vramfit::presets::find(&w.model_name)
                    .is_none_or(|p| p.quantization != Quantization::Fp8) =>
            {
                json!("fp8")
            }
            _ => Value::Null,
        },
        (_, "model_tag" | "model_path") => json!(w.model_name),
        // SGLang's LoRA flags (`arg_groups/fields/lora.py`): absent without `enable_lora`.
        (_, "enable_lora") => w.lora.map_or(Value::Null, |_| json!(true)),
        (_, "max_loras_per_batch") => json!(w.lora.map_or(8, |l| l.max_loras)),
        (_, "max_lora_rank") => w.lora.map_or(Value::Null, |l| json!(l.max_lora_rank)),
        (_, "lora_target_modules") => w.lora.map_or(Value::Null, |l| {
            let t = l.targets;
            let names = [
                (t.qkv, &["q_proj", "k_proj", "v_proj"][..]),
                (t.o, &["o_proj"][..]),
                (t.gate_up, &["gate_proj", "up_proj"][..]),
                (t.down, &["down_proj"][..]),
                (t.embed, &["embed_tokens"][..]),
                (t.lm_head, &["lm_head"][..]),
            ];
            if names.iter().all(|(on, _)| *on) {
                json!(["all"])
            } else {
                json!(
                    names
                        .iter()
                        .filter(|(on, _)| *on)
                        .flat_map(|(_, n)| n.iter())
                        .collect::<Vec<_>>()
                )
            }
        }),
        (_, "max_loaded_loras") => w
            .lora
            .filter(|l| l.max_cpu_loras != l.max_loras)
            .map_or(Value::Null, |l| json!(l.max_cpu_loras)),
        // Disaggregated prefill and decode (SGLang `arg_groups/fields/disagg.py`; vLLM
        // `KVTransferConfig`, written out by `parse.py` as its connector and role).
        (_, "disaggregation_mode") => json!(w.disaggregation.map_or("null", |d| d.mode.name())),
        (_, "disaggregation_transfer_backend") => {
            json!(w.disaggregation.map_or("mooncake", |d| d.backend.name()))
        }
        (_, "num_reserved_decode_tokens") => {
            json!(w.disaggregation.map_or(512, |d| d.reserved_decode_tokens))
        }
        (_, "kv_transfer_config") => w.disaggregation.map_or(
            Value::Null,
            |d| json!({"kv_connector": d.backend.connector(), "kv_role": d.mode.kv_role()}),
        ),
        _ => panic!("no expectation for {key}"),
    }
}

#[test]
fn engines_parse_the_launches_as_written() {
    let text = std::fs::read_to_string(data("launch-parsed.json")).unwrap();
    let parsed: Value = serde_json::from_str(&text).unwrap();
    let by_name = parsed["parsed"].as_array().unwrap();
    let now = commands();
    assert_eq!(by_name.len(), now.len(), "run tests/launch/parse.py again");
    for (name, w, argv) in now {
        let p = by_name
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{name} not parsed: run tests/launch/parse.py"));
        assert_eq!(
            p["argv"],
            json!(argv),
            "{name}: stale, run tests/launch/parse.py"
        );
        assert_eq!(p["error"], Value::Null, "{name}: the engine refused it");
        for (key, got) in p["values"].as_object().unwrap() {
            assert_eq!(got, &expected(&w, w.engine, key), "{name}: {key}");
        }
    }
}

/// llama.cpp's parser is C++: its flag names are read from its source
/// (`tests/launch/llama_args.py`), and every flag a `llama-server` launch writes is one of them.
#[test]
fn llama_server_takes_every_flag_written() {
    let known = std::fs::read_to_string(data("llama-cpp-args.txt")).unwrap();
    let known: Vec<&str> = known.lines().filter(|l| !l.starts_with('#')).collect();
    let run = EstimateInput {
        model: ModelInput {
            model: Some("Qwen/Qwen3-32B".into()),
            quantization: Quantization::Gguf {
                file_type: vramfit::precision::GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            kv_dtype: KvDtype::Q8_0,
            attention: vramfit::estimate::AttentionImpl::Flash,
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
    let l = launch(&run.resolve().unwrap()).unwrap();
    let flags: Vec<&String> = l.commands[0]
        .iter()
        .filter(|w| w.starts_with('-'))
        .collect();
    assert!(flags.len() >= 7, "{flags:?}");
    for f in flags {
        assert!(known.contains(&f.as_str()), "llama.cpp has no {f}");
    }
    // An embedding run (bge-m3, issue 42): `--embedding` and the `-ub` its inputs need.
    let pooling = EstimateInput {
        model: ModelInput {
            model: Some("BAAI/bge-m3".into()),
            ..Default::default()
        },
        run: RunInput {
            engine: Engine::Llamacpp,
            seq_len: 8192.0,
            ..Default::default()
        },
        serving: ServingInput {
            ubatch: 8192.0,
            ..Default::default()
        },
        ..Default::default()
    };
    let l = launch(&pooling.resolve().unwrap()).unwrap();
    assert!(l.commands[0].iter().any(|w| w == "--embedding"));
    for f in l.commands[0].iter().filter(|w| w.starts_with('-')) {
        assert!(known.contains(&f.as_str()), "llama.cpp has no {f}");
    }
    // And the flags vramfit reads for it.
    for f in ["--embeddings", "--pooling", "--rerank", "--reranking"] {
        assert!(known.contains(&f), "llama.cpp has no {f}");
    }
}

/// TEI's router is Rust (clap): its flag names are read from `router/src/main.rs` at v1.9.3
/// (`tests/launch/tei_args.py` into `tei-router-args.txt`), and every flag after the image in a
/// TEI launch is one of them.
#[test]
fn tei_router_takes_every_flag_written() {
    let known = std::fs::read_to_string(data("tei-router-args.txt")).unwrap();
    let known: Vec<&str> = known.lines().filter(|l| !l.starts_with('#')).collect();
    for (model, dtype) in [
        ("BAAI/bge-m3", None),
        (
            "Qwen/Qwen3-Embedding-0.6B",
            Some(vramfit::precision::Dtype::Fp32),
        ),
    ] {
        let run = EstimateInput {
            model: ModelInput {
                model: Some(model.into()),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Tei,
                dtype,
                ..Default::default()
            },
            serving: ServingInput {
                max_num_batched_tokens: Some(4096.0),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("l4".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let l = launch(&run.resolve().unwrap()).unwrap();
        let argv = &l.commands[0];
        let image = argv
            .iter()
            .position(|w| w.contains("text-embeddings-inference:"))
            .unwrap();
        let flags: Vec<&String> = argv[image + 1..]
            .iter()
            .filter(|w| w.starts_with('-'))
            .collect();
        assert_eq!(flags.len(), 3, "{flags:?}");
        for f in flags {
            assert!(
                known.contains(&f.as_str()),
                "text-embeddings-router has no {f}"
            );
        }
    }
    // And the flags its docs name for memory, which vramfit reads or lists.
    for f in [
        "--max-batch-requests",
        "--max-client-batch-size",
        "--auto-truncate",
        "--pooling",
    ] {
        assert!(known.contains(&f), "text-embeddings-router has no {f}");
    }
}
