//! A card's generation, as a type: the estimator asks what a kind of card does (its cuBLAS
//! workspace, BF16, FP8, Metal) of a [`Generation`], not of its architecture's text.

/// The generation (architecture) of a catalog GPU, one for every `architecture` the catalog's
/// data (`crates/vramfit/data/gpus/*.toml`) names. The table's generator parses each record's
/// text with [`Generation::parse`] and fails on one it does not know, so a card of a new
/// generation is added here, with its answers, before its record builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Generation {
    /// NVIDIA Pascal (sm60): the P100.
    Pascal,
    /// NVIDIA Volta (sm70): the V100.
    Volta,
    /// NVIDIA Turing (sm75): the T4, the RTX 2080 Ti.
    Turing,
    /// NVIDIA Ampere (sm80, sm86): the A100, A800, A30, A10, A40, RTX A-series and RTX 30-series.
    Ampere,
    /// NVIDIA Ada Lovelace (sm89): the L4, L20, L40, L40S, RTX 6000 Ada and RTX 40-series.
    Ada,
    /// NVIDIA Hopper (sm90): the H100, H800, H20, H200.
    Hopper,
    /// NVIDIA Blackwell (sm100, sm120): the B200, GB200, RTX PRO 6000 and RTX 50-series.
    Blackwell,
    /// AMD CDNA 2: the Instinct MI250X.
    Cdna2,
    /// AMD CDNA 3: the Instinct MI300X, MI325X.
    Cdna3,
    /// Apple M1 GPU (the M1 Pro, Max and Ultra): no BF16 arithmetic.
    AppleM1,
    /// Apple M2 GPU (the M2 Pro, Max and Ultra).
    AppleM2,
    /// Apple M3 GPU (the M3 Max, M3 Ultra).
    AppleM3,
    /// Apple M4 GPU (the M4 Max).
    AppleM4,
    /// Huawei Da Vinci: the Ascend 910B.
    DaVinci,
}

impl Generation {
    /// Every generation, oldest NVIDIA first, then AMD, Apple, Huawei.
    pub const ALL: [Generation; 14] = [
        Generation::Pascal,
        Generation::Volta,
        Generation::Turing,
        Generation::Ampere,
        Generation::Ada,
        Generation::Hopper,
        Generation::Blackwell,
        Generation::Cdna2,
        Generation::Cdna3,
        Generation::AppleM1,
        Generation::AppleM2,
        Generation::AppleM3,
        Generation::AppleM4,
        Generation::DaVinci,
    ];

    /// The catalog's `architecture` text for this generation, e.g. `Ada Lovelace`, `CDNA 3`.
    pub const fn name(self) -> &'static str {
        match self {
            Generation::Pascal => "Pascal",
            Generation::Volta => "Volta",
            Generation::Turing => "Turing",
            Generation::Ampere => "Ampere",
            Generation::Ada => "Ada Lovelace",
            Generation::Hopper => "Hopper",
            Generation::Blackwell => "Blackwell",
            Generation::Cdna2 => "CDNA 2",
            Generation::Cdna3 => "CDNA 3",
            Generation::AppleM1 => "Apple GPU (M1)",
            Generation::AppleM2 => "Apple GPU (M2)",
            Generation::AppleM3 => "Apple GPU (M3)",
            Generation::AppleM4 => "Apple GPU (M4)",
            Generation::DaVinci => "Da Vinci",
        }
    }

    /// The generation whose catalog text ([`Generation::name`]) is `architecture`, exactly;
    /// `None` for one the enum does not know.
    pub fn parse(architecture: &str) -> Option<Generation> {
        Generation::ALL
            .into_iter()
            .find(|g| g.name() == architecture)
    }

    /// The vendor, as the catalog's `vendor` field writes it.
    pub const fn vendor(self) -> &'static str {
        match self {
            Generation::Pascal
            | Generation::Volta
            | Generation::Turing
            | Generation::Ampere
            | Generation::Ada
            | Generation::Hopper
            | Generation::Blackwell => "NVIDIA",
            Generation::Cdna2 | Generation::Cdna3 => "AMD",
            Generation::AppleM1
            | Generation::AppleM2
            | Generation::AppleM3
            | Generation::AppleM4 => "Apple",
            Generation::DaVinci => "Huawei",
        }
    }

    /// cuBLAS's larger workspace class: 32 MiB per handle and stream from Hopper (sm90) on,
    /// 8 MiB + 128 KiB before (PyTorch's `CUBLAS_WORKSPACE_CONFIG` defaults; see
    /// [`crate::estimate::cublas_workspace`]). Cards of other vendors are counted with the
    /// smaller one, as before Hopper.
    pub const fn hopper_or_newer(self) -> bool {
        matches!(self, Generation::Hopper | Generation::Blackwell)
    }

    /// Computes in BF16 (NVIDIA from Ampere on, AMD CDNA, Apple from M2 on, Ascend 910B): vLLM
    /// runs an fp32 checkpoint in bf16 there, in fp16 elsewhere. The generator checks it
    /// against each record's `bf16_tflops`.
    pub const fn bf16(self) -> bool {
        !matches!(
            self,
            Generation::Pascal | Generation::Volta | Generation::Turing | Generation::AppleM1
        )
    }

    /// Has FP8 tensor cores (NVIDIA Ada, Hopper, Blackwell; AMD CDNA 3). The generator checks
    /// it against each record's `fp8_tflops`.
    pub const fn fp8(self) -> bool {
        matches!(
            self,
            Generation::Ada | Generation::Hopper | Generation::Blackwell | Generation::Cdna3
        )
    }

    /// Has FP4 tensor cores (NVIDIA Blackwell: NVFP4, 4-bit values with an FP8 scale per 16).
    pub const fn fp4(self) -> bool {
        matches!(self, Generation::Blackwell)
    }

    /// Apple silicon: unified memory, and llama.cpp runs on it through Metal.
    pub const fn apple(self) -> bool {
        matches!(
            self,
            Generation::AppleM1 | Generation::AppleM2 | Generation::AppleM3 | Generation::AppleM4
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_generation_reads_back_its_name_and_every_card_has_one() {
        for g in Generation::ALL {
            assert_eq!(Generation::parse(g.name()), Some(g));
        }
        assert_eq!(Generation::parse("Rubin"), None);
        assert_eq!(Generation::parse("hopper"), None);
        for card in crate::gpu::gpus() {
            assert_eq!(
                Generation::parse(card.architecture),
                Some(card.generation()),
                "{}",
                card.id
            );
            assert_eq!(card.generation().vendor(), card.vendor, "{}", card.id);
        }
    }

    #[test]
    fn the_generation_answers_what_the_architecture_text_did() {
        // What `starts_with` on the lower-case architecture and `vendor == "Apple"` decided.
        for card in crate::gpu::gpus() {
            let arch = card.architecture.to_ascii_lowercase();
            let g = card.generation();
            assert_eq!(
                g.hopper_or_newer(),
                arch.starts_with("hopper") || arch.starts_with("blackwell"),
                "{}",
                card.id
            );
            assert_eq!(g.apple(), card.vendor == "Apple", "{}", card.id);
            assert_eq!(g.bf16(), card.bf16_tflops > 0.0, "{}", card.id);
            assert_eq!(g.fp8(), card.fp8_tflops() > 0.0, "{}", card.id);
        }
    }
}
