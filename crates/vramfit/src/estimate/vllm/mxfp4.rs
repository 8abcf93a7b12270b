//! MXFP4 experts as vLLM holds them: `Mxfp4MoEMethod` (`vllm/model_executor/layers/
//! quantization/mxfp4.py`) picks a backend by the card and the release, pads the experts'
//! widths for its kernel in `create_weights`, and keeps what its `process_weights_after_loading`
//! leaves. vramfit counts the checkpoint's tensors; this is what vLLM holds beyond them.
//!
//! Read at v0.10.1, v0.11.0, v0.12.0, v0.14.1 and v0.17.0, and held to the two published
//! gpt-oss-120b loads on one H100 (tests/data/vllm-versions.csv): "Model loading took 65.9651
//! GiB" with Marlin (vllm#23278, 0.10.1) and "64.38 GiB" with Triton (vllm#33155, 0.14.1),
//! against 60.78 GiB of checkpoint tensors.

use super::super::Run;
use super::VllmVersion;
use crate::gpu::Generation;
use crate::precision::Quantization;

/// The MXFP4 MoE backend vLLM runs the experts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mxfp4Backend {
    /// `Mxfp4Backend.MARLIN`: cards before Hopper, and Hopper until 0.11, whose wheel ships no
    /// `triton_kernels` (`has_triton_kernels()` false; vllm#23278's H100 log prints Marlin's
    /// warning). Pads the intermediate width to 128 and the hidden width to 256 ("n % 256 == 0
    /// and k % 128 == 0"); repacks in place, scales kept as one byte, biases in the model dtype.
    Marlin,
    /// `Mxfp4Backend.TRITON`: Hopper from 0.12.0, which vendors `triton_kernels` in
    /// `vllm/third_party` (vllm#33155 prints "Using Triton backend"). Pads the intermediate
    /// width to 64; `_swizzle_mxfp4` writes the weights into a new layout and deletes the old,
    /// but the swizzled scales (`HopperMXScaleLayout`: rows padded to 2 × 8 warps × 2 × 8 = 256)
    /// are a new tensor beside `w13_weight_scale`/`w2_weight_scale`, which stay; the biases
    /// become fp32.
    Triton,
    /// `SM100_FI_MXFP4_BF16` (FlashInfer, a dependency from 0.14): data-centre Blackwell. Pads
    /// both widths to 256. Counted with fp32 biases, the larger of what its shuffle may keep.
    FlashInferSm100,
}

/// The expert tensors' widths and biases on one GPU.
#[derive(Clone, Copy)]
struct Experts {
    /// Experts on this GPU.
    count: u64,
    /// The hidden width.
    hidden: u64,
    /// One expert's intermediate width on this GPU (its tensor-parallel share).
    intermediate: u64,
    /// Whether the experts have biases (gpt-oss).
    bias: bool,
}

/// What vLLM's MXFP4 loads print beyond the tensors counted here: 64 MiB, the larger of the two
/// published gpt-oss-120b loads on one H100 (65.9651 GiB printed against 65.9128 GiB of tensors
/// with Marlin, vllm#23278; 64.38 against 64.318 with Triton, vllm#33155). The source read does
/// not say what it is (not the rotary cache, counted; not Marlin's 2 KiB workspaces).
pub(super) const MXFP4_LOAD_RESIDUAL: u64 = 64 << 20;

const fn round_up(n: u64, m: u64) -> u64 {
    n.div_ceil(m) * m
}

impl Experts {
    /// One MoE layer's expert bytes as `create_weights` shapes them with no padding: the
    /// checkpoint's tensors (4-bit values, one 1-byte scale per 32, bf16 biases).
    fn shipped(self) -> u64 {
        self.layout(self.intermediate, self.hidden, 2)
    }

    /// One MoE layer's bytes at the padded widths `i` and `h`: `w13` `[E, 2i, h]` and `w2`
    /// `[E, h, i]`, values at half a byte, scales at 1/32, biases `2i + h` per expert.
    fn layout(self, i: u64, h: u64, bias_bytes: u64) -> u64 {
        let values = 2 * i * (h / 2) + h * (i / 2);
        let scales = 2 * i * (h / 32) + h * (i / 32);
        let bias = if self.bias {
            (2 * i + h) * bias_bytes
        } else {
            0
        };
        self.count * (values + scales + bias)
    }

    /// One MoE layer's bytes as `backend` holds them.
    fn held(self, backend: Mxfp4Backend) -> u64 {
        let (i, h) = (self.intermediate, self.hidden);
        match backend {
            Mxfp4Backend::Marlin => self.layout(round_up(i, 128), round_up(h, 256), 2),
            Mxfp4Backend::FlashInferSm100 => self.layout(round_up(i, 256), round_up(h, 256), 4),
            Mxfp4Backend::Triton => {
                let i = round_up(i, 64);
                // The swizzled scales: w13's rows (2i) and w2's rows (h) padded to 256, their
                // K (the 32-blocks) to 2.
                let swizzled = round_up(2 * i, 256) * round_up(h / 32, 2)
                    + round_up(h, 256) * round_up(i / 32, 2);
                self.layout(i, h, 4) + self.count * swizzled
            }
        }
    }
}

impl Run<'_> {
    /// The MXFP4 backend vLLM picks for this card and release (`get_mxfp4_backend`), `None` for
    /// a model without MXFP4 experts. A card vramfit does not know (a memory size alone, AMD,
    /// none) is counted with the backend that holds the most for this model.
    pub(super) fn vllm_mxfp4_backend(&self, version: VllmVersion) -> Option<Mxfp4Backend> {
        self.vllm_mxfp4_experts()?;
        let generation = self
            .device
            .as_ref()
            .and_then(|d| d.gpu)
            .map(|g| g.generation());
        Some(match generation {
            Some(Generation::Hopper) if version.minor() >= 12 => Mxfp4Backend::Triton,
            Some(
                Generation::Hopper
                | Generation::Ada
                | Generation::Ampere
                | Generation::Turing
                | Generation::Volta
                | Generation::Pascal,
            ) => Mxfp4Backend::Marlin,
            Some(Generation::Blackwell) => Mxfp4Backend::FlashInferSm100,
            _ => self.vllm_mxfp4_largest(),
        })
    }

    /// The backend that holds the most for this model.
    fn vllm_mxfp4_largest(&self) -> Mxfp4Backend {
        let Some(e) = self.vllm_mxfp4_experts() else {
            return Mxfp4Backend::FlashInferSm100;
        };
        [
            Mxfp4Backend::FlashInferSm100,
            Mxfp4Backend::Marlin,
            Mxfp4Backend::Triton,
        ]
        .into_iter()
        .max_by_key(|b| e.held(*b))
        .unwrap_or(Mxfp4Backend::FlashInferSm100)
    }

    /// Marlin's padded widths of the experts on this GPU, `(N, K)`: the intermediate to 128 and
    /// the hidden to 256 ([`Experts::held`]); `(0, 0)` without MXFP4 experts.
    pub(super) fn vllm_marlin_widths(&self) -> (u64, u64) {
        self.vllm_mxfp4_experts().map_or((0, 0), |e| {
            (round_up(e.intermediate, 128), round_up(e.hidden, 256))
        })
    }

    /// The experts on this GPU, for an MXFP4 MoE.
    fn vllm_mxfp4_experts(&self) -> Option<Experts> {
        let a = &self.arch;
        let m = a.moe?;
        if self.quantization != Quantization::Mxfp4 || !a.is_detailed() {
            return None;
        }
        // Expert parallel splits the experts and shards each over what is left of tp × dp;
        // without it tensor parallel shards each expert's intermediate width.
        let (count, moe_tp) = if self.ep > 1 {
            (
                m.num_experts.div_ceil(self.ep),
                (self.tp * self.dp / self.ep).max(1),
            )
        } else {
            (m.num_experts, self.tp.max(1))
        };
        Some(Experts {
            count,
            hidden: a.hidden_size,
            intermediate: m.expert_intermediate_size.div_ceil(moe_tp),
            bias: m.expert_bias,
        })
    }

    /// The bytes vLLM holds for the MXFP4 experts on the busiest GPU beyond their checkpoint
    /// tensors, with its backend: every MoE layer of the busiest pipeline stage, and the load's
    /// [`MXFP4_LOAD_RESIDUAL`].
    pub(super) fn vllm_mxfp4_extra(&self, version: VllmVersion) -> Option<(Mxfp4Backend, u64)> {
        let backend = self.vllm_mxfp4_backend(version)?;
        let e = self.vllm_mxfp4_experts()?;
        let a = &self.arch;
        let first_dense = a.moe.map_or(0, |m| m.first_dense_layers);
        let layers = a
            .num_layers
            .saturating_sub(first_dense)
            .min(a.num_layers.div_ceil(self.pp.max(1)));
        let per_layer = e.held(backend).saturating_sub(e.shipped());
        Some((
            backend,
            per_layer
                .saturating_mul(layers)
                .saturating_add(MXFP4_LOAD_RESIDUAL),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::{Experts, Mxfp4Backend};

    /// gpt-oss-120b on one GPU: 128 experts, hidden 2880, intermediate 2880, biases, 36 layers.
    const OSS120: Experts = Experts {
        count: 128,
        hidden: 2880,
        intermediate: 2880,
        bias: true,
    };

    /// Hand: the checkpoint's layer is 128 × (5760 × 1440 + 5760 × 90 + 5760 × 2 plus
    /// 2880 × 1440 + 2880 × 90 + 2880 × 2) = 1,694,269,440 B; Marlin's at 2944 × 3072 is
    /// 128 × (5888 × 1632 + 5888 × 2 plus 3072 × 1564 + 3072 × 2) = 1,847,263,232 B; Triton's
    /// keeps the values, 128 × (5760 × 1440 + 2880 × 1440) = 1,592,524,800 B, both scale copies
    /// (99,532,800 B and the swizzled 128 × (5888 × 90 + 3072 × 90) = 103,219,200 B) and fp32
    /// biases (4,423,680 B).
    #[test]
    fn gpt_oss_120b_layers_as_each_backend_holds_them() {
        assert_eq!(OSS120.shipped(), 1_694_269_440);
        assert_eq!(OSS120.held(Mxfp4Backend::Marlin), 1_847_263_232);
        assert_eq!(
            OSS120.held(Mxfp4Backend::Triton),
            1_592_524_800 + 99_532_800 + 103_219_200 + 4_423_680
        );
        // Blackwell's FlashInfer at 3072 × 3072 with fp32 biases.
        assert_eq!(
            OSS120.held(Mxfp4Backend::FlashInferSm100),
            128 * (6144 * 1536 + 6144 * 96 + 3072 * 1536 + 3072 * 96 + (6144 + 3072) * 4)
        );
    }
}
