//! `vramfit estimate`: the memory of one run, as a table or as JSON.

use std::fmt::Write as _;

use clap::Args;
use vramfit::estimate::{Checkpointing, Engine, EstimateInput, Logits, Mode, RunnerType};
use vramfit::estimate::{
    HardwareInput, ModelInput, PlacementInput, RunInput, ServingInput, TrainingInput,
};
use vramfit::hub::HubModel;
use vramfit::precision::{Dtype, KvDtype, Quantization};
use vramfit::{ErrorKind, InputError};

use crate::output::{Failure, Outcome, json};
use crate::report::{solutions_text, table};
use crate::training_config::FileRead;

pub use crate::estimate_flags::EstimateFlags;

impl EstimateFlags {
    /// The library input these flags describe; `--model` naming an existing file reads it as a config.json.
    pub fn to_input(&self) -> Result<EstimateInput, Failure> {
        self.resolve().map(|(input, _)| input)
    }

    /// The library input, and the model looked up on a hub with `--hub`: its config.json's
    /// architecture and the format of its weights (not a flag's, unless one is given), and
    /// llama.cpp as the engine of a GGUF file where none is named.
    pub fn resolve(&self) -> Result<(EstimateInput, Option<HubModel>), Failure> {
        let (input, looked_up) = self.run_and_hub()?;
        if input.model.model.is_none() && input.model.params.is_none() && input.model.arch.is_none()
        {
            return Err(InputError::new(
                ErrorKind::Missing,
                "model",
                "no model given",
                "--model <preset id | config.json> or --params <count such as 7B>",
            )
            .into());
        }
        Ok((input, looked_up))
    }

    /// The run the flags describe, with a model only if one is given (`fits` tries every
    /// preset with the rest).
    pub fn run_input(&self) -> Result<EstimateInput, Failure> {
        self.run_and_hub().map(|(input, _)| input)
    }

    /// `--gpus`, or `--nodes` × `--gpus-per-node` (8 unless given).
    fn total_gpus(&self) -> Result<Option<f64>, vramfit::InputError> {
        let Some(n) = self.nodes else {
            return Ok(self.gpus);
        };
        if !(n.is_finite() && n.trunc() == n && (1.0..=1024.0).contains(&n)) {
            return Err(vramfit::InputError::new(
                vramfit::ErrorKind::OutOfRange,
                "nodes",
                format!("{n} nodes"),
                "a whole number of nodes from 1 to 1024",
            ));
        }
        let per_node = self
            .gpus_per_node
            .unwrap_or(vramfit::estimate::DEFAULT_GPUS_PER_NODE as f64);
        Ok(Some(n * per_node))
    }

    /// [`Self::resolve`] without requiring a model.
    fn run_and_hub(&self) -> Result<(EstimateInput, Option<HubModel>), Failure> {
        let mut input = self.flags_input()?;
        let looked_up = self.model_source(&mut input)?;
        if self.cpu_moe {
            input.placement.n_cpu_moe = Some(every_block(&input)?);
        }
        // `--gpu rtx-3090,rtx-3060` and `--gpu 2x4090`: a list of cards.
        if let Some(g) = input.hardware.gpu.take() {
            if g.contains([',', '+']) || vramfit::estimate::card_count(&g).0.is_some() {
                input.hardware.cards = vramfit::estimate::split_card_list(&g);
            } else {
                input.hardware.gpu = Some(g);
            }
        }
        self.read_speculative_config(&mut input)?;
        Ok((input, looked_up))
    }

    /// The input as the flags give it, field by field.
    fn flags_input(&self) -> Result<EstimateInput, Failure> {
        Ok(EstimateInput {
            model: ModelInput {
                model: None,
                params: self.params.clone(),
                arch: None,

                // Set with the architecture, from a config.json or the hub ([`Self::model_source`]).
                checkpoint_dtype: None,
                quantization: Quantization::parse("quantization", &self.quantization)?,
            },
            run: RunInput {
                mode: self.mode.into(),
                engine: self.engine.map_or(Engine::Hf, Into::into),
                batch: self.batch,
                seq_len: self.seq_len,
                new_tokens: self.new_tokens,
                dtype: self
                    .dtype
                    .as_deref()
                    .map(|d| Dtype::parse("dtype", d))
                    .transpose()?,
                kv_dtype: KvDtype::parse("kv_dtype", &self.kv_dtype)?,
                attention: self.attention.into(),
                logits: if self.all_logits {
                    Logits::All
                } else {
                    Logits::Last
                },
                engine_version: self.engine_version.clone(),
                runner: self
                    .runner
                    .map(Into::into)
                    .or(self.is_embedding.then_some(RunnerType::Pooling)),
                images: self.images,
                image_width: self.image_width,
                image_height: self.image_height,
                language_model_only: self.language_model_only,
            },
            training: TrainingInput {
                optimizer: self.optimizer.into(),
                fused_optimizer: self.fused_optimizer,
                precision: self.precision.into(),
                grad_checkpointing: match (self.checkpointing, self.grad_checkpointing) {
                    (Some(c), _) => c.into(),
                    (None, true) => Checkpointing::Full,
                    (None, false) => Checkpointing::None,
                },
                lora_rank: self.lora_rank,
                lora_targets: self.lora_targets.clone(),
                lora_dropout: self.lora_dropout,
                qlora: self.qlora,
                stack: self.stack.map(Into::into),
                loss: self.loss.map(Into::into),
                loss_chunks: self.loss_chunks,
                foreach: !self.no_foreach,
                optimizer_in_backward: self.optimizer_in_backward,
                activation_offload: self.activation_offload,
                packing: self.packing,
                kbit_upcast: self.kbit_upcast,
                compile: self.compile,
                rl: self.rl.map(Into::into),
                rl_beta: self.rl_beta,
                ref_model: self.ref_model,
                num_generations: self.num_generations,
                max_completion_length: self.max_completion_length,
                rollout: self.rollout.map(Into::into),
                rollout_memory_utilization: self.rollout_memory_utilization,
                sleep_mode: self.sleep_mode,
                reduce_bucket_size: self.reduce_bucket_size,
                allgather_bucket_size: self.allgather_bucket_size,
                stage3_prefetch_bucket_size: self.stage3_prefetch_bucket_size,
                stage3_max_live_parameters: self.stage3_max_live_parameters,
                stage3_param_persistence_threshold: self.stage3_param_persistence_threshold,
                overlap_comm: self.overlap_comm,
                recompute_method: self.recompute_method.map(Into::into),
                recompute_num_layers: self.recompute_num_layers,
                galore_rank: self.galore_rank,
                grad_accum: self.grad_accum,
            },
            serving: ServingInput {
                gpu_memory_utilization: self.gpu_memory_utilization,
                max_model_len: self.max_model_len,
                max_num_seqs: self.max_num_seqs,
                max_num_batched_tokens: self.max_num_batched_tokens,
                cuda_graphs: !self.enforce_eager,
                kv_unified: self.kv_unified,
                kv_unified_per_slot: self.kv_unified_per_slot,
                ubatch: self.ubatch,
                mem_fraction_static: self.mem_fraction_static,
                cuda_graph_max_bs: self.cuda_graph_max_bs,
                disaggregation_mode: self.disaggregation_mode.map(Into::into),
                disaggregation_transfer_backend: self
                    .disaggregation_transfer_backend
                    .map(Into::into),
                num_reserved_decode_tokens: self.num_reserved_decode_tokens,
                free_gpu_memory_fraction: self.free_gpu_memory_fraction,
                max_kv_size: self.max_kv_size,
                kv_bits: self.kv_bits,
                kv_group_size: self.kv_group_size,
                quantized_kv_start: self.quantized_kv_start,
                enable_lora: self.enable_lora,
                max_loras: self.max_loras,
                max_lora_rank: self.max_lora_rank,
                max_cpu_loras: self.max_cpu_loras,
                kv_offloading_size: self.kv_offloading_size,
                kv_offloading_backend: self.kv_offloading_backend.map(Into::into),
                speculative_method: self.speculative_method.map(Into::into),
                draft_model: self.draft_model.clone(),
                num_speculative_tokens: self.num_speculative_tokens,
                acceptance_rate: self.acceptance_rate,
            },
            hardware: HardwareInput {
                gpu: self.gpu.clone(),
                gpu_memory: self.gpu_memory.clone(),
                memory_in_use: self.memory_in_use.clone(),
                cards: self.cards.clone(),
                host_memory: self.host_memory.clone(),
                host_bandwidth: self.host_bandwidth.clone(),
                node_link: self.node_link.clone(),
                wired_limit_mb: self.wired_limit_mb,
            },
            placement: PlacementInput {
                zero: self.zero,
                offload: self.offload.into(),
                gpus: self.total_gpus()?,
                tp: self.tp,
                pp: self.pp,
                tensor_split: self.tensor_split.clone(),
                split_mode: self.split_mode.into(),
                main_gpu: self.main_gpu,
                gpu_layers: self.gpu_layers,
                n_cpu_moe: self.n_cpu_moe,
                ep: self.ep,

                // `--attn-dp-size N` is the deprecated `--enable-dp-attention --dp-size N`.
                enable_dp_attention: self.enable_dp_attention || self.attn_dp_size.is_some(),
                dp_size: self.attn_dp_size.or(self.dp_size),
                gpus_per_node: self.gpus_per_node,

                // --- Sharding (FSDP, DeepSpeed's buffers, Megatron) ---
                fsdp_version: self.fsdp_version,
                reshard_after_forward: self.reshard_after_forward,
                reduce_dtype: self.reduce_dtype.map(Into::into),
                vp: self.vp,
                sequence_parallel: self.sequence_parallel,
                cp: self.cp,
                distributed_optimizer: self.distributed_optimizer,
            },
        })
    }

    /// `--model` read into `input`: a hub lookup (`--hub`), a config file, or a preset's id; the
    /// looked-up model when the hub gave it.
    fn model_source(&self, input: &mut EstimateInput) -> Result<Option<HubModel>, Failure> {
        let mut looked_up = None;
        let address = self.model.as_deref().is_some_and(vramfit::hub::is_address);
        if let (true, Some(repo)) = (self.hub.is_some() || address, &self.model) {
            let lookup = crate::hub::Lookup::new(
                self.hub.as_deref(),
                self.hub_endpoint.as_deref(),
                self.hub_file.clone(),
                self.hub_refresh,
                self.hub_timeout,
            )?;
            let m = lookup.model(repo)?;
            m.fill(input, self.engine.is_some());
            looked_up = Some(m);
        } else if let Some(m) = &self.model {
            let path = std::path::Path::new(m);
            if path.is_file() {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| Failure::io(format!("--model: cannot read {m}: {e}")))?;
                let parsed = vramfit::config::parse_config(&text)?;
                input.model.arch = Some(parsed.arch);
                // The config's `torch_dtype` is the checkpoint's, not the run's `--dtype`: the
                // engine's `auto` resolves from it as from a preset's.
                input.model.checkpoint_dtype = parsed.dtype;
                if let (Quantization::None, Some(q)) =
                    (input.model.quantization, parsed.quantization)
                {
                    input.model.quantization = q;
                }
            } else {
                input.model.model = Some(m.clone());
            }
        }
        Ok(looked_up)
    }

    /// vLLM's `--speculative-config` JSON: it fills what the flags of their own do not give.
    fn read_speculative_config(&self, input: &mut EstimateInput) -> Result<(), Failure> {
        if let Some(json) = &self.speculative_config {
            // vLLM's JSON fills what the flags of its own do not give.
            let mut read = EstimateInput::default();
            let not_read = vramfit::launch::read_speculative_config(json, &mut read)?;
            input.serving.speculative_method = input
                .serving
                .speculative_method
                .or(read.serving.speculative_method);
            input.serving.draft_model = input
                .serving
                .draft_model
                .take()
                .or(read.serving.draft_model);
            input.serving.num_speculative_tokens = input
                .serving
                .num_speculative_tokens
                .or(read.serving.num_speculative_tokens);
            if !not_read.is_empty() {
                eprintln!(
                    "--speculative-config: not read (no GPU memory of their own in the estimate): {}",
                    not_read.join(", ")
                );
            }
        }
        Ok(())
    }
}

/// `--cpu-moe`: the blocks of the input's model, known from its architecture or its preset.
fn every_block(input: &EstimateInput) -> Result<f64, Failure> {
    let arch = input.model.arch.or_else(|| {
        let id = input.model.model.as_deref()?;
        vramfit::presets::find(id).map(|p| p.arch)
    });
    match arch {
        Some(a) => Ok(a.num_layers as f64),
        None => Err(vramfit::InputError::new(
            vramfit::ErrorKind::Missing,
            "cpu_moe",
            "the model's blocks are not known",
            "a model preset, a config.json or a hub model; or --n-cpu-moe N",
        )
        .into()),
    }
}

/// Arguments of `vramfit estimate`.
#[derive(Args)]
pub struct EstimateArgs {
    #[command(flatten)]
    pub flags: EstimateFlags,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// A command line to read (`vllm serve … --tensor-parallel-size 2 …`, `llama-server …`,
    /// `OLLAMA_NUM_PARALLEL=2 ollama run …`): its flags set the engine's settings; the card,
    /// the batch and the sequence lengths come from this command's flags. The words it does
    /// not read are listed.
    #[arg(long, value_name = "LINE")]
    pub from_command: Option<String>,
    /// A fine-tuning stack's config file, read onto the run (training): a Hugging Face
    /// TrainingArguments or TRL config (JSON or YAML), a DeepSpeed JSON, a torchtune recipe, a
    /// LLaMA-Factory or axolotl YAML, an accelerate config, a verl config. Repeat it for several; a file it
    /// names (a Trainer's `deepspeed`) is read too. Flags given here win over the files; the
    /// keys not read are listed.
    #[arg(long, value_name = "FILE", conflicts_with = "from_command")]
    pub config: Vec<std::path::PathBuf>,
    /// The ids of the flags the command line gave (set by `main`; not a flag).
    #[arg(skip)]
    pub explicit: Vec<String>,
}

/// The input of `command` read, with what a command line does not say (the card, the
/// requests' shape; the batch where the engine's command does not set it) from `flags`. A
/// training command (Megatron-LM's `--seq-length`) says its own sequence.
fn from_command(line: &str, flags: EstimateInput) -> Result<(EstimateInput, Vec<String>), Failure> {
    let read = vramfit::launch::read_command(line)?;
    let training = read.input.run.mode == vramfit::estimate::Mode::Training;
    let batch = if read.input.run.batch == EstimateInput::default().run.batch {
        flags.run.batch
    } else {
        read.input.run.batch
    };
    let input = EstimateInput {
        run: RunInput {
            batch,
            seq_len: if training {
                read.input.run.seq_len
            } else {
                flags.run.seq_len
            },
            new_tokens: flags.run.new_tokens,
            ..read.input.run
        },
        hardware: HardwareInput {
            gpu: flags.hardware.gpu,
            gpu_memory: flags.hardware.gpu_memory,
            memory_in_use: flags.hardware.memory_in_use,
            cards: flags.hardware.cards,
            ..read.input.hardware
        },
        ..read.input
    };
    Ok((input, read.not_read))
}

/// Runs `vramfit estimate`.
pub fn run(args: EstimateArgs) -> Outcome {
    let (input, looked_up, not_read) = match &args.from_command {
        Some(line) => {
            let (input, not_read) = from_command(line, args.flags.run_input()?)?;
            (input, None, Some(not_read))
        }
        None if !args.config.is_empty() => {
            let flags = args.flags.run_input()?;
            let (input, reads) =
                crate::training_config::apply(&args.config, flags.clone(), &flags, &args.explicit)?;
            return estimate_report(&input, None, None, &reads, args.json);
        }
        None => {
            let (input, looked_up) = args.flags.resolve()?;
            (input, looked_up, None)
        }
    };
    estimate_report(
        &input,
        looked_up.as_ref(),
        not_read.as_deref(),
        &[],
        args.json,
    )
}

/// The report of one estimate: JSON, or the table with the solvers' answers; with the hub's
/// model, the words of a command not read and the config files read, where there are.
fn estimate_report(
    input: &EstimateInput,
    looked_up: Option<&HubModel>,
    not_read: Option<&[String]>,
    configs: &[FileRead],
    json_out: bool,
) -> Outcome {
    let workload = input.resolve()?;
    let e = vramfit::estimate::within_reach(workload.estimate())?;
    // With a card named: the largest batch and context that fit it, and the fewest such cards.
    let solutions = workload
        .device
        .as_ref()
        .map(|d| vramfit::estimate::solve(input, d));
    if json_out {
        let mut v = serde_json::to_value(&e).map_err(|err| Failure::io(err.to_string()))?;
        if let (Some(sol), Some(obj)) = (&solutions, v.as_object_mut()) {
            obj.insert(
                "solutions".into(),
                serde_json::to_value(sol).map_err(|err| Failure::io(err.to_string()))?,
            );
        }
        if let (Some(m), Some(obj)) = (&looked_up, v.as_object_mut()) {
            obj.insert(
                "hub".into(),
                serde_json::to_value(m).map_err(|err| Failure::io(err.to_string()))?,
            );
        }
        if let (Some(words), Some(obj)) = (&not_read, v.as_object_mut()) {
            obj.insert("not_read".into(), serde_json::json!(words));
        }
        if let (false, Some(obj)) = (configs.is_empty(), v.as_object_mut()) {
            obj.insert(
                "config".into(),
                serde_json::to_value(configs).map_err(|err| Failure::io(err.to_string()))?,
            );
        }
        return json(&v);
    }
    let mut t = looked_up.map_or_else(String::new, |m| crate::hub_text::describe(m, &e));
    t.push_str(&crate::training_config::describe(configs));
    if let Some(words) = &not_read {
        let listed = if words.is_empty() {
            String::from("none")
        } else {
            words.join(" ")
        };
        let _ = writeln!(
            t,
            "Not read from the command (no effect on memory counted): {listed}"
        );
    }
    t.push_str(&table(&e));
    if let Some(sol) = solutions
        .as_ref()
        .filter(|_| workload.arch.has_image_counts())
    {
        let show =
            |x: Option<u64>| x.map_or_else(|| String::from("none"), vramfit::estimate::thousands);
        let _ = writeln!(
            t,
            "On this card: largest batch {}, fewest cards {} (an image network: no sequence length reaches its memory).",
            show(sol.max_batch),
            show(sol.min_gpus)
        );
    } else if let Some(sol) = solutions
        .as_ref()
        .filter(|_| !workload.arch.is_detailed() && workload.mode == Mode::Training)
    {
        // Out of training a bare count's assumed cache bounds its batch and context.
        let _ = writeln!(
            t,
            "On this card: fewest cards {} (a bare parameter count in training has no KV cache or per-token activations: nothing bounds the batch or the context).",
            sol.min_gpus
                .map_or_else(|| String::from("none"), vramfit::estimate::thousands)
        );
    } else if let Some(sol) = solutions {
        let _ = write!(t, "{}", solutions_text(&sol, input));
    }
    // Not on the card named, or no card named: where it runs, priced.
    if e.fit.as_ref().is_none_or(|f| !f.fits)
        && let Some(line) = crate::hardware::cheapest_text(input)
    {
        t.push_str(&line);
    }
    Ok(t)
}

/// Arguments of `vramfit models`.
#[derive(Args)]
pub struct ModelsArgs {
    /// Only presets whose id or name contains this (case-insensitive).
    pub query: Option<String>,
    /// Print a JSON list.
    #[arg(long)]
    pub json: bool,
}

/// Runs `vramfit models`.
pub fn models(args: ModelsArgs) -> Outcome {
    let list: Vec<&vramfit::presets::Preset> = match &args.query {
        Some(q) => vramfit::presets::search(q).collect(),
        None => vramfit::presets::presets().iter().collect(),
    };
    if args.json {
        let rows: Vec<serde_json::Value> = list
            .iter()
            .map(|p| {
                serde_json::json!({
                    "id": p.id,
                    "aliases": p.aliases,
                    "name": p.name,
                    "params": p.params,
                    "dtype": p.dtype,
                    "arch": p.arch,
                    "source": p.source_url(),
                    "date": p.date,
                })
            })
            .collect();
        return json(&rows);
    }
    let mut s = String::new();
    for p in list {
        let _ = writeln!(
            s,
            "{:<50} {:>18} params  {}",
            p.id,
            vramfit::estimate::thousands(p.params),
            p.dtype
        );
    }
    Ok(s)
}
