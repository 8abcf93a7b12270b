//! Transformers inference moment by moment (`Estimate::step`): the weights loaded, the prefill
//! (the prompt's activations or logits on top of the cache being written), the last generated
//! token (the cache of prompt and output, one position's logits and generate's fp32 copy).
//! Each moment is read from the same figures as the peak ([`HfFigures`]), so that the moment
//! at the peak's phase is the estimate's peak, the allocator's reserve and the CUDA context
//! added as every moment after the first forward holds them (`peak/mod.rs`).

use super::hf::HfFigures;
use super::moments::moment;
use super::{ComponentKind as K, Phase, Run, StepMoment, cublas_workspace, thousands};
use alloc::string::String;
use alloc::vec::Vec;

impl Run<'_> {
    /// The moments of `generate`: load, prefill, and the last token when there are new tokens.
    pub(super) fn hf_moments(&self, f: &HfFigures) -> Vec<StepMoment> {
        let context = super::CUDA_CONTEXT.get();
        let ws = cublas_workspace(self.hopper()).get();
        let mut out = Vec::with_capacity(3);
        let (en, zh) = self.hf_words(Phase::Load, false);
        out.push(moment(
            Phase::Load,
            &[(K::Weights, f.weights), (K::CudaContext, context)],
            en,
            zh,
        ));
        let extra = f.images.map_or(0, |i| i.extra());
        let encoder_pass = f.acts_encoder > f.decoder_prefill.saturating_add(extra);
        let (en, zh) = self.hf_words(Phase::Prefill, encoder_pass);
        let prefill = if encoder_pass {
            // Whisper's encoder over its frames peaks before the decoder writes any cache.
            moment(
                Phase::Prefill,
                &[
                    (K::Weights, f.weights),
                    (K::Workspace, ws),
                    (K::CudaContext, context),
                    (K::Activations, f.acts_encoder),
                ],
                en,
                zh,
            )
        } else {
            // The larger of one block's activations and the head (the logits with the final
            // norm's output they are computed from), as `hf_figures` weighs them.
            let head = f.logits.saturating_add(f.head_input);
            let (acts, logits) = if f.acts >= head {
                (f.acts, 0)
            } else {
                (f.head_input, f.logits)
            };
            moment(
                Phase::Prefill,
                &[
                    (K::Weights, f.weights),
                    (K::Workspace, ws),
                    (K::CudaContext, context),
                    (K::KvCache, f.kv_prefill.saturating_add(f.cross)),
                    (K::StateCache, f.state.bytes),
                    (K::EncoderActivations, extra),
                    (K::Activations, acts),
                    (K::Logits, logits),
                ],
                en,
                zh,
            )
        };
        out.push(prefill);
        if self.new_tokens > 0 {
            let (en, zh) = self.hf_words(Phase::Decode, false);
            out.push(moment(
                Phase::Decode,
                &[
                    (K::Weights, f.weights),
                    (K::Workspace, ws),
                    (K::CudaContext, context),
                    (K::KvCache, f.kv_end.saturating_add(f.cross)),
                    (K::StateCache, f.state.bytes),
                    (K::EncoderActivations, f.images.map_or(0, |i| i.input)),
                    (K::Logits, f.decode_logits),
                ],
                en,
                zh,
            ));
        }
        out
    }

    /// A moment's words, with the batch and its tokens.
    fn hf_words(&self, phase: Phase, encoder_pass: bool) -> (String, String) {
        if !self.text {
            return (String::new(), String::new());
        }
        let batch = self.batch;
        match phase {
            Phase::Load => (
                String::from(en_str!("Weights loaded")),
                String::from(zh_str!("权重加载完成")),
            ),
            Phase::Prefill if encoder_pass => (
                String::from(en_str!("Prefill: the encoder's pass over its frames")),
                String::from(zh_str!("预填充：编码器对其各帧的前向")),
            ),
            Phase::Prefill => {
                let seq = thousands(self.main_seq());
                (
                    en!("Prefill: {batch} × {seq} prompt tokens"),
                    zh!("预填充：{batch} × {seq} 个提示 token"),
                )
            }
            _ => {
                let (new, all) = (
                    thousands(self.new_tokens),
                    thousands(self.seq_len.saturating_add(self.new_tokens)),
                );
                (
                    en!("Last of {new} new tokens: the cache at {batch} × {all} tokens"),
                    zh!("{new} 个新 token 的最后一个：缓存为 {batch} × {all} 个 token"),
                )
            }
        }
    }
}
