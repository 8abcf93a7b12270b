//! Every quantity a training run computes, with no text: the weights, gradients and optimizer
//! states as held, the saved activations, the loss's and the step's temporaries, the
//! communication buffers and what ZeRO offloads. [`phase`](super::phase) decides the peak from
//! them; [`render`](super::render) writes their formulas.

use super::regimes::LossFigures;
use super::{NCCL_BUFFERS, NCCL_BUFFERS_PAIR};
use crate::estimate::activations::{self, Compute};
use crate::estimate::{
    Checkpointing, ComponentKind, Offload, Optimizer, Precision, Run, Trainable,
    per_gpu_weight_bytes, role_bit, weights,
};
use crate::model::{Role, Tensor};
use crate::precision::{Dtype, Quantization};
use crate::units::Bytes;

/// What a training run holds on one GPU, in bytes unless said otherwise.
pub(super) struct TrainingFigures {
    pub(super) basis: Basis,
    /// Tokens per step through the main stack: batch × sequence.
    pub(super) tokens: u64,
    pub(super) weights: WeightFigures,
    pub(super) gradients: GradientFigures,
    pub(super) optimizer: OptimizerFigures,
    pub(super) activations: ActivationFigures,
    /// The loss's tensors at their peak (transformers' loss: at the start of backward, the
    /// fp32 log-softmax, its gradient and the logits').
    pub(super) logits: u64,
    /// The loss's form and its parts.
    pub(super) loss: LossFigures,
    pub(super) embedding_buffer: EmbeddingBuffer,
    /// Autocast's 16-bit copies of fp32 matrices, kept for backward.
    pub(super) autocast_copies: u64,
    /// LoRA over a bitsandbytes base: the largest transient of one quantized matmul ([`kbit`](super::kbit)).
    pub(super) dequant: u64,
    pub(super) step: StepFigures,
    pub(super) buckets: Buckets,
    /// NCCL's communicator buffers (0 on one GPU).
    pub(super) nccl: u64,
    /// Bytes offloaded to CPU memory (or NVMe) under ZeRO, and offloaded activations.
    pub(super) cpu: u64,
    /// Of `cpu`, under FSDP's CPU offload: the parameter shards (the frozen base's among them),
    /// which FSDP copies to the GPU unit by unit; 0 otherwise.
    pub(super) offloaded_params: u64,
    /// Megatron-Core's own activations, when the run is Megatron's and its layer counted.
    pub(super) megatron: Option<super::megatron_acts::MegatronActs>,
}

/// The regime's byte widths and the trainable parameters, which every other figure reads.
#[derive(Clone)]
pub(super) struct Basis {
    /// A LoRA (or QLoRA) run.
    pub(super) lora: bool,
    /// The architecture is known tensor by tensor (not by its parameter count alone).
    pub(super) detailed: bool,
    /// Bytes per master weight, gradient or state value: fp32 under mixed precision, and for
    /// PEFT's adapters without ZeRO.
    pub(super) state_bytes: u64,
    /// Bytes per element of the compute dtype.
    pub(super) act_bytes: u64,
    /// Trainable parameters of the whole model: all, or LoRA's r × (in + out) per targeted
    /// projection.
    pub(super) trainable: u64,
    /// The trainable parameters of this GPU (the busiest tensor × pipeline shard).
    pub(super) shard: u64,
    /// The dtype the weights are held in.
    pub(super) dtype: Dtype,
    /// The base's quantization: NF4 under QLoRA, the model's under LoRA, none for full training.
    pub(super) quantization: Quantization,
    /// How the forward pass computes (autocast, residual width, kernel).
    pub(super) compute: Compute,
}

pub(super) struct WeightFigures {
    /// The base weights, before QLoRA's upcast, the adapters and ZeRO-3.
    pub(super) base: u64,
    pub(super) upcast: Option<Upcast>,
    pub(super) adapters: Option<Adapters>,
    /// bitsandbytes' quantization state of the base (NF4's absmax, int8's `SCB`), whole on every
    /// GPU under ZeRO-3 or FSDP: a module attribute, not a parameter they shard
    /// ([`sharding`](super::sharding)). 0 where the GPU holds the whole base anyway.
    pub(super) quant_state: u64,
    /// What the GPU holds.
    pub(super) bytes: u64,
}

/// LoRA over a bitsandbytes base (NF4 or int8): `prepare_model_for_kbit_training` casts the
/// unquantized parameters to fp32.
pub(super) struct Upcast {
    /// Unquantized parameters of the whole model.
    pub(super) params: u64,
    /// The bytes the cast adds on this GPU.
    pub(super) bytes: u64,
}

/// LoRA's adapters beside the frozen base.
pub(super) struct Adapters {
    /// Bytes per adapter parameter: 16 bits under ZeRO, fp32 under PEFT alone.
    pub(super) bytes_per: u64,
    pub(super) bytes: u64,
}

pub(super) struct GradientFigures {
    /// Bytes per gradient: the master dtype, or under ZeRO the model dtype.
    pub(super) bytes_per: u64,
    pub(super) bytes: u64,
    /// A buffer alive through the whole step, the end of forward included (Megatron's main
    /// gradients), rather than gradients set to None by `zero_grad`.
    pub(super) persistent: bool,
}

pub(super) struct OptimizerFigures {
    /// State bytes per trainable parameter (8-bit AdamW's scales and Adafactor's factors apart).
    pub(super) per_param: u64,
    /// ZeRO mixed precision's fp32 master weights, before partitioning (0 without).
    pub(super) master: u64,
    pub(super) bytes: u64,
}

pub(super) struct ActivationFigures {
    pub(super) saved: Saved,
    /// What the saved tensors take for one micro-batch through every layer.
    pub(super) total: u64,
    /// What the GPU holds: with pipeline stages, the first stage's micro-batches in flight.
    pub(super) bytes: u64,
    /// With full checkpointing, the block recomputed in backward (0 otherwise).
    pub(super) recomputed: u64,
    /// Activation offload: the saved bytes in CPU memory (0 otherwise).
    pub(super) cpu: u64,
}

/// How the saved activations are counted.
pub(super) enum Saved {
    /// Per token per block, from the architecture's tensors.
    Blocks(BlockActivations),
    /// A convolutional network's per-image counts.
    Images,
    /// The guide's rule: 0.35 × the weights.
    Guide,
}

pub(super) struct BlockActivations {
    /// Tokens per sequence through the main stack.
    pub(super) seq: u64,
    /// Bytes saved per token per block.
    pub(super) per_token: u64,
    /// Eager attention's bytes per token² per block, when the scores are saved (0 otherwise).
    pub(super) scores: u64,
    /// Whisper's encoder blocks and the frames they run (0 and 0 for other families).
    pub(super) encoder_layers: u64,
    pub(super) encoder_frames: u64,
    /// Full checkpointing: the block inputs kept for the recomputation.
    pub(super) kept: Option<u64>,
}

/// The embedding backward's dense gradient buffer.
pub(super) struct EmbeddingBuffer {
    /// The head shares the embedding (its gradient is there too: twice the matrix).
    pub(super) tied: bool,
    pub(super) bytes: u64,
}

/// The optimizer step's temporaries.
pub(super) struct StepFigures {
    /// foreach AdamW/Lion's state-sized list, or Adafactor's fp32 update of the largest tensor.
    pub(super) foreach: u64,
    /// Under ZeRO, the gradient partition cast to fp32 beside the masters.
    pub(super) fp32_grads: u64,
    pub(super) bytes: u64,
}

/// The data-parallel communication buffers: DDP's gradient buckets or ZeRO's.
pub(super) struct Buckets {
    /// [`ComponentKind::DdpBuckets`] or [`ComponentKind::ZeroBuffers`].
    pub(super) kind: ComponentKind,
    pub(super) bytes: u64,
    /// What they are made of (DeepSpeed's buckets, FSDP's gathered units).
    pub(super) parts: super::sharding::BufferParts,
    /// What is alive at the end of forward, in backward and at the step, where it differs by
    /// phase (FSDP's gathered units); `bytes` is then the peak phase's.
    pub(super) by_phase: Option<[u64; 3]>,
}

impl Run<'_> {
    /// Every figure of the run, in the order each reads the ones before.
    pub(super) fn training_figures(&self) -> TrainingFigures {
        let basis = self.training_basis();
        let weights = self.training_weights(&basis);
        let gradients = self.in_backward_gradients(&basis, self.training_gradients(&basis));
        let gradients = self.torchao_gradients(&basis, gradients);
        let optimizer = self.training_optimizer(&basis);
        let tokens = self.batch.saturating_mul(self.main_seq());
        let activations = self.training_activations(&basis, tokens);
        let step = self.training_step(&basis, &optimizer);
        let buckets = self.sharding_buffers(&basis, &gradients);
        let full = self.training_logits(tokens);
        let (loss, logits) = self.loss_figures(&basis, gradients.bytes_per, tokens, full);
        let mut f = TrainingFigures {
            tokens,
            logits,
            loss,
            embedding_buffer: self.embedding_buffer(&basis, &gradients),
            autocast_copies: self.autocast_copies(&basis),
            dequant: self.dequant_buffer(),
            // One communicator: of two GPUs, or of more (NVIDIA/nccl#964).
            nccl: match self.dp.saturating_mul(self.tp).saturating_mul(self.pp) {
                0 | 1 => 0,
                2 => NCCL_BUFFERS_PAIR.get(),
                _ => NCCL_BUFFERS.get(),
            },
            cpu: self
                .offloaded(&basis, &optimizer)
                .saturating_add(activations.cpu),
            offloaded_params: 0,
            basis,
            weights,
            gradients,
            optimizer,
            activations,
            step,
            buckets,
            megatron: None,
        };
        self.apply_fsdp(&mut f);
        self.apply_megatron(&mut f);
        f
    }

    /// LoRA's trainable parameters in `t` (0 for a tensor it does not target).
    pub(super) fn lora_params(&self, t: &Tensor) -> u64 {
        if self.lora_rank > 0 && t.role.is_block_linear() && self.lora_mask & role_bit(t.role) != 0
        {
            self.lora_rank
                .saturating_mul(t.rows_in + t.rows_out)
                .saturating_mul(t.count)
        } else {
            0
        }
    }

    /// What one GPU holds of a per-tensor quantity: the busiest tensor × pipeline shard (with
    /// pipeline stages, the last one holds the head besides its layers), or `total` split evenly.
    /// `total` is the quantity summed over the model (`weights::total`, or the parameter count).
    pub(super) fn busiest(&self, f: &dyn Fn(&Tensor) -> u64, total: u64) -> u64 {
        if self.tp == 1 && self.pp == 1 {
            // One GPU holds every tensor whole: the sum the caller has, without another walk.
            total
        } else if self.arch.is_detailed() {
            weights::busiest_gpu(&self.arch, self.tp, self.pp, f)
        } else {
            total.div_ceil(self.tp * self.pp)
        }
    }

    fn training_basis(&self) -> Basis {
        let reg = self.precision;
        let lora = self.lora_rank > 0;
        let params = self.params();
        // Master weights, gradients and optimizer states: fp32 under mixed precision. PEFT keeps
        // LoRA adapters in fp32 whatever the base's dtype (`autocast_adapter_dtype=True`), with
        // their gradients and states; DeepSpeed holds them as the rest of the model.
        // torchtune builds the model, its adapters included, in the recipe's dtype
        // (`training.set_default_dtype` in recipes/lora_finetune_single_device.py) and uses no
        // PEFT: its adapters, their gradients and states are in that dtype.
        let peft = self.regimes.stack != Some(crate::estimate::Stack::Torchtune);
        let state_bytes = if lora && self.zero == 0 && peft {
            4
        } else {
            reg.state_bytes()
        };
        let act = reg.act_bytes();
        // A walk over the tensors only where there are adapters to count.
        let lora_params = if lora {
            weights::total(&self.arch, |t| self.lora_params(t))
        } else {
            0
        };
        let shard = if lora {
            self.busiest(&|t| self.lora_params(t), lora_params)
        } else {
            self.busiest(&|t| t.numel(), params)
        };
        let dtype = if reg == Precision::Fp32 {
            Dtype::Fp32
        } else if lora || self.zero > 0 {
            // LoRA loads the base in the model dtype; ZeRO keeps bf16/fp16 model weights and fp32 masters in the optimizer.
            match reg {
                Precision::Fp16 | Precision::AmpFp16 => Dtype::Fp16,
                _ => Dtype::Bf16,
            }
        } else if reg.fp32_master() {
            Dtype::Fp32
        } else if reg == Precision::Fp16 {
            Dtype::Fp16
        } else {
            Dtype::Bf16
        };
        Basis {
            lora,
            detailed: self.arch.is_detailed(),
            state_bytes,
            act_bytes: act,
            trainable: if lora { lora_params } else { params },
            shard,
            dtype,
            // QLoRA's base is NF4, with or without double quantization as loaded.
            quantization: if lora {
                self.quantization
            } else {
                Quantization::None
            },
            // Autocast runs matmuls in 16 bits and its fp32 list in fp32, whatever the weights'
            // dtype; over fp32 weights the residual stream stays fp32.
            compute: Compute {
                act,
                resid: if dtype == Dtype::Fp32 { 4 } else { act },
                autocast: matches!(reg, Precision::AmpBf16 | Precision::AmpFp16),
                kernel: self.kernel,
                tp: self.tp,
            },
        }
    }

    fn training_weights(&self, basis: &Basis) -> WeightFigures {
        let a = &self.arch;
        let q = &basis.quantization;
        let whole_bytes = basis.dtype.bits().is_multiple_of(8);
        let base = if basis.detailed
            && !(self.tp == 1 && self.pp == 1 && *q == Quantization::None && whole_bytes)
        {
            per_gpu_weight_bytes(a, basis.dtype, q, self.tp, self.pp)
        } else {
            // A parameter count alone, or one GPU holding every tensor whole at whole bytes per
            // parameter: each tensor's bytes are its parameters × the dtype's bytes, and their
            // sum is the parameter count the run has summed, without another walk.
            self.params().saturating_mul(basis.dtype.bits() as u64 / 8)
        };
        let mut bytes = base;
        let upcast = self.kbit_upcast().then(|| {
            // prepare_model_for_kbit_training casts the unquantized parameters (embeddings, head, norms) to fp32.
            let unquantized = |t: &Tensor| {
                if weights::is_quantized(q, a, t) {
                    0
                } else {
                    t.numel()
                }
            };
            let params = weights::total(a, unquantized);
            let extra = self.busiest(&unquantized, params).saturating_mul(2);
            bytes = bytes.saturating_add(extra);
            Upcast {
                params,
                bytes: extra,
            }
        });
        let adapters = basis.lora.then(|| {
            // DeepSpeed holds the whole model, adapters included, in 16 bits (their fp32 masters
            // are in the optimizer partition); without ZeRO, PEFT keeps the adapters in fp32.
            let bytes_per = if self.zero > 0 {
                basis.act_bytes
            } else {
                basis.state_bytes
            };
            let adapters = basis.shard.saturating_mul(bytes_per);
            bytes = bytes.saturating_add(adapters);
            Adapters {
                bytes_per,
                bytes: adapters,
            }
        });
        // ZeRO-3 partitions the weights too, the frozen base of a LoRA run included (PEFT's
        // DeepSpeed guide runs Llama-2-70B LoRA this way on 8 GPUs).
        // (What it gathers to compute is in its buffers: `sharding.rs`.)
        // bitsandbytes' quantization state stays whole on every GPU, offloaded or not.
        let mut quant_state = 0;
        if self.zero == 3 {
            quant_state = self.bnb_quant_state(basis);
            // `offload_param` moves them to the CPU; `offload_optimizer` alone leaves them.
            bytes = if self.offload.params() {
                quant_state
            } else {
                bytes
                    .saturating_sub(quant_state)
                    .div_ceil(self.dp)
                    .saturating_add(quant_state)
            };
        }
        WeightFigures {
            base,
            upcast,
            adapters,
            quant_state,
            bytes,
        }
    }

    /// Gradients: in the master dtype; under ZeRO in the model dtype, reduced into fp32
    /// partitions.
    fn training_gradients(&self, basis: &Basis) -> GradientFigures {
        let bytes_per = if self.zero > 0 {
            basis.act_bytes
        } else {
            basis.state_bytes
        };
        let mut bytes = basis.shard.saturating_mul(bytes_per);
        if self.zero >= 2 {
            bytes = if self.offload != Offload::None {
                0
            } else {
                bytes.div_ceil(self.dp)
            };
        }
        GradientFigures {
            bytes_per,
            bytes,
            persistent: false,
        }
    }

    fn training_optimizer(&self, basis: &Basis) -> OptimizerFigures {
        let (sb, shard, reg) = (basis.state_bytes, basis.shard, self.precision);
        let per_param = match self.optimizer {
            Optimizer::Adamw => 2 * sb,
            Optimizer::Adamw8bit => 2,
            Optimizer::Sgd | Optimizer::Adafactor => 0,
            Optimizer::SgdMomentum | Optimizer::Lion => sb,
            // The others' states, per tensor where they differ ([`super::optimizers`]).
            _ => 0,
        };
        let own = self.own_states(basis);
        let per_param = own.map_or(per_param, |o| o.div_ceil(shard.max(1)));
        let mut bytes = own.unwrap_or(shard.saturating_mul(per_param));
        if self.optimizer == Optimizer::Adamw8bit {
            // bitsandbytes quantizes each state in blocks of 256 with one fp32 absmax per block.
            bytes = bytes.saturating_add(shard.div_ceil(256).saturating_mul(8));
        }
        if self.optimizer == Optimizer::Adafactor {
            let (lora, mask) = (basis.lora, self.lora_mask);
            let factored = |t: &Tensor| {
                if lora {
                    if t.role.is_block_linear() && mask & role_bit(t.role) != 0 {
                        (self.lora_rank * 2 + t.rows_in + t.rows_out) * 4 * t.count
                    } else {
                        0
                    }
                } else if t.rows_in > 1 {
                    (t.rows_in + t.rows_out) * 4 * t.count
                } else {
                    t.numel() * 4
                }
            };
            let total = weights::total(&self.arch, factored);
            bytes = self.busiest(&factored, total);
        }
        // ZeRO (DeepSpeed mixed precision) keeps fp32 master weights in the optimizer partition;
        // FSDP's fp32 shards are the masters themselves.
        let master = if self.zero > 0
            && self.sharding.fsdp.is_none()
            && reg.fp32_master()
            && reg != Precision::Fp32
        {
            shard * 4
        } else {
            0
        };
        if master > 0 {
            bytes = bytes.saturating_add(master);
        }
        if self.zero >= 1 {
            bytes = if self.offload != Offload::None {
                0
            } else {
                bytes.div_ceil(self.dp)
            };
        } else if self.torchao_offload() {
            // torchao's CPU offload: only the states of parameters under its `minimal_size`.
            bytes = self.torchao_kept(basis).saturating_mul(per_param);
        }
        OptimizerFigures {
            per_param,
            master,
            bytes,
        }
    }

    pub(super) fn training_activations(&self, basis: &Basis, tokens: u64) -> ActivationFigures {
        let a = &self.arch;
        let (saved, total, recomputed) = if basis.detailed {
            let (blocks, total, recomputed) = self.block_activations(basis, tokens);
            (Saved::Blocks(blocks), total, recomputed)
        } else if a.has_image_counts() {
            (Saved::Images, self.image_training_bytes(basis.act_bytes), 0)
        } else {
            let x = Bytes::from_f64(0.35 * self.params() as f64 * basis.act_bytes as f64).get();
            (Saved::Guide, x, 0)
        };
        let bytes = if self.pp > 1 {
            // 1F1B: the first stage holds pp micro-batches of its layers in flight.
            total.div_ceil(self.pp).saturating_mul(self.pp.min(self.pp))
        } else {
            total
        };
        let (bytes, cpu) = self.offloaded_activations(basis, tokens, bytes, recomputed);
        ActivationFigures {
            saved,
            total,
            bytes,
            recomputed,
            cpu,
        }
    }

    /// A detailed architecture's saved activations over every block, their total and, with full
    /// checkpointing, the block recomputed in backward (alive only once the loss's tensors are
    /// freed).
    fn block_activations(&self, basis: &Basis, tokens: u64) -> (BlockActivations, u64, u64) {
        let a = &self.arch;
        let compute = &basis.compute;
        let train = Trainable {
            all: !basis.lora,
            lora_mask: if basis.lora { self.lora_mask } else { 0 },
            lora_rank: if basis.lora { self.lora_rank } else { 0 },
            adapter_bytes: if self.zero > 0 {
                basis.act_bytes
            } else {
                basis.state_bytes
            },
            lora_dropout: basis.lora && self.regimes.lora_dropout > 0.0,
        };
        // The sequence through the main stack (a ViT's patches and class token, whatever
        // seq_len says) and, for Whisper, the encoder's fixed frames over its own layers.
        let seq = self.main_seq();
        let (enc_layers, enc_seq) = self.encoder_stack();
        let (per_tok, s2) = activations::training_per_token(a, compute, &train);
        let s2_total = if self.checkpointing == Checkpointing::None {
            s2
        } else {
            0
        };
        // What one block saves for a sequence of `s` tokens, over the batch.
        let block = |s: u64, s2: u64| {
            self.batch
                .saturating_mul(s)
                .saturating_mul(per_tok)
                .saturating_add(
                    self.batch
                        .saturating_mul(s)
                        .saturating_mul(s)
                        .saturating_mul(s2),
                )
        };
        // A Whisper decoder layer's cross-attention over the encoder's frames.
        let cross = |s2: u64| {
            if enc_layers == 0 {
                return 0;
            }
            let (tok, frame) = activations::cross_attention_training(a, compute, &train);
            self.batch.saturating_mul(
                seq.saturating_mul(tok)
                    .saturating_add(enc_seq.saturating_mul(frame))
                    .saturating_add(seq.saturating_mul(enc_seq).saturating_mul(s2)),
            )
        };
        let mut blocks = BlockActivations {
            seq,
            per_token: per_tok,
            scores: s2_total,
            encoder_layers: enc_layers,
            encoder_frames: enc_seq,
            kept: None,
        };
        if self.checkpointing == Checkpointing::Full {
            // The block inputs, and the encoder's output that every decoder block reads.
            let kept = tokens
                .saturating_mul(a.num_layers)
                .saturating_add(self.batch * enc_seq * (enc_layers + enc_layers.min(1)))
                .saturating_mul(compute.resid * a.hidden_size);
            let one = block(seq.max(enc_seq), s2).max(block(seq, s2) + cross(s2));
            blocks.kept = Some(kept);
            (blocks, kept.saturating_add(one), one)
        } else {
            let total = block(seq, s2_total)
                .saturating_add(cross(s2_total))
                .saturating_mul(a.num_layers)
                .saturating_add(block(enc_seq, s2_total).saturating_mul(enc_layers));
            (blocks, total, 0)
        }
    }

    /// The loss at the start of backward: the fp32 log-softmax (saved), the gradient of the NLL
    /// and that of the logits, all fp32 whatever the compute dtype (the head's output and its
    /// fp32 copy are freed once the loss is computed: the outputs are dropped, as Trainer does).
    /// Bytes per token × vocab of the full loss: fp32 log-softmax, its gradient and the
    /// logits' gradient (12 B); compiled, the logits saved in the compute dtype and one fp32
    /// gradient (AOTAutograd's partitioner saves the matmul's output and recomputes the
    /// softmax: no fp32 copy is kept; fitted to torchtune's published rows, its notes).
    pub(super) fn full_loss_bytes(&self) -> u64 {
        if self.regimes.compile {
            self.precision.act_bytes().saturating_add(4)
        } else {
            12
        }
    }

    fn training_logits(&self, tokens: u64) -> u64 {
        let a = &self.arch;
        if a.is_generative() && a.vocab_size > 0 {
            tokens
                .saturating_mul(a.vocab_size)
                .saturating_mul(self.full_loss_bytes())
                .div_ceil(self.tp)
        } else {
            0
        }
    }

    /// End of backward: the embedding's dense gradient is built in a fresh buffer before it is
    /// accumulated (twice the matrix when the head shares it: the head's gradient is already
    /// there).
    fn embedding_buffer(&self, basis: &Basis, gradients: &GradientFigures) -> EmbeddingBuffer {
        let a = &self.arch;
        let tied = a.tied_embeddings && a.is_generative();
        let bytes = if !basis.lora && self.zero == 0 && basis.detailed && a.vocab_size > 0 {
            let n = a
                .vocab_size
                .saturating_mul(a.hidden_size)
                .saturating_mul(gradients.bytes_per);
            let copies = if tied { 2 } else { 1 };
            n.saturating_mul(copies).div_ceil(self.tp)
        } else {
            0
        };
        EmbeddingBuffer { tied, bytes }
    }

    /// Autocast keeps bf16/fp16 copies of fp32 weights for backward.
    fn autocast_copies(&self, basis: &Basis) -> u64 {
        let a = &self.arch;
        if !(basis.compute.autocast && basis.dtype == Dtype::Fp32 && basis.detailed) {
            return 0;
        }
        // The blocks' matrices and the head's, which a tied model reads from its embedding.
        let tied_head = a.tied_embeddings && a.is_generative();
        let matrix = |t: &Tensor| {
            if t.role.is_block_linear()
                || t.role == Role::LmHead
                || tied_head && t.role == Role::Embedding
            {
                t.numel()
            } else {
                0
            }
        };
        let mats = weights::total(a, matrix);
        self.busiest(&matrix, mats).saturating_mul(2)
    }

    /// Optimizer step temporaries: foreach AdamW/Lion materialise one state-sized list (one
    /// moment of this GPU's partition).
    fn training_step(&self, basis: &Basis, optimizer: &OptimizerFigures) -> StepFigures {
        let (zero, dp) = (self.zero, self.dp);
        let offload = self.offload != Offload::None;
        if self.torchao_offload() {
            // torchao's step runs on the CPU (fused AdamW by default); the on-device step of
            // the parameters under 4096 elements is left out (a few kB).
            return StepFigures {
                foreach: 0,
                fp32_grads: 0,
                bytes: 0,
            };
        }
        let partition = |x: u64| if zero >= 1 { x.div_ceil(dp) } else { x };
        let foreach = match self.optimizer {
            Optimizer::Adamw | Optimizer::Lion
                if self.foreach_step() && !(self.fused_optimizer || zero >= 1 && offload) =>
            {
                partition(
                    self.foreach_elements(basis)
                        .saturating_mul(basis.state_bytes),
                )
            }
            // Adafactor's update: a full-size fp32 temporary of the largest trainable tensor on
            // this GPU (under LoRA an adapter matrix, not the frozen embedding).
            Optimizer::Adafactor => {
                let a = &self.arch;
                let trainable = |t: &Tensor| {
                    if basis.lora {
                        if self.lora_params(t) > 0 {
                            self.lora_rank.saturating_mul(t.rows_in.max(t.rows_out))
                        } else {
                            0
                        }
                    } else {
                        t.numel().div_ceil(weights::tp_divisor(a, t, self.tp))
                    }
                };
                weights::largest(a, trainable) * 4
            }
            _ => self.own_step(basis),
        };
        // ZeRO's step casts this rank's gradient partition to fp32 beside the fp32 masters
        // (DeepSpeed stage_1_and_2.py `step()`; its estimators count 16 B per parameter / N).
        let fp32_grads = if zero >= 1 && !offload && optimizer.master > 0 {
            basis.shard.saturating_mul(4).div_ceil(dp)
        } else {
            0
        };
        StepFigures {
            foreach,
            fp32_grads,
            bytes: foreach.saturating_add(fp32_grads),
        }
    }

    /// Offloaded: fp32 masters, moments (and ZeRO-3 params) live in CPU memory (or on NVMe), for
    /// this GPU's tensor × pipeline shard / dp. DeepSpeed's CPU step also holds the fp32 gradient
    /// partition (its estimators: 16 B per parameter / N for ZeRO-2, 18 B for ZeRO-3 with the
    /// 16-bit parameters).
    fn offloaded(&self, basis: &Basis, optimizer: &OptimizerFigures) -> u64 {
        if self.torchao_offload() {
            return self.torchao_cpu(basis, optimizer.per_param);
        }
        if self.offload == Offload::None || self.zero == 0 {
            return 0;
        }
        let full_states = basis.shard.saturating_mul(4 + 4 + optimizer.per_param);
        let params_cpu = if self.zero == 3 && self.offload.params() {
            self.busiest(&|t| t.numel(), self.params())
                .saturating_mul(2)
        } else {
            0
        };
        full_states.saturating_add(params_cpu).div_ceil(self.dp)
    }
}
