//! Gemma 4's and Gemma 3n's layers (transformers 5.24 `modeling_gemma4.py`,
//! `modeling_gemma3n.py`): full-attention layers of their own head width and KV heads beside the
//! sliding ones, per-layer embeddings, KV shared across the last layers, which hold no cache and
//! no key or value projections, and Gemma 3n's AltUp and LAuReL weights; Step 3.5's layers
//! (transformers 5.24 `modeling_step3p7.py`): full layers every fourth from the first, the
//! sliding ones with their own query heads, a sigmoid gate per head, experts from layer 3.

use super::Architecture;

/// The per-layer-type shapes of a Gemma 4 text stack. Its layers are sliding-window layers with
/// every `full_period`-th one (and the last) attending globally, as its `layer_types` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct LayerShapes {
    /// Every `full_period`-th layer attends over the whole context (Gemma 4: 6, five sliding to
    /// one full); the last layer always does.
    pub full_period: u64,
    /// `global_head_dim`: the full-attention layers' head width (queries, keys and values).
    pub full_head_dim: u64,
    /// The full-attention layers' KV heads (`num_global_key_value_heads` where
    /// `attention_k_eq_v` declares it, otherwise `num_key_value_heads`).
    pub full_kv_heads: u64,
    /// `attention_k_eq_v`: the full-attention layers use their keys as values (no `v_proj`;
    /// the cache still holds a key and a value tensor).
    pub full_k_eq_v: bool,
    /// `num_kv_shared_layers`: the last layers read an earlier layer's keys and values and hold
    /// no cache and no k/v projections or norms.
    pub kv_shared_layers: u64,
    /// `use_double_wide_mlp`: the KV-shared layers' FFN is twice `intermediate_size`.
    pub double_wide_mlp: bool,
    /// `vocab_size_per_layer_input`: the per-layer embeddings' vocabulary (0 without them).
    pub per_layer_vocab: u64,
    /// `hidden_size_per_layer_input`: each layer's embedding width (0 without them).
    pub per_layer_width: u64,
    /// The engine allocates every layer's k and v projections (vLLM), where transformers leaves
    /// out those the layer does not use: set by the run's engine, not read from a config.
    #[cfg_attr(feature = "serde", serde(default))]
    pub full_qkv: bool,
    /// Gemma 3n's `altup_num_inputs` (0 without AltUp): each block's AltUp router and
    /// coefficients (`Gemma3nTextAltUp`) and the model's `altup_num_inputs - 1` projections in
    /// and out of the extra streams, each `hidden_size` square.
    #[cfg_attr(feature = "serde", serde(default))]
    pub altup_inputs: u64,
    /// Gemma 3n's `laurel_rank` (0 without LAuReL): each block's low-rank residual
    /// (`Gemma3nTextLaurelBlock`, `hidden_size` × rank and back, and its norm).
    #[cfg_attr(feature = "serde", serde(default))]
    pub laurel_rank: u64,
    /// The full layers are every `full_period`-th from the first (Step 3.5: layers 0, 4, 8, …),
    /// not every `full_period`-th and the last (Gemma).
    #[cfg_attr(feature = "serde", serde(default))]
    pub full_first: bool,
    /// The full-attention layers' query heads where they differ from the sliding layers'
    /// `num_heads` (Step 3.5: 64 beside the sliding layers' 96); 0 for the same count.
    #[cfg_attr(feature = "serde", serde(default))]
    pub full_heads: u64,
    /// A sigmoid gate per query head on the attention output (Step 3.5's `g_proj`,
    /// `hidden_size` × the layer's heads, no bias).
    #[cfg_attr(feature = "serde", serde(default))]
    pub head_gate: bool,
}

impl Architecture {
    /// Whether block `l` attends over the whole context in a stack with [`LayerShapes`].
    pub const fn is_full_layer(&self, l: u64) -> bool {
        match self.layer_shapes {
            Some(s) => {
                let period = if s.full_period == 0 { 1 } else { s.full_period };
                if s.full_first {
                    l.is_multiple_of(period)
                } else {
                    (l + 1).is_multiple_of(period) || l + 1 == self.num_layers
                }
            }
            None => true,
        }
    }

    /// Whether block `l` reads an earlier layer's cache and holds none.
    pub const fn is_kv_shared_layer(&self, l: u64) -> bool {
        match self.layer_shapes {
            Some(s) => l + s.kv_shared_layers >= self.num_layers && l < self.num_layers,
            None => false,
        }
    }

    /// The KV-shared layers: `(full, sliding)`.
    pub const fn kv_shared_layers(&self) -> (u64, u64) {
        let Some(s) = self.layer_shapes else {
            return (0, 0);
        };
        let mut full = 0;
        let mut l = self.num_layers.saturating_sub(s.kv_shared_layers);
        while l < self.num_layers {
            if self.is_full_layer(l) {
                full += 1;
            }
            l += 1;
        }
        let shared = if s.kv_shared_layers < self.num_layers {
            s.kv_shared_layers
        } else {
            self.num_layers
        };
        (full, shared - full)
    }

    /// KV-cache elements per token of one full-attention layer: Gemma 4's at its global head
    /// width and KV heads, otherwise [`Architecture::kv_elements_per_token_layer`].
    pub const fn kv_elements_full_layer(&self) -> u64 {
        match (self.layer_shapes, self.mla) {
            (Some(s), None) => 2 * s.full_kv_heads * s.full_head_dim,
            _ => self.kv_elements_per_token_layer(),
        }
    }

    /// The query heads of block `l`: the full layers' own count where [`LayerShapes`] gives
    /// one, otherwise `num_heads`.
    pub const fn heads_of_layer(&self, l: u64) -> u64 {
        match self.layer_shapes {
            Some(s) if s.full_heads > 0 && self.is_full_layer(l) => s.full_heads,
            _ => self.num_heads,
        }
    }

    /// KV-cache elements per token of one sliding-window layer.
    pub const fn kv_elements_sliding_layer(&self) -> u64 {
        self.kv_elements_per_token_layer()
    }

    /// The widest attention block's `(head_dim, kv_heads)`: Gemma 4's full layers where they
    /// are wider. Activations are counted at it, the larger block (an upper bound on the
    /// narrower layers).
    pub const fn widest_head(&self) -> (u64, u64) {
        match self.layer_shapes {
            Some(s) => (
                if s.full_head_dim > self.head_dim {
                    s.full_head_dim
                } else {
                    self.head_dim
                },
                if s.full_kv_heads > self.num_kv_heads {
                    s.full_kv_heads
                } else {
                    self.num_kv_heads
                },
            ),
            None => (self.head_dim, self.num_kv_heads),
        }
    }

    /// The widest dense FFN: twice `intermediate_size` where Gemma 4's KV-shared layers have
    /// double-wide MLPs.
    pub const fn widest_ffn(&self) -> u64 {
        match self.layer_shapes {
            Some(s) if s.double_wide_mlp && s.kv_shared_layers > 0 => 2 * self.intermediate_size,
            _ => self.intermediate_size,
        }
    }
}
