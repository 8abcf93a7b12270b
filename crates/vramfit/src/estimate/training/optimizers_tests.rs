//! The optimizers of [`super::optimizers`] against hand calculations from their libraries'
//! state shapes, on Llama-3.1-8B: 8,030,261,248 parameters, of which the blocks' projections
//! are 32 × (2 × 4,096² + 2 × 1,024 × 4,096 + 3 × 14,336 × 4,096) = 6,979,321,856 and the
//! embedding, head and norms 1,050,939,392 (the embedding alone 128,256 × 4,096 = 525,336,576).

use crate::estimate::{
    ComponentKind, Estimate, EstimateInput, Mode, Optimizer, Precision, estimate,
};
use crate::estimate::{ModelInput, RunInput, TrainingInput};

const P: u64 = 8_030_261_248;
const MATRICES: u64 = 6_979_321_856;
const OTHER: u64 = 1_050_939_392;

fn run(optimizer: Optimizer, precision: Precision) -> Estimate {
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(crate::model::tests::llama31_8b()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            ..Default::default()
        },
        training: TrainingInput {
            optimizer,
            precision,
            ..Default::default()
        },
        ..Default::default()
    });
    match e {
        Ok(e) => e,
        Err(err) => panic!("{optimizer:?}: {err:?}"),
    }
}

fn step(e: &Estimate) -> u64 {
    e.components
        .iter()
        .find(|c| c.key == ComponentKind::StepTemporaries)
        .map_or(0, |c| c.bytes.get())
}

/// The split of the parameters the tests use is Llama-3.1-8B's.
#[test]
fn llama_split_by_hand() {
    assert_eq!(
        32 * (2 * 4096 * 4096 + 2 * 1024 * 4096 + 3 * 14336 * 4096),
        MATRICES
    );
    assert_eq!(MATRICES + OTHER, P);
    assert_eq!(OTHER, 2 * 128_256 * 4096 + 4096 * 65);
}

/// bitsandbytes' paged 8-bit AdamW holds what its 8-bit AdamW holds (`get_state_buffer` pages
/// the same uint8 states): 2 × P + ⌈P / 256⌉ × 2 × 4 B; `PagedAdamW` (32-bit) holds fp32
/// moments even over bf16 parameters: 8 × P, twice pure-bf16 AdamW's 4 × P. Neither has a step
/// temporary (one kernel per tensor). Both carry the paging note.
#[test]
fn paged_adamw_by_hand() {
    let e = run(Optimizer::PagedAdamw8bit, Precision::Bf16);
    assert_eq!(e.optimizer_bytes.get(), 2 * P + P.div_ceil(256) * 8);
    assert_eq!(
        e.optimizer_bytes,
        run(Optimizer::Adamw8bit, Precision::Bf16).optimizer_bytes
    );
    assert_eq!(step(&e), 0);
    assert!(e.notes.iter().any(|n| n.key == "paged_optimizer"));
    let e = run(Optimizer::PagedAdamw, Precision::Bf16);
    assert_eq!(e.optimizer_bytes.get(), 64_242_089_984);
    assert_eq!(
        run(Optimizer::Adamw, Precision::Bf16).optimizer_bytes.get(),
        32_121_044_992
    );
    assert_eq!(step(&e), 0);
}

/// torchao `AdamW4bit`: per moment ⌈P / 2⌉ B of codes and an fp32 scale per 128 values:
/// 2 × (4,015,130,624 + 62,736,416 × 4) = 8,532,152,576 B; its compiled step is counted as the
/// largest tensor's two moments in fp32: 525,336,576 × 8 = 4,202,692,608 B.
#[test]
fn adamw_4bit_by_hand() {
    let e = run(Optimizer::Adamw4bit, Precision::AmpBf16);
    assert_eq!(e.optimizer_bytes.get(), 8_532_152_576);
    assert_eq!(step(&e), 4_202_692_608);
}

/// AdEMAMix keeps three states: fp32 at 32 bits (12 × P = 96,363,134,976 B), and at 8 bits
/// 3 × (P + ⌈P / 256⌉ × 4) = 3 × 8,155,734,080 = 24,467,202,240 B.
#[test]
fn ademamix_by_hand() {
    let e = run(Optimizer::Ademamix, Precision::AmpBf16);
    assert_eq!(e.optimizer_bytes.get(), 96_363_134_976);
    let e = run(Optimizer::Ademamix8bit, Precision::AmpBf16);
    assert_eq!(e.optimizer_bytes.get(), 24_467_202_240);
    assert_eq!(step(&e), 0);
}

/// Schedule-free AdamW keeps `z` and the second moment in the parameters' dtype, as many bytes
/// as AdamW's two moments (8 × P under mixed precision), and its foreach step one `denom` list
/// (4 × P); with `foreach` off, none.
#[test]
fn schedule_free_by_hand() {
    let e = run(Optimizer::ScheduleFreeAdamw, Precision::AmpBf16);
    assert_eq!(e.optimizer_bytes.get(), 8 * P);
    assert_eq!(step(&e), 4 * P);
    let e = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(crate::model::tests::llama31_8b()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            ..Default::default()
        },
        training: TrainingInput {
            optimizer: Optimizer::ScheduleFreeAdamw,
            foreach: false,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(step(&e), 0);
}

/// Muon: one fp32 momentum per block matrix (4 × 6,979,321,856) and AdamW's two moments for the
/// rest (8 × 1,050,939,392): 36,324,802,560 B. The step: the AdamW part's foreach list, 4 ×
/// 1,050,939,392 = 4,203,757,568 B, is larger than the largest matrix's Newton–Schulz (14,336 ×
/// 4,096: 234,881,024 B of update + 2 bf16 iterates 234,881,024 B + 2 bf16 Gram matrices
/// 67,108,864 B = 536,870,912 B), which is the step with `fused_optimizer`.
#[test]
fn muon_by_hand() {
    let e = run(Optimizer::Muon, Precision::AmpBf16);
    assert_eq!(e.optimizer_bytes.get(), 4 * MATRICES + 8 * OTHER);
    assert_eq!(e.optimizer_bytes.get(), 36_324_802_560);
    assert_eq!(step(&e), 4_203_757_568);
    let fused = estimate(&EstimateInput {
        model: ModelInput {
            arch: Some(crate::model::tests::llama31_8b()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            ..Default::default()
        },
        training: TrainingInput {
            optimizer: Optimizer::Muon,
            fused_optimizer: true,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(step(&fused), 536_870_912);
}

/// GaLore AdamW, rank 128, fp32 parameters: per block matrix m × n two fp32 moments of
/// 128 × max(m, n) and the projector, a slice holding the SVD's whole min(m, n)² factor.
/// q and o: 2 × 128 × 4,096 × 4 + 4,096² × 4 = 71,303,168; k and v: 4,194,304 + 1,024² × 4 =
/// 8,388,608; gate, up, down: 2 × 128 × 14,336 × 4 + 67,108,864 = 81,788,928; per layer
/// 404,750,336, × 32 = 12,952,010,752; the rest AdamW's 8 × 1,050,939,392 = 8,407,515,136:
/// 21,359,525,888 B in all. Its step: the embedding's `denom` and `norm_grad` (GaLore's AdamW
/// steps tensor by tensor), 525,336,576 × 8 = 4,202,692,608 B, above the gate's SVD renewal
/// (4,096 × (14,336 + 4,096) × 4 = 301,989,888 B).
#[test]
fn galore_by_hand() {
    let e = run(Optimizer::GaloreAdamw, Precision::AmpBf16);
    let layer = 2 * 71_303_168 + 2 * 8_388_608 + 3 * 81_788_928;
    assert_eq!(layer, 404_750_336);
    assert_eq!(e.optimizer_bytes.get(), 32 * layer + 8 * OTHER);
    assert_eq!(e.optimizer_bytes.get(), 21_359_525_888);
    assert_eq!(step(&e), 4_202_692_608);
    assert!(e.notes.iter().any(|n| n.key == "galore"));
}

/// 8-bit GaLore: bitsandbytes' 8-bit moments of the projected gradients (2 × (n + ⌈n / 256⌉ × 4)
/// with n = 128 × max(m, n)) beside the same projectors, and 8-bit AdamW for the rest. q, o:
/// 2 × (524,288 + 8,192) + 67,108,864 = 68,173,824; k, v: 1,064,960 + 4,194,304 = 5,259,264;
/// gate, up, down: 2 × (1,835,008 + 28,672) + 67,108,864 = 70,836,224; per layer 359,374,848;
/// the rest 2 × (1,050,939,392 + 4,105,232 × 4) = 2,134,720,640.
/// The step: the gate's `saved_data` clone and projected-back update, 2 × 58,720,256 × 4, with
/// its projected gradient 1,835,008 × 4: 477,102,080 B.
#[test]
fn galore_8bit_by_hand() {
    let e = run(Optimizer::GaloreAdamw8bit, Precision::AmpBf16);
    let layer = 2 * 68_173_824 + 2 * 5_259_264 + 3 * 70_836_224;
    assert_eq!(layer, 359_374_848);
    assert_eq!(OTHER.div_ceil(256), 4_105_232);
    assert_eq!(e.optimizer_bytes.get(), 32 * layer + 2_134_720_640);
    assert_eq!(step(&e), 477_102_080);
}

/// GaLore at rank 64 (`optim_args="rank=64"`), fp32 parameters: the moments halve, the
/// projectors (the SVD's whole k × k factor under fp32) stay. q, o: 2 × 64 × 4,096 × 4 +
/// 4,096² × 4 = 69,206,016; k, v: 2 × 64 × 4,096 × 4 + 1,024² × 4 = 6,291,456; gate, up, down:
/// 2 × 64 × 14,336 × 4 + 4,096² × 4 = 74,448,896; per layer 374,341,632. A rank beside another
/// optimizer, or out of range, is refused naming `galore_rank`.
#[test]
fn galore_rank_by_hand() {
    let at = |optimizer: Optimizer, galore_rank: Option<f64>| {
        estimate(&EstimateInput {
            model: ModelInput {
                arch: Some(crate::model::tests::llama31_8b()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Training,
                ..Default::default()
            },
            training: TrainingInput {
                optimizer,
                precision: Precision::AmpBf16,
                galore_rank,
                ..Default::default()
            },
            ..Default::default()
        })
    };
    let e = at(Optimizer::GaloreAdamw, Some(64.0)).unwrap();
    let layer = 2 * 69_206_016 + 2 * 6_291_456 + 3 * 74_448_896;
    assert_eq!(layer, 374_341_632);
    assert_eq!(e.optimizer_bytes.get(), 32 * layer + 8 * OTHER);
    // The default is 128: the same as no rank given.
    let default = at(Optimizer::GaloreAdamw, None).unwrap();
    let given = at(Optimizer::GaloreAdamw, Some(128.0)).unwrap();
    assert_eq!(default.optimizer_bytes, given.optimizer_bytes);
    for (optimizer, rank) in [
        (Optimizer::Adamw, Some(64.0)),
        (Optimizer::GaloreAdamw, Some(0.0)),
        (Optimizer::GaloreAdamw, Some(12.5)),
    ] {
        let err = at(optimizer, rank).err().map(|e| e.field);
        assert_eq!(
            err.as_deref(),
            Some("galore_rank"),
            "{optimizer:?} {rank:?}"
        );
    }
}
