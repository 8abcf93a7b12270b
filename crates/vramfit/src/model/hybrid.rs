//! Hybrid stacks: layers whose token mixer keeps a fixed-size state per sequence (Gated DeltaNet
//! linear attention, Mamba2 state-space layers, short convolutions) beside the attention layers
//! that keep a growing KV cache. Which layer is which, what each holds per sequence, and the
//! mixers' weights.
//!
//! The state's shapes and dtypes are those of transformers 5.25.0's `LinearAttentionLayer`
//! (`src/transformers/cache_utils.py`): the convolution state `(batch, conv_dim, kernel)` in the
//! activation dtype, and the recurrent state as the mixer's kernel returns it, fp32 for Gated
//! DeltaNet (`torch_chunk_gated_delta_rule` casts to fp32, `modeling_qwen3_next.py`) and for
//! Mamba2 (`A` is fp32, `modeling_nemotron_h.py`). `tests/reference/hybrid-reference.csv` holds the
//! tensors a prefill left in the cache.

use super::{Architecture, Role};

/// The token mixer of the layers that keep a fixed-size state instead of a KV cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum StateMixer {
    /// Gated DeltaNet linear attention (Qwen3-Next `linear_attention`, Kimi-Linear's KDA kin):
    /// a `key_head_dim × value_head_dim` matrix per value head.
    #[default]
    GatedDeltaNet,
    /// Kimi Delta Attention (Kimi-Linear): Gated DeltaNet's state with as many key heads as
    /// value heads (`groups` = `heads`), its own projections (separate q, k and v, low-rank
    /// forget and output gates; transformers 5.24 `KimiLinearDeltaAttention`).
    KimiDelta,
    /// Mamba2 selective state space (Nemotron-H, Granite 4 hybrid, Falcon-H1): a
    /// `head_dim × state_size` state per head.
    Mamba2,
    /// A gated short convolution (LFM2's `conv` layers): the last `kernel` inputs alone.
    ShortConv,
}

/// What one layer of a decoder holds, read from its config's per-layer pattern into this type
/// once (transformers' names, with the legacy ones `remap_legacy_layer_types` maps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayerKind {
    /// Attention over the whole context (`full_attention`, `attention`).
    FullAttention,
    /// Attention over a sliding window (`sliding_attention`).
    SlidingAttention,
    /// A state mixer: linear attention, Mamba (`linear_attention`, `mamba`) or a short
    /// convolution (`conv`).
    State,
    /// An FFN block alone (Nemotron-H's `mlp` and `moe`).
    Ffn,
    /// Attention and a state mixer side by side (`hybrid`: Falcon-H1, Zamba2).
    Parallel,
}

impl LayerKind {
    /// The kind a config names, or `None` for a kind not modelled (chunked, indexed or
    /// compressed attention).
    pub fn from_config_name(name: &str) -> Option<LayerKind> {
        Some(match name {
            "full_attention" | "attention" | "global" => LayerKind::FullAttention,
            "sliding_attention" => LayerKind::SlidingAttention,
            "linear_attention" | "mamba" | "mamba2" | "conv" => LayerKind::State,
            "mlp" | "moe" => LayerKind::Ffn,
            "hybrid" => LayerKind::Parallel,
            _ => return None,
        })
    }
}

/// The layers of a hybrid stack by kind, and the shapes of its state mixer.
///
/// Layers are counted, not placed: the weights and the state do not depend on where a layer sits.
/// For a pipeline stage or llama.cpp's split, attention layers are taken first, then the state
/// layers, with the FFN layers last (Nemotron-H's blocks hold one of the three each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Hybrid {
    /// The state mixer.
    pub mixer: StateMixer,
    /// Layers with the state mixer.
    pub state_layers: u64,
    /// Layers with attention (full or sliding): the KV cache's layers.
    pub attention_layers: u64,
    /// Layers with an FFN (all of them but in Nemotron-H, whose FFN blocks are layers of their own).
    pub ffn_layers: u64,
    /// Whether the state mixer runs beside the attention in the same layers (Falcon-H1) rather
    /// than in layers of its own.
    pub parallel: bool,
    /// Gated DeltaNet: value heads (`linear_num_value_heads`); Mamba2: heads; short conv: 0.
    pub heads: u64,
    /// Gated DeltaNet: key heads (`linear_num_key_heads`); Mamba2: groups (`n_groups`).
    pub groups: u64,
    /// Gated DeltaNet: key head width; Mamba2: the state size (`ssm_state_size`, `d_state`).
    pub state_size: u64,
    /// Gated DeltaNet: value head width; Mamba2: head width (`mamba_head_dim`).
    pub head_dim: u64,
    /// The causal convolution's kernel (`conv_kernel`, `linear_conv_kernel_dim`, `conv_L_cache`).
    pub conv_kernel: u64,
    /// Bias on the convolution (Mamba2's `use_conv_bias`, LFM2's `conv_bias`).
    pub conv_bias: bool,
    /// Biases on the mixer's input and output projections.
    pub proj_bias: bool,
    /// Mamba2's gated RMSNorm over its inner width (not in Falcon-H1 unless `mamba_rms_norm`).
    pub gated_norm: bool,
}

/// What one sequence keeps in one state layer, in elements: the convolution state (in the
/// activation dtype) and the recurrent state (fp32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateElements {
    /// Convolution state: `conv_dim × kernel`.
    pub conv: u64,
    /// Recurrent state: Gated DeltaNet `heads × key × value`, Mamba2 `heads × head_dim × state`.
    pub recurrent: u64,
}

impl Hybrid {
    /// Channels the convolution runs over: Gated DeltaNet `2 × key_dim + value_dim`, Mamba2
    /// `inner + 2 × groups × state`, a short convolution the model width.
    pub const fn conv_dim(&self, hidden: u64) -> u64 {
        match self.mixer {
            StateMixer::GatedDeltaNet | StateMixer::KimiDelta => {
                2 * self.groups * self.state_size + self.heads * self.head_dim
            }
            StateMixer::Mamba2 => self.inner() + 2 * self.groups * self.state_size,
            StateMixer::ShortConv => hidden,
        }
    }

    /// The mixer's inner width: heads × head width (Mamba2's `d_inner`, Gated DeltaNet's value
    /// width).
    pub const fn inner(&self) -> u64 {
        self.heads * self.head_dim
    }

    /// What one sequence keeps in one state layer. transformers keeps the whole kernel of
    /// inputs (`conv_kernel`); vLLM and llama.cpp keep `kernel - 1` ([`Hybrid::state_elements_short`]).
    pub const fn state_elements(&self, hidden: u64) -> StateElements {
        StateElements {
            conv: self.conv_dim(hidden) * self.conv_kernel,
            recurrent: self.recurrent_elements(),
        }
    }

    /// The same with `kernel - 1` convolution inputs, as vLLM (`mamba_utils.py`) and llama.cpp
    /// (`n_embd_r`) keep them.
    pub const fn state_elements_short(&self, hidden: u64) -> StateElements {
        StateElements {
            conv: self.conv_dim(hidden) * self.conv_kernel.saturating_sub(1),
            recurrent: self.recurrent_elements(),
        }
    }

    const fn recurrent_elements(&self) -> u64 {
        match self.mixer {
            StateMixer::GatedDeltaNet | StateMixer::KimiDelta => {
                self.heads * self.state_size * self.head_dim
            }
            StateMixer::Mamba2 => self.heads * self.head_dim * self.state_size,
            StateMixer::ShortConv => 0,
        }
    }
}

impl Architecture {
    /// Layers that keep a KV cache: the attention layers of a hybrid, every layer otherwise.
    pub const fn attention_layers(&self) -> u64 {
        match self.hybrid {
            Some(h) => h.attention_layers,
            None => self.num_layers,
        }
    }

    /// Layers that keep a fixed-size state per sequence (0 without a hybrid stack).
    pub const fn state_layers(&self) -> u64 {
        match self.hybrid {
            Some(h) => h.state_layers,
            None => 0,
        }
    }

    /// Whether its Gated DeltaNet layers sit beside plain (ungated) attention, as in OLMo Hybrid;
    /// Qwen3-Next's and Qwen3.5's attention is gated.
    pub fn delta_net_with_plain_attention(&self) -> bool {
        matches!(self.hybrid, Some(h) if h.mixer == StateMixer::GatedDeltaNet)
            && !self.gated_attention
    }

    /// Of a stage of `layers` blocks, how many keep a state: the model's share rounded up, as
    /// [`Architecture::stage_layers`] counts the full-attention layers.
    pub const fn stage_state_layers(&self, layers: u64) -> u64 {
        let state = self.state_layers();
        if state == 0 || self.num_layers == 0 {
            return 0;
        }
        let here = state.saturating_mul(layers).div_ceil(self.num_layers);
        if here < layers { here } else { layers }
    }

    /// Whether block `l` holds attention.
    pub(super) const fn has_attention(&self, l: u64) -> bool {
        match self.hybrid {
            Some(h) => l < h.attention_layers,
            None => true,
        }
    }

    /// Whether block `l` holds the state mixer.
    pub(super) const fn has_state_mixer(&self, l: u64) -> bool {
        match self.hybrid {
            Some(h) if h.parallel => l < h.state_layers,
            Some(h) => l >= h.attention_layers && l < h.attention_layers + h.state_layers,
            None => false,
        }
    }

    /// Whether block `l` holds an FFN.
    pub(super) const fn has_ffn(&self, l: u64) -> bool {
        match self.hybrid {
            Some(h) => l >= self.num_layers.saturating_sub(h.ffn_layers),
            None => true,
        }
    }

    /// The next block after `l` where the kind of layer changes (`end` when none does).
    pub(super) fn hybrid_boundary(&self, l: u64, end: u64) -> u64 {
        let Some(h) = self.hybrid else {
            return end;
        };
        let edges = [
            h.attention_layers,
            if h.parallel {
                h.state_layers
            } else {
                h.attention_layers + h.state_layers
            },
            self.num_layers.saturating_sub(h.ffn_layers),
        ];
        edges
            .into_iter()
            .filter(|&e| e > l && e < end)
            .min()
            .unwrap_or(end)
    }

    /// The state mixer's weights in block `l`.
    pub(super) fn state_mixer(
        &self,
        push: &mut impl FnMut(Role, Option<u64>, u64, u64, u64),
        l: u64,
    ) {
        let Some(m) = self.hybrid else {
            return;
        };
        let (h, layer) = (self.hidden_size, Some(l));
        let conv_dim = m.conv_dim(h);
        let bias = |n: u64| if m.proj_bias { n } else { 0 };
        match m.mixer {
            StateMixer::GatedDeltaNet => {
                // in_proj_qkvz, in_proj_ba; conv1d (no bias); dt_bias and A_log; the gated
                // RMSNorm over one value head; out_proj.
                let key = m.groups * m.state_size;
                push(Role::MixerIn, layer, h, 2 * key + 2 * m.inner(), 1);
                push(Role::MixerIn, layer, h, 2 * m.heads, 1);
                push(Role::Vector, layer, 1, conv_dim * m.conv_kernel, 1);
                push(Role::Vector, layer, 1, 2 * m.heads + m.head_dim, 1);
                push(Role::MixerOut, layer, m.inner(), h, 1);
            }
            StateMixer::KimiDelta => {
                // q, k and v projections; the fused depthwise conv1d (no bias); the forget gate
                // (f_a, f_b, dt_bias per channel, A_log per head); b_proj; the output gate
                // (g_a, g_b); the gated RMSNorm over one head; o_proj.
                let (inner, rank) = (m.inner(), m.head_dim);
                push(Role::MixerIn, layer, h, conv_dim, 1);
                push(Role::Vector, layer, 1, conv_dim * m.conv_kernel, 1);
                push(Role::MixerIn, layer, h, rank, 1);
                push(Role::MixerIn, layer, rank, inner, 1);
                push(Role::Vector, layer, 1, inner + m.heads, 1);
                push(Role::MixerIn, layer, h, m.heads, 1);
                push(Role::MixerIn, layer, h, rank, 1);
                push(Role::MixerIn, layer, rank, inner, 1);
                push(Role::Vector, layer, 1, rank, 1);
                push(Role::MixerOut, layer, inner, h, 1);
            }
            StateMixer::Mamba2 => {
                // in_proj to z, x, B, C and dt; conv1d; dt_bias, A_log and D; the gated norm;
                // out_proj.
                let in_width = m.inner() + conv_dim + m.heads;
                push(Role::MixerIn, layer, h, in_width, 1);
                let conv_bias = if m.conv_bias { conv_dim } else { 0 };
                let norm = if m.gated_norm { m.inner() } else { 0 };
                push(
                    Role::Vector,
                    layer,
                    1,
                    conv_dim * m.conv_kernel + conv_bias + 3 * m.heads + norm,
                    1,
                );
                push(Role::Vector, layer, 1, bias(in_width + h), 1);
                push(Role::MixerOut, layer, m.inner(), h, 1);
            }
            StateMixer::ShortConv => {
                // in_proj to B, C and x; a depthwise conv1d; out_proj.
                push(Role::MixerIn, layer, h, 3 * h, 1);
                let conv_bias = if m.conv_bias { h } else { 0 };
                push(Role::Vector, layer, 1, h * m.conv_kernel + conv_bias, 1);
                push(Role::Vector, layer, 1, bias(3 * h + h), 1);
                push(Role::MixerOut, layer, h, h, 1);
            }
        }
    }
}
