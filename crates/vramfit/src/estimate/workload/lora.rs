//! LoRA adapter slots of a serving engine (`enable_lora`): vLLM's `--max-loras`,
//! `--max-lora-rank`, `--max-cpu-loras`, checked as vLLM's `LoRAConfig` checks them
//! (`vllm/config/lora.py`, v0.12.0 to v0.34.0); SGLang's `--max-loras-per-batch`,
//! `--max-lora-rank`, `--lora-target-modules`, `--max-loaded-loras`, checked as SGLang 0.5.23's
//! `check_lora_server_args` checks them (`arg_groups/lora_hook.py`). Each engine's own
//! spellings and defaults are its [`LoraRules`], in its module.

use super::int;
use crate::error::Result;
use crate::estimate::{EstimateInput, VllmVersion};
use crate::model::Architecture;

/// vLLM's `MaxLoRARanks` (`vllm/config/lora.py`, v0.12.0 to v0.34.0).
pub const VLLM_LORA_RANKS: [u64; 9] = [1, 8, 16, 32, 64, 128, 256, 320, 512];

/// The first release whose slots vramfit counts: 0.12.0 removed `lora_extra_vocab_size`,
/// whose extra embedding rows the earlier releases added to the embedding and the LM head.
pub const VLLM_LORA_FROM: VllmVersion = VllmVersion::new(12, Some(0));

/// The modules that hold a slot: the stacked projections of each decoder layer, and the
/// embedding and the LM head beside them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoraTargets {
    /// `q_proj`, `k_proj`, `v_proj`: any of them allocates the merged `qkv_proj`'s slot.
    pub qkv: bool,
    /// `o_proj`.
    pub o: bool,
    /// `gate_proj`, `up_proj`: either allocates the merged `gate_up_proj`'s slot.
    pub gate_up: bool,
    /// `down_proj`.
    pub down: bool,
    /// `embed_tokens`.
    pub embed: bool,
    /// `lm_head`.
    pub lm_head: bool,
}

impl LoraTargets {
    /// Every linear layer, the embedding and the LM head: vLLM's slots, SGLang's `all`.
    pub const ALL: LoraTargets = LoraTargets {
        qkv: true,
        o: true,
        gate_up: true,
        down: true,
        embed: true,
        lm_head: true,
    };
}

/// How a serving engine allocates LoRA slots: its settings' names and defaults, its checks, and
/// the shapes it gives the slots.
#[derive(Debug)]
pub struct LoraRules {
    /// The engine, as its users write it.
    pub engine: &'static str,
    /// Its flag for the adapters of one batch (`max_loras`).
    pub max_loras_flag: &'static str,
    /// Its flag for the adapters cached in CPU memory (`max_cpu_loras`).
    pub cpu_flag: &'static str,
    /// Adapters of one batch when not given.
    pub default_max_loras: u64,
    /// The ranks it accepts (`None`: any from 1 to 1024).
    pub ranks: Option<&'static [u64]>,
    /// The rank when not given (`None`: it must be given; SGLang reads it from the adapters of
    /// `--lora-paths`, which vramfit does not see).
    pub default_rank: Option<u64>,
    /// Whether it reads `lora_targets` (SGLang's `--lora-target-modules`); otherwise every
    /// module holds a slot.
    pub reads_targets: bool,
    /// The first release whose slots are counted (vLLM's; `None`: every release).
    pub from_version: Option<VllmVersion>,
    /// Whether the LM head's B is split over the tensor-parallel GPUs like the head itself
    /// (SGLang), or whole on each (vLLM).
    pub lm_head_b_over_tp: bool,
    /// Whether every GPU allocates every layer's slots whatever the pipeline stage (SGLang's
    /// pool loops over `num_hidden_layers`), or its stage's layers (vLLM).
    pub every_layer: bool,
}

/// The LoRA slots a server allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoraSlots {
    /// `max_loras` (SGLang `max_loras_per_batch`): the adapters of one batch, each a slot on the
    /// GPU.
    pub max_loras: u64,
    /// `max_lora_rank`: the rank every slot is allocated at.
    pub max_lora_rank: u64,
    /// `max_cpu_loras` (SGLang `max_loaded_loras`): adapters cached in CPU memory (host memory
    /// only).
    pub max_cpu_loras: u64,
    /// The modules that hold a slot.
    pub targets: LoraTargets,
    /// Whether the targets were given (SGLang), or every module was assumed.
    pub targets_given: bool,
}

/// SGLang's `--lora-target-modules` as a set of slots, in its own spellings
/// (`SUPPORTED_LORA_TARGET_MODULES` of a dense decoder, the merged names, and `all`).
fn sglang_targets(given: &[alloc::string::String]) -> Result<LoraTargets> {
    if given.is_empty() || given.iter().any(|t| t.trim() == "all") {
        return Ok(LoraTargets::ALL);
    }
    let mut t = LoraTargets {
        qkv: false,
        o: false,
        gate_up: false,
        down: false,
        embed: false,
        lm_head: false,
    };
    for name in given {
        match name.trim() {
            "q_proj" | "k_proj" | "v_proj" | "qkv_proj" => t.qkv = true,
            "o_proj" => t.o = true,
            "gate_proj" | "up_proj" | "gate_up_proj" => t.gate_up = true,
            "down_proj" => t.down = true,
            "embed_tokens" => t.embed = true,
            "lm_head" => t.lm_head = true,
            other => {
                return Err(input_error!(
                    UnknownName,
                    "lora_targets",
                    ["`{other}` is not a module SGLang gives a LoRA slot in a dense decoder"],
                    ["`{other}` 不是 SGLang 在稠密解码器中分配 LoRA 槽位的模块"],
                    "q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, embed_tokens, lm_head, or all",
                    "q_proj、k_proj、v_proj、o_proj、gate_proj、up_proj、down_proj、embed_tokens、lm_head 或 all",
                ));
            }
        }
    }
    Ok(t)
}

impl EstimateInput {
    /// `enable_lora` and its settings, as the serving engine's [`LoraRules`] check them: a
    /// dense decoder, the engine's ranks and release; the settings only with `enable_lora`.
    pub(super) fn resolve_lora(
        &self,
        arch: &Architecture,
        version: VllmVersion,
    ) -> Result<Option<LoraSlots>> {
        if !self.serving.enable_lora {
            for (field, given) in [
                ("max_loras", self.serving.max_loras),
                ("max_lora_rank", self.serving.max_lora_rank),
                ("max_cpu_loras", self.serving.max_cpu_loras),
            ] {
                if given.is_some() {
                    return Err(input_error!(
                        Conflict,
                        field,
                        ["{field} is read with enable_lora only"],
                        ["{field} 仅在 enable_lora 开启时读取"],
                        "enable_lora on (vLLM or SGLang --enable-lora), or no LoRA setting",
                        "开启 enable_lora（vLLM 或 SGLang --enable-lora），或不设 LoRA 参数",
                    ));
                }
            }
            return Ok(None);
        }
        let Some(rules) = self.runner().lora_rules() else {
            let name = self.runner().rules().name;
            return Err(input_error!(
                Unsupported,
                "enable_lora",
                ["LoRA adapter slots are modelled for vLLM and SGLang serving, not {name}"],
                ["LoRA 适配器槽位仅对 vLLM 与 SGLang 服务部署建模，不含 {name}"],
                "mode serve with engine vllm or sglang, or enable_lora off",
                "serve 模式并选 vllm 或 sglang 引擎，或关闭 enable_lora",
            ));
        };
        if let Some(from) = rules.from_version
            && version < from
        {
            return Err(input_error!(
                Unsupported,
                "enable_lora",
                ["LoRA slots of vLLM {version} are not modelled (its lora_extra_vocab_size rows)"],
                ["未建模 vLLM {version} 的 LoRA 槽位（其 lora_extra_vocab_size 额外词表行）"],
                "engine_version 0.12 or later with enable_lora",
                "enable_lora 时 engine_version 为 0.12 或更新",
            ));
        }
        check_dense(arch)?;
        let max_loras = match self.serving.max_loras {
            Some(v) => int("max_loras", v, 1, 1024)?,
            None => rules.default_max_loras,
        };
        let max_lora_rank = self.lora_rank_of(rules)?;
        let max_cpu_loras = match self.serving.max_cpu_loras {
            Some(v) => {
                let n = int("max_cpu_loras", v, 1, 1 << 20)?;
                if n < max_loras {
                    let (engine, flag, cpu) = (rules.engine, rules.max_loras_flag, rules.cpu_flag);
                    return Err(input_error!(
                        Conflict,
                        "max_cpu_loras",
                        ["{n} ({engine} {cpu}) is fewer than max_loras {max_loras} ({flag})"],
                        ["{n}（{engine} {cpu}）小于 max_loras {max_loras}（{flag}）"],
                        ["at least max_loras ({engine}'s own check)"],
                        ["不小于 max_loras（{engine} 自身的检查）"],
                    ));
                }
                n
            }
            None => max_loras,
        };
        let (targets, targets_given) = if rules.reads_targets {
            (
                sglang_targets(&self.training.lora_targets)?,
                !self.training.lora_targets.is_empty(),
            )
        } else {
            (LoraTargets::ALL, false)
        };
        Ok(Some(LoraSlots {
            max_loras,
            max_lora_rank,
            max_cpu_loras,
            targets,
            targets_given,
        }))
    }

    /// `max_lora_rank` as the engine takes it: one of its ranks, or its default.
    fn lora_rank_of(&self, rules: &LoraRules) -> Result<u64> {
        let engine = rules.engine;
        let Some(v) = self.serving.max_lora_rank else {
            return rules.default_rank.ok_or_else(|| {
                input_error!(
                    Missing,
                    "max_lora_rank",
                    ["{engine} takes the largest rank of the adapters given with --lora-paths, which vramfit does not read"],
                    ["{engine} 取 --lora-paths 所给适配器中最大的秩，vramfit 读不到这些适配器"],
                    "the largest rank among your adapters, 1 to 1024 (SGLang --max-lora-rank)",
                    "你的适配器中最大的秩，1 到 1024（SGLang --max-lora-rank）",
                )
            });
        };
        let r = int("max_lora_rank", v, 1, 1024)?;
        if rules.ranks.is_some_and(|ranks| !ranks.contains(&r)) {
            return Err(input_error!(
                OutOfRange,
                "max_lora_rank",
                ["{r} is not one of {engine}'s ranks"],
                ["{r} 不是 {engine} 接受的秩"],
                "1, 8, 16, 32, 64, 128, 256, 320 or 512",
                "1、8、16、32、64、128、256、320 或 512",
            ));
        }
        Ok(r)
    }
}

/// LoRA slots are modelled for dense decoders (attention and MLP projections).
fn check_dense(arch: &Architecture) -> Result<()> {
    let dense = arch.is_detailed()
        && arch.is_generative()
        && arch.encoder_layers == 0
        && arch.moe.is_none()
        && arch.mla.is_none()
        && arch.hybrid.is_none()
        && arch.indexer.is_none();
    if dense {
        return Ok(());
    }
    Err(input_error!(
        Unsupported,
        "enable_lora",
        "LoRA slots are modelled for dense decoders only (attention and MLP projections); this model has routed experts, MLA, state layers, an encoder, or no known layers",
        "LoRA 槽位仅对稠密解码器建模（注意力与 MLP 投影）；此模型含路由专家、MLA、状态层、编码器，或层结构未知",
        "a dense decoder model, or enable_lora off",
        "稠密解码器模型，或关闭 enable_lora",
    ))
}
