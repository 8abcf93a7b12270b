//! The memory already in use on each GPU before the run starts (`memory_in_use`): the desktop,
//! a display, other programs. It is set onto each card ([`Device::in_use`]); the run shapes
//! read [`Device::free`] where their engine reads the free memory, and every fit is said
//! against it.

use crate::error::Result;
use crate::estimate::{Device, EstimateInput};
use crate::units::{Bytes, parse_size};

impl EstimateInput {
    /// `memory_in_use` onto the card, checked against it: a size with its unit, from 0 to the
    /// card's memory (on an Apple card its working set or `wired_limit_mb`), or one such size
    /// per GPU of the run (`gpus` of them, comma-separated), the busiest of which decides for
    /// every rank (each engine sizes its pool from the least free memory of its GPUs); refused
    /// without a card, which it would be in use on. Gives the card and how many sizes were given.
    pub(super) fn resolve_in_use(
        &self,
        device: Option<Device>,
        gpus: u64,
    ) -> Result<(Option<Device>, usize)> {
        let Some(text) = &self.hardware.memory_in_use else {
            return Ok((device, 0));
        };
        let sizes = in_use_list(text, gpus)?;
        let in_use = sizes.iter().copied().max().unwrap_or(Bytes::ZERO);
        let Some(mut d) = device else {
            if in_use == Bytes::ZERO {
                return Ok((None, sizes.len()));
            }
            return Err(input_error!(
                Conflict,
                "memory_in_use",
                "memory in use given without a card",
                "给出了已占用显存，却没有给出显卡",
                "a card (gpu, gpu_memory or cards) with it, or no memory_in_use",
                "同时给出显卡（gpu、gpu_memory 或 cards），或不给 memory_in_use",
            ));
        };
        in_use_on(&mut d, in_use)?;
        Ok((Some(d), sizes.len()))
    }

    /// `memory_in_use` onto each of cards that are not alike: one size for every card, or one
    /// per card in the order they are given.
    pub(super) fn in_use_on_cards(&self, cards: &mut [Device]) -> Result<()> {
        let Some(text) = &self.hardware.memory_in_use else {
            return Ok(());
        };
        let sizes = in_use_list(text, cards.len() as u64)?;
        let each = |i: usize| {
            sizes
                .get(i)
                .or(sizes.first())
                .copied()
                .unwrap_or(Bytes::ZERO)
        };
        cards
            .iter_mut()
            .enumerate()
            .try_for_each(|(i, d)| in_use_on(d, each(i)))
    }
}

/// The sizes of `memory_in_use`: one, or one per GPU of the `gpus` the run uses.
fn in_use_list(text: &str, gpus: u64) -> Result<alloc::vec::Vec<Bytes>> {
    let sizes = text
        .split(',')
        .map(|t| parse_size("memory_in_use", t))
        .collect::<Result<alloc::vec::Vec<Bytes>>>()?;
    let n = sizes.len();
    if n > 1 && n as u64 != gpus {
        return Err(input_error!(
            Conflict,
            "memory_in_use",
            ["{n} sizes for a run on {gpus} GPU(s)"],
            ["给了 {n} 个大小，而运行用 {gpus} 块 GPU"],
            ["one size for every GPU, or {gpus} comma-separated sizes, one per GPU in order"],
            ["一个大小（每块 GPU 相同），或按顺序每块 GPU 一个、共 {gpus} 个以逗号分隔的大小"],
        ));
    }
    Ok(sizes)
}

/// Sets `in_use` onto `d`: at most its memory.
fn in_use_on(d: &mut Device, in_use: Bytes) -> Result<()> {
    if in_use > d.memory {
        let (u, m, id) = (in_use.display_auto(), d.memory.display_auto(), d.id);
        return Err(input_error!(
            OutOfRange,
            "memory_in_use",
            ["{u} in use is more than {id}'s {m}"],
            ["已占用 {u}，超过 {id} 的 {m}"],
            ["a size from 0 to the card's memory, {m}"],
            ["0 到显卡显存 {m} 之间的大小"],
        ));
    }
    d.in_use = in_use;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::estimate::EstimateInput;
    use crate::estimate::{HardwareInput, ModelInput, RunInput, ServingInput};
    use alloc::string::ToString;

    fn input(gpu: Option<&str>, in_use: &str) -> EstimateInput {
        EstimateInput {
            model: ModelInput {
                model: Some("llama-3.1-8b".to_string()),
                ..Default::default()
            },
            hardware: HardwareInput {
                gpu: gpu.map(ToString::to_string),
                memory_in_use: Some(in_use.to_string()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn in_use_is_read_with_its_unit_and_set_on_the_card() {
        // An RTX 4090 as CUDA reports it on Linux: 25,253,904,384 B (23.52 GiB).
        let w = input(Some("rtx-4090"), "1.2GiB").resolve().unwrap();
        let d = w.device.unwrap();
        // 1.2 × 2^30 = 1,288,490,188.8 bytes, read to the byte.
        assert!(
            d.in_use.get().abs_diff(1_288_490_189) <= 1,
            "{}",
            d.in_use.get()
        );
        assert_eq!(d.free().get(), d.memory.get() - d.in_use.get());
        let w = input(Some("rtx-4090"), "900MiB").resolve().unwrap();
        assert_eq!(w.device.unwrap().in_use.get(), 900 << 20);
    }

    #[test]
    fn more_than_the_card_or_no_card_is_refused_naming_the_field() {
        let e = input(Some("rtx-4090"), "25GiB").resolve().unwrap_err();
        assert_eq!(e.field, "memory_in_use");
        assert_eq!(e.kind, crate::error::ErrorKind::OutOfRange);
        assert!(
            e.accepted.contains("0 to the card's memory"),
            "{}",
            e.accepted
        );
        let e = input(None, "1GiB").resolve().unwrap_err();
        assert_eq!(e.field, "memory_in_use");
        assert_eq!(e.kind, crate::error::ErrorKind::Conflict);
        for bad in ["-1GiB", "lots", "NaNGiB"] {
            let e = input(Some("rtx-4090"), bad).resolve().unwrap_err();
            assert_eq!(e.field, "memory_in_use", "{bad}");
        }
        // The whole card in use is accepted (nothing is free), as is 0 without a card.
        assert!(input(Some("rtx-4090"), "25253904384B").resolve().is_ok());
        assert!(input(Some("rtx-4090"), "25253904385B").resolve().is_err());
        assert!(input(None, "0GiB").resolve().is_ok());
    }

    /// One size per GPU of alike cards: the busiest decides (every rank's pool is sized alike);
    /// as many sizes as GPUs, or one.
    #[test]
    fn one_size_per_gpu_the_busiest_decides() {
        let two = |in_use: &str| {
            let mut input = input(Some("rtx-4090"), in_use);
            input.placement.tp = 2.0;
            input
        };
        let w = two("1GiB,300MiB").resolve().unwrap();
        assert_eq!(w.device.unwrap().in_use.get(), 1 << 30);
        assert_eq!(w.in_use_sizes, 2);
        let e = crate::estimate::estimate(&two("1GiB,300MiB")).unwrap();
        let one = crate::estimate::estimate(&two("1GiB")).unwrap();
        assert_eq!(e.fit, one.fit);
        assert!(
            e.notes
                .iter()
                .any(|n| n.key == "memory_in_use" && n.en.contains("one of the 2 GPUs"))
        );
        for bad in ["1GiB,2GiB,3GiB", "1GiB,", "1GiB,lots"] {
            let e = two(bad).resolve().unwrap_err();
            assert_eq!(e.field, "memory_in_use", "{bad}");
        }
    }

    /// One size per card that is not alike, in order: llama.cpp splits by each card's free
    /// memory. The RTX 3090 (25,425,870,848 B) with 12 GiB in use has 12,540,968,960 B free,
    /// less its 300 MiB context 12,226,396,160 B; the RTX 3060 12,301,893,632 B: split point
    /// 12,226,396,160 / 24,528,289,792 = 0.4985, block il on the 3090 while il / 33 < 0.4985,
    /// il ≤ 16: 17 blocks there, 15 and the output layer on the 3060 (23 and 9 with nothing in
    /// use, `llamacpp_split_tests`).
    #[test]
    fn one_size_per_card_moves_llamacpps_split() {
        let input = EstimateInput {
            model: ModelInput {
                model: Some("meta-llama/Llama-3.1-8B".into()),
                quantization: crate::precision::Quantization::Gguf {
                    file_type: crate::precision::GgufFileType::Q4_K_M,
                },
                ..Default::default()
            },
            run: RunInput {
                engine: crate::estimate::Engine::Llamacpp,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: Some(8192.0),
                ..Default::default()
            },
            hardware: HardwareInput {
                cards: alloc::vec!["rtx-3090".into(), "rtx-3060".into()],
                memory_in_use: Some("12GiB,0GiB".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let w = input.resolve().unwrap();
        let in_use: alloc::vec::Vec<u64> = w.cards.iter().map(|c| c.in_use.get()).collect();
        assert_eq!(in_use, [12 << 30, 0]);
        let e = crate::estimate::estimate(&input).unwrap();
        let layers: alloc::vec::Vec<(u64, bool)> =
            e.cards.iter().map(|c| (c.layers, c.output_layer)).collect();
        assert_eq!(layers, [(17, false), (15, true)]);
        assert!(
            e.notes
                .iter()
                .any(|n| n.key == "memory_in_use" && n.en.contains("rtx-3090 12.00 GiB"))
        );
    }
}
