//! The training stack's regimes: the loss's form, the optimizer's step, activation offload,
//! packing and a quantized base's upcast, each as given or as the stack's defaults pick it
//! ([`training::stacks`](crate::estimate::training)).

#[cfg(feature = "training")]
use super::int;
use crate::error::Result;
use crate::estimate::training::stacks::{self, GALORE_RANK, StackDefaults};
#[cfg(feature = "training")]
use crate::estimate::{Checkpointing, Mode, Optimizer};
use crate::estimate::{EstimateInput, Loss, Stack};

/// The regimes of a training run, resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Regimes {
    /// The stack given (`None`: transformers' `Trainer`).
    pub stack: Option<Stack>,
    /// The loss's form.
    pub loss: Loss,
    /// `chunked`: the chunks.
    pub loss_chunks: u64,
    /// torch.optim's foreach step.
    pub foreach: bool,
    /// The step inside backward, per parameter.
    pub optimizer_in_backward: bool,
    /// Saved activations (or checkpoints) in CPU memory.
    pub activation_offload: bool,
    /// Packed sequences.
    pub packing: bool,
    /// A quantized base's unquantized parameters cast to fp32.
    pub kbit_upcast: bool,
    /// The knobs the stack's defaults set (the run did not state them).
    pub from_stack: FromStack,
    /// The loss under `torch.compile`: no fp32 copy of the logits saved.
    pub compile: bool,
    /// GaLore's projection rank.
    pub galore_rank: u64,
    /// LoRA's dropout probability: above 0 each adapted module keeps a mask and its own input.
    pub lora_dropout: f64,
}

/// Which knobs came from the stack's defaults, for the estimate's notes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FromStack {
    /// The loss (and its chunks).
    pub loss: bool,
    /// Activation offload.
    pub activation_offload: bool,
    /// The stack checkpoints by default and the run does not: said in a note, not changed.
    pub checkpointing: bool,
    /// The upcast rule.
    pub kbit_upcast: bool,
    /// LoRA's dropout (the stack's is above 0).
    pub lora_dropout: bool,
}

impl Default for Regimes {
    fn default() -> Self {
        Regimes {
            stack: None,
            loss: Loss::Full,
            loss_chunks: 8,
            foreach: true,
            optimizer_in_backward: false,
            activation_offload: false,
            packing: false,
            kbit_upcast: true,
            compile: false,
            galore_rank: GALORE_RANK,
            lora_dropout: 0.0,
            from_stack: FromStack::default(),
        }
    }
}

impl Regimes {
    /// The stack's defaults (transformers' `Trainer`'s without a stack).
    pub fn defaults(&self) -> StackDefaults {
        self.stack.map_or(stacks::TRAINER, stacks::defaults)
    }
}

impl EstimateInput {
    /// The run's regimes where this build has training; without it (the site's calculator,
    /// which refuses a training run) the defaults, which no run it estimates reads.
    pub(super) fn regimes_in_build(&self) -> Result<Regimes> {
        #[cfg(feature = "training")]
        return self.resolve_regimes();
        #[cfg(not(feature = "training"))]
        Ok(Regimes::default())
    }
}

#[cfg(feature = "training")]
impl EstimateInput {
    /// The regimes as given, the stack's defaults filling what is not.
    pub(super) fn resolve_regimes(&self) -> Result<Regimes> {
        let d = self
            .training
            .stack
            .map_or(stacks::TRAINER, stacks::defaults);
        let mut from = FromStack::default();
        let loss = match self.training.loss {
            Some(l) => l,
            None => {
                from.loss = self.training.stack.is_some() && d.loss != Loss::Full;
                d.loss
            }
        };
        let loss_chunks = match self.training.loss_chunks {
            Some(c) => int("loss_chunks", c, 1, 1024)?,
            None => d.loss_chunks,
        };
        let training = self.run.mode == Mode::Training;
        if training && self.training.loss_chunks.is_some() && loss != Loss::Chunked {
            let name = loss.name();
            return Err(input_error!(
                Conflict,
                "loss_chunks",
                ["loss_chunks with the {name} loss: only the chunked loss has chunks"],
                ["loss_chunks 配 {name} 损失：只有分块损失有分块数"],
                "loss chunked (torchtune's num_output_chunks), or no loss_chunks",
                "loss 为 chunked（torchtune 的 num_output_chunks），或不给 loss_chunks",
            ));
        }
        // torchtune's distributed recipes step in backward under FSDP2 too
        // (`full_finetune_distributed.py`, `optimizer_in_bwd`); DeepSpeed cannot.
        if training
            && self.training.optimizer_in_backward
            && self.placement.zero != 0.0
            && self.placement.fsdp_version.is_none()
        {
            return Err(input_error!(
                Conflict,
                "optimizer_in_backward",
                "the optimizer in backward under DeepSpeed ZeRO, which steps after its gradient reduction",
                "ZeRO 下在反向中执行优化器：DeepSpeed 在梯度归约之后才更新",
                "zero 0 (torchtune's optimizer_in_bwd), or optimizer_in_backward false",
                "zero 为 0（torchtune 的 optimizer_in_bwd），或 optimizer_in_backward 为 false",
            ));
        }
        let activation_offload = match self.training.activation_offload {
            Some(o) => o,
            None => {
                from.activation_offload = d.activation_offload;
                d.activation_offload
            }
        };
        // A stack that checkpoints by default, run here without: said, not changed (the
        // run's `grad_checkpointing` is what it states).
        from.checkpointing =
            d.checkpointing && self.training.grad_checkpointing == Checkpointing::None;
        let kbit_upcast = match self.training.kbit_upcast {
            Some(u) => u,
            None => {
                from.kbit_upcast = self.training.stack.is_some() && !d.kbit_upcast;
                d.kbit_upcast
            }
        };
        let galore = matches!(
            self.training.optimizer,
            Optimizer::GaloreAdamw | Optimizer::GaloreAdamw8bit
        );
        let galore_rank = match self.training.galore_rank {
            Some(_) if training && !galore => {
                return Err(input_error!(
                    Conflict,
                    "galore_rank",
                    "galore_rank without a GaLore optimizer: only GaLore projects its gradients",
                    "galore_rank 未配 GaLore 优化器：只有 GaLore 投影梯度",
                    "optimizer galore-adamw or galore-adamw-8bit, or no galore_rank",
                    "optimizer 为 galore-adamw 或 galore-adamw-8bit，或不给 galore_rank",
                ));
            }
            Some(r) => int("galore_rank", r, 1, 65_536)?,
            None => GALORE_RANK,
        };
        let lora_dropout = match self.training.lora_dropout {
            Some(p) if p.is_finite() && (0.0..1.0).contains(&p) => p,
            Some(p) => {
                let p = crate::units::number_text(p);
                return Err(input_error!(
                    OutOfRange,
                    "lora_dropout",
                    ["{p} is not a dropout probability: from 0 to under 1"],
                    ["{p} 不是丢弃概率：应在 0 到 1 之间（不含 1）"],
                    "0 to 0.99 (PEFT's lora_dropout; 0: no dropout)",
                    "0 到 0.99（PEFT 的 lora_dropout；0 即不丢弃）",
                ));
            }
            None => {
                from.lora_dropout = self.training.stack.is_some() && d.lora_dropout > 0.0;
                d.lora_dropout
            }
        };
        Ok(Regimes {
            galore_rank,
            lora_dropout,
            stack: self.training.stack,
            loss,
            loss_chunks,
            foreach: self.training.foreach,
            optimizer_in_backward: self.training.optimizer_in_backward,
            activation_offload,
            packing: self.training.packing,
            kbit_upcast,
            compile: self.training.compile,
            from_stack: from,
        })
    }
}
