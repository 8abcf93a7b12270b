//! How training shards over the data-parallel GPUs beyond DeepSpeed's stage: PyTorch FSDP (1 or
//! 2), DeepSpeed's buffers as its JSON sizes them, and Megatron's interleaved pipeline, sequence
//! and context parallelism and distributed optimizer: checked once into [`Sharding`].

#[cfg(feature = "training")]
use super::gpus::Parallel;
#[cfg(feature = "training")]
use super::int;
#[cfg(feature = "training")]
use crate::error::Result;
#[cfg(feature = "training")]
use crate::estimate::{EstimateInput, Mode, Offload, Stack};
#[cfg(feature = "training")]
use crate::model::Architecture;

/// Which PyTorch FSDP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsdpVersion {
    /// `FullyShardedDataParallel`: one flat parameter per wrapped unit, padded to a multiple of
    /// the world size.
    V1,
    /// `fully_shard`: each parameter a DTensor sharded on dim 0, padded per parameter.
    V2,
}

/// PyTorch FSDP's sharding of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fsdp {
    /// FSDP1 or FSDP2.
    pub version: FsdpVersion,
    /// The gathered parameters are freed after forward (FULL_SHARD) or kept until backward
    /// (SHARD_GRAD_OP, FSDP2 `reshard_after_forward=False`).
    pub reshard_after_forward: bool,
    /// The mixed precision's `reduce_dtype` where it differs from the compute dtype (`None`:
    /// FSDP's default, `param_dtype`).
    pub reduce_dtype: Option<crate::precision::Dtype>,
}

/// DeepSpeed ZeRO's buffer settings, in elements, as given or DeepSpeed's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZeroBucketSizes {
    /// `reduce_bucket_size`.
    pub reduce: u64,
    /// `allgather_bucket_size`.
    pub allgather: u64,
    /// `stage3_prefetch_bucket_size`.
    pub prefetch: u64,
    /// `stage3_max_live_parameters`.
    pub max_live: u64,
    /// `stage3_param_persistence_threshold`.
    pub persistence: u64,
    /// `overlap_comm` (its default: true under ZeRO-3 only).
    pub overlap_comm: bool,
}

/// DeepSpeed's defaults (DeepSpeed 0.19.6, `deepspeed/runtime/zero/config.py`,
/// `DeepSpeedZeroConfig`): `reduce_bucket_size` and `allgather_bucket_size` 5e8,
/// `stage3_prefetch_bucket_size` 5e7, `stage3_max_live_parameters` 1e9,
/// `stage3_param_persistence_threshold` 1e5.
pub const DEEPSPEED_DEFAULTS: [u64; 5] =
    [500_000_000, 500_000_000, 50_000_000, 1_000_000_000, 100_000];

/// What transformers writes for a DeepSpeed key given as `"auto"` (`HfTrainerDeepSpeedConfig.
/// trainer_config_finalize`, `src/transformers/integrations/deepspeed.py`): `reduce_bucket_size`
/// hidden_size², `stage3_prefetch_bucket_size` 0.9 × hidden_size², and
/// `stage3_param_persistence_threshold` 10 × hidden_size. A config reader gives these for
/// `"auto"`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeepSpeedAuto {
    /// `reduce_bucket_size`.
    pub reduce_bucket_size: f64,
    /// `stage3_prefetch_bucket_size`.
    pub stage3_prefetch_bucket_size: f64,
    /// `stage3_param_persistence_threshold`.
    pub stage3_param_persistence_threshold: f64,
}

impl DeepSpeedAuto {
    /// transformers' values for a model of `hidden_size`.
    pub fn of(hidden_size: u64) -> Self {
        let h = hidden_size as f64;
        DeepSpeedAuto {
            reduce_bucket_size: h * h,
            stage3_prefetch_bucket_size: 0.9 * h * h,
            stage3_param_persistence_threshold: 10.0 * h,
        }
    }
}

/// Megatron-LM's parallel settings beyond tp and pp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Megatron {
    /// Virtual pipeline stages (1: the plain 1F1B schedule).
    pub vp: u64,
    /// `--sequence-parallel`.
    pub sequence_parallel: bool,
    /// Context-parallel size (1: none).
    pub cp: u64,
    /// `--use-distributed-optimizer`.
    pub distributed_optimizer: bool,
    /// `--recompute-method` under `--recompute-granularity full` (uniform when not given).
    pub recompute_method: crate::estimate::RecomputeMethod,
    /// `--recompute-num-layers` under `--recompute-granularity full` (1 when not given).
    pub recompute_layers: u64,
}

/// The run's sharding: FSDP or DeepSpeed's buffers, and Megatron when any of its settings is
/// given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sharding {
    /// PyTorch FSDP (`None`: DeepSpeed's semantics of `zero`).
    pub fsdp: Option<Fsdp>,
    /// DeepSpeed's buffers (read under ZeRO 1–3 without FSDP).
    pub buckets: ZeroBucketSizes,
    /// Megatron's regime (`None`: none of its settings given).
    pub megatron: Option<Megatron>,
    /// FSDP1's `NO_SHARD` (`fsdp_version` 1 with `zero` 0): data parallelism as DDP's, but
    /// the gradients are all-reduced in place in each unit's flat gradient, with no bucket.
    pub no_shard: bool,
}

impl Sharding {
    /// No FSDP, no Megatron, DeepSpeed's default buffers: a build without training, which
    /// reads none of their settings.
    #[cfg(not(feature = "training"))]
    pub(super) fn none(zero: u8) -> Sharding {
        let [reduce, allgather, prefetch, max_live, persistence] = DEEPSPEED_DEFAULTS;
        Sharding {
            fsdp: None,
            buckets: ZeroBucketSizes {
                reduce,
                allgather,
                prefetch,
                max_live,
                persistence,
                overlap_comm: zero == 3,
            },
            megatron: None,
            no_shard: false,
        }
    }
}

/// Largest element count accepted for a DeepSpeed bucket: 2^40.
#[cfg(feature = "training")]
const MAX_ELEMENTS: f64 = (1u64 << 40) as f64;

/// An element count as DeepSpeed's JSON writes it (transformers writes `0.9 × h²` as a float:
/// DeepSpeed's `int` field floors it), or the default.
#[cfg(feature = "training")]
fn elements(field: &str, v: Option<f64>, default: u64) -> Result<u64> {
    match v {
        None => Ok(default),
        Some(x) if x.is_finite() && (0.0..=MAX_ELEMENTS).contains(&x) => Ok(libm::floor(x) as u64),
        Some(x) => {
            let n = crate::units::number_text(x);
            Err(input_error!(
                OutOfRange,
                field,
                ["{n} elements"],
                ["{n} 个元素"],
                "a number of elements from 0 to 2^40 (DeepSpeed's JSON: 5e8, or \"auto\" resolved from hidden_size)",
                "元素个数，从 0 到 2^40（DeepSpeed 的 JSON 写法：5e8，或由 hidden_size 解析的 \"auto\"）",
            ))
        }
    }
}

impl crate::estimate::EstimateInput {
    /// The context-parallel size alone (the GPUs' default count reads it); 1 in a build
    /// without training, which reads no Megatron setting.
    pub(super) fn cp_size(&self) -> crate::error::Result<u64> {
        #[cfg(feature = "training")]
        return self.placement.cp.map_or(Ok(1), |c| int("cp", c, 1, 1024));
        #[cfg(not(feature = "training"))]
        Ok(1)
    }
}

#[cfg(feature = "training")]
impl EstimateInput {
    /// FSDP, DeepSpeed's buffers and Megatron's settings, checked against ZeRO, the offload and
    /// the GPUs.
    pub(super) fn resolve_sharding(
        &self,
        arch: &Architecture,
        zero: u8,
        par: &Parallel,
    ) -> Result<Sharding> {
        let [reduce, allgather, prefetch, max_live, persistence] = DEEPSPEED_DEFAULTS;
        let buckets = ZeroBucketSizes {
            reduce: elements(
                "reduce_bucket_size",
                self.training.reduce_bucket_size,
                reduce,
            )?,
            allgather: elements(
                "allgather_bucket_size",
                self.training.allgather_bucket_size,
                allgather,
            )?,
            prefetch: elements(
                "stage3_prefetch_bucket_size",
                self.training.stage3_prefetch_bucket_size,
                prefetch,
            )?,
            max_live: elements(
                "stage3_max_live_parameters",
                self.training.stage3_max_live_parameters,
                max_live,
            )?,
            persistence: elements(
                "stage3_param_persistence_threshold",
                self.training.stage3_param_persistence_threshold,
                persistence,
            )?,
            // DeepSpeed's `overlap_comm_valid`: true under ZeRO-3 when not given.
            overlap_comm: self.training.overlap_comm.unwrap_or(zero == 3),
        };
        let fsdp = self.resolve_fsdp(zero, par)?;
        let megatron = self.resolve_megatron(arch, zero, par, fsdp.is_some())?;
        Ok(Sharding {
            fsdp,
            buckets,
            megatron,
            no_shard: self.placement.fsdp_version.is_some() && fsdp.is_none() && zero == 0,
        })
    }

    fn resolve_fsdp(&self, zero: u8, par: &Parallel) -> Result<Option<Fsdp>> {
        let version = match self.placement.fsdp_version {
            // torchtune's distributed recipes: FSDP2 though the input names none.
            None if self.torchtune_fsdp2(par) => Some(FsdpVersion::V2),
            None => None,
            Some(v) => Some(match int("fsdp_version", v, 1, 2)? {
                1 => FsdpVersion::V1,
                _ => FsdpVersion::V2,
            }),
        };
        if version != Some(FsdpVersion::V2) && self.placement.reshard_after_forward.is_some() {
            return Err(input_error!(
                Unsupported,
                "reshard_after_forward",
                "reshard_after_forward is FSDP2's (fully_shard)",
                "reshard_after_forward 是 FSDP2（fully_shard）的参数",
                "with fsdp_version 2; FSDP1 says it with zero 3 (FULL_SHARD) or 2 (SHARD_GRAD_OP)",
                "配 fsdp_version 2；FSDP1 用 zero 3（FULL_SHARD）或 2（SHARD_GRAD_OP）表达",
            ));
        }
        let Some(version) = version else {
            if self.placement.reduce_dtype.is_some() && self.run.mode == Mode::Training {
                return Err(input_error!(
                    Conflict,
                    "reduce_dtype",
                    "reduce_dtype is FSDP's mixed precision, and the run has no FSDP",
                    "reduce_dtype 是 FSDP 混合精度的设置，而这次运行没有用 FSDP",
                    "left out without fsdp_version (DeepSpeed reduces in the 16-bit dtype)",
                    "不给 fsdp_version 时不给（DeepSpeed 以 16 位类型归约）",
                ));
            }
            return Ok(None);
        };
        if self.run.mode != Mode::Training {
            return Ok(Some(Fsdp {
                version,
                reshard_after_forward: zero != 2,
                reduce_dtype: None,
            }));
        }
        // FSDP1's NO_SHARD: data parallelism without a DDP bucket (the caller's `no_shard`).
        let no_shard =
            version == FsdpVersion::V1 && zero == 0 && self.placement.offload == Offload::None;
        if zero != 2 && zero != 3 && !no_shard {
            return Err(input_error!(
                Conflict,
                "zero",
                ["zero {zero} with FSDP, which shards parameters and gradients"],
                ["FSDP 下 zero 为 {zero}，而 FSDP 切分参数与梯度"],
                "3 (FULL_SHARD) or 2 (SHARD_GRAD_OP); FSDP1's NO_SHARD is zero 0 with fsdp_version 1, without offload; without FSDP leave fsdp_version out",
                "3（FULL_SHARD）或 2（SHARD_GRAD_OP）；FSDP1 的 NO_SHARD 为 zero 0 配 fsdp_version 1、不卸载；不用 FSDP 时不要给 fsdp_version",
            ));
        }
        let reshard = match (zero, self.placement.reshard_after_forward) {
            (2, Some(true)) => {
                return Err(input_error!(
                    Conflict,
                    "reshard_after_forward",
                    "reshard_after_forward true with zero 2 (SHARD_GRAD_OP keeps the parameters gathered until backward)",
                    "zero 2（SHARD_GRAD_OP 在反向前一直保留收集的参数）却设 reshard_after_forward 为 true",
                    "false with zero 2, or zero 3",
                    "zero 2 时为 false，或用 zero 3",
                ));
            }
            (_, Some(r)) => r,
            (z, None) => z == 3,
        };
        if matches!(
            self.placement.offload,
            Offload::OptimizerCpu | Offload::OptimizerNvme
        ) {
            // FSDP's `CPUOffload(offload_params=True)` / `CPUOffloadPolicy` moves the
            // parameters, gradients and optimizer states together: it has no optimizer-only
            // choice.
            return Err(input_error!(
                Unsupported,
                "offload",
                "optimizer-only offload with FSDP, which offloads the parameters with the optimizer states",
                "FSDP 下只卸载优化器状态，而 FSDP 连同参数一起卸载",
                "none or cpu with fsdp_version",
                "给出 fsdp_version 时为 none 或 cpu",
            ));
        }
        if self.placement.offload == Offload::Nvme {
            return Err(input_error!(
                Unsupported,
                "offload",
                "NVMe offload with FSDP, which offloads to CPU memory only",
                "FSDP 下卸载到 NVMe，而 FSDP 只卸载到 CPU 内存",
                "none or cpu with fsdp_version",
                "给出 fsdp_version 时为 none 或 cpu",
            ));
        }
        if par.pp > 1 {
            return Err(input_error!(
                Unsupported,
                "pp",
                "pipeline stages with FSDP: vramfit does not model FSDP with pipeline parallelism",
                "FSDP 配流水线并行：vramfit 未建模 FSDP 与流水线并行的组合",
                "1 with fsdp_version",
                "给出 fsdp_version 时为 1",
            ));
        }
        let deepspeed = [
            (
                "reduce_bucket_size",
                self.training.reduce_bucket_size.is_some(),
            ),
            (
                "allgather_bucket_size",
                self.training.allgather_bucket_size.is_some(),
            ),
            (
                "stage3_prefetch_bucket_size",
                self.training.stage3_prefetch_bucket_size.is_some(),
            ),
            (
                "stage3_max_live_parameters",
                self.training.stage3_max_live_parameters.is_some(),
            ),
            (
                "stage3_param_persistence_threshold",
                self.training.stage3_param_persistence_threshold.is_some(),
            ),
            ("overlap_comm", self.training.overlap_comm.is_some()),
        ];
        if let Some(&(field, _)) = deepspeed.iter().find(|(_, given)| *given) {
            return Err(input_error!(
                Conflict,
                field,
                ["{field} is DeepSpeed's, and the run is FSDP's"],
                ["{field} 是 DeepSpeed 的设置，而这次运行用 FSDP"],
                "left out with fsdp_version (FSDP has no such buffer)",
                "给出 fsdp_version 时不给（FSDP 没有这个缓冲区）",
            ));
        }
        let reduce_dtype = self.resolve_reduce_dtype()?;
        Ok((!no_shard).then_some(Fsdp {
            version,
            reshard_after_forward: reshard,
            reduce_dtype,
        }))
    }

    /// FSDP's `reduce_dtype`: fp32, bf16 or fp16; not given, verl's actor reduces in fp32
    /// (verl 0.9.1 `verl/workers/fsdp_workers.py`, `_build_model_optimizer`:
    /// `mixed_precision_config.get("reduce_dtype", "fp32")`, and `reduce_dtype = torch.float32`
    /// without `mixed_precision`), every other stack in the compute dtype (FSDP's default, as
    /// accelerate 1.16 builds its `MixedPrecision(param_dtype=dtype, reduce_dtype=dtype)` from
    /// `mixed_precision`).
    fn resolve_reduce_dtype(&self) -> Result<Option<crate::precision::Dtype>> {
        use crate::precision::Dtype;
        match self.placement.reduce_dtype {
            None if self.training.stack == Some(Stack::Verl) => Ok(Some(Dtype::Fp32)),
            None | Some(Dtype::Fp32 | Dtype::Bf16 | Dtype::Fp16) => Ok(self.placement.reduce_dtype),
            Some(d) => {
                let name = d.name();
                Err(input_error!(
                    OutOfRange,
                    "reduce_dtype",
                    ["{name}: FSDP reduces gradients in a float dtype"],
                    ["{name}：FSDP 以浮点类型归约梯度"],
                    "fp32, bf16 or fp16",
                    "fp32、bf16 或 fp16",
                ))
            }
        }
    }

    fn resolve_megatron(
        &self,
        arch: &Architecture,
        zero: u8,
        par: &Parallel,
        fsdp: bool,
    ) -> Result<Option<Megatron>> {
        let vp = self.placement.vp.map_or(Ok(1), |v| int("vp", v, 1, 1024))?;
        let cp = self.cp_size()?;
        // Megatron's regime: `--stack megatron`, or any of its own settings.
        if self.training.stack != Some(Stack::Megatron)
            && self.placement.vp.is_none()
            && self.placement.cp.is_none()
            && !self.placement.sequence_parallel
            && !self.placement.distributed_optimizer
            && self.training.recompute_method.is_none()
            && self.training.recompute_num_layers.is_none()
        {
            return Ok(None);
        }
        let (recompute_method, recompute_layers) = self.resolve_recompute(arch, par)?;
        let training = self.run.mode == Mode::Training;
        if training && vp > 1 && par.pp < 2 {
            return Err(input_error!(
                Conflict,
                "vp",
                ["{vp} virtual stages without pipeline stages"],
                ["没有流水线阶段却有 {vp} 个虚拟阶段"],
                "1, or pp of 2 or more (Megatron interleaves model chunks of a pipeline)",
                "1，或 pp 至少为 2（Megatron 在流水线中交错模型块）",
            ));
        }
        let per_stage = arch.num_layers / par.pp.max(1);
        if training && arch.is_detailed() && vp > per_stage.max(1) {
            return Err(input_error!(
                OutOfRange,
                "vp",
                ["{vp} virtual stages of {per_stage} layers per pipeline stage"],
                ["每个流水线阶段 {per_stage} 层，却有 {vp} 个虚拟阶段"],
                ["an integer from 1 to {per_stage} (layers / pp)"],
                ["整数，从 1 到 {per_stage}（层数 / pp）"],
            ));
        }
        if !par.dp.is_multiple_of(cp) {
            let (gpus, group) = (par.dp * par.tp * par.pp, par.tp * par.pp * cp);
            return Err(input_error!(
                Conflict,
                "gpus",
                ["{gpus} GPUs cannot be split into tp × pp × cp = {group} groups"],
                ["{gpus} 个 GPU 无法分成 tp × pp × cp = {group} 组"],
                ["a multiple of tp × pp × cp = {group}"],
                ["tp × pp × cp 的倍数，即 {group}"],
            ));
        }
        if training && self.placement.distributed_optimizer && (zero > 0 || fsdp) {
            return Err(input_error!(
                Conflict,
                "distributed_optimizer",
                "Megatron's distributed optimizer with ZeRO or FSDP, which shard the optimizer states themselves",
                "Megatron 的分布式优化器配 ZeRO 或 FSDP，而后者自己切分优化器状态",
                "false with zero 1–3 or fsdp_version; or zero 0 without fsdp_version",
                "zero 1–3 或给出 fsdp_version 时为 false；或 zero 为 0 且不给 fsdp_version",
            ));
        }
        Ok(Some(Megatron {
            vp,
            sequence_parallel: self.placement.sequence_parallel,
            cp,
            distributed_optimizer: self.placement.distributed_optimizer,
            recompute_method,
            recompute_layers,
        }))
    }

    /// `--recompute-method` and `--recompute-num-layers`: Megatron's, with
    /// `--recompute-granularity full` only (core_v0.19.0 `TransformerConfig.__post_init__`
    /// refuses them with `selective`); the layers from 1 to the layers per pipeline stage.
    fn resolve_recompute(
        &self,
        arch: &Architecture,
        par: &Parallel,
    ) -> Result<(crate::estimate::RecomputeMethod, u64)> {
        use crate::estimate::Checkpointing;
        let method = self.training.recompute_method.unwrap_or_default();
        let given = if self.training.recompute_method.is_some() {
            Some("recompute_method")
        } else if self.training.recompute_num_layers.is_some() {
            Some("recompute_num_layers")
        } else {
            None
        };
        if let Some(field) = given
            && self.run.mode == Mode::Training
            && self.training.grad_checkpointing != Checkpointing::Full
        {
            return Err(input_error!(
                Conflict,
                field,
                ["{field} without --recompute-granularity full"],
                ["没有 --recompute-granularity full 却给了 {field}"],
                "with grad_checkpointing full (--recompute-granularity full); Megatron refuses a recompute method or layer count with selective",
                "配 grad_checkpointing full（--recompute-granularity full）；Megatron 在 selective 下不接受重算方法或层数",
            ));
        }
        let per_stage = if arch.is_detailed() {
            (arch.num_layers / par.pp.max(1)).max(1)
        } else {
            1 << 20
        };
        let layers = match self.training.recompute_num_layers {
            None => 1,
            Some(n) => int("recompute_num_layers", n, 1, per_stage)?,
        };
        Ok((method, layers))
    }
}
