//! How fast the run goes on its card: the memory estimate's numbers handed to the speed model
//! ([`crate::throughput`]), and its figures and working written into the estimate's
//! [`Throughput`]. Compiled with the crate's `speed` feature only.

use alloc::string::String;
use alloc::vec::Vec;

use super::speed_offload::OffloadSplit;
use super::{Difference, Mode, Run, Throughput, weights};
use crate::model::Tensor;
use crate::precision::Quantization;
use crate::throughput::{
    self, Compute, Inference, InferenceFigure, InferenceInput, Runtime, Training, TrainingFigure,
};
use crate::units::four_figures;

/// What the matrix multiplications compute in: FP8 formats in FP8, every other quantized format
/// dequantized to 16 bits, an unquantized checkpoint in 16 bits.
fn compute(q: &Quantization) -> Compute {
    match q {
        Quantization::None => Compute::Bits16,
        Quantization::Fp8 | Quantization::W8a8 => Compute::Fp8,
        _ => Compute::WeightOnly,
    }
}

pub(super) fn u32_of(x: u64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// A formula of the speed model, keyed by the figure it gives, as the estimate lists it.
fn difference(key: &str, f: throughput::FormulaText) -> Difference {
    Difference {
        key: String::from(key),
        en: f.en,
        zh: f.zh,
    }
}

impl Run<'_> {
    /// The run's speed on its catalog card, or `None` (no card, a card the catalog does not
    /// have, a bare parameter count, figures the model refuses, and llama.cpp with weights in
    /// CPU memory on several GPUs or on memory the CPU shares: [`Run::offload_unmodelled`]).
    /// `gpu_layers` is llama.cpp's or Ollama's layers on the GPU (the output layer counting).
    pub(super) fn throughput(&self, trainable: u64, gpu_layers: Option<u64>) -> Option<Throughput> {
        if !self.arch.is_detailed() {
            return None;
        }
        let gpu = self.device.as_ref()?.gpu?;
        let device = throughput::Device::of(gpu);
        let active = self.matmul_params();
        let runtime = self.rules().runtime;
        if self.mode == Mode::Training {
            let t = throughput::training(&self.training_input(active, trainable), &device).ok()?;
            return Some(self.training_throughput(runtime, &t));
        }
        let split = gpu_layers.and_then(|g| self.offload_split(g));
        if split.is_some() && self.offload_unmodelled() {
            return None;
        }
        let mut input = self.inference_input(runtime, active);
        if let Some(s) = split {
            self.offload_input(&mut input, &s, gpu.link_bytes_per_s);
        }
        let t = throughput::inference(&input, &device).ok()?;
        let spec = self.speculative_speed(&input, &device);
        Some(self.inference_throughput(runtime, &t, spec))
    }

    /// The training speed model's answer as the estimate carries it, with its formulas when
    /// the estimate has text.
    fn training_throughput(&self, runtime: Runtime, t: &Training) -> Throughput {
        let mut formulas = Vec::new();
        if self.text {
            formulas.push(difference(
                "step_time_s",
                t.formula(TrainingFigure::StepTime),
            ));
            formulas.push(difference(
                "tokens_per_s",
                t.formula(TrainingFigure::TokensPerS),
            ));
            if t.exposed_comm_s > 0.0 || self.dp * self.tp * self.pp > 1 {
                formulas.push(difference(
                    "collectives",
                    t.formula(TrainingFigure::Collectives),
                ));
            }
        }
        Throughput {
            runtime,
            prefill_tokens_per_s: None,
            time_to_first_token_s: None,
            decode_tokens_per_s_per_sequence: None,
            decode_tokens_per_s: None,
            generation_s: None,
            speculative_tokens_per_step: None,
            speculative_decode_tokens_per_s_per_sequence: None,
            speculative_decode_tokens_per_s: None,
            step_time_s: Some(four_figures(t.step_time_s)),
            tokens_per_s: Some(four_figures(t.tokens_per_s)),
            formulas,
        }
    }

    /// Bytes one GPU reads per forward pass of the routed experts (`expert`) or of the other
    /// weights but lookups, each tensor as the memory estimate counts it (llama.cpp's GGUF
    /// types for its runs, [`Run::weight_split`] for the others).
    fn weight_bytes_read(&self, runtime: Runtime, expert: bool) -> u64 {
        let a = &self.arch;
        // Every runtime but llama.cpp reads the tensors in the workload's format: the memory
        // estimate's walk gave these bytes too.
        if runtime != Runtime::Llamacpp {
            let split = self.weight_split();
            return if expert {
                split.expert_read
            } else {
                split.dense_read
            };
        }
        let of = |t: &Tensor| {
            if !weights::read_per_token(t, a.tied_embeddings) || t.role.is_expert() != expert {
                0
            } else {
                self.gguf_tensor_bytes(t)
            }
        };
        if matches!(self.quantization, Quantization::Gguf { .. }) {
            weights::busiest_gpu_by_block(
                a,
                self.tp,
                self.pp,
                |t| weights::gguf_type_by_block(t.role),
                of,
            )
        } else {
            weights::busiest_gpu(a, self.tp, self.pp, of)
        }
    }

    /// The inference run's figures for the speed model: the weights one GPU reads per forward
    /// pass, the routed experts apart ([`Run::weight_bytes_read`]); the KV cache per token of
    /// the full-attention and of the sliding layers.
    fn inference_input(&self, runtime: Runtime, active: u64) -> InferenceInput {
        let a = &self.arch;
        let layers_here = a.num_layers.div_ceil(self.pp);
        let (kv_all, _) = self.kv_bytes(1, 1, layers_here, self.mla_decompressed());
        let windowed_layers = if a.sliding_window > 0 {
            a.sliding_layers.min(a.num_layers)
        } else {
            0
        };
        let (full_here, windowed_here) = a.stage_layers(layers_here);
        let kv_windowed = kv_all * windowed_here / (full_here + windowed_here).max(1);
        let state = self.state_figures(1, layers_here, super::state::StateLayout::Vllm);
        InferenceInput {
            runtime,
            compute: compute(&self.quantization),
            active_params: active,
            dense_weight_bytes: self.weight_bytes_read(runtime, false),
            // A dense model has no routed-expert tensor: no walk for them.
            expert_weight_bytes: if a.moe.is_some() {
                self.weight_bytes_read(runtime, true)
            } else {
                0
            },
            experts: a.moe.map_or(0, |m| u32_of(m.num_experts)),
            experts_per_token: u32_of(a.moe.map_or(0, |m| m.experts_per_token)),
            kv_bytes_per_token: kv_all - kv_windowed,
            windowed_kv_bytes_per_token: kv_windowed,
            window: a.sliding_window,
            state_bytes_per_sequence: state.bytes,
            layers: u32_of(a.num_layers),
            windowed_layers: u32_of(windowed_layers),
            hidden: u32_of(a.hidden_size),
            heads: u32_of(a.num_heads),
            head_dim: u32_of(a.head_dim),
            batch: u32_of(self.batch),
            prompt_tokens: self.seq_len,
            output_tokens: self.new_tokens,
            tp: u32_of(self.tp),
            pp: u32_of(self.pp),
            node_link_bytes_per_s: self.nodes.link_bytes_per_s,
            tp_across_nodes: self.nodes.tp_crosses(self.tp),
            pp_node_crossings: u32_of(self.nodes.pp_crossings(self.tp, self.pp, self.dp)),
            // Nothing in CPU memory unless `offload_input` puts it there.
            ..InferenceInput::default()
        }
    }

    /// Whether a run with weights in CPU memory is beyond the speed model: its blocks split over
    /// several GPUs, or a card whose memory the CPU shares (Apple silicon, DGX Spark, Strix
    /// Halo), where the CPU's layers compute on the CPU's cores, whose speed vramfit has no
    /// measure of.
    pub(super) fn offload_unmodelled(&self) -> bool {
        self.dp * self.pp * self.tp > 1
            || self
                .device
                .as_ref()
                .and_then(|d| d.gpu)
                .is_none_or(|g| g.unified_memory)
    }

    /// `input` with the GPU's share of the weights and the KV cache alone, and the CPU's share
    /// from `s` read at the host's bandwidth; op offload's copies go over the card's PCIe link
    /// (`link`, its first link's figure when that is PCIe; PCIe 4.0 x16 otherwise).
    fn offload_input(&self, input: &mut InferenceInput, s: &OffloadSplit, link: f64) {
        let blocks = (s.gpu_blocks + s.cpu_blocks).max(1);
        let kv_all = input.kv_bytes_per_token + input.windowed_kv_bytes_per_token;
        input.dense_weight_bytes = s.gpu_dense;
        input.expert_weight_bytes = s.gpu_expert;
        input.kv_bytes_per_token = input.kv_bytes_per_token * s.gpu_blocks / blocks;
        input.windowed_kv_bytes_per_token =
            input.windowed_kv_bytes_per_token * s.gpu_blocks / blocks;
        // The CPU blocks' sliding layers counted at the whole context: slower, the safe side.
        input.cpu_kv_bytes_per_token = kv_all * s.cpu_blocks / blocks;
        input.cpu_weight_bytes = s.cpu_dense;
        input.cpu_expert_weight_bytes = s.cpu_expert;
        input.backend_switches = u32_of(s.switches);
        input.host_bandwidth_bytes_per_s = self.host.bandwidth_bytes_per_s();
        input.host_kind = self.host.kind();
        let pcie = self
            .device
            .as_ref()
            .and_then(|d| d.gpu)
            .is_some_and(|g| g.interconnect().starts_with("PCIe"));
        input.host_link_bytes_per_s = if pcie && link > 0.0 {
            link as u64
        } else {
            throughput::FALLBACK_LINK_BYTES_PER_S as u64
        };
        input.ubatch = u32_of(self.ubatch);
    }

    /// A tokens-per-second formula of one copy of the server, carried to every copy that
    /// shares the requests (none where there is one copy).
    fn all_copies(&self, d: &mut Difference, per_copy: f64) {
        if self.copies <= 1 {
            return;
        }
        let copies = self.copies;
        let all = throughput::rate(per_copy * copies as f64);
        d.en.push_str(&en!(" per copy; × {copies} copies = {all} tokens/s"));
        d.zh.push_str(&zh!("（每份副本）；× {copies} 份副本 = {all} tokens/s"));
    }

    /// The inference speed model's answer as the estimate carries it, with its formulas when
    /// the estimate has text.
    fn inference_throughput(
        &self,
        runtime: Runtime,
        t: &Inference,
        spec: Option<(throughput::Speculation, u64)>,
    ) -> Throughput {
        let mut formulas = Vec::new();
        if self.text {
            for (key, figure) in [
                ("prefill_tokens_per_s", InferenceFigure::PrefillTokensPerS),
                ("time_to_first_token_s", InferenceFigure::TimeToFirstToken),
                (
                    "decode_tokens_per_s_per_sequence",
                    InferenceFigure::DecodeTokensPerSPerSequence,
                ),
                ("decode_tokens_per_s", InferenceFigure::DecodeTokensPerS),
                ("generation_s", InferenceFigure::Total),
            ] {
                // A pooling run generates nothing: no decode figures.
                if self.pooling && key.starts_with("decode") {
                    continue;
                }
                let mut d = difference(key, t.formula(figure));
                match figure {
                    InferenceFigure::PrefillTokensPerS => {
                        self.all_copies(&mut d, t.prefill_tokens_per_s);
                    }
                    InferenceFigure::DecodeTokensPerS => {
                        self.all_copies(&mut d, t.decode_tokens_per_s);
                    }
                    _ => {}
                }
                formulas.push(d);
            }
            if let Some((s, k)) = &spec {
                formulas.push(self.speculative_formula(s, *k, t.decode_tokens_per_s_per_sequence));
            }
        }
        // Copies of a server sharing the requests each run one copy's share at once.
        let copies = self.copies as f64;
        Throughput {
            runtime,
            prefill_tokens_per_s: Some(four_figures(t.prefill_tokens_per_s * copies)),
            time_to_first_token_s: Some(four_figures(t.time_to_first_token_s)),
            decode_tokens_per_s_per_sequence: (!self.pooling)
                .then(|| four_figures(t.decode_tokens_per_s_per_sequence)),
            decode_tokens_per_s: (!self.pooling)
                .then(|| four_figures(t.decode_tokens_per_s * copies)),
            generation_s: Some(four_figures(t.total_s)),
            speculative_tokens_per_step: spec.map(|(s, _)| four_figures(s.tokens_per_step)),
            speculative_decode_tokens_per_s_per_sequence: spec
                .map(|(s, _)| four_figures(s.decode_tokens_per_s_per_sequence)),
            speculative_decode_tokens_per_s: spec
                .map(|(s, _)| four_figures(s.decode_tokens_per_s * copies)),
            step_time_s: None,
            tokens_per_s: None,
            formulas,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::{
        Engine, EstimateInput, HardwareInput, ModelInput, PlacementInput, RunInput, Runner,
        ServingInput, estimate,
    };
    use crate::throughput::{Recompute, TrainingInput};

    /// The speed reads each tensor as the memory estimate counts it: gpt-oss-20b's F16 GGUF keeps
    /// its experts in MXFP4, as its MXFP4_MOE file does, and differs only in its non-expert
    /// matrices (F16 against Q8_0, about 2.4 against 1.3 GB). A token reads those whole and 4 of
    /// the 32 experts (about 1.3 GB in MXFP4), so on an H100 the F16 file decodes at about
    /// (1.3 + 1.3) / (1.3 + 2.4) = 0.7 of the MXFP4_MOE file's speed or more, not at the 0.36 that
    /// experts counted in F16 (4.8 GB a token) would give.
    #[test]
    fn a_gguf_files_speed_reads_its_mxfp4_experts() {
        let run = |quantization| {
            let e = estimate(&{
                let mut input = llama(Mode::Inference, Engine::Llamacpp, Some("h100-sxm5-80gb"));
                input.model.model = Some("openai/gpt-oss-20b".into());
                input.model.quantization = quantization;
                input
            })
            .unwrap();
            e.throughput
                .unwrap()
                .decode_tokens_per_s_per_sequence
                .unwrap()
        };
        let shipped = run(Quantization::None);
        let f16 = run(Quantization::Gguf {
            file_type: crate::precision::GgufFileType::F16,
        });
        assert!(
            f16 < shipped && f16 / shipped > 0.7,
            "{f16} against {shipped}"
        );
    }

    /// llama.cpp with blocks on the CPU reads them at the host memory's pace. Llama-3.1-8B
    /// Q4_K_M with -ngl 20 on an RTX 3070 (448 GB/s): 13 of the 33 layers (the output layer
    /// counting) in CPU memory; by hand, the CPU's share of a token is about 13/33 of the 4.6 GB
    /// read, 1.9 GB, over DDR4-3200 dual channel (51.2 GB/s × 0.60 = 30.7 GB/s) = 62 ms, the GPU's
    /// 2.7 GB / (448 × 0.9 GB/s) ≈ 7 ms with 33 × 80 µs: 6 to 16 tokens/s, where the whole
    /// model on the card gives about 70; the note names the host. Without a host, the
    /// default (DDR5-5600, 89.6 GB/s) is said to be assumed.
    #[test]
    fn speed_with_layers_on_the_cpu_goes_at_the_hosts_pace() {
        let run = |gpu_layers, host: Option<&str>| {
            estimate(&{
                let mut input = llama(Mode::Inference, Engine::Llamacpp, Some("rtx-3070"));
                input.run.engine = Engine::Llamacpp;
                input.model.quantization = Quantization::Gguf {
                    file_type: crate::precision::GgufFileType::Q4_K_M,
                };
                input.placement.gpu_layers = gpu_layers;
                input.hardware.host_memory = host.map(Into::into);
                input
            })
            .unwrap()
        };
        let partial = run(Some(20.0), Some("ddr4-3200-2ch"));
        let tps = partial
            .throughput
            .as_ref()
            .and_then(|t| t.decode_tokens_per_s_per_sequence)
            .unwrap();
        assert!((6.0..16.0).contains(&tps), "{tps}");
        let note = partial
            .notes
            .iter()
            .find(|n| n.key == "speed_cpu_layers")
            .expect("a note");
        assert!(note.en.contains("13 of the 33 layers"), "{}", note.en);
        assert!(note.en.contains("DDR4-3200"), "{}", note.en);
        let whole = run(None, None);
        let all = whole
            .throughput
            .unwrap()
            .decode_tokens_per_s_per_sequence
            .unwrap();
        assert!(all > 4.0 * tps, "{all} against {tps}");
        assert!(whole.notes.iter().all(|n| n.key != "speed_cpu_layers"));
        // No host given: the default, said to be assumed, and faster than DDR4.
        let assumed = run(Some(20.0), None);
        let note = assumed
            .notes
            .iter()
            .find(|n| n.key == "speed_cpu_layers")
            .unwrap();
        assert!(note.en.contains("assumed"), "{}", note.en);
        assert!(
            assumed
                .throughput
                .unwrap()
                .decode_tokens_per_s_per_sequence
                .unwrap()
                > tps
        );
        // A host for an engine that keeps every layer on the GPU is refused, naming the field.
        let e = estimate(&{
            let mut input = llama(Mode::Inference, Engine::Vllm, Some("h100-sxm5-80gb"));
            input.hardware.host_memory = Some("ddr5-6000-2ch".into());
            input
        })
        .unwrap_err();
        assert_eq!(e.field, "host_memory");
        // Both a host and a bandwidth: a conflict; a rate without a unit or out of range: errors.
        let both = estimate(&{
            let mut input = llama(Mode::Inference, Engine::Llamacpp, Some("rtx-3070"));
            input.hardware.host_memory = Some("ddr5-6000-2ch".into());
            input.hardware.host_bandwidth = Some("80GB/s".into());
            input
        })
        .unwrap_err();
        assert_eq!(both.field, "host_bandwidth");
        for bad in ["80", "0.5GB/s", "20TB/s", "NaN GB/s"] {
            let e = estimate(&{
                let mut input = llama(Mode::Inference, Engine::Llamacpp, Some("rtx-3070"));
                input.hardware.host_bandwidth = Some(bad.into());
                input
            })
            .unwrap_err();
            assert_eq!(e.field, "host_bandwidth", "{bad}");
        }
        // Ollama's own split (Qwen2.5-72B on a 24 GB card) is timed the same way.
        let ollama = estimate(&EstimateInput {
            model: ModelInput {
                model: Some("qwen2.5:72b".into()),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Ollama,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("rtx-4090".into()),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        let load = ollama.ollama.as_ref().unwrap();
        assert!(load.gpu_layers < load.model_layers);
        let slow = ollama
            .throughput
            .unwrap()
            .decode_tokens_per_s_per_sequence
            .unwrap();
        assert!(slow > 0.5 && slow < 5.0, "{slow}");
    }

    /// The note says what sits in CPU memory, layers or experts or both, and the share of the
    /// host's peak its class reaches. Qwen3-30B-A3B (48 blocks) on an RTX 2080: `-ngl 40` leaves
    /// 9 of the 49 layers (the output layer first on the GPU), `--n-cpu-moe 36` the experts of 36
    /// blocks, both together the 9 layers and the experts of 40 − 9 = 31 more blocks. A
    /// quad-channel workstation is read at 0.40 of its peak, a desktop at 0.60; a bandwidth given
    /// alone at the lowest, 0.40: 102.4 GB/s given times a token exactly as the workstation does.
    #[test]
    fn the_offload_note_names_what_is_in_cpu_memory_and_the_hosts_share() {
        let run = |gpu_layers, n_cpu_moe, host: Option<&str>, bw: Option<&str>| {
            estimate(&EstimateInput {
                model: ModelInput {
                    model: Some("Qwen/Qwen3-30B-A3B".into()),
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
                    max_model_len: Some(4096.0),
                    ..Default::default()
                },
                hardware: HardwareInput {
                    gpu: Some("rtx-2080".into()),
                    host_memory: host.map(Into::into),
                    host_bandwidth: bw.map(Into::into),
                    ..Default::default()
                },
                placement: PlacementInput {
                    gpu_layers,
                    n_cpu_moe,
                    ..Default::default()
                },
                ..Default::default()
            })
            .unwrap()
        };
        let note = |e: &crate::estimate::Estimate| {
            e.notes
                .iter()
                .find(|n| n.key == "speed_cpu_layers")
                .map(|n| (n.en.clone(), n.zh.clone()))
                .unwrap()
        };
        let decode = |e: &crate::estimate::Estimate| {
            e.throughput
                .as_ref()
                .and_then(|t| t.decode_tokens_per_s_per_sequence)
                .unwrap()
        };
        let layers = run(Some(40.0), None, Some("ddr4-3200-4ch"), None);
        let (en, zh) = note(&layers);
        assert!(
            en.contains("(9 of the 49 layers, the output layer counting as one)"),
            "{en}"
        );
        assert!(
            !en.contains("--n-cpu-moe") && !zh.contains("--n-cpu-moe"),
            "{en}"
        );
        assert!(en.contains("at 0.40 of the host memory's peak"), "{en}");
        let experts = run(None, Some(36.0), Some("ddr4-3200-2ch"), None);
        let (en, zh) = note(&experts);
        assert!(
            en.contains("(the routed experts of 36 of the 48 blocks, --n-cpu-moe)"),
            "{en}"
        );
        assert!(
            !en.contains("layers") && zh.contains("36 个块的路由专家"),
            "{en}"
        );
        assert!(en.contains("at 0.60 of the host memory's peak"), "{en}");
        let both = run(Some(40.0), Some(40.0), Some("ddr4-3200-4ch"), None);
        let (en, _) = note(&both);
        assert!(en.contains("9 of the 49 layers, the output layer counting as one, and the routed experts of 31 more blocks"), "{en}");
        let given = run(Some(40.0), None, None, Some("102.4GB/s"));
        assert_eq!(decode(&given), decode(&layers));
        assert!(
            note(&given).0.contains("lowest host class"),
            "{}",
            note(&given).0
        );
    }

    /// Layers in CPU memory on several GPUs, or on a card whose memory the CPU shares: no speed,
    /// and the note says why; with every layer on the one card, its speed.
    #[test]
    fn no_speed_with_layers_on_the_cpu() {
        let run = |gpu: &str, gpus: Option<f64>, gpu_layers: Option<f64>| {
            estimate(&{
                let mut input = llama(Mode::Inference, Engine::Llamacpp, Some(gpu));
                input.run.engine = Engine::Llamacpp;
                input.model.quantization = Quantization::Gguf {
                    file_type: crate::precision::GgufFileType::Q4_K_M,
                };
                input.placement.gpus = gpus;
                input.placement.gpu_layers = gpu_layers;
                input
            })
            .unwrap()
        };
        for e in [
            run("rtx-3070", Some(2.0), Some(20.0)),
            run("apple-m3-max-128gb", None, Some(20.0)),
        ] {
            assert!(e.throughput.is_none());
            let note = e
                .notes
                .iter()
                .find(|n| n.key == "speed_cpu_layers")
                .unwrap();
            assert!(note.en.starts_with("No speed estimate"), "{}", note.en);
        }
        assert!(run("apple-m3-max-128gb", None, None).throughput.is_some());
    }

    fn llama(mode: Mode, engine: Engine, gpu: Option<&str>) -> EstimateInput {
        EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".into()),
                ..Default::default()
            },
            run: RunInput {
                mode,
                engine,
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: gpu.map(Into::into),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// Llama-3.1-8B inference on an H100 SXM5 hands the speed model the estimator's numbers:
    /// 8,030,261,248 parameters less the untied input embedding (128,256 × 4,096 = 525,336,576)
    /// is 7,504,924,672 multiplied per token; their bf16 bytes, 15,009,849,344, read per step;
    /// 2 × 8 KV heads × 128 × 32 layers × 2 B = 131,072 KV bytes per token; the batch and
    /// tokens as given. The estimate carries exactly the model's answer on those numbers.
    #[test]
    fn the_estimate_carries_the_speed_models_answer_on_its_numbers() {
        let e = estimate(&llama(Mode::Inference, Engine::Hf, Some("h100-sxm5-80gb"))).unwrap();
        let t = e.throughput.expect("a catalog card");
        let gpu = crate::gpu::find_gpu("h100-sxm5-80gb").unwrap();
        let by_hand = throughput::inference(
            &InferenceInput {
                runtime: Runtime::Transformers,
                compute: Compute::Bits16,
                active_params: 7_504_924_672,
                dense_weight_bytes: 15_009_849_344,
                expert_weight_bytes: 0,
                experts: 0,
                experts_per_token: 0,
                kv_bytes_per_token: 131_072,
                windowed_kv_bytes_per_token: 0,
                window: 0,
                state_bytes_per_sequence: 0,
                layers: 32,
                windowed_layers: 0,
                hidden: 4096,
                heads: 32,
                head_dim: 128,
                batch: 1,
                prompt_tokens: 2048,
                output_tokens: 256,
                tp: 1,
                pp: 1,
                ..InferenceInput::default()
            },
            &throughput::Device::of(gpu),
        )
        .unwrap();
        assert_eq!(t.runtime, Runtime::Transformers);
        assert_eq!(
            t.decode_tokens_per_s,
            Some(four_figures(by_hand.decode_tokens_per_s))
        );
        assert_eq!(
            t.prefill_tokens_per_s,
            Some(four_figures(by_hand.prefill_tokens_per_s))
        );
        assert_eq!(
            t.time_to_first_token_s,
            Some(four_figures(by_hand.time_to_first_token_s))
        );
        assert_eq!(t.generation_s, Some(four_figures(by_hand.total_s)));
        assert_eq!(t.formulas.len(), 5);
        assert!(
            t.formulas
                .iter()
                .all(|f| !f.en.is_empty() && !f.zh.is_empty())
        );
    }

    /// Training hands over the trainable parameters and the global batch's tokens: LoRA r 16 on
    /// q and v of Llama-3.1-8B trains 32 × 16 × ((4,096 + 4,096) + (4,096 + 1,024)) = 6,815,744
    /// parameters; two data-parallel GPUs of batch 4 × 2,048 tokens step 16,384 tokens, and
    /// all-reduce the adapters' fp32 gradients (27.3 MB) over NVLink.
    #[test]
    fn training_speed_takes_the_trainable_parameters_and_the_global_batch() {
        let input = {
            let mut input = llama(Mode::Training, Engine::Hf, Some("h100-sxm5-80gb"));
            input.run.batch = 4.0;
            input.placement.gpus = Some(2.0);
            input.training.lora_rank = 16.0;
            input
        };
        let e = estimate(&input).unwrap();
        assert_eq!(e.trainable_params, 6_815_744);
        let t = e.throughput.unwrap();
        let gpu = crate::gpu::find_gpu("h100-sxm5-80gb").unwrap();
        let by_hand = throughput::training(
            &TrainingInput {
                compute: Compute::Bits16,
                active_params: 7_504_924_672,
                trainable_params: 6_815_744,
                layers: 32,
                heads: 32,
                head_dim: 128,
                seq_len: 2048,
                tokens_per_step: 16_384,
                recompute: Recompute::None,
                gpus: 2,
                pp: 1,
                microbatches: 1,
                // DDP on one node: the LoRA gradients' fp32 all-reduce over NVLink (DDP
                // gathers no parameters: `param_bytes` is not read).
                comm: Some(throughput::Comm {
                    tp: 1,
                    cp: 1,
                    vp: 1,
                    sequence_parallel: false,
                    sync: throughput::DataSync::AllReduce,
                    hidden: 4096,
                    kv_width: 8 * 128,
                    param_bytes: 0,
                    grad_bytes: 6_815_744 * 4,
                    gpus_per_node: 8,
                    node_link_bytes_per_s: 50e9,
                }),
            },
            &throughput::Device::of(gpu),
        )
        .unwrap();
        assert_eq!(t.step_time_s, Some(four_figures(by_hand.step_time_s)));
        assert_eq!(t.tokens_per_s, Some(four_figures(by_hand.tokens_per_s)));
        assert_eq!(t.decode_tokens_per_s, None);
    }

    /// No catalog card, no speed: a memory size alone has no bandwidth or compute figures; and
    /// a bare parameter count has no layers to time.
    #[test]
    fn no_card_no_speed() {
        let e = estimate(&{
            let mut input = llama(Mode::Inference, Engine::Hf, None);
            input.hardware.gpu_memory = Some("80GB".into());
            input
        })
        .unwrap();
        assert!(e.throughput.is_none());
        let e = estimate(&EstimateInput {
            model: ModelInput {
                model: None,
                params: Some("7B".into()),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: Some("h100-sxm5-80gb".into()),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        assert!(e.throughput.is_none());
        // Four significant figures: 9.0815126 s reads 9.082 s, 1,053.053 tokens/s 1,053.
        assert_eq!(four_figures(9.081_512_662_926_611), 9.082);
        assert_eq!(four_figures(1_053.053_025), 1_053.0);
        assert_eq!(four_figures(0.000_123_456), 0.000_123_5);
        // An fp8 checkpoint computes in FP8, llama.cpp's GGUF weights are dequantized.
        assert_eq!(compute(&Quantization::Fp8), Compute::Fp8);
        assert_eq!(
            Runner::of(Mode::Serve, Engine::Vllm).rules().runtime,
            Runtime::Batched
        );
    }
}
