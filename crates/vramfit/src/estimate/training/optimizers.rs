//! The optimizers counted beyond torch's AdamW, SGD, Lion, Adafactor and bitsandbytes' 8-bit
//! AdamW: each one's states as its library holds them on the GPU, its step's temporaries, and
//! their words.
//!
//! Sources (read at these versions):
//! - bitsandbytes 0.50.2 `optim/adamw.py` (`PagedAdamW`, `PagedAdamW8bit`), `optim/ademamix.py`
//!   (`AdEMAMix`: `state1` of shape `(2, *p.shape)` for the two EMAs, `state2` for `nu`, fp32
//!   at `optim_bits=32`, uint8 with absmax `(2, blocks)` + `(blocks,)` of 256 at 8 bits),
//!   `optim/optimizer.py` `get_state_buffer` (paged states from `cudaMallocManaged` when
//!   `is_paged` and the tensor has 10⁵ values or more);
//! - torchao 0.18 `optim/adam.py` (`AdamW4bit`, `block_size=128`; tensors of 4,096 values or
//!   more in `OptimState4bit`), `optim/subclass_4bit.py` (`codes` uint8 of `n / 2`, an fp32
//!   `scale` per block);
//! - torch 2.15 `optim/_muon.py` (`momentum_buffer` like the gradient; `_zeropower_via_newtonschulz`:
//!   a bf16 copy, transposed so rows ≤ columns, `X Xᵀ`, `addmm` into a second Gram-sized
//!   matrix, a new iterate beside the old);
//! - galore-torch 1.0 `galore_projector.py` (`get_orthogonal_matrix`: with fp32 data the
//!   projector is a slice of the SVD's factor, `Vh[:rank, :]` or `U[:, :rank]`, which keeps the
//!   whole `min(m, n)²` factor alive), `adamw.py` (moments of the projected gradient,
//!   `r × max(m, n)`), `adamw8bit.py` (bitsandbytes' 8-bit states on the projected gradient, the
//!   parameter cloned into `saved_data` during its step);
//! - schedulefree 1.4.1 `adamw_schedulefree.py` (`z`, a clone of the parameter, and
//!   `exp_avg_sq`; no first moment; the foreach step's `denom` list).

use super::figures::Basis;
use crate::estimate::{Formula, Optimizer, Parts, Run, b, weights};
use crate::model::Tensor;

use super::stacks::GALORE_RANK;

/// bitsandbytes' 8-bit blocks: an fp32 absmax per 256 values.
const BLOCK_8BIT: u64 = 256;

/// torchao `AdamW4bit`'s blocks: an fp32 scale per 128 values.
const BLOCK_4BIT: u64 = 128;

/// `n` values in `states` 8-bit blockwise states (bitsandbytes): 1 B each and an fp32 absmax per
/// block of 256.
fn states_8bit(n: u64, states: u64) -> u64 {
    n.saturating_add(n.div_ceil(BLOCK_8BIT).saturating_mul(4))
        .saturating_mul(states)
}

/// A GaLore-projected matrix `m × n` (its rank clipped to `min(m, n)` as the SVD's slice is).
#[derive(Clone, Copy)]
struct Projected {
    /// `min(m, n)`: the SVD's inner dimension.
    k: u64,
    /// `max(m, n)`: the projected gradient is `r × max(m, n)`.
    long: u64,
    /// The rank used.
    r: u64,
    /// `m × n`.
    full: u64,
}

impl Projected {
    fn of(m: u64, n: u64, rank: u64) -> Projected {
        let k = m.min(n);
        Projected {
            k,
            long: m.max(n),
            r: rank.min(k),
            full: m.saturating_mul(n),
        }
    }

    /// The projected gradient's values, `r × max(m, n)`.
    fn low(self) -> u64 {
        self.r.saturating_mul(self.long)
    }

    /// The moments (two, of the projected gradient) and the projector, in bytes. With fp32
    /// data the projector is a slice of the SVD's factor and keeps all `k × k` of it; with 16-bit
    /// data `.type(original_type)` copies the `r × k` slice.
    fn states(self, sb: u64, eight_bit: bool) -> u64 {
        let moments = if eight_bit && self.low() >= 4096 {
            states_8bit(self.low(), 2)
        } else if eight_bit {
            self.low().saturating_mul(8)
        } else {
            self.low().saturating_mul(2 * sb)
        };
        let projector = if sb == 4 {
            self.k.saturating_mul(self.k).saturating_mul(4)
        } else {
            self.r.saturating_mul(self.k).saturating_mul(sb)
        };
        moments.saturating_add(projector)
    }

    /// The step's temporaries of this matrix: the larger of an ordinary step and a step that
    /// renews the projector (every `update_proj_gap` steps: the SVD's `U` and `Vh` in fp32, and
    /// the fp32 copy of 16-bit data).
    fn step(self, sb: u64, eight_bit: bool) -> u64 {
        let ordinary = if eight_bit {
            // `saved_data` (a clone of the parameter), the projected-back update, the
            // projected gradient's clone.
            self.full
                .saturating_mul(2 * sb)
                .saturating_add(self.low().saturating_mul(sb))
        } else {
            // The projected gradient, `denom`, `norm_grad` and the projected-back update.
            self.low()
                .saturating_mul(3 * sb)
                .saturating_add(self.full.saturating_mul(sb))
        };
        let copy = if sb == 4 { 0 } else { self.full * 4 };
        let svd = self
            .k
            .saturating_mul(self.full / self.k.max(1) + self.k)
            .saturating_mul(4)
            .saturating_add(copy);
        ordinary.max(svd)
    }
}

/// Muon's Newton–Schulz step on an `m × n` matrix: Nesterov's `grad.lerp(buf)` in the
/// gradient's dtype, then in bf16 the old and the new iterate (`k × long` each) and the two
/// Gram-sized matrices (`k × k` each).
fn newton_schulz(m: u64, n: u64, sb: u64) -> u64 {
    let (k, long) = (m.min(n), m.max(n));
    m.saturating_mul(n)
        .saturating_mul(sb)
        .saturating_add(k.saturating_mul(long).saturating_mul(4))
        .saturating_add(k.saturating_mul(k).saturating_mul(4))
}

impl Run<'_> {
    /// The trainable matrices of tensor `t` that Muon and GaLore treat as matrices, as `(rows,
    /// cols)`: a block's projection in full training, LoRA's two adapters of a targeted one.
    fn trainable_matrices(&self, basis: &Basis, t: &Tensor) -> [(u64, u64); 2] {
        if basis.lora {
            if self.lora_params(t) > 0 {
                let r = self.lora_rank;
                [(r, t.rows_in), (t.rows_out, r)]
            } else {
                [(0, 0); 2]
            }
        } else if t.role.is_block_linear() && t.rows_in > 1 {
            [(t.rows_out, t.rows_in), (0, 0)]
        } else {
            [(0, 0); 2]
        }
    }

    /// Trainable values of `t` outside those matrices (embeddings, head, norms, biases).
    fn other_trainable(&self, basis: &Basis, t: &Tensor) -> u64 {
        if basis.lora || t.role.is_block_linear() && t.rows_in > 1 {
            0
        } else {
            t.numel()
        }
    }

    /// The states of the optimizers this module counts, on this GPU before ZeRO's partition;
    /// `None` for the others.
    pub(super) fn own_states(&self, basis: &Basis) -> Option<u64> {
        let (sb, shard) = (basis.state_bytes, basis.shard);
        let per_tensor = |f: &dyn Fn(&Tensor) -> u64| {
            if basis.detailed {
                self.busiest(f, weights::total(&self.arch, f))
            } else {
                // A bare parameter count: counted as AdamW, at least what either holds.
                shard.saturating_mul(2 * sb)
            }
        };
        Some(match self.optimizer {
            Optimizer::PagedAdamw8bit => states_8bit(shard, 2),
            // bitsandbytes' 32-bit states are fp32 whatever the parameters' dtype.
            Optimizer::PagedAdamw => shard.saturating_mul(8),
            Optimizer::Adamw4bit => shard
                .div_ceil(2)
                .saturating_add(shard.div_ceil(BLOCK_4BIT).saturating_mul(4))
                .saturating_mul(2),
            Optimizer::Ademamix => shard.saturating_mul(12),
            Optimizer::Ademamix8bit => states_8bit(shard, 3),
            Optimizer::ScheduleFreeAdamw => shard.saturating_mul(2 * sb),
            Optimizer::Muon => per_tensor(&|t| {
                let [a, c] = self.trainable_matrices(basis, t);
                let matrices = (a.0 * a.1 + c.0 * c.1).saturating_mul(t.count);
                matrices
                    .saturating_mul(sb)
                    .saturating_add(self.other_trainable(basis, t).saturating_mul(2 * sb))
            }),
            Optimizer::GaloreAdamw | Optimizer::GaloreAdamw8bit => {
                let eight = self.optimizer == Optimizer::GaloreAdamw8bit;
                per_tensor(&|t| {
                    let [a, c] = self.trainable_matrices(basis, t);
                    let projected = [a, c]
                        .iter()
                        .filter(|m| m.0 > 0)
                        .map(|&(m, n)| {
                            Projected::of(m, n, self.regimes.galore_rank).states(sb, eight)
                        })
                        .fold(0u64, u64::saturating_add);
                    let other = self.other_trainable(basis, t);
                    let other = if eight {
                        states_8bit(other, 2)
                    } else {
                        other.saturating_mul(2 * sb)
                    };
                    projected.saturating_mul(t.count).saturating_add(other)
                })
            }
            _ => return None,
        })
    }

    /// The step's temporaries of the optimizers this module counts (0 for the others and for
    /// bitsandbytes' kernels, which update in place).
    pub(super) fn own_step(&self, basis: &Basis) -> u64 {
        let (a, sb) = (&self.arch, basis.state_bytes);
        let tp = |t: &Tensor, x: u64| x.div_ceil(weights::tp_divisor(a, t, self.tp));
        let largest_matrix = |f: &dyn Fn(u64, u64) -> u64| {
            weights::largest(a, |t| {
                let [m, c] = self.trainable_matrices(basis, t);
                let one = [m, c]
                    .iter()
                    .filter(|m| m.0 > 0)
                    .map(|&(m, n)| f(m, n))
                    .max()
                    .unwrap_or(0);
                tp(t, one)
            })
        };
        match self.optimizer {
            // Not traced (torch.compile'd per tensor): counted as the largest tensor's two
            // moments dequantized to fp32, at most that much over.
            Optimizer::Adamw4bit => self.largest_trainable(basis).saturating_mul(8),
            Optimizer::ScheduleFreeAdamw if self.regimes.foreach => {
                let n = self.foreach_elements(basis).saturating_mul(sb);
                if self.zero >= 1 {
                    n.div_ceil(self.dp)
                } else {
                    n
                }
            }
            Optimizer::Muon if basis.detailed => {
                // The AdamW part's foreach list (torch's AdamW, fused unless said) beside the
                // largest matrix's Newton–Schulz iterates; the two steps run one after the other.
                let adamw = if self.regimes.foreach && !self.fused_optimizer {
                    let f = |t: &Tensor| self.other_trainable(basis, t);
                    self.busiest(&f, weights::total(a, f)).saturating_mul(sb)
                } else {
                    0
                };
                adamw.max(largest_matrix(&|m, n| newton_schulz(m, n, sb)))
            }
            Optimizer::GaloreAdamw | Optimizer::GaloreAdamw8bit if basis.detailed => {
                let eight = self.optimizer == Optimizer::GaloreAdamw8bit;
                // GaLore's own AdamW steps tensor by tensor: `denom` and `norm_grad` of the
                // largest other tensor (bitsandbytes' kernel has none).
                let other = if eight {
                    0
                } else {
                    weights::largest(a, |t| {
                        tp(t, self.other_trainable(basis, t) / t.count.max(1))
                    })
                    .saturating_mul(2 * sb)
                };
                other.max(largest_matrix(&|m, n| {
                    Projected::of(m, n, self.regimes.galore_rank).step(sb, eight)
                }))
            }
            _ => 0,
        }
    }

    /// The words of the step's temporaries of the optimizers this module counts.
    pub(super) fn own_step_words(&self, size: &str) -> Option<Formula> {
        Some(match self.optimizer {
            Optimizer::Adamw4bit => formula!(self.text;
                ["torchao 4-bit step: the largest tensor's 2 moments dequantized to fp32 = {size}"],
                ["torchao 4 位优化器步：最大张量的 2 个矩反量化为 fp32 = {size}"]
            ),
            Optimizer::ScheduleFreeAdamw => formula!(self.text;
                ["foreach step: one state-sized temporary (denom, the second moment's sqrt) = {size}"],
                ["foreach 步：一个与状态同大小的临时张量（denom，二阶矩的 sqrt） = {size}"]
            ),
            Optimizer::Muon => formula!(self.text;
                ["the larger of the AdamW part's foreach list and the largest matrix's Newton–Schulz iterates (update + 2 bf16 iterates + 2 bf16 Gram matrices) = {size}"],
                ["AdamW 部分的 foreach 列表与最大矩阵的 Newton–Schulz 迭代（更新量 + 2 个 bf16 迭代矩阵 + 2 个 bf16 Gram 矩阵）中较大者 = {size}"]
            ),
            Optimizer::GaloreAdamw | Optimizer::GaloreAdamw8bit => formula!(self.text;
                ["the largest matrix's step renewing its projector (SVD U and Vh in fp32) or projecting its update back to full size, or the largest other tensor's AdamW temporaries = {size}"],
                ["最大矩阵更新投影时的 SVD（fp32 的 U 与 Vh）或把更新投影回全尺寸，或最大的其他张量的 AdamW 临时张量 = {size}"]
            ),
            _ => return None,
        })
    }

    /// The states of the optimizers this module counts, in words.
    pub(super) fn own_optimizer_name(&self, sb: u64) -> Formula {
        let r = self.regimes.galore_rank;
        match self.optimizer {
            Optimizer::PagedAdamw8bit => {
                formula!(self.text; text "paged 8-bit AdamW: 2 moments × 1 B + an fp32 absmax per 256 (bitsandbytes, in CUDA unified memory)", "分页 8-bit AdamW：2 个矩 × 1 B + fp32 absmax（每 256 个一个）（bitsandbytes，位于 CUDA 统一内存）")
            }
            Optimizer::PagedAdamw => {
                formula!(self.text; text "paged AdamW: 2 moments × 4 B (bitsandbytes, fp32 states, in CUDA unified memory)", "分页 AdamW：2 个矩 × 4 B（bitsandbytes，fp32 状态，位于 CUDA 统一内存）")
            }
            Optimizer::Adamw4bit => {
                formula!(self.text; text "4-bit AdamW: 2 moments × 0.5 B + an fp32 scale per 128 (torchao)", "4-bit AdamW：2 个矩 × 0.5 B + fp32 缩放因子（每 128 个一个）（torchao）")
            }
            Optimizer::Ademamix => {
                formula!(self.text; text "AdEMAMix: 3 states (fast and slow EMA, second moment) × 4 B (bitsandbytes)", "AdEMAMix：3 个状态（快、慢两个 EMA 与二阶矩）× 4 B（bitsandbytes）")
            }
            Optimizer::Ademamix8bit => {
                formula!(self.text; text "8-bit AdEMAMix: 3 states × 1 B + an fp32 absmax per 256 each (bitsandbytes)", "8-bit AdEMAMix：3 个状态 × 1 B + fp32 absmax（各自每 256 个一个）（bitsandbytes）")
            }
            Optimizer::ScheduleFreeAdamw => formula!(self.text;
                ["schedule-free AdamW: z and the second moment × {sb} B"],
                ["无调度（schedule-free）AdamW：z 与二阶矩 × {sb} B"]
            ),
            Optimizer::Muon => formula!(self.text;
                ["Muon: 1 momentum × {sb} B per block matrix; AdamW's 2 × {sb} B for the embeddings, head, norms and biases"],
                ["Muon：每个块内矩阵 1 个动量 × {sb} B；词嵌入、输出头、归一化与偏置用 AdamW 的 2 × {sb} B"]
            ),
            Optimizer::GaloreAdamw => formula!(self.text;
                ["GaLore AdamW: per block matrix m × n, 2 moments of r × max(m, n) × {sb} B and its projector (r {r}); AdamW's 2 × {sb} B for the rest"],
                ["GaLore AdamW：每个块内矩阵 m × n 有 2 个 r × max(m, n) × {sb} B 的矩及其投影矩阵（r {r}）；其余参数用 AdamW 的 2 × {sb} B"]
            ),
            Optimizer::GaloreAdamw8bit => formula!(self.text;
                ["8-bit GaLore AdamW: per block matrix m × n, 2 moments of r × max(m, n) × 1 B and its projector (r {r}); 8-bit AdamW for the rest"],
                ["8-bit GaLore AdamW：每个块内矩阵 m × n 有 2 个 r × max(m, n) × 1 B 的矩及其投影矩阵（r {r}）；其余参数用 8-bit AdamW"]
            ),
            _ => Formula::default(),
        }
    }

    /// What the estimate assumed of these optimizers, and where the figure is uncertain.
    pub(super) fn own_optimizer_notes(&self, states: u64, p: &mut Parts) {
        // Notes are text: an estimate without it has none.
        if !self.text {
            return;
        }
        let size = b(states);
        match self.optimizer {
            Optimizer::PagedAdamw8bit | Optimizer::PagedAdamw => p.note(
                "paged_optimizer",
                en!("Paged optimizer: bitsandbytes allocates the states ({size}) in CUDA unified memory, outside PyTorch's allocator: nvidia-smi shows them, torch.cuda.max_memory_allocated does not. They are counted on the GPU in full; when memory runs short the driver pages them to CPU memory instead of failing, and the step slows."),
                zh!("分页优化器：bitsandbytes 把状态（{size}）分配在 CUDA 统一内存中，不经 PyTorch 分配器：nvidia-smi 能看到，torch.cuda.max_memory_allocated 看不到。此处按全部在 GPU 上计算；显存不足时驱动把它们换页到 CPU 内存而不是报错，优化器步变慢。"),
            ),
            Optimizer::GaloreAdamw | Optimizer::GaloreAdamw8bit if self.regimes.galore_rank != GALORE_RANK => {
                let r = self.regimes.galore_rank;
                p.note(
                    "galore",
                    en!("GaLore: rank {r} (optim_args rank; transformers' default 128) on every block projection (optim_target_modules [\"attn\", \"mlp\"]); fewer targets hold more. With fp32 parameters galore-torch 1.0 keeps its projector as a slice of the SVD's factor, which holds all min(m, n)² values of it: counted so."),
                    zh!("GaLore：秩 {r}（optim_args 的 rank；transformers 默认 128），作用于所有块内投影（optim_target_modules [\"attn\", \"mlp\"]）；目标更少时占用更多。参数为 fp32 时 galore-torch 1.0 的投影矩阵是 SVD 因子的切片，保留该因子全部 min(m, n)² 个值：按此计算。"),
                );
            }
            Optimizer::GaloreAdamw | Optimizer::GaloreAdamw8bit => {
                let r = GALORE_RANK;
                p.note(
                    "galore",
                    en!("GaLore: rank {r} (transformers' default, optim_args rank) on every block projection (optim_target_modules [\"attn\", \"mlp\"]); fewer targets hold more. With fp32 parameters galore-torch 1.0 keeps its projector as a slice of the SVD's factor, which holds all min(m, n)² values of it: counted so."),
                    zh!("GaLore：秩 {r}（transformers 默认值，optim_args 的 rank），作用于所有块内投影（optim_target_modules [\"attn\", \"mlp\"]）；目标更少时占用更多。参数为 fp32 时 galore-torch 1.0 的投影矩阵是 SVD 因子的切片，保留该因子全部 min(m, n)² 个值：按此计算。"),
                );
            }
            Optimizer::Muon => p.note(
                "muon",
                en!("Muon (torch.optim.Muon; the Moonlight and Keller Jordan setup): the blocks' 2-D matrices take Muon, the embeddings, head, norms and biases AdamW."),
                zh!("Muon（torch.optim.Muon；Moonlight 与 Keller Jordan 的设置）：块内二维矩阵用 Muon，词嵌入、输出头、归一化与偏置用 AdamW。"),
            ),
            _ => {}
        }
    }
}
