//! The memory already in use on each GPU before the run starts (`memory_in_use`): the desktop,
//! a display, other programs. It is set onto each card ([`Device::in_use`]); the run shapes
//! read [`Device::free`] where their engine reads the free memory, and every fit is said
//! against it.

use crate::error::Result;
use crate::estimate::{Device, EstimateInput};
use crate::units::{Bytes, parse_size};

impl EstimateInput {
    /// `memory_in_use` onto the card, checked against it: a size with its unit, from 0 to the
    /// card's memory (on an Apple card its working set or `wired_limit_mb`); refused without a
    /// card, which it would be in use on.
    pub(super) fn resolve_in_use(&self, device: Option<Device>) -> Result<Option<Device>> {
        let Some(text) = &self.memory_in_use else {
            return Ok(device);
        };
        let in_use = parse_size("memory_in_use", text)?;
        let Some(mut d) = device else {
            if in_use == Bytes::ZERO {
                return Ok(None);
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
        Ok(Some(d))
    }

    /// `memory_in_use` onto each of cards that are not alike: the same amount on every card.
    pub(super) fn in_use_on_cards(&self, cards: &mut [Device]) -> Result<()> {
        let Some(text) = &self.memory_in_use else {
            return Ok(());
        };
        let in_use = parse_size("memory_in_use", text)?;
        cards.iter_mut().try_for_each(|d| in_use_on(d, in_use))
    }
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
    use alloc::string::ToString;

    fn input(gpu: Option<&str>, in_use: &str) -> EstimateInput {
        EstimateInput {
            model: Some("llama-3.1-8b".to_string()),
            gpu: gpu.map(ToString::to_string),
            memory_in_use: Some(in_use.to_string()),
            ..EstimateInput::default()
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
}
