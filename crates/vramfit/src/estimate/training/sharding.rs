//! Data-parallel sharding on one GPU: DeepSpeed ZeRO's buffers as its JSON sizes them, and
//! PyTorch FSDP (1 and 2): what it keeps sharded, what it gathers unit by unit, and what CPU
//! offload leaves on the GPU.
//!
//! DeepSpeed (0.19.6): ZeRO-1/2 allocate one reduce bucket of `reduce_bucket_size` elements in
//! the 16-bit dtype, two with `overlap_comm` (`stage_1_and_2.py` `setup_buckets`); the updated
//! partitions are gathered in place into the flat 16-bit buffer (`runtime/utils.py`
//! `all_gather_dp_groups`), so `allgather_bucket_size` allocates nothing. ZeRO-3 allocates one
//! reduce bucket (`stage3.py`, `bucket.buffer = torch.empty(self.reduce_bucket_size, …)`),
//! gathers a module's parameters when it runs, prefetches up to `stage3_prefetch_bucket_size`
//! elements ahead and keeps those reused within `stage3_max_reuse_distance` while fewer than
//! `stage3_max_live_parameters` are gathered
//! (`partitioned_param_coordinator.py`), keeps parameters of at most
//! `stage3_param_persistence_threshold` elements whole on every GPU, and builds a module's full
//! gradient before it is reduced: its own estimator counts the largest module's parameters and
//! gradient, 4 B each (`estimate_zero3_model_states_mem_needs`).
//!
//! FSDP (PyTorch 2.15, `torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py` and
//! `_fsdp_collectives.py`; FSDP1 `torch/distributed/fsdp/_runtime_utils.py`): the model is
//! wrapped per decoder layer (transformers' and accelerate's `transformer_based_wrap`), the
//! embedding, final norm and head in the root unit. Each unit is all-gathered in the mixed
//! precision's `param_dtype` before it runs, and the next one is prefetched (FSDP2's implicit
//! forward and backward prefetch; FSDP1's `BACKWARD_PRE` and its rate limiter of two
//! all-gathers): two units in flight. The root is not resharded after forward (both versions:
//! it runs first in backward). In backward each unit's gradient is built unsharded in
//! `reduce_dtype` (`param_dtype` by default) and copied into the reduce-scatter input
//! (`foreach_reduce`): twice the unit. The shards stay in the parameters' own dtype (fp32 under
//! mixed precision: they are the optimizer's master weights), their gradients too; with
//! `CPUOffloadPolicy` / `CPUOffload(offload_params=True)` parameters, gradients and optimizer
//! states are in CPU memory and the step runs there.

use super::figures::{Basis, Buckets, GradientFigures, TrainingFigures};
use super::{FSDP_OFFLOAD_ALLOWANCE_PERCENT, SHARDED_CACHE_PERCENT};
use crate::estimate::{ComponentKind, FsdpVersion, Mode, Offload, Run, weights};
use crate::model::{Role, Tensor};
use crate::precision::{Dtype, Quantization};
use alloc::vec::Vec;

/// What the data-parallel buffers are made of.
pub(super) enum BufferParts {
    /// DDP's gradient buckets (or nothing on one GPU).
    Ddp,
    /// ZeRO-1/2's reduce buckets: `copies` × `reduce_bucket_size` elements.
    Zero12 { bucket: u64, copies: u64 },
    /// ZeRO-3's buffers.
    Zero3(Zero3Buffers),
    /// FSDP's gathered units.
    Fsdp(FsdpUnits),
}

/// ZeRO-3's buffers, in bytes.
pub(super) struct Zero3Buffers {
    /// The reduce bucket.
    pub(super) reduce: u64,
    /// The largest module's parameters gathered, and what is prefetched beside them.
    pub(super) gathered: u64,
    /// The largest trainable module's full gradient before its reduction.
    pub(super) grad: u64,
    /// Parameters under the persistence threshold, kept whole (beyond their partition).
    pub(super) persistent: u64,
}

/// FSDP's unsharded units on one GPU, in bytes of `param_dtype` (and `reduce_dtype`).
pub(super) struct FsdpUnits {
    /// The largest decoder layer, gathered.
    pub(super) unit: u64,
    /// Every decoder layer gathered (kept from forward to backward without resharding).
    pub(super) layers: u64,
    /// The root unit (embedding, final norm, head), gathered and not resharded after forward.
    pub(super) root: u64,
    /// The largest layer's unsharded gradient.
    pub(super) unit_grad: u64,
    /// The root's unsharded gradient.
    pub(super) root_grad: u64,
    /// Whether the layers are resharded after forward.
    pub(super) reshard: bool,
    /// At the end of forward: the root and the last layer gathered again, or every layer.
    pub(super) forward: u64,
    /// In backward: the larger of a layer's step (root, head gradient, two units and a unit's
    /// gradient with its reduce-scatter copy) and the root's own reduction at the end.
    pub(super) backward: u64,
}

/// What [`Run::fsdp_unit_walk`] finds: the root unit (embedding, final norm, head) gathered, its
/// gradient and the part of it backward builds first (the head's), and per group of alike
/// blocks (first block, blocks, gathered, gradient).
struct UnitWalk {
    root: u64,
    root_grad: u64,
    head_grad: u64,
    groups: Vec<(u64, u64, u64, u64)>,
}

/// FSDP1's flat gradient cast into a `reduce_dtype` of its own (`flat_param.grad.to`), held
/// beside the views' gradients and their concatenation; none where it is the compute dtype.
fn fsdp1_cast(grad: u64, in_reduce_dtype: u64) -> u64 {
    if in_reduce_dtype == grad {
        0
    } else {
        in_reduce_dtype
    }
}

/// DeepSpeed's `stage3_max_reuse_distance` default (0.19.6 `runtime/zero/config.py`): a
/// parameter used again within this many elements of fetches is not released.
const MAX_REUSE_DISTANCE: u64 = 1_000_000_000;

/// The largest module's parameters as DeepSpeed gathers it (`module.parameters(recurse=False)`):
/// a projection, or a block's routed experts together (transformers 5 holds them as one `experts`
/// module of fused `[experts, out, in]` parameters).
fn largest_module(a: &crate::model::Architecture, shard: &dyn Fn(&Tensor) -> u64) -> u64 {
    let mut largest = 0u64;
    let mut experts: Vec<(u64, u64)> = Vec::new();
    a.visit_grouped(|t, _| {
        let x = shard(&t);
        match (t.role.is_expert(), t.layer) {
            (true, Some(l)) => match experts.iter_mut().find(|e| e.0 == l) {
                Some(e) => e.1 = e.1.saturating_add(x),
                None => experts.push((l, x)),
            },
            _ => largest = largest.max(x),
        }
    });
    experts.iter().fold(largest, |m, e| m.max(e.1))
}

/// A parameter's dim 0, which FSDP2 shards: a lookup table's rows (`[vocab, hidden]`), the
/// experts of a fused expert tensor (`[experts, out, in]`), a linear layer's outputs
/// (`[out, in]`), a vector's length.
fn dim0(t: &Tensor) -> u64 {
    if t.count > 1 {
        t.count
    } else if matches!(t.role, Role::Embedding | Role::Positions) {
        t.rows_in
    } else {
        t.rows_out
    }
}

impl Run<'_> {
    /// The data-parallel buffers: DDP's buckets, DeepSpeed ZeRO's, or FSDP's gathered units.
    pub(super) fn sharding_buffers(&self, basis: &Basis, gradients: &GradientFigures) -> Buckets {
        if self.sharding.fsdp.is_some() {
            let units = self.fsdp_units(basis);
            return Buckets {
                kind: ComponentKind::ZeroBuffers,
                bytes: units.forward.max(units.backward),
                by_phase: Some([units.forward, units.backward, 0]),
                parts: BufferParts::Fsdp(units),
            };
        }
        let ab = basis.act_bytes;
        let sizes = &self.sharding.buckets;
        match self.zero {
            1 | 2 => {
                let copies = if sizes.overlap_comm { 2 } else { 1 };
                Buckets {
                    kind: ComponentKind::ZeroBuffers,
                    bytes: sizes.reduce.saturating_mul(ab).saturating_mul(copies),
                    by_phase: None,
                    parts: BufferParts::Zero12 {
                        bucket: sizes.reduce,
                        copies,
                    },
                }
            }
            3 => {
                let z = self.zero3_buffers(basis);
                Buckets {
                    kind: ComponentKind::ZeroBuffers,
                    bytes: z
                        .reduce
                        .saturating_add(z.gathered)
                        .saturating_add(z.grad)
                        .saturating_add(z.persistent),
                    by_phase: None,
                    parts: BufferParts::Zero3(z),
                }
            }
            // FSDP1's NO_SHARD all-reduces each unit's flat gradient in place: no bucket.
            _ => Buckets {
                kind: ComponentKind::DdpBuckets,
                bytes: if self.dp > 1 && !self.sharding.no_shard {
                    gradients.bytes
                } else {
                    0
                },
                by_phase: None,
                parts: BufferParts::Ddp,
            },
        }
    }

    fn zero3_buffers(&self, basis: &Basis) -> Zero3Buffers {
        let (a, tp, ab) = (&self.arch, self.tp, basis.act_bytes);
        let sizes = &self.sharding.buckets;
        let shard = |t: &Tensor| t.numel().div_ceil(weights::tp_divisor(a, t, tp));
        let largest = if basis.detailed {
            largest_module(a, &shard)
        } else {
            // A bare count: the assumed layer's share, as the run's other figures assume it.
            self.params() / a.num_layers.max(1)
        };
        let trainable_largest = if basis.lora {
            weights::largest(a, |t| self.lora_params(t) / t.count.max(1))
        } else {
            largest
        };
        // Beside the module that runs: what is prefetched, or kept for reuse within
        // `stage3_max_reuse_distance` (its default, 1e9: the turn from forward to backward keeps
        // the last modules gathered), up to `stage3_max_live_parameters` in all.
        let prefetch = sizes
            .prefetch
            .max(MAX_REUSE_DISTANCE)
            .min(sizes.max_live.saturating_sub(largest));
        let persistent = if basis.detailed {
            // DeepSpeed marks every parameter of at most the threshold persistent
            // (`runtime/zero/parameter_offload.py`, `mark_persistent_parameters`: every `named_parameters()`),
            // LoRA's `lora_A` (r × in) and `lora_B` (out × r) among them.
            let r = self.lora_rank;
            let small = |t: &Tensor| {
                let base = if t.rows_in.saturating_mul(t.rows_out) <= sizes.persistence {
                    shard(t)
                } else {
                    0
                };
                let lora = if basis.lora && self.lora_params(t) > 0 {
                    [r.saturating_mul(t.rows_in), r.saturating_mul(t.rows_out)]
                        .into_iter()
                        .filter(|&n| n <= sizes.persistence)
                        .fold(0u64, u64::saturating_add)
                        .saturating_mul(t.count)
                } else {
                    0
                };
                base.saturating_add(lora)
            };
            let n = weights::total(a, small);
            // Whole on every GPU, where its partition (1/dp) is already counted in the weights.
            n.saturating_mul(ab)
                .saturating_mul(self.dp - 1)
                .div_ceil(self.dp)
        } else {
            0
        };
        Zero3Buffers {
            reduce: sizes.reduce.saturating_mul(ab),
            gathered: largest.saturating_add(prefetch).saturating_mul(ab),
            grad: trainable_largest.saturating_mul(ab),
            persistent,
        }
    }

    /// The FSDP units of this GPU: each decoder layer and the root, gathered, with their
    /// gradients.
    fn fsdp_units(&self, basis: &Basis) -> FsdpUnits {
        let pb = basis.act_bytes;
        let UnitWalk {
            root,
            root_grad,
            head_grad,
            groups,
        } = self.fsdp_unit_walk(basis);
        let unit = groups.iter().map(|x| x.2).max().unwrap_or(0);
        let unit_grad = groups.iter().map(|x| x.3).max().unwrap_or(0);
        // The reduce-scatter input in `reduce_dtype` (the gradient, built in param_dtype, copied
        // and cast into it: `foreach_reduce`'s `reduce_scatter_input`, FSDP1's
        // `flat_param.grad.to(reduce_dtype)`).
        let unit_grad_r = self.in_reduce_dtype(unit_grad, pb);
        let root_grad_r = self.in_reduce_dtype(root_grad, pb);
        let layers = groups
            .iter()
            .fold(0u64, |s, x| s.saturating_add(x.2.saturating_mul(x.1)));
        let reshard = self.sharding.fsdp.is_none_or(|f| f.reshard_after_forward);
        // At the loss: the root, and the last layer gathered again for backward (or, kept from
        // forward, every layer); in backward a layer runs while the next is prefetched.
        let (at_loss, held) = if reshard {
            (unit, unit.saturating_mul(2))
        } else {
            (layers, layers)
        };
        let forward = root.saturating_add(at_loss);
        let v1 = self
            .sharding
            .fsdp
            .is_some_and(|f| f.version == FsdpVersion::V1);
        // FSDP2 reshards a unit before its gradient is reduce-scattered (`post_backward`):
        // while a layer runs, it and the prefetched one are gathered beside its growing
        // gradient; at its reduction, the prefetched one beside its gradient and the
        // reduce-scatter copy. FSDP1's parameters are views of the unit's flat parameter
        // (`_flat_param.py` `_use_unsharded_views`): the views' gradients and their
        // concatenation into the flat gradient (the views' split, backward) are alive at once,
        // with the unit and the prefetched one still gathered. The head's gradient is built
        // first and reduced with the embedding's at the end.
        let unit_moment = if v1 {
            held.saturating_add(unit_grad.saturating_mul(2))
                .saturating_add(fsdp1_cast(unit_grad, unit_grad_r))
        } else {
            held.saturating_add(unit_grad).max(
                held.saturating_sub(unit)
                    .saturating_add(unit_grad)
                    .saturating_add(unit_grad_r),
            )
        };
        let layer_step = root.saturating_add(head_grad).saturating_add(unit_moment);
        // The phase's figure is added to every shard gradient: at a layer's step those of the
        // root and of this layer are not there yet (resharding), or, every layer kept
        // gathered, none is (the start of backward).
        let sharded_grads = match (self.offload, self.sharding.fsdp) {
            (Offload::None, Some(f)) => self
                .fsdp_sharded_params(basis, f.version)
                .saturating_mul(basis.state_bytes),
            _ => 0,
        };
        // At the end (FSDP2): the first layer still gathered, and the root with both its
        // gradients (the embedding's backward), or, resharded, those gradients and their copy;
        // FSDP1: the first layer resharded by its post-backward hook, the root gathered beside
        // its views' gradients and their flat concatenation. The root's fp32 shard gradient
        // (counted with the gradients) is not there yet.
        let shard_grad_bytes = if sharded_grads > 0 {
            basis.state_bytes
        } else {
            0
        };
        let root_shard_grad = root_grad
            .saturating_mul(shard_grad_bytes)
            .checked_div(pb)
            .unwrap_or(0)
            .div_ceil(self.dp);
        let root_step = if v1 {
            root.saturating_add(root_grad.saturating_mul(2))
                .saturating_add(fsdp1_cast(root_grad, root_grad_r))
        } else {
            unit.saturating_add(root.max(root_grad).saturating_add(root_grad_r))
        }
        .saturating_sub(root_shard_grad);
        let unit_shard_grad = unit_grad
            .saturating_mul(shard_grad_bytes)
            .checked_div(pb)
            .unwrap_or(0)
            .div_ceil(self.dp);
        let layer_step = if reshard {
            layer_step.saturating_sub(root_shard_grad.saturating_add(unit_shard_grad))
        } else {
            layer_step.saturating_sub(sharded_grads)
        };
        FsdpUnits {
            unit,
            layers,
            root,
            unit_grad,
            root_grad,
            reshard,
            forward,
            backward: layer_step.max(root_step),
        }
    }

    /// `bytes` of gradient built in `pb`-byte elements, as held in the mixed precision's
    /// `reduce_dtype` (the same where it is not given or is the compute dtype).
    fn in_reduce_dtype(&self, bytes: u64, pb: u64) -> u64 {
        match self.sharding.fsdp.and_then(|f| f.reduce_dtype) {
            Some(d) if pb > 0 => bytes.saturating_mul(u64::from(d.bits() / 8)).div_ceil(pb),
            _ => bytes,
        }
    }

    /// The walk over the model's tensors that [`Self::fsdp_units`] sizes the units from: the
    /// root's gathered bytes and gradients, and each group of alike decoder layers.
    fn fsdp_unit_walk(&self, basis: &Basis) -> UnitWalk {
        let (a, tp, pb) = (&self.arch, self.tp, basis.act_bytes);
        let lora = basis.lora;
        let q = &basis.quantization;
        // A tensor gathered in param_dtype (a frozen base in its stored format), and its
        // trainable part's gradient in reduce_dtype.
        let gathered = |t: &Tensor| {
            let div = weights::tp_divisor(a, t, tp);
            if lora {
                weights::tensor_bytes(q, a, basis.dtype, t)
                    .saturating_add(self.lora_params(t).saturating_mul(pb))
                    .div_ceil(div)
            } else {
                t.numel().saturating_mul(pb).div_ceil(div)
            }
        };
        let grad = |t: &Tensor| {
            let n = if lora { self.lora_params(t) } else { t.numel() };
            n.saturating_mul(pb).div_ceil(weights::tp_divisor(a, t, tp))
        };
        let (mut root, mut root_grad, mut head_grad) = (0u64, 0u64, 0u64);
        let tied = a.tied_embeddings;
        // Per group of alike blocks: (first block, blocks, gathered, gradient).
        let mut groups: Vec<(u64, u64, u64, u64)> = Vec::new();
        if basis.detailed {
            a.visit_grouped(|t, n| match t.layer {
                None => {
                    root = root.saturating_add(gathered(&t));
                    root_grad = root_grad.saturating_add(grad(&t));
                    // What backward reaches first: the head and the final norm (a tied
                    // head's gradient is the embedding's).
                    if tied || !weights::is_lookup(&t, false) {
                        head_grad = head_grad.saturating_add(grad(&t));
                    }
                }
                Some(l) => {
                    let (g, d) = (gathered(&t), grad(&t));
                    match groups.iter_mut().find(|x| x.0 == l) {
                        Some(x) => {
                            x.2 = x.2.saturating_add(g);
                            x.3 = x.3.saturating_add(d);
                        }
                        None => groups.push((l, n, g, d)),
                    }
                }
            });
        } else {
            // A bare count: its assumed layers hold every parameter.
            let layer = self.params() / a.num_layers.max(1);
            groups.push((0, a.num_layers.max(1), layer * pb, layer * pb));
        }
        UnitWalk {
            root,
            root_grad,
            head_grad,
            groups,
        }
    }

    /// The parameters on this GPU after FSDP's sharding, padding included: FSDP1 pads each
    /// unit's flat parameter to a multiple of the world size, FSDP2 each parameter's dim 0.
    fn fsdp_sharded_params(&self, basis: &Basis, version: FsdpVersion) -> u64 {
        let (a, tp, n) = (&self.arch, self.tp, self.dp);
        let trainable = |t: &Tensor| {
            if basis.lora {
                self.lora_params(t)
            } else {
                t.numel()
            }
        };
        if !basis.detailed {
            return basis.shard.div_ceil(n);
        }
        match version {
            FsdpVersion::V2 => {
                let padded = |t: &Tensor| {
                    let x = trainable(t);
                    let rows = dim0(t).max(1);
                    // dim 0 padded to a multiple of the world size, then split evenly.
                    (x / rows)
                        .saturating_mul(rows.div_ceil(n).saturating_mul(n))
                        .div_ceil(weights::tp_divisor(a, t, tp))
                };
                weights::total(a, padded).div_ceil(n)
            }
            FsdpVersion::V1 => {
                // Per unit (each block, and the root): the flat parameter rounded up.
                let mut root = 0u64;
                let mut groups: Vec<(u64, u64, u64)> = Vec::new();
                a.visit_grouped(|t, k| {
                    let x = trainable(&t).div_ceil(weights::tp_divisor(a, &t, tp));
                    match t.layer {
                        None => root = root.saturating_add(x),
                        Some(l) => match groups.iter_mut().find(|g| g.0 == l) {
                            Some(g) => g.2 = g.2.saturating_add(x),
                            None => groups.push((l, k, x)),
                        },
                    }
                });
                groups.iter().fold(root.div_ceil(n), |s, g| {
                    s.saturating_add(g.2.div_ceil(n).saturating_mul(g.1))
                })
            }
        }
    }

    /// The allocator-cache margin of a ZeRO-3 or FSDP training run ([`SHARDED_CACHE_PERCENT`]
    /// of `peak_allocated`); 0 for any other run, FSDP's `NO_SHARD` (which gathers nothing)
    /// included, and for an RL run, whose peak is the rollout engine's pool beside the policy
    /// (one allocation, not per-layer gathers) and whose composition no published run measures.
    pub(in crate::estimate) fn sharded_cache(&self, peak_allocated: u64) -> u64 {
        let sharded = self.zero == 3 || self.sharding.fsdp.is_some();
        if self.mode != Mode::Training || !sharded || self.sharding.no_shard || self.rl.is_some() {
            return 0;
        }
        peak_allocated
            .saturating_mul(SHARDED_CACHE_PERCENT)
            .div_ceil(100)
    }

    /// The allowance of an FSDP run with CPU offload ([`FSDP_OFFLOAD_ALLOWANCE_PERCENT`] of
    /// `params`, the parameter shards it keeps in CPU memory for this GPU): an allowance sized on
    /// two published runs, not a rule; 0 for any other run, FSDP's `NO_SHARD` and RL included
    /// (as [`Self::sharded_cache`]).
    pub(in crate::estimate) fn fsdp_offload_allowance(&self, params: u64) -> u64 {
        let offloaded = self.offload != Offload::None && self.sharding.fsdp.is_some();
        if self.mode != Mode::Training || !offloaded || self.sharding.no_shard || self.rl.is_some()
        {
            return 0;
        }
        params
            .saturating_mul(FSDP_OFFLOAD_ALLOWANCE_PERCENT)
            .div_ceil(100)
    }

    /// The frozen base FSDP shards, in the dtype the model was loaded in. FSDP keeps each
    /// `FlatParameter`'s shard in its parameters' own dtype and all-gathers a copy in
    /// `MixedPrecision.param_dtype` (PyTorch `torch/distributed/fsdp/_flat_param.py`:
    /// `_local_shard`, the low-precision `_mp_shard` and `_full_param_padded`; FSDP2's
    /// `FSDPParam` likewise), so a base loaded in fp32 under bf16 autocast is held in fp32:
    /// twice the 16-bit base the figures count (AMP only: a pure bf16 or fp16 run loads the model
    /// in its 16 bits). DeepSpeed instead casts the module to 16 bits
    /// (`DeepSpeedEngine` under `bf16.enabled`), so ZeRO-3 is not read here. A quantized base is
    /// its own format whatever the load dtype.
    pub(super) fn fsdp_frozen_base(&self, f: &TrainingFigures) -> u64 {
        let b = &f.basis;
        // Under autocast only: a pure 16-bit run loads the model in 16 bits.
        let widened = self.dtype == Dtype::Fp32
            && b.compute.autocast
            && b.dtype.bits() == 16
            && b.quantization == Quantization::None;
        if widened {
            f.weights.base.saturating_mul(2)
        } else {
            f.weights.base
        }
    }

    /// bitsandbytes' quantization state of a LoRA run's base on one GPU: NF4's absmax (an fp32
    /// per 64 weights, or under double quantization an int8 per 64 and an fp32 per 256 of them),
    /// LLM.int8()'s fp32 `SCB` per output row. ZeRO-3 and FSDP shard parameters only; the state
    /// is an attribute of the module and of its `Params4bit` (bitsandbytes 0.50.1
    /// `bitsandbytes/nn/modules.py`: `Params4bit.to` moves `quant_state` to the module's device,
    /// and `fix_4bit_weight_quant_state_from_module` restores it from the module because "the
    /// quant state got lost when the parameter got converted. This happens for example for
    /// fsdp"), so every GPU holds all of it, on the GPU under CPU offload too. 0 for any other
    /// base, and where nothing is sharded.
    pub(super) fn bnb_quant_state(&self, basis: &Basis) -> u64 {
        let q = &basis.quantization;
        let packed: fn(u64) -> u64 = match q {
            Quantization::BnbNf4 { .. } => |n: u64| n.div_ceil(2),
            Quantization::BnbInt8 => |n: u64| n,
            _ => return 0,
        };
        if !basis.lora || !basis.detailed || (self.zero < 3 && self.sharding.fsdp.is_none()) {
            return 0;
        }
        let (a, tp) = (&self.arch, self.tp);
        weights::total(a, |t: &Tensor| {
            if !weights::is_quantized(q, a, t) {
                return 0;
            }
            weights::tensor_bytes(q, a, basis.dtype, t)
                .saturating_sub(packed(t.numel()))
                .div_ceil(weights::tp_divisor(a, t, tp))
        })
    }

    /// FSDP's shards: parameters and gradients in the parameters' own dtype (fp32 under mixed
    /// precision, the master weights: no separate copy), the optimizer's states sharded, all in
    /// CPU memory with CPU offload.
    pub(super) fn apply_fsdp(&self, f: &mut TrainingFigures) {
        let Some(fsdp) = self.sharding.fsdp else {
            return;
        };
        let basis = &f.basis;
        let sb = basis.state_bytes;
        let sharded = self.fsdp_sharded_params(basis, fsdp.version);
        let offload = self.offload != Offload::None;
        // The frozen base of a LoRA run is sharded in its stored format beside the adapters, in
        // the dtype it was loaded in (the run's `dtype`: fp32 where the model is loaded without
        // one, as PEFT's FSDP guide does); only bitsandbytes' quantization state stays whole.
        let quant_state = self.bnb_quant_state(basis);
        let frozen = if basis.lora {
            let base = self
                .fsdp_frozen_base(f)
                .saturating_add(f.weights.upcast.as_ref().map_or(0, |u| u.bytes))
                .saturating_sub(quant_state);
            base.div_ceil(self.dp)
        } else {
            0
        };
        let params = sharded.saturating_mul(sb).saturating_add(frozen);
        let grads = sharded.saturating_mul(sb);
        f.weights.quant_state = quant_state;
        f.weights.bytes = if offload {
            quant_state
        } else {
            params.saturating_add(quant_state)
        };
        f.gradients.bytes_per = sb;
        f.gradients.bytes = if offload { 0 } else { grads };
        // The optimizer's partition is figured without masters for FSDP (0 when offloaded);
        // in CPU memory: the shards, their gradients and the states.
        if offload {
            f.offloaded_params = params;
            f.cpu = params
                .saturating_add(grads)
                .saturating_add(sharded.saturating_mul(f.optimizer.per_param));
        }
    }
}
