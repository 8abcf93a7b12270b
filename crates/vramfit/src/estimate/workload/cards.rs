//! Cards that are not alike (`cards`) and llama.cpp's split over several GPUs (`tensor_split`,
//! `split_mode`, `main_gpu`): the list read into devices, alike cards turned back into `gpu` ×
//! `gpus`, and the engines that cannot split a run over unlike cards refused with the card that
//! limits them.

use super::{GpuLookup, ModelLookup, Workload, int};
use crate::error::Result;
use crate::estimate::{Device, EstimateInput, SplitMode, UnlikeCards};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The most GPUs a list of cards may name (llama.cpp's `LLAMA_MAX_DEVICES` is 16; a list past 64
/// is a mistake).
pub const MAX_CARDS: u64 = 64;

/// One entry of a card list: a count and a card (`2x4090` is 2 × `4090`; `rtx-3090` is 1 ×
/// itself). The count is a whole number from 1 written before an `x` or `×`.
pub fn card_count(entry: &str) -> (Option<u64>, &str) {
    let e = entry.trim();
    let split = e
        .char_indices()
        .find(|&(_, c)| c == 'x' || c == 'X' || c == '×');
    if let Some((i, c)) = split {
        let (n, rest) = (&e[..i], &e[i + c.len_utf8()..]);
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !rest.trim().is_empty() {
            return (n.parse().ok().or(Some(u64::MAX)), rest.trim());
        }
    }
    (None, e)
}

/// A card list as the CLI and the site write it, `rtx-3090,rtx-3060` or `2x4090`: its entries,
/// trimmed, empty ones dropped.
pub fn split_card_list(text: &str) -> Vec<String> {
    text.split([',', '+'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(ToString::to_string)
        .collect()
}

impl EstimateInput {
    /// The devices `cards` names, in order, each count expanded.
    pub(super) fn card_devices(&self, gpus: GpuLookup<'_>) -> Result<Vec<Device>> {
        let mut out: Vec<Device> = Vec::new();
        for entry in &self.hardware.cards {
            let (count, name) = card_count(entry);
            let n = match count {
                Some(n) if (1..=MAX_CARDS).contains(&n) => n,
                Some(_) => {
                    return Err(input_error!(
                        OutOfRange,
                        "cards",
                        ["`{entry}`: a count out of range"],
                        ["`{entry}`：数量超出范围"],
                        ["a count from 1 to {MAX_CARDS} before x (2x4090)"],
                        ["x 前为 1 到 {MAX_CARDS} 的数量（如 2x4090）"],
                    ));
                }
                None => 1,
            };
            if name.is_empty() {
                return Err(input_error!(
                    Missing,
                    "cards",
                    "an empty card name",
                    "卡名为空",
                    "catalog cards separated by commas (rtx-3090,rtx-3060) or a count (2x4090)",
                    "以逗号分隔的目录中的卡（rtx-3090,rtx-3060），或带数量（2x4090）",
                ));
            }
            let d = gpus(name).ok_or_else(|| {
                crate::gpu::lookup_gpu("cards", name)
                    .err()
                    .unwrap_or_else(|| {
                        input_error!(
                            UnknownGpu,
                            "cards",
                            ["no GPU named `{name}`"],
                            ["没有这个 GPU：`{name}`"],
                            "a GPU of the given catalog",
                            "所给目录中的 GPU",
                        )
                    })
            })?;
            if out.len() as u64 + n > MAX_CARDS {
                return Err(input_error!(
                    OutOfRange,
                    "cards",
                    "more cards than one run takes",
                    "卡数超过一次运行所能用的数量",
                    ["at most {MAX_CARDS} GPUs in all"],
                    ["总共最多 {MAX_CARDS} 个 GPU"],
                ));
            }
            for _ in 0..n {
                out.push(d.clone());
            }
        }
        Ok(out)
    }

    /// A run over `cards`: alike cards are `gpu` × `gpus` exactly as before; unlike ones run on
    /// an engine that splits whole layers by card, else are refused with the card that limits.
    pub(super) fn resolve_cards(
        &self,
        models: ModelLookup<'_>,
        gpus: GpuLookup<'_>,
    ) -> Result<Workload> {
        if self.hardware.gpu.is_some() || self.hardware.gpu_memory.is_some() {
            let other = if self.hardware.gpu.is_some() {
                "gpu"
            } else {
                "gpu_memory"
            };
            return Err(input_error!(
                Conflict,
                "cards",
                ["both cards and {other} given"],
                ["同时给出了 cards 与 {other}"],
                "cards (a list of GPUs) or gpu with gpus, not both",
                "cards（GPU 列表）或 gpu 加 gpus，二者之一",
            ));
        }
        let devices = self.card_devices(gpus)?;
        let n = devices.len() as u64;
        if let Some(g) = self.placement.gpus
            && g != n as f64
        {
            let g = crate::units::number_text(g);
            return Err(input_error!(
                Conflict,
                "gpus",
                ["gpus = {g} but the cards name {n}"],
                ["gpus = {g}，而 cards 列出了 {n} 个"],
                ["{n}, or no gpus: the cards' count is the GPUs"],
                ["{n}，或不给 gpus：cards 的数量即 GPU 数"],
            ));
        }
        let first = devices.first().map(|d| d.id).unwrap_or_default();
        let mut alike = self.clone();
        alike.hardware.cards = Vec::new();
        alike.hardware.gpu = Some(first.to_string());
        alike.placement.gpus = Some(n as f64);
        if devices.iter().all(|d| d.id == first) {
            return alike.resolve_with(models, gpus);
        }
        self.refuse_unlike(&devices)?;
        let mut w = alike.resolve_alike(models, gpus)?;
        if self.serving.max_model_len.is_none() {
            // Ollama's default num_ctx follows every card's memory together, not n of the
            // first's.
            let vram = devices
                .iter()
                .fold(0u64, |s, d| s.saturating_add(d.memory.get()));
            w.max_model_len = self.runner().default_context(
                w.seq_len.saturating_add(w.new_tokens),
                w.batch,
                Some(vram),
                w.arch.max_position_embeddings,
                w.max_model_len,
            );
        }
        let mut devices = devices;
        self.in_use_on_cards(&mut devices)?;
        w.cards = devices;
        self.resolve_split(&mut w)?;
        Ok(w)
    }

    /// Unlike cards on an engine that does not split layers by card: the error, naming the
    /// smallest card, which decides for every rank.
    fn refuse_unlike(&self, devices: &[Device]) -> Result<()> {
        let rules = self.runner().rules();
        let name = rules.name;
        let Some(small) = devices.iter().min_by_key(|d| d.memory) else {
            return Ok(());
        };
        let (id, memory) = (small.id, small.memory.display_auto());
        match rules.unlike_cards {
            UnlikeCards::SplitsLayers | UnlikeCards::OwnPlan => Ok(()),
            UnlikeCards::EqualShards => Err(input_error!(
                Unsupported,
                "cards",
                [
                    "cards that are not alike with {name}: tensor and data parallelism give every GPU an equal shard and {name} sizes its memory from each rank's own, so the smallest card, {id} ({memory}), limits every GPU"
                ],
                [
                    "{name} 配不同型号的卡：张量并行与数据并行给每个 GPU 相同的一份，{name} 按各进程自身的显存定大小，所以最小的卡 {id}（{memory}）限制了所有 GPU"
                ],
                [
                    "alike cards (as many {id} as you have GPUs), or llama.cpp, which gives each card its own share of the layers"
                ],
                ["相同的卡（与 GPU 数相同个 {id}），或用 llama.cpp，它按卡分配各自的层"],
            )),
            UnlikeCards::NotFollowed => Err(input_error!(
                Unsupported,
                "cards",
                [
                    "cards that are not alike with {name}: vramfit does not follow {name}'s spread of layers over unlike cards yet"
                ],
                ["{name} 配不同型号的卡：vramfit 尚未按 {name} 在不同卡上分配层的方式计算"],
                "alike cards, or llama.cpp with its tensor split (-ts)",
                "相同的卡，或用 llama.cpp 及其 tensor split（-ts）",
            )),
        }
    }

    /// Whether any of llama.cpp's split settings (`tensor_split`, `split_mode`, `main_gpu`) is
    /// given.
    pub(super) fn split_given(&self) -> bool {
        !self.placement.tensor_split.is_empty()
            || self.placement.split_mode != SplitMode::Layer
            || self.placement.main_gpu != 0.0
    }

    /// llama.cpp's `tensor_split`, `split_mode` and `main_gpu` onto `w`: checked against the
    /// engine and the GPUs; `none` puts the whole model on the main GPU.
    pub(super) fn resolve_split(&self, w: &mut Workload) -> Result<()> {
        if !self.split_given() {
            return Ok(());
        }
        let rules = self.runner().rules();
        if rules.unlike_cards != UnlikeCards::SplitsLayers {
            let (field, name) = if !self.placement.tensor_split.is_empty() {
                ("tensor_split", "-ts")
            } else if self.placement.split_mode != SplitMode::Layer {
                ("split_mode", "-sm")
            } else {
                ("main_gpu", "-mg")
            };
            let engine = rules.name;
            return Err(input_error!(
                Unsupported,
                field,
                ["{field} ({name}) is llama.cpp's; {engine} does not take it"],
                ["{field}（{name}）是 llama.cpp 的设置；{engine} 不接受"],
                "engine llamacpp, or no such setting",
                "引擎为 llamacpp，或不给这个设置",
            ));
        }
        let n = if w.cards.is_empty() {
            w.dp.max(1)
        } else {
            w.cards.len() as u64
        };
        let main = int("main_gpu", self.placement.main_gpu, 0, n - 1)?;
        w.main_gpu = main;
        w.split_mode = self.placement.split_mode;
        if self.placement.tensor_split.len() as u64 > n {
            let given = self.placement.tensor_split.len();
            return Err(input_error!(
                OutOfRange,
                "tensor_split",
                ["{given} shares for {n} GPUs"],
                ["{given} 个比例，而 GPU 只有 {n} 个"],
                ["at most {n} shares, one per GPU in device order"],
                ["最多 {n} 个比例，按设备顺序每个 GPU 一个"],
            ));
        }
        let mut split = Vec::with_capacity(n as usize);
        for &x in &self.placement.tensor_split {
            if !(x.is_finite() && (0.0..=1e6).contains(&x)) {
                let x = crate::units::number_text(x);
                return Err(input_error!(
                    OutOfRange,
                    "tensor_split",
                    ["a share of {x}"],
                    ["比例 {x}"],
                    "numbers from 0 to 1000000, not all 0 (3,1 gives the first GPU three quarters)",
                    "0 到 1000000 的数，不能全为 0（3,1 表示第一个 GPU 占四分之三）",
                ));
            }
            split.push(x as f32);
        }
        // llama.cpp: shares not given are 0; all 0 is its default, by free memory.
        split.resize(n as usize, 0.0);
        w.tensor_split = if split.iter().all(|&x| x == 0.0) {
            Vec::new()
        } else {
            split
        };
        match self.placement.split_mode {
            SplitMode::Layer => Ok(()),
            SplitMode::Row => Err(input_error!(
                Unsupported,
                "split_mode",
                "split_mode row: vramfit does not model llama.cpp's row split of every matrix yet",
                "split_mode row：vramfit 尚未计算 llama.cpp 按行切分每个矩阵的方式",
                "layer (the default) or none",
                "layer（默认）或 none",
            )),
            SplitMode::None => {
                // `-sm none`: llama.cpp keeps the main GPU alone (`llama_model_load`).
                if !w.cards.is_empty() {
                    w.device = Some(w.cards[main as usize].clone());
                    w.cards = Vec::new();
                }
                w.dp = 1;
                w.tensor_split = Vec::new();
                Ok(())
            }
        }
    }
}
