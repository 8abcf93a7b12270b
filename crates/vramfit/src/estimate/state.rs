//! The fixed-size state of a hybrid model's linear-attention, state-space and short-convolution
//! layers, as each engine keeps it: one per sequence, whatever the context.
//!
//! - transformers 5.25.0 (`cache_utils.py`, `LinearAttentionLayer`): the convolution state of the
//!   whole kernel in the activation dtype, the recurrent state in fp32 (what the Gated DeltaNet
//!   and Mamba2 kernels return); checked tensor by tensor in
//!   `tests/reference/hybrid-reference.csv`.
//! - llama.cpp (`llama-memory-recurrent.cpp`): `R` (the convolution's last `kernel - 1` inputs)
//!   and `S` (the recurrent state), both f32, one cell per sequence (`--parallel`), printed as its
//!   `RS buffer` beside the KV buffer.
//! - vLLM (`vllm/model_executor/layers/mamba/mamba_utils.py`): `kernel - 1` convolution inputs
//!   and the recurrent state, one per running request, in pages unified with the attention
//!   pages (`vllm/model_executor/models/config.py`, `HybridAttentionMambaModelConfig`, v0.11:
//!   the attention block size is raised until its page holds a state layer's, and the state's
//!   page is padded to it). Counted here as the state alone, in the model dtype for the
//!   convolution and fp32 for the recurrent state (Nemotron-H's `mamba_ssm_cache_dtype`; vLLM's
//!   "auto" keeps other models' recurrent state in the model dtype, half of this).

use super::{Formula, Run, b};
use crate::units::short;

/// How an engine keeps the state of one sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StateLayout {
    /// transformers: the whole kernel of convolution inputs in the activation dtype, the
    /// recurrent state in fp32.
    Transformers,
    /// llama.cpp: `kernel - 1` convolution inputs and the recurrent state, both f32.
    Llamacpp,
    /// vLLM: `kernel - 1` convolution inputs in the model dtype, the recurrent state in fp32.
    Vllm,
}

/// The state of the sequences on one GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) struct StateFigures {
    /// Bytes in all.
    pub(super) bytes: u64,
    /// State layers on this GPU.
    pub(super) layers: u64,
    /// Bytes of one sequence in one layer: convolution and recurrent state.
    pub(super) conv_per_layer: u64,
    pub(super) recurrent_per_layer: u64,
}

impl Run<'_> {
    /// The state of `seqs` sequences over the state layers of a stage of `layers` blocks, kept
    /// as `layout` says; zero for a model without state layers.
    pub(super) fn state_figures(
        &self,
        seqs: u64,
        layers: u64,
        layout: StateLayout,
    ) -> StateFigures {
        let a = &self.arch;
        let Some(h) = a.hybrid else {
            return StateFigures::default();
        };
        let here = a.stage_state_layers(layers);
        let (elements, conv_bytes) = match layout {
            StateLayout::Transformers => (h.state_elements(a.hidden_size), self.act_bytes()),
            StateLayout::Llamacpp => (h.state_elements_short(a.hidden_size), 4),
            StateLayout::Vllm => (h.state_elements_short(a.hidden_size), self.act_bytes()),
        };
        // Tensor parallelism splits the heads and the channels alike.
        let tp = self.tp.max(1);
        let conv = elements.conv.saturating_mul(conv_bytes).div_ceil(tp);
        let recurrent = elements.recurrent.saturating_mul(4).div_ceil(tp);
        StateFigures {
            bytes: conv
                .saturating_add(recurrent)
                .saturating_mul(here)
                .saturating_mul(seqs),
            layers: here,
            conv_per_layer: conv,
            recurrent_per_layer: recurrent,
        }
    }

    /// The state's formula: per layer and sequence, times the layers and the sequences.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn state_text(&self, f: &StateFigures, seqs: u64, layout: StateLayout) -> Formula {
        if !self.text {
            return Formula::default();
        }
        let Some(h) = self.arch.hybrid else {
            return Formula::default();
        };
        let (kind, kind_zh) = match h.mixer {
            crate::model::StateMixer::GatedDeltaNet => ("Gated DeltaNet", "Gated DeltaNet "),
            crate::model::StateMixer::KimiDelta => {
                ("Kimi Delta Attention", "Kimi Delta Attention ")
            }
            crate::model::StateMixer::Mamba2 => ("Mamba2", "Mamba2 "),
            crate::model::StateMixer::ShortConv => ("short conv", "短卷积"),
        };
        let (conv, rec, layers, size) = (
            short(f.conv_per_layer as f64 / 1024.0),
            short(f.recurrent_per_layer as f64 / 1024.0),
            f.layers,
            b(f.bytes),
        );
        let kernel = match layout {
            StateLayout::Transformers => h.conv_kernel,
            StateLayout::Llamacpp | StateLayout::Vllm => h.conv_kernel.saturating_sub(1),
        };
        formula!(self.text;
            [
                "{layers} {kind} layers × {seqs} seq × (conv state {conv} KiB ({kernel} inputs) + recurrent state {rec} KiB (fp32)) = {size}"
            ],
            [
                "{layers} 个 {kind_zh}层 × {seqs} 条序列 × (卷积状态 {conv} KiB（{kernel} 个输入）+ 递归状态 {rec} KiB（fp32）) = {size}"
            ]
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::estimate::{
        ComponentKind, Engine, EstimateInput, ModelInput, RunInput, ServingInput, estimate,
    };
    use crate::model::{Architecture, Hybrid, StateMixer};

    /// Qwen3-Next-80B-A3B's attention and Gated DeltaNet shapes (12 gated attention layers of
    /// 2 KV heads × 256, 36 DeltaNet layers of 32 value heads, 16 key heads, 128 × 128, kernel
    /// 4), its MoE left out (the cache does not depend on it).
    fn qwen3_next() -> Architecture {
        Architecture {
            vocab_size: 151_936,
            hidden_size: 2048,
            num_layers: 48,
            num_heads: 16,
            num_kv_heads: 2,
            head_dim: 256,
            intermediate_size: 5120,
            gated_ffn: true,
            norms_per_layer: 2,
            qk_norm: true,
            gated_attention: true,
            max_position_embeddings: 262_144,
            hybrid: Some(Hybrid {
                mixer: StateMixer::GatedDeltaNet,
                state_layers: 36,
                attention_layers: 12,
                ffn_layers: 48,
                heads: 32,
                groups: 16,
                state_size: 128,
                head_dim: 128,
                conv_kernel: 4,
                ..Hybrid::default()
            }),
            ..Architecture::default()
        }
    }

    fn part(e: &crate::estimate::Estimate, kind: ComponentKind) -> u64 {
        e.components
            .iter()
            .find(|c| c.key.kind == kind)
            .map_or(0, |c| c.bytes.get())
    }

    #[test]
    fn transformers_keeps_one_state_per_sequence_and_kv_in_the_attention_layers() {
        let e = estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(qwen3_next()),
                ..Default::default()
            },
            run: RunInput {
                batch: 4.0,
                seq_len: 8192.0,
                new_tokens: 0.0,
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        // Hand: KV 12 layers × 2 × 2 heads × 256 × 8,192 tokens × 4 seq × 2 B = 805,306,368 B
        // (all 48 layers would be 4× that: the peers' mistake).
        assert_eq!(part(&e, ComponentKind::KvCache), 805_306_368);
        // State: 36 layers × 4 seq × (conv (2 × 2,048 + 4,096) × 4 × 2 B = 65,536
        //   + recurrent 32 × 128 × 128 × 4 B = 2,097,152) = 311,427,072 B, at any context.
        assert_eq!(part(&e, ComponentKind::StateCache), 311_427_072);
    }

    #[test]
    fn llamacpp_prints_the_recurrent_state_beside_the_kv() {
        let e = estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(qwen3_next()),
                ..Default::default()
            },
            run: RunInput {
                engine: Engine::Llamacpp,
                batch: 2.0,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(4096.0),
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        // R: 3 inputs × 8,192 channels × 4 B = 98,304; S: 32 × 128 × 128 × 4 B = 2,097,152;
        // × 36 layers × 2 sequences = 158,072,832 B (llama.cpp's RS buffer: 150.75 MiB).
        assert_eq!(part(&e, ComponentKind::StateCache), 158_072_832);
        // KV: 12 layers × 4,096 cells × 2 × 2 × 256 × 2 B (f16) = 100,663,296 B.
        assert_eq!(part(&e, ComponentKind::KvCache), 100_663_296);
    }
}
