//! Inference: prefill, time to first token and decode speed of one batch of sequences.

use libm::pow;

use super::{Compute, Device, Efficiency, FormulaText, Limit, Runtime, efficiency};
use crate::error::Result;

/// Bytes an activation element takes on the link (BF16 or FP16).
const ACTIVATION_BYTES: f64 = 2.0;

/// What the speed of an inference run depends on: numbers the estimator already has.
///
/// Byte counts are per GPU: on the busiest GPU of the layout, as the memory estimate gives them
/// (tensor parallelism splits them; each pipeline stage holds its layers' share).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct InferenceInput {
    /// The engine.
    pub runtime: Runtime,
    /// What the matrix multiplications compute in.
    pub compute: Compute,
    /// Parameters a token goes through in matrix multiplications, in the whole model: every
    /// layer's weights and the output head, not the input embedding (a lookup); for a
    /// mixture of experts, the shared weights and the experts a token is routed to.
    pub active_params: u64,
    /// Weight bytes per GPU that every forward pass reads (all but the routed experts and the
    /// input embedding, which a token reads one row of).
    pub dense_weight_bytes: u64,
    /// Weight bytes per GPU of the routed experts (0 for a dense model).
    pub expert_weight_bytes: u64,
    /// Routed experts per layer (0 for a dense model).
    pub experts: u32,
    /// Experts each token is routed to.
    pub experts_per_token: u32,
    /// KV-cache bytes per GPU per token of context, over the layers that attend to every token.
    pub kv_bytes_per_token: u64,
    /// KV-cache bytes per GPU per token, over the sliding-window layers (0 without any).
    pub windowed_kv_bytes_per_token: u64,
    /// The sliding window, in tokens (0 without).
    pub window: u64,
    /// A hybrid model's fixed-size state per sequence on one GPU (linear-attention, state-space
    /// and short-convolution layers): each decode step reads it and writes it back, whatever
    /// the context (0 without state layers).
    pub state_bytes_per_sequence: u64,
    /// Transformer layers.
    pub layers: u32,
    /// Of these, the sliding-window layers.
    pub windowed_layers: u32,
    /// Hidden size (what an all-reduce carries per token).
    pub hidden: u32,
    /// Attention (query) heads.
    pub heads: u32,
    /// Dimension of a head's query and key.
    pub head_dim: u32,
    /// Sequences decoded together.
    pub batch: u32,
    /// Prompt tokens per sequence.
    pub prompt_tokens: u64,
    /// Generated tokens per sequence.
    pub output_tokens: u64,
    /// Tensor-parallel GPUs.
    pub tp: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// llama.cpp with layers or experts in CPU memory ([`super::offload`]): the weights there
    /// that every pass reads (the layers `-ngl` leaves, the output layer if it stays), 0 without.
    pub cpu_weight_bytes: u64,
    /// The routed experts' bytes in CPU memory (`--n-cpu-moe`, and those of the CPU layers).
    pub cpu_expert_weight_bytes: u64,
    /// KV-cache bytes per token of context of the layers in CPU memory.
    pub cpu_kv_bytes_per_token: u64,
    /// Hand-overs between the GPU and the CPU in one pass beyond the embedding's.
    pub backend_switches: u32,
    /// The host memory's peak bandwidth, bytes per second (required with anything in CPU memory).
    pub host_bandwidth_bytes_per_s: u64,
    /// The host's class, which sets the share of that peak reached
    /// ([`super::efficiency::host_mbu`]); `None`: a bandwidth given without its class.
    pub host_kind: Option<crate::host::HostKind>,
    /// The GPU's PCIe link to the host, per direction, bytes per second: op offload's copies go
    /// over it; 0 where the memory is shared (no copy: the CPU reads the weights itself).
    pub host_link_bytes_per_s: u64,
    /// llama.cpp's ubatch (`-ub`): op offload copies the weights once per ubatch.
    pub ubatch: u32,
    /// The network between nodes, per GPU and per direction, bytes per second (required when
    /// anything crosses it; 0 on one node).
    pub node_link_bytes_per_s: u64,
    /// The tensor-parallel groups span nodes: their all-reduces run at the network's pace.
    pub tp_across_nodes: bool,
    /// Pipeline hand-overs of one pass that cross the network between nodes.
    pub pp_node_crossings: u32,
}

/// The speed of an inference run: every figure finite and non-negative.
///
/// The decode figures are at the mean context of the generation, `prompt + output / 2` tokens
/// (the step time grows linearly with the context, so this is its mean), and the batch's
/// prompts are prefilled together before the first token.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Inference {
    /// Prompt tokens processed per second during the prefill, over the batch.
    pub prefill_tokens_per_s: f64,
    /// Time from the batch's prompts to the first token: the prefill.
    pub time_to_first_token_s: f64,
    /// Time of one decode step (one token for every sequence).
    pub decode_step_s: f64,
    /// Tokens generated per second by one sequence.
    pub decode_tokens_per_s_per_sequence: f64,
    /// Tokens generated per second by the batch.
    pub decode_tokens_per_s: f64,
    /// Time to generate the output: the first token, then a step per further token.
    pub total_s: f64,
    /// What limits the prefill.
    pub prefill_bound: Limit,
    /// What limits a decode step.
    pub decode_bound: Limit,
    /// The numbers the formulas show.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) work: Working,
}

/// One figure of [`Inference`], for [`Inference::formula`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InferenceFigure {
    /// [`Inference::prefill_tokens_per_s`].
    PrefillTokensPerS,
    /// [`Inference::time_to_first_token_s`].
    TimeToFirstToken,
    /// [`Inference::decode_step_s`].
    DecodeStep,
    /// [`Inference::decode_tokens_per_s_per_sequence`].
    DecodeTokensPerSPerSequence,
    /// [`Inference::decode_tokens_per_s`].
    DecodeTokensPerS,
    /// [`Inference::total_s`].
    Total,
}

impl Inference {
    /// The formula of `figure` with its numbers, in English and Chinese.
    pub fn formula(&self, figure: InferenceFigure) -> FormulaText {
        super::text::inference(self, figure)
    }
}

/// The working of one phase (a prefill or a decode step): each term of its time.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub(super) struct Phase {
    /// Tokens in the forward pass (over the batch).
    pub tokens: f64,
    /// FLOPs of the matrix multiplications with the weights, whole model.
    pub weight_flops: f64,
    /// FLOPs of attention over the context, whole model.
    pub attention_flops: f64,
    /// Time of the FLOPs, split over the tensor-parallel GPUs.
    pub compute_s: f64,
    /// Weight bytes read per GPU, over the pipeline stages one after another.
    pub weight_bytes: f64,
    /// KV-cache bytes read per GPU, over the stages.
    pub kv_bytes: f64,
    /// Time of the bytes.
    pub memory_s: f64,
    /// Share of the routed experts the pass touches.
    pub experts_touched: f64,
    /// Time of the tensor-parallel all-reduces.
    pub allreduce_s: f64,
    /// Bytes one all-reduce moves per GPU.
    pub allreduce_bytes: f64,
    /// Time of the pipeline hand-overs that cross the network between nodes.
    pub handover_s: f64,
    /// Bytes one such hand-over sends per GPU.
    pub handover_bytes: f64,
    /// The link the all-reduces run over, per direction, bytes per second: the GPUs' own, or
    /// the network between nodes where a tensor group spans nodes.
    pub allreduce_link: f64,
    /// Fixed time: per layer and per step.
    pub fixed_s: f64,
    /// The part run from CPU memory (llama.cpp's offload; zero without).
    pub offload: super::offload::Terms,
    /// The phase's time.
    pub total_s: f64,
}

/// The numbers behind an [`Inference`], kept for its formulas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Working {
    pub input: InferenceInput,
    pub device: Device,
    pub efficiency: Efficiency,
    /// The dense peak the run computes at, in FLOPS.
    pub peak: f64,
    /// The link bandwidth used, per direction, in bytes per second.
    pub link: f64,
    /// Whether the link is the fallback (the card's is not known).
    pub link_assumed: bool,
    /// Prompt tokens counted (at least 1).
    pub prompt: f64,
    /// The mean context of a decode step.
    pub context: f64,
    pub prefill: Phase,
    pub decode: Phase,
}

/// The link assumed where a card's is not known: PCIe 4.0 x16, per direction.
pub const FALLBACK_LINK_BYTES_PER_S: f64 = 31.5e9;

/// The speed of `input` on GPUs like `device`.
///
/// Errors name the field: a batch, layer count, head count or parallel size of 0, experts
/// inconsistent with their bytes, or a device whose bandwidth or 16-bit throughput is missing
/// or out of range.
pub fn inference(input: &InferenceInput, device: &Device) -> Result<Inference> {
    let device = super::device::checked(device)?;
    validate(input)?;
    let eff = input.runtime.efficiency(&device);
    let peak = input.compute.peak_flops(&device);
    let link_assumed = device.link_bytes_per_s <= 0.0;
    let link = if link_assumed {
        FALLBACK_LINK_BYTES_PER_S
    } else {
        device.link_bytes_per_s
    };
    let n = |x: u64| x as f64;
    let batch = f64::from(input.batch);
    let prompt = n(input.prompt_tokens.max(1));
    let out = n(input.output_tokens);
    // A decode step producing token i (2 ≤ i ≤ out) attends to prompt + i − 1 tokens: their
    // mean is prompt + out / 2 (the next step's, prompt + 1, where out < 2).
    let context = prompt + out.max(2.0) / 2.0;
    let shape = Shape {
        input,
        device: &device,
        eff: &eff,
        peak,
        link,
    };
    // Prefill: every prompt token of the batch, attending causally to the tokens before it
    // (the mean over positions of a context that grows from 1 to the prompt: prompt / 2).
    let prefill = shape.phase(batch * prompt, prompt / 2.0, 0.0);
    // Decode: one token per sequence, attending to the whole context, reading its KV cache.
    let decode = shape.phase(batch, context, batch * context);
    let steps = (out - 1.0).max(0.0);
    let work = Working {
        input: *input,
        device,
        efficiency: eff,
        peak,
        link,
        link_assumed,
        prompt,
        context,
        prefill,
        decode,
    };
    Ok(Inference {
        prefill_tokens_per_s: prefill.tokens / prefill.total_s,
        time_to_first_token_s: prefill.total_s,
        decode_step_s: decode.total_s,
        decode_tokens_per_s_per_sequence: 1.0 / decode.total_s,
        decode_tokens_per_s: batch / decode.total_s,
        total_s: prefill.total_s + steps * decode.total_s,
        prefill_bound: prefill.bound(),
        decode_bound: decode.bound(),
        work,
    })
}

/// Seconds of one decode step at the mean context in which each sequence of the batch runs
/// `per_sequence` tokens through the model, reading its KV cache once (speculative decoding's
/// verification runs the k drafted tokens and one more), as [`inference`] times a step;
/// `inside_step`: a pass inside another's step (a draft pass), which pays the fixed time per
/// layer but not the step's own (the scheduler's and the sampler's).
pub(super) fn decode_step_s(
    input: &InferenceInput,
    device: &Device,
    per_sequence: u32,
    inside_step: bool,
) -> Result<f64> {
    let device = super::device::checked(device)?;
    validate(input)?;
    let eff = input.runtime.efficiency(&device);
    let shape = Shape {
        input,
        device: &device,
        eff: &eff,
        peak: input.compute.peak_flops(&device),
        link: if device.link_bytes_per_s <= 0.0 {
            FALLBACK_LINK_BYTES_PER_S
        } else {
            device.link_bytes_per_s
        },
    };
    let batch = f64::from(input.batch);
    let context = input.prompt_tokens.max(1) as f64 + (input.output_tokens as f64).max(2.0) / 2.0;
    let tokens = batch * f64::from(per_sequence.max(1));
    let total = shape.phase(tokens, context, batch * context).total_s;
    Ok(if inside_step {
        (total - eff.step_s).max(0.0)
    } else {
        total
    })
}

impl Phase {
    fn bound(&self) -> Limit {
        if self.memory_s > self.compute_s {
            Limit::Memory
        } else {
            Limit::Compute
        }
    }
}

/// What every phase of one run shares.
struct Shape<'a> {
    input: &'a InferenceInput,
    device: &'a Device,
    eff: &'a Efficiency,
    peak: f64,
    link: f64,
}

impl Shape<'_> {
    /// One forward pass of `tokens` tokens, each attending to `attended` tokens on average,
    /// reading the KV cache of `kv_tokens` tokens (over the batch).
    fn phase(&self, tokens: f64, attended: f64, kv_tokens: f64) -> Phase {
        let i = self.input;
        let (tp, pp) = (f64::from(i.tp), f64::from(i.pp));
        let layers = f64::from(i.layers);
        let windowed = f64::from(i.windowed_layers.min(i.layers));
        let window = if i.window == 0 {
            attended
        } else {
            attended.min(i.window as f64)
        };
        // Attention: Q·Kᵀ and scores·V, 2 FLOPs per multiply-add each, per head per layer.
        let head_flops = 4.0 * f64::from(i.heads) * f64::from(i.head_dim);
        let attention_flops =
            tokens * head_flops * ((layers - windowed) * attended + windowed * window);
        let weight_flops = 2.0 * i.active_params as f64 * tokens;
        let compute_s = (weight_flops + attention_flops) / tp / (self.peak * self.eff.mfu);
        // Routed experts: a token goes to k of E; the share of experts at least one of n tokens
        // goes to is 1 − (1 − k/E)^n with routing spread evenly.
        let experts_touched = if i.experts == 0 {
            0.0
        } else {
            let miss = 1.0 - f64::from(i.experts_per_token) / f64::from(i.experts);
            1.0 - pow(miss, tokens)
        };
        // The stages of a pipeline run one after another for one batch.
        let weight_bytes =
            pp * (i.dense_weight_bytes as f64 + i.expert_weight_bytes as f64 * experts_touched);
        let kv_window = if i.window == 0 {
            kv_tokens
        } else {
            kv_tokens.min(f64::from(i.batch) * i.window as f64)
        };
        let kv_bytes = pp
            * (i.kv_bytes_per_token as f64 * kv_tokens
                + i.windowed_kv_bytes_per_token as f64 * kv_window);
        let state_bytes = pp * 2.0 * f64::from(i.batch) * i.state_bytes_per_sequence as f64;
        let memory_s = (weight_bytes + kv_bytes + state_bytes)
            / (self.device.bandwidth_bytes_per_s * self.eff.mbu);
        // Tensor parallelism: two all-reduces per layer (after attention and after the MLP) of
        // the tokens' hidden states; a ring moves 2 (tp − 1) / tp of them over each link.
        let allreduce_bytes = if i.tp > 1 {
            2.0 * (tp - 1.0) / tp * tokens * f64::from(i.hidden) * ACTIVATION_BYTES
        } else {
            0.0
        };
        // A ring over nodes goes at its slowest hop: each GPU's share of the network.
        let node_link = i.node_link_bytes_per_s as f64;
        let allreduce_link = if i.tp_across_nodes {
            self.link.min(node_link)
        } else {
            self.link
        };
        let allreduce_s = if i.tp > 1 {
            2.0 * layers
                * (efficiency::ALLREDUCE_LATENCY_S
                    + allreduce_bytes / (allreduce_link * efficiency::LINK_EFFICIENCY))
        } else {
            0.0
        };
        // Pipeline hand-overs between nodes ([`crate::estimate::handover_bytes_per_token`]):
        // the hidden states and the residual, each rank its 1/tp share, over its own adapter.
        // Those inside a node go over NVLink and are within the fixed costs fitted.
        let crossings = f64::from(i.pp_node_crossings);
        let handover_bytes = if crossings > 0.0 {
            tokens * 2.0 * f64::from(i.hidden) * ACTIVATION_BYTES / tp
        } else {
            0.0
        };
        let handover_s = if crossings > 0.0 {
            crossings
                * (efficiency::ALLREDUCE_LATENCY_S
                    + handover_bytes / (node_link * efficiency::LINK_EFFICIENCY))
        } else {
            0.0
        };
        let fixed_s = layers * self.eff.layer_s + self.eff.step_s;
        let offload = super::offload::terms(i, tokens, kv_tokens, experts_touched);
        Phase {
            tokens,
            weight_flops,
            attention_flops,
            compute_s,
            weight_bytes,
            kv_bytes,
            memory_s,
            experts_touched,
            allreduce_s,
            allreduce_bytes,
            handover_s,
            handover_bytes,
            allreduce_link,
            fixed_s,
            offload,
            total_s: compute_s.max(memory_s)
                + allreduce_s
                + handover_s
                + fixed_s
                + offload.total_s(),
        }
    }
}

/// The input's ranges.
fn validate(i: &InferenceInput) -> Result<()> {
    let positive = [
        ("batch", i.batch),
        ("layers", i.layers),
        ("hidden", i.hidden),
        ("heads", i.heads),
        ("head_dim", i.head_dim),
        ("tp", i.tp),
        ("pp", i.pp),
    ];
    for (field, v) in positive {
        if v == 0 {
            return Err(input_error!(
                OutOfRange,
                field,
                "is 0",
                "为 0",
                "an integer of at least 1",
                "至少为 1 的整数"
            ));
        }
    }
    if i.active_params == 0 {
        return Err(input_error!(
            OutOfRange,
            "active_params",
            "is 0",
            "为 0",
            "a parameter count of at least 1",
            "至少为 1 的参数量"
        ));
    }
    if i.dense_weight_bytes == 0 && i.expert_weight_bytes == 0 && !super::offload::offloaded(i) {
        return Err(input_error!(
            Missing,
            "dense_weight_bytes",
            "no weight bytes are given",
            "没有给出权重字节数",
            "the bytes of the weights on one GPU, at least 1",
            "单卡上的权重字节数，至少为 1"
        ));
    }
    if super::offload::offloaded(i)
        && !(1e8..=1e14).contains(&(i.host_bandwidth_bytes_per_s as f64))
    {
        return Err(input_error!(
            OutOfRange,
            "host_bandwidth",
            [
                "is {} B/s with weights in CPU memory",
                crate::units::number_text(i.host_bandwidth_bytes_per_s as f64)
            ],
            [
                "为 {} B/s，而部分权重在 CPU 内存中",
                crate::units::number_text(i.host_bandwidth_bytes_per_s as f64)
            ],
            "the host memory's bandwidth, from 0.1 GB/s to 100 TB/s",
            "主机内存带宽，0.1 GB/s 到 100 TB/s"
        ));
    }
    if (i.tp_across_nodes || i.pp_node_crossings > 0)
        && !(1e8..=1e13).contains(&(i.node_link_bytes_per_s as f64))
    {
        return Err(input_error!(
            OutOfRange,
            "node_link_bytes_per_s",
            [
                "is {} B/s while the run crosses nodes",
                crate::units::number_text(i.node_link_bytes_per_s as f64)
            ],
            [
                "为 {} B/s，而运行跨越了节点",
                crate::units::number_text(i.node_link_bytes_per_s as f64)
            ],
            "the network between nodes per GPU, from 0.1 GB/s to 10 TB/s",
            "每 GPU 的节点间网络带宽，0.1 GB/s 到 10 TB/s"
        ));
    }
    if i.windowed_layers > i.layers {
        return Err(input_error!(
            OutOfRange,
            "windowed_layers",
            [
                "is {}, more than the {} layers",
                i.windowed_layers,
                i.layers
            ],
            ["为 {}，多于总层数 {}", i.windowed_layers, i.layers],
            ["at most the layer count ({})", i.layers],
            ["不超过层数（{}）", i.layers]
        ));
    }
    if i.experts == 0 {
        if i.expert_weight_bytes > 0 {
            return Err(input_error!(
                Conflict,
                "expert_weight_bytes",
                "routed-expert bytes are given for a model without experts",
                "模型没有路由专家，却给出了专家权重字节数",
                "0 when `experts` is 0",
                "`experts` 为 0 时为 0"
            ));
        }
    } else if i.experts_per_token == 0 || i.experts_per_token > i.experts {
        return Err(input_error!(
            OutOfRange,
            "experts_per_token",
            ["is {} with {} experts", i.experts_per_token, i.experts],
            ["为 {}，专家数为 {}", i.experts_per_token, i.experts],
            ["from 1 to the expert count ({})", i.experts],
            ["1 到专家数（{}）之间", i.experts]
        ));
    }
    Ok(())
}
