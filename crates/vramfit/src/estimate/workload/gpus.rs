//! The GPUs: ZeRO and its offload, how many GPUs and how the model is split over them (tp, pp,
//! dp, ep), and which card, with the dtype an engine's `auto` picks on it.

use super::checks::{check_ep, check_tp};
use super::int;
use crate::error::Result;
use crate::estimate::{Device, EstimateInput, Mode, Offload};
use crate::model::Architecture;
use crate::precision::Dtype;
use crate::units::{Bytes, MIB, parse_size};
use alloc::format;

/// How the model is split over the GPUs.
pub(super) struct Parallel {
    /// Tensor parallel.
    pub(super) tp: u64,
    /// Pipeline parallel.
    pub(super) pp: u64,
    /// Data parallel (`gpus / (tp × pp)`).
    pub(super) dp: u64,
    /// Expert parallel (1: none).
    pub(super) ep: u64,
    /// SGLang's DP attention groups (1: none).
    pub(super) dp_attention: u64,
}

impl EstimateInput {
    /// Whether torchtune's distributed recipes shard this run with FSDP2 though the input names
    /// no sharding: `full_finetune_distributed`, `lora_finetune_distributed` and
    /// `qat_distributed` (torchtune 0.6.1 `recipes/full_finetune_distributed.py`, `setup`:
    /// `training.shard_model(..., reshard_after_forward=cfg.get("fsdp_reshard_after_forward",
    /// True))`, `fully_shard` on every decoder layer and the root) shard every model they train,
    /// and torchtune runs on several GPUs only through them (its single-device recipes take
    /// one). Counted as whole copies, such a run would be over-estimated by the weights,
    /// gradients and states of all but one GPU.
    pub(super) fn torchtune_fsdp2(&self, par: &Parallel) -> bool {
        self.run.mode == Mode::Training
            && self.training.stack == Some(crate::estimate::Stack::Torchtune)
            && self.placement.fsdp_version.is_none()
            && self.placement.zero == 0.0
            && par.dp > 1
    }

    /// The ZeRO stage, with the offload it allows: stage 3 (FSDP2's full shard) for a torchtune
    /// run on several GPUs that names none ([`Self::torchtune_fsdp2`]).
    pub(super) fn resolve_training(&self, par: &Parallel) -> Result<u8> {
        let mode = self.run.mode;
        let zero = if self.torchtune_fsdp2(par) {
            3
        } else {
            int("zero", self.placement.zero, 0, 3)? as u8
        };
        // DeepSpeed offloads ZeRO's partitions; without ZeRO there is nothing to offload, and
        // the run would hold everything on the GPU while the input says otherwise. One
        // exception: torchao's `CPUOffloadOptimizer` on one GPU, as torchtune's single-device
        // recipes take it (`optimizer-cpu`: the states; `cpu`: `offload_gradients=True`, the
        // gradients too).
        let torchao = self.training.stack == Some(crate::estimate::Stack::Torchtune)
            && par.dp == 1
            && matches!(self.placement.offload, Offload::Cpu | Offload::OptimizerCpu);
        if mode == Mode::Training
            && zero == 0
            && self.placement.offload != Offload::None
            && !torchao
        {
            return Err(input_error!(
                Unsupported,
                "offload",
                "offload without ZeRO: DeepSpeed offloads the states ZeRO partitions",
                "没有 ZeRO 的卸载：DeepSpeed 只卸载 ZeRO 切分的状态",
                "none with zero 0, or zero 1, 2 or 3 (1 offloads the optimizer states, 2 the gradients too, 3 the weights too); on one GPU, `torchao.optim.CPUOffloadOptimizer`: `--stack torchtune` with `optimizer-cpu` (`cpu` with `offload_gradients`)",
                "zero 为 0 时只能是 none；或 zero 为 1、2、3（1 卸载优化器状态，2 还卸载梯度，3 还卸载权重）；单卡上用 `torchao.optim.CPUOffloadOptimizer`：`--stack torchtune` 配 `optimizer-cpu`（`cpu` 即开启 `offload_gradients`）",
            ));
        }
        // ZeRO-Infinity's NVMe offload is a stage-3 feature (DeepSpeed's tests skip it with "Nvme
        // offload not supported for zero stage" below 3).
        if mode == Mode::Training && zero < 3 && self.placement.offload.nvme() {
            return Err(input_error!(
                Unsupported,
                "offload",
                ["NVMe offload with ZeRO-{zero}: DeepSpeed offloads to NVMe only under ZeRO-3"],
                ["NVMe 卸载配 ZeRO-{zero}：DeepSpeed 只在 ZeRO-3 下卸载到 NVMe"],
                "cpu or optimizer-cpu with zero 1, 2 or 3; nvme or optimizer-nvme with zero 3",
                "zero 为 1、2、3 时用 cpu 或 optimizer-cpu；zero 为 3 时用 nvme 或 optimizer-nvme",
            ));
        }
        Ok(zero)
    }

    /// The GPUs and their tensor, pipeline, data and expert parallel groups.
    pub(super) fn resolve_parallel(&self, arch: &Architecture) -> Result<Parallel> {
        let tp = int("tp", self.placement.tp, 1, 1024)?;
        let pp = int("pp", self.placement.pp, 1, 1024)?;
        // One model copy over tp × pp GPUs unless the input says how many (vLLM's
        // `--tensor-parallel-size 2` alone means two GPUs).
        let gpus_n = match self.placement.gpus {
            Some(g) => int("gpus", g, 1, 65_536)?,
            // Megatron's context parallel multiplies the GPUs of one model copy.
            None => tp * pp * self.cp_size()?,
        };
        if gpus_n % (tp * pp) != 0 {
            // Fewer GPUs than one tensor × pipeline group (`--tp 2` alone) or a count that does
            // not divide into such groups.
            let (few, group) = (gpus_n < tp * pp, tp * pp);
            return Err(input_error!(
                Conflict,
                "gpus",
                [= if few {
                    format!(
                        "{gpus_n} GPU{} for tp = {tp} × pp = {pp}, which needs {group} per model copy",
                        if gpus_n == 1 { "" } else { "s" },
                    )
                } else {
                    format!("{gpus_n} GPUs cannot be split into tp = {tp} × pp = {pp} groups")
                }],
                [= if few {
                    format!(
                        "{gpus_n} 个 GPU，而 tp = {tp} × pp = {pp}，每份模型副本需要 {group} 个"
                    )
                } else {
                    format!("{gpus_n} 个 GPU 无法分成 tp = {tp} × pp = {pp} 组")
                }],
                ["a multiple of tp × pp = {group}"],
                ["tp × pp 的倍数，即 {group}"],
            ));
        }
        if arch.is_detailed() && pp > arch.num_layers.max(1) {
            let layers = arch.num_layers;
            return Err(input_error!(
                OutOfRange,
                "pp",
                ["{pp} stages for {layers} layers"],
                ["{pp} 个流水线阶段，而层数只有 {layers} 层"],
                ["an integer from 1 to {layers}"],
                ["整数，从 1 到 {layers}"],
            ));
        }
        check_tp(arch, tp)?;
        let rules = self.runner().rules();
        if tp > 1 && rules.offload.splits_layers() {
            let name = rules.name;
            return Err(input_error!(
                Unsupported,
                "tp",
                ["tp = {tp} with {name}, which splits whole layers across GPUs"],
                ["tp = {tp} 配 {name}，而 {name} 按整层把模型分到各 GPU"],
                ["1 with {name}: give gpus to split its layers"],
                ["{name} 下为 1：用 gpus 切分它的层"],
            ));
        }
        let dp = gpus_n / (tp * pp);
        let ep = check_ep(arch, rules, int("ep", self.placement.ep, 1, 1024)?, tp * dp)?;
        let dp_attention = self.resolve_dp_attention(arch, rules, tp)?;
        Ok(Parallel {
            tp,
            pp,
            dp,
            ep,
            dp_attention,
        })
    }

    /// The card: a catalog's GPU, a memory size, or none.
    pub(super) fn resolve_device(&self, gpus: super::GpuLookup<'_>) -> Result<Option<Device>> {
        Ok(match (&self.hardware.gpu, &self.hardware.gpu_memory) {
            (Some(_), Some(_)) => {
                return Err(input_error!(
                    Conflict,
                    "gpu",
                    "both a GPU and a GPU memory size given",
                    "同时给出了 GPU 与 GPU 显存大小",
                    "one of gpu (a catalog id) or gpu_memory (a size such as 80GB)",
                    "gpu（目录中的 id）与 gpu_memory（如 80GB 的大小）二者之一",
                ));
            }
            (Some(id), None) => Some(gpus(id.trim()).ok_or_else(|| {
                // Why the catalog does not name it (nothing, or several cards), or, for a lookup
                // of the caller's own, that it does not.
                crate::gpu::lookup_gpu("gpu", id).err().unwrap_or_else(|| {
                    let id = id.trim();
                    input_error!(
                        UnknownGpu,
                        "gpu",
                        ["no GPU named `{id}`"],
                        ["没有这个 GPU：`{id}`"],
                        "a GPU of the given catalog",
                        "所给目录中的 GPU",
                    )
                })
            })?),
            (None, Some(m)) => {
                let memory = parse_size("gpu_memory", m)?;
                if memory.get() < 256 * MIB {
                    return Err(input_error!(
                        OutOfRange,
                        "gpu_memory",
                        ["{} is too small for a GPU", memory.display_auto()],
                        ["{} 对 GPU 来说太小", memory.display_auto()],
                        "a size from 256 MiB to 1 PiB",
                        "256 MiB 到 1 PiB 的大小",
                    ));
                }
                Some(Device {
                    id: "custom",
                    gpu: None,
                    memory,
                    hopper_or_newer: true,
                    a100: false,
                    bf16: true,
                    fp8: true,
                    fp4: true,
                    in_use: Bytes::ZERO,
                })
            }
            (None, None) => None,
        })
    }

    /// The dtype run, and whether the engine's `auto` downcasts an fp32 checkpoint to it.
    pub(super) fn run_dtype(
        &self,
        dtype: Dtype,
        arch: &Architecture,
        device: Option<&Device>,
    ) -> (Dtype, bool) {
        use crate::estimate::engine::Fp32Auto;
        let rules = self.runner().rules();
        // vLLM's and SGLang's dtype "auto" downcast an fp32 checkpoint ([`Fp32Auto`]).
        let downcast = self.run.dtype.is_none()
            && dtype == Dtype::Fp32
            && arch.is_detailed()
            && rules.fp32_auto != Fp32Auto::Keeps;
        let dtype = match rules.fp32_auto {
            // TEI: float16 whatever the checkpoint (a bf16 one too) when --dtype is not given.
            Fp32Auto::Fp16Always if self.run.dtype.is_none() => Dtype::Fp16,
            _ if !downcast => dtype,
            Fp32Auto::Vllm if arch.is_generative() && device.is_none_or(|d| d.bf16) => Dtype::Bf16,
            _ => Dtype::Fp16,
        };
        (dtype, downcast)
    }
}
