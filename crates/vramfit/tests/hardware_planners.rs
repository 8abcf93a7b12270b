//! The hardware catalog and planners, each number checked against a hand calculation or a
//! cited measurement written out here.

use std::cell::RefCell;

use vramfit::Bytes;
use vramfit::hardware::fit::largest_fitting;
use vramfit::hardware::matrix::{Weights, rank_platforms};
use vramfit::hardware::mig::{
    MigOptions, MigPricing, Placement, check_layout, plan_mig, valid_layouts,
};
use vramfit::hardware::spot::{SpotInput, compare};
use vramfit::hardware::tiers::tier_for;
use vramfit::hardware::{
    Currency, Gpu, Layout, ParallelKind, PlanOptions, find_gpu, find_offer, gpus, offers, plan,
    platforms,
};
use vramfit::units::{GB, GIB, MIB};

fn gpu(id: &str) -> &'static Gpu {
    find_gpu(id).unwrap_or_else(|| panic!("{id} in the catalog"))
}

/// A memory figure printed as GiB with two decimals (PyTorch's out-of-memory message), in bytes as
/// the catalog keeps it: rounded down to whole MiB, as it keeps `nvidia-smi mig -lgip`'s.
fn printed(gib: f64) -> u64 {
    (gib * 1024.0).floor() as u64 * MIB
}

/// Catalog card `id`, asserting that it holds the total printed as `gib` (GiB with two
/// decimals), which is `mib` whole MiB: each test states both the printed figure and its
/// conversion by hand.
fn printing(id: &str, gib: f64, mib: u64) -> &'static Gpu {
    let g = gpu(id);
    assert_eq!(g.memory.get(), printed(gib), "{id}");
    assert_eq!(g.memory.get(), mib * MIB, "{id}");
    g
}

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} != {b} (±{tol})");
}

// ---- catalog ---------------------------------------------------------------------------------

#[test]
fn catalog_has_the_cards_of_the_brief() {
    for id in [
        "t4",
        "p100-pcie-16gb",
        "v100-sxm2-16gb",
        "v100-sxm2-32gb",
        "a10",
        "a10g",
        "l4",
        "l40s",
        "l40",
        "a30",
        "a40",
        "a100-pcie-40gb",
        "a100-sxm4-40gb",
        "a100-pcie-80gb",
        "a100-sxm4-80gb",
        "a800-sxm4-80gb",
        "h100-pcie-80gb",
        "h100-sxm5-80gb",
        "h100-nvl-94gb",
        "h800-sxm5-80gb",
        "h20-96gb",
        "h200-sxm-141gb",
        "b200-180gb",
        "gb200-186gb",
        "rtx-3070",
        "rtx-3090",
        "rtx-4070-ti",
        "rtx-4080",
        "rtx-4090",
        "rtx-5080",
        "rtx-5090",
        "rtx-a4000",
        "rtx-a5000",
        "rtx-a6000",
        "rtx-6000-ada",
        "rtx-pro-6000-blackwell",
        "l20",
        "ascend-910b",
        "mi250x",
        "mi300x",
        "mi325x",
        "apple-m3-max-128gb",
        "apple-m4-max-128gb",
        "apple-m2-ultra-192gb",
        "apple-m3-ultra-512gb",
    ] {
        gpu(id);
    }
    for g in gpus() {
        assert!(
            g.memory.get() > 0 && g.bandwidth_bytes_per_s() > 0,
            "{}",
            g.id
        );
        assert!(
            g.fp16_tflops().is_finite() && g.fp8_tflops() >= 0.0,
            "{}",
            g.id
        );
    }
}

#[test]
fn a_gpu_is_found_by_what_a_person_types() {
    let one = |q: &str| vramfit::hardware::lookup_gpu("gpu", q).map(|g| g.id);
    // Its id in any case, or its name.
    assert_eq!(one("H100-SXM5-80GB"), Ok("h100-sxm5-80gb"));
    assert_eq!(one("NVIDIA H200 SXM 141GB"), Ok("h200-sxm-141gb"));
    // Words of either, in order, each a whole word.
    assert_eq!(one("h200"), Ok("h200-sxm-141gb"));
    assert_eq!(one("4090"), Ok("rtx-4090"));
    // `rtx 6000` is in order in both the RTX 6000 Ada and the RTX PRO 6000 Blackwell: a third word
    // tells them apart.
    let e = one("rtx 6000").unwrap_err();
    assert_eq!(e.problem, "`rtx 6000` matches 2 GPUs");
    assert_eq!(e.accepted, "one of rtx-6000-ada, rtx-pro-6000-blackwell");
    assert_eq!(one("rtx 6000 ada"), Ok("rtx-6000-ada"));
    assert_eq!(one("RTX PRO 6000"), Ok("rtx-pro-6000-blackwell"));
    assert_eq!(one("5080"), Ok("rtx-5080"));
    // `4080` is a whole word of the RTX 4080 and the RTX 4080 SUPER, but only the RTX 4080's name
    // ends there: a person who means the SUPER says so. `rtx 6000` ends neither of its two.
    assert_eq!(one("rtx 4080"), Ok("rtx-4080"));
    assert_eq!(one("4080"), Ok("rtx-4080"));
    assert_eq!(one("GeForce RTX 4080"), Ok("rtx-4080"));
    assert_eq!(one("rtx-4080"), Ok("rtx-4080"));
    assert_eq!(one("4070 ti super"), Ok("rtx-4070-ti-super"));
    assert_eq!(one("4060 ti"), Ok("rtx-4060-ti-16gb"));
    // `4070 ti` is in order in the 4070 Ti and the 4070 Ti SUPER; only the first name ends there.
    assert_eq!(one("4070 ti"), Ok("rtx-4070-ti"));
    assert_eq!(one("RTX 4070 Ti"), Ok("rtx-4070-ti"));
    assert_eq!(one("3070"), Ok("rtx-3070"));
    assert_eq!(one("p100"), Ok("p100-pcie-16gb"));
    assert_eq!(one("A5000"), Ok("rtx-a5000"));
    assert_eq!(one("h100").unwrap_err().problem, "`h100` matches 3 GPUs");
    assert_eq!(one("4080 super"), Ok("rtx-4080-super"));
    assert_eq!(one("3060"), Ok("rtx-3060-12gb"));
    // `5070` is in order in the RTX 5070 and the RTX 5070 Ti; only the first name ends there.
    assert_eq!(one("5070"), Ok("rtx-5070"));
    assert_eq!(one("5070 ti"), Ok("rtx-5070-ti"));
    assert_eq!(one("RTX 5060 Ti"), Ok("rtx-5060-ti-16gb"));
    assert_eq!(one("L20"), Ok("l20"));
    assert_eq!(one("a100 sxm4 80gb"), Ok("a100-sxm4-80gb"));
    // `h20` is a whole word of the H20's id only, although it begins `h200`.
    assert_eq!(one("h20"), Ok("h20-96gb"));
    // `a10` is an id itself: it wins over the A100s and the A10G.
    assert_eq!(one("A10"), Ok("a10"));
    // Only when no id or name has the words whole, words that begin one.
    assert_eq!(one("mi300"), Ok("mi300x"));
    assert_eq!(one("mi325"), Ok("mi325x"));
    // `l40` is the L40's id; `l40s` the L40S's.
    assert_eq!(one("l40"), Ok("l40"));
    assert_eq!(one("L40S"), Ok("l40s"));

    // Several cards: the error lists them, and names the field.
    let e = one("h100").unwrap_err();
    assert_eq!(e.field, "gpu");
    assert_eq!(e.problem, "`h100` matches 3 GPUs");
    assert_eq!(
        e.accepted,
        "one of h100-nvl-94gb, h100-pcie-80gb, h100-sxm5-80gb"
    );
    let e = one("a100 80gb").unwrap_err();
    assert_eq!(e.accepted, "one of a100-pcie-80gb, a100-sxm4-80gb");
    // None: every id is listed.
    let e = one("gtx 9999").unwrap_err();
    assert_eq!(e.problem, "no GPU named `gtx 9999`");
    assert!(e.accepted.contains("h200-sxm-141gb") && e.accepted.contains("t4"));
    assert!(one("").is_err() && one(" - ").is_err() && one("显卡").is_err());

    // The estimator takes the same words, and says the same when they fit several cards.
    let mut input = vramfit::estimate::EstimateInput {
        model: vramfit::estimate::ModelInput {
            params: Some("8B".into()),
            ..Default::default()
        },
        hardware: vramfit::estimate::HardwareInput {
            gpu: Some("h200".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let e = vramfit::estimate::estimate(&input).unwrap();
    assert_eq!(e.fit.unwrap().gpu, "h200-sxm-141gb");
    input.hardware.gpu = Some("v100".into());
    let err = vramfit::estimate::estimate(&input).unwrap_err();
    assert_eq!(
        (err.field.as_str(), err.problem.as_str()),
        ("gpu", "`v100` matches 2 GPUs")
    );
}

#[test]
fn memory_is_what_cuda_reports_not_the_label() {
    // reference/README.md: an H100-80GB shows 79.19 GiB to CUDA; torch prints 81090 MB (MiB).
    assert_eq!(gpu("h100-sxm5-80gb").memory.get(), 81_090 * MIB);
    assert_eq!(gpu("h100-sxm5-80gb").memory.display_gib(), "79.19 GiB");
    // PaddlePaddle docs: A100-SXM4-40GB total_memory=40536MB → 40536/1024 = 39.586 GiB.
    assert_eq!(gpu("a100-sxm4-40gb").memory.display_gib(), "39.59 GiB");
    // deviceQuery on A100-SXM4-80GB: totalGlobalMem 81221.8125 MiB = 79.318 GiB.
    assert_eq!(gpu("a100-sxm4-80gb").memory.display_gib(), "79.32 GiB");
    // T4: 14.56 GiB in reports of 2025 (AlphaGPU/leetgpu-challenges#52, Zheng-Chong/CatVTON#133)
    // = 14,909.44 MiB → 14,909 MiB; earlier reports printed 14.75 (15,102 MiB, held until
    // 2026-12-01: 193 MiB more than the lowest published).
    let t4 = printing("t4", 14.56, 14_909);
    assert_eq!(15_102 * MIB - t4.memory.get(), 193 * MIB);
    // Every card shows less than its label (the label is GiB of physical memory or GB).
    for g in gpus()
        .iter()
        .filter(|g| !g.unified_memory && g.id != "mi250x")
    {
        let label: f64 = g
            .marketed_memory
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            g.memory.as_gib() < label,
            "{}: {} vs label {}",
            g.id,
            g.memory,
            g.marketed_memory
        );
    }
    // Apple: 128 GB hosts default to 107.52 GiB for Metal (antirez/ds4#893), 84 % of 128 GiB;
    // other sizes 75 %: 192 GiB × 0.75 = 144 GiB.
    assert_eq!(gpu("apple-m4-max-128gb").memory.display_gib(), "107.52 GiB");
    assert_eq!(gpu("apple-m2-ultra-192gb").memory.get(), 144 * GIB);
}

#[test]
fn the_cards_added_in_2026_12_hold_their_sourced_figures() {
    // RTX PRO 6000 Blackwell: PyTorch's OOM message prints a total capacity of 95.59 GiB
    // (pytorch/pytorch#182286): 97,884 MiB. nvidia-smi's 97887MiB (antirez/ds4#431, Workstation;
    // bigstack-oss/cubecos#312, Server with ECC) is within the 95.585–95.595 GiB that 95.59
    // stands for, and 3 MiB above the figure kept.
    let pro = printing("rtx-pro-6000-blackwell", 95.59, 97_884);
    assert_eq!(pro.memory.get(), 102_638_813_184);
    assert_eq!(97_887 * MIB - pro.memory.get(), 3 * MIB);
    assert_eq!(pro.memory_source, vramfit::hardware::MemorySource::Measured);
    // Workstation Edition: 1792 GB/s; 188 SMs × 2617 MHz × 1024 dense FP16 FLOP per SM and
    // clock = 503.8 TFLOPS, FP8 twice that.
    assert_eq!(pro.bandwidth_bytes_per_s(), 1_792_000_000_000);
    close(188.0 * 2.617e9 * 1024.0 / 1e12, pro.fp16_tflops(), 0.05);
    close(pro.fp8_tflops(), 2.0 * pro.fp16_tflops(), 1e-9);
    // MIG (NVIDIA's MIG user guide, RTX PRO 6000): 4 × 1g.24gb, 2 × 2g.48gb, 1 × 4g.96gb on a
    // 4-slice row. 1g.24gb: the lowest published -lgip, 23.12 GiB (cubecos#312; 23.62 in
    // GoogleCloudPlatform/container-engine-accelerators#564); 2g and 4g derived as 2× and 4×.
    assert_eq!((pro.mig_compute_slices, pro.mig_memory_slices), (4, 4));
    let migs: Vec<(&str, u8, u8, &[u8], u64)> = pro
        .mig_profiles()
        .iter()
        .map(|p| {
            (
                p.name,
                p.memory_slices,
                p.max_instances,
                p.starts,
                p.usable.get(),
            )
        })
        .collect();
    assert_eq!(
        migs,
        [
            ("1g.24gb", 1, 4, &[0, 1, 2, 3][..], printed(23.12)),
            ("2g.48gb", 2, 2, &[0, 2][..], 2 * printed(23.12)),
            ("4g.96gb", 4, 1, &[0][..], 4 * printed(23.12)),
        ]
    );
    assert_eq!(printed(23.12), 23_674 * MIB);
    assert!(pro.mig_profile("4g.96gb").unwrap().usable < pro.memory);

    // L20: 44.53 GiB total capacity in PyTorch's OOM message on an 8 × L20 server
    // (Tencent-Hunyuan/HunyuanCustom#36): 45,598 MiB, an ECC-on figure (ECC off would be about
    // 47.97 GiB, the A10G's ECC-on ratio 44.11 GiB).
    let l20 = printing("l20", 44.53, 45_598);
    assert!(l20.memory.get() > 45_174 * MIB && l20.memory.get() < 49_126 * MIB);
    assert_eq!(l20.bandwidth_bytes_per_s(), 864_000_000_000);
    close(l20.fp16_tflops(), 119.5, 1e-9);

    // Consumer cards hold Linux figures (Windows reports the whole memory), the lowest published
    // (newer drivers keep more). RTX 4090: 23.52 GiB total capacity in PyTorch's OOM message
    // (Soul-AILab/SoulX-FlashTalk#5, 2026), of 23.52–23.68 published: 24,084 MiB, 492 MiB under
    // its 24 GiB. The 23.99 GiB it held before (24,563 MiB) was a Windows figure.
    let r4090 = printing("rtx-4090", 23.52, 24_084);
    // RTX 5090: 31.33 GiB (deepbeepmeep/Wan2GP#2228; 31.37 in Wan-Video/Wan2.1#465): 32,081 MiB,
    // 687 MiB under 32 GiB.
    let r5090 = gpu("rtx-5090");
    assert_eq!(r5090.memory.get(), printed(31.33));
    assert_eq!(32_768 * MIB - r5090.memory.get(), 687 * MIB);
    // L40S, ECC on: 44.42 GiB on an 8 × L40S server (stepfun-ai/Step-Video-T2V#8): 45,486 MiB.
    assert_eq!(gpu("l40s").memory.get(), printed(44.42));
    // RTX 6000 Ada with ECC on: 44.43 GiB (DINGYANB/MTVCrafter#21): 45,496 MiB.
    assert_eq!(gpu("rtx-6000-ada").memory.get(), 45_496 * MIB);
    // RTX 4080 and 4070 Ti SUPER: the same AD103 and 16 GB GDDR6X as the RTX 4080 SUPER,
    // measured at 15.60 GiB (shanice-l/UNOPose#4): 15,974 MiB each.
    let r4080 = printing("rtx-4080", 15.60, 15_974);
    assert_eq!(gpu("rtx-4080-super").memory, r4080.memory);
    assert_eq!(gpu("rtx-4070-ti-super").memory, r4080.memory);
    // RTX 5080: 15.48 GiB on 8 × RTX 5080 (vllm-project/vllm#14452) = 15,851.52 MiB → 15,851 MiB,
    // a 533 MiB reserve; derived until then as 16 GiB less the RTX 5090's 687 MiB (15,697 MiB).
    let r5080 = printing("rtx-5080", 15.48, 15_851);
    assert_eq!(
        r5080.memory_source,
        vramfit::hardware::MemorySource::Measured
    );
    assert_eq!(16_384 * MIB - r5080.memory.get(), 533 * MIB);
    assert_eq!(r5080.memory.get(), 16_620_978_176);
    assert_eq!(gpu("rtx-3090").memory.get(), printed(23.68));
    assert_eq!(24_576 * MIB - gpu("rtx-3090").memory.get(), 328 * MIB);
    // 84 SMs × 2617 MHz × 512 (GeForce's FP32-accumulate rate, the RTX 5090's 209.5 for 170 SMs
    // at 2407 MHz) = 112.6 TFLOPS.
    close(84.0 * 2.617e9 * 512.0 / 1e12, r5080.fp16_tflops(), 0.05);
    close(
        170.0 * 2.407e9 * 512.0 / 1e12,
        gpu("rtx-5090").fp16_tflops(),
        0.05,
    );
    for g in [pro, l20, r4080, r5080, r4090, r5090] {
        assert_eq!(g.date, "2026-12-01", "{}", g.id);
    }
}

#[test]
fn the_p100_a4000_and_a5000_hold_their_printed_totals() {
    // Tesla P100-PCIE-16GB: 15.89 GiB (vllm-project/vllm#13255) → 16,271 MiB. Pascal: 18.7 TFLOPS
    // of half precision (twice its 9.3 single), no tensor cores, no bf16 or fp8; 732 GB/s of HBM2.
    let p100 = printing("p100-pcie-16gb", 15.89, 16_271);
    close(p100.fp16_tflops(), 2.0 * 9.35, 0.01);
    assert_eq!((p100.bf16_tflops, p100.fp8_tflops()), (0.0, 0.0));
    assert_eq!(p100.bandwidth_bytes_per_s(), 732_000_000_000);
    // RTX A4000: 15.61 GiB (DengKaiCQ/VGGT-Long#6) → 15,984 MiB; RTX A5000: 23.67 GiB
    // (Magicboomliu/Accelerator-Simple-Template#7) → 24,238 MiB. Both have GDDR6 with ECC, and
    // the A10G's ECC-on ratio (× 0.91907) would have put them at 15,058 and 22,587 MiB: these
    // figures are with ECC off.
    let a4000 = printing("rtx-a4000", 15.61, 15_984);
    let a5000 = printing("rtx-a5000", 23.67, 24_238);
    // Dense FP16 tensor TFLOPS at the workstation rate, 1024 FLOP per SM and clock (the RTX
    // A6000's 154.8 for 84 SMs at 1800 MHz): half the sparse 153.4 and 222.2 of the datasheets.
    close(
        84.0 * 1.8e9 * 1024.0 / 1e12,
        gpu("rtx-a6000").fp16_tflops(),
        0.05,
    );
    close(48.0 * 1.56e9 * 1024.0 / 1e12, a4000.fp16_tflops(), 0.05);
    close(a4000.fp16_tflops(), 153.4 / 2.0, 0.01);
    close(64.0 * 1.695e9 * 1024.0 / 1e12, a5000.fp16_tflops(), 0.05);
    close(a5000.fp16_tflops(), 222.2 / 2.0, 0.01);
    // A4000: 14 Gbps GDDR6 on 256 bits; A5000: 16 Gbps on 384 bits.
    assert_eq!(a4000.bandwidth_bytes_per_s(), 14 * 256 / 8 * 1_000_000_000);
    assert_eq!(a5000.bandwidth_bytes_per_s(), 16 * 384 / 8 * 1_000_000_000);
    for g in [p100, a4000, a5000] {
        assert_eq!(g.memory_source, vramfit::hardware::MemorySource::Measured);
        assert_eq!(g.date, "2026-12-01", "{}", g.id);
        assert!(!g.has_mig());
    }
}

#[test]
fn the_rtx_5070_ti_5070_and_5060_ti_are_derived_from_the_rtx_5090s_reserve() {
    let derived = vramfit::hardware::MemorySource::Derived;
    // RTX 5070 Ti and 5060 Ti 16GB (16 GB) and RTX 5070 (12 GB): their memory less the largest
    // Blackwell GeForce reserve measured on Linux, the RTX 5090's 687 MiB (32,768 − 32,081):
    // 15,697, 15,697 and 11,601 MiB. The 5070 Ti does not take the RTX 5080's 15,851 MiB.
    assert_eq!(32_768 * MIB - gpu("rtx-5090").memory.get(), 687 * MIB);
    let r5070ti = gpu("rtx-5070-ti");
    assert_eq!(r5070ti.memory.get(), 15_697 * MIB);
    assert!(r5070ti.memory < gpu("rtx-5080").memory);
    let r5070 = gpu("rtx-5070");
    assert_eq!(r5070.memory.get(), 11_601 * MIB);
    let r5060ti = gpu("rtx-5060-ti-16gb");
    assert_eq!(r5060ti.memory.get(), 15_697 * MIB);
    // Dense FP16 tensor TFLOPS with FP32 accumulate at GeForce's 512 FLOP per SM and clock:
    // 70 SMs × 2452 MHz, 48 × 2512 and 36 × 2572; FP8 twice that. GDDR7 at 28 Gbps on 256, 192
    // and 128 bits.
    for (g, sms, mhz, bits) in [
        (r5070ti, 70.0, 2452.0, 256),
        (r5070, 48.0, 2512.0, 192),
        (r5060ti, 36.0, 2572.0, 128),
    ] {
        close(sms * mhz * 1e6 * 512.0 / 1e12, g.fp16_tflops(), 0.05);
        close(g.bf16_tflops, g.fp16_tflops(), 1e-9);
        close(g.fp8_tflops(), 2.0 * g.fp16_tflops(), 0.1);
        assert_eq!(
            g.bandwidth_bytes_per_s(),
            28 * bits / 8 * 1_000_000_000,
            "{}",
            g.id
        );
        assert_eq!(g.memory_source, derived, "{}", g.id);
        assert_eq!(g.date, "2026-12-01", "{}", g.id);
        assert!(!g.has_mig());
    }
    close(r5070ti.fp16_tflops(), 87.9, 1e-9);
    close(r5070.fp16_tflops(), 61.7, 1e-9);
    close(r5060ti.fp16_tflops(), 47.4, 1e-9);
}

#[test]
fn the_rtx_3070_and_4070_ti_hold_their_linux_figures() {
    // RTX 3070: the lowest of 7.76 GiB (sshan-zhao/GASDA#19) and 7.78 (two threads):
    // 7,946.24 MiB → 7,946 MiB, 246 MiB under its 8 GiB.
    let r3070 = printing("rtx-3070", 7.76, 7_946);
    assert_eq!(8_192 * MIB - r3070.memory.get(), 246 * MIB);
    // RTX 4070 Ti: 11.70 GiB beside the nvidia-smi table of a 4070 Ti on the Linux driver
    // 545.23.08 (Kwai-Kolors/Kolors#11); 11.73 elsewhere: 11,980.8 MiB → 11,980 MiB.
    let r4070ti = printing("rtx-4070-ti", 11.70, 11_980);
    assert_eq!(12_288 * MIB - r4070ti.memory.get(), 308 * MIB);
    for g in [r3070, r4070ti] {
        assert_eq!(g.memory_source, vramfit::hardware::MemorySource::Measured);
        assert_eq!(g.date, "2026-12-01", "{}", g.id);
        assert!(!g.has_mig());
    }
    // Bandwidth: 14 Gbps GDDR6 on 256 bits; 21 Gbps GDDR6X on 192 bits.
    assert_eq!(r3070.bandwidth_bytes_per_s(), 14 * 256 / 8 * 1_000_000_000);
    assert_eq!(
        r4070ti.bandwidth_bytes_per_s(),
        21 * 192 / 8 * 1_000_000_000
    );
    // Dense FP16 tensor TFLOPS with FP32 accumulate at GeForce's 512 FLOP per SM and clock:
    // 46 SMs × 1725 MHz (the GA102 whitepaper's RTX 3070: 40.6) and 60 SMs × 2610 MHz; Ampere
    // has no FP8, Ada's is twice its FP16.
    close(46.0 * 1.725e9 * 512.0 / 1e12, r3070.fp16_tflops(), 0.05);
    close(r3070.fp16_tflops(), 40.6, 1e-9);
    assert_eq!(r3070.fp8_tflops(), 0.0);
    close(60.0 * 2.61e9 * 512.0 / 1e12, r4070ti.fp16_tflops(), 0.05);
    close(r4070ti.fp8_tflops(), 2.0 * r4070ti.fp16_tflops(), 1e-9);
    assert_eq!(
        (r3070.tdp_watts(), r4070ti.tdp_watts()),
        (Some(220), Some(285))
    );
}

#[test]
fn data_center_cards_hold_the_lowest_published_cuda_total() {
    let measured = vramfit::hardware::MemorySource::Measured;
    // A30: 23.53 GiB (google/RB-Modulation#5) = 24,094.72 MiB → 24,094 MiB; the rule it replaced,
    // 24,576 MiB × 0.98987, gave 24,327 MiB, 233 MiB more than the card shows. Its 4g.24gb slice
    // (23.5 GiB by -lgip) still fits inside.
    let a30 = printing("a30", 23.53, 24_094);
    assert_eq!(a30.memory.display_gib(), "23.53 GiB");
    assert!(a30.mig_profiles().iter().all(|p| p.usable <= a30.memory));
    // V100 16GB: 15.77 GiB (meta-llama/llama#918) → 16,148 MiB, 70 MiB under the rule's 16,218.
    let v16 = printing("v100-sxm2-16gb", 15.77, 16_148);
    // V100 32GB: the lowest of 31.74 GiB (ChatGLM-Finetuning#73) and 31.75 (two threads):
    // 32,501.76 MiB → 32,501 MiB.
    let v32 = printing("v100-sxm2-32gb", 31.74, 32_501);
    // A40, ECC on: 44.35 GiB (chatdoc-com/OCRFlux#64) → 45,414 MiB, 240 MiB over the rule's 45,174.
    let a40 = printing("a40", 44.35, 45_414);
    // A10: 22.06 GiB (vllm-project/vllm#928) stands for 22,584.3 to 22,594.6 MiB; the A10G's
    // exact 22,587 MiB (the same GDDR6 with ECC) lies within it and is kept.
    let a10 = gpu("a10");
    assert_eq!(a10.memory.get(), 22_587 * MIB);
    assert_eq!(a10.memory, gpu("a10g").memory);
    assert!((22.055..22.065).contains(&a10.memory.as_gib()));
    // L40, added 2026-12-01: 44.40 GiB (NVlabs/Eagle#68) = 45,465.6 MiB → 45,465 MiB, 21 MiB under
    // the L40S's 44.42 GiB on the same chip and memory. Datasheet: 181.05 TFLOPS dense FP16,
    // half the L40S's 362; FP8 twice FP16; 864 GB/s like the L40S.
    let l40 = printing("l40", 44.40, 45_465);
    assert_eq!(gpu("l40s").memory.get() - l40.memory.get(), 21 * MIB);
    close(l40.fp16_tflops() * 2.0, gpu("l40s").fp16_tflops(), 0.2);
    close(l40.fp8_tflops(), 2.0 * l40.fp16_tflops(), 1e-9);
    assert_eq!(
        l40.bandwidth_bytes_per_s(),
        gpu("l40s").bandwidth_bytes_per_s()
    );
    assert!(!l40.has_mig());
    // H100 NVL: 93.00 GiB (ali-vilab/VACE#56) = 95,232 MiB, 48 MiB under the rule's 95,280; its
    // largest MIG slice (7g, 92.62 GiB by -lgip) still fits inside.
    let nvl = printing("h100-nvl-94gb", 93.00, 95_232);
    assert!(nvl.mig_profiles().iter().all(|p| p.usable <= nvl.memory));
    // Ascend 910B (64 GB HBM): torch_npu prints 60.96 GiB (vllm-project/vllm-ascend#1670) and
    // 60.97 (LlamaFactory#5491): the lowest, 62,423.04 MiB → 62,423 MiB. NVIDIA's HBM ratio had
    // given 65,536 × 0.98987 = 64,872 MiB, 2,449 MiB (2.39 GiB) more than the card shows.
    let npu = printing("ascend-910b", 60.96, 62_423);
    // L4: 22.03 GiB (ArcInstitute/evo2#190) = 22,558.72 MiB → 22,558 MiB; the A10G's ratio
    // (24,576 MiB × 0.91907) gave 22,587 MiB, 29 MiB more than the card shows.
    let l4 = printing("l4", 22.03, 22_558);
    assert_eq!(l4.memory.display_gib(), "22.03 GiB");
    // RTX A6000: the lowest of 47.53 GiB (GPU 1 in google-research/semivl#10) and 47.54 (GPU 0
    // of the same pair, semivl#18): 48,670.72 MiB → 48,670 MiB. The rule it replaced, 48 GiB
    // less the RTX 3090's 328 MiB, gave 48,824 MiB: 154 MiB more than the card shows.
    let a6000 = printing("rtx-a6000", 47.53, 48_670);
    assert_eq!(49_152 * MIB - 328 * MIB - a6000.memory.get(), 154 * MIB);
    // B200: PyTorch's allocator logs the total in bytes in vLLM's 4xB200 CI
    // (vllm-project/vllm#51071): 191,503,007,744 B = 182,631.5 MiB = 178.35 GiB. The H100's HBM
    // ratio gave 184,320 MiB × 0.98987 → 182,452 MiB, 179.5 MiB less. Its largest MIG slice
    // (7g.180gb, 4 × the measured 2g.45gb) still fits inside.
    let b200 = gpu("b200-180gb");
    assert_eq!(b200.memory.get(), 191_503_007_744);
    assert_eq!(b200.memory.get() * 2, 365_263 * MIB);
    assert_eq!(b200.memory.display_gib(), "178.35 GiB");
    assert_eq!(b200.memory.get() * 2 - 2 * 182_452 * MIB, 359 * MIB);
    assert!(b200.mig_profiles().iter().all(|p| p.usable <= b200.memory));
    // H20: 95.08 GiB on a single H20 (sgl-project/sglang#10736) = 97,361.92 MiB → 97,361 MiB,
    // 53 MiB over the rule's 98,304 × 0.98987 = 97,308 MiB; its 7g.96gb slice fits inside.
    let h20 = printing("h20-96gb", 95.08, 97_361);
    assert_eq!(h20.memory.get() - 97_308 * MIB, 53 * MIB);
    assert!(h20.mig_profiles().iter().all(|p| p.usable <= h20.memory));
    for g in [a30, v16, v32, a40, a10, l40, nvl, npu, l4, a6000, b200, h20] {
        assert_eq!(g.memory_source, measured, "{}", g.id);
        assert_eq!(g.date, "2026-12-01", "{}", g.id);
    }
}

#[test]
fn mig_usable_memory_is_below_the_label() {
    // reference/README.md and nvidia-smi mig -lgip on A100-40GB: 1g.5gb = 4.75 GiB = 4864 MiB.
    let a100 = gpu("a100-sxm4-40gb");
    assert_eq!(a100.mig_profile("1g.5gb").unwrap().usable.get(), 4864 * MIB);
    // H100 80GB, the lowest published nvidia-smi mig -lgip (Google Cloud, driver 525.125.06):
    // 1g.10gb 9.62 GiB, 3g.40gb 39.25 GiB (40192 MiB); 7g.80gb derived as 2 × 39.25 GiB.
    let h100 = gpu("h100-sxm5-80gb");
    assert_eq!(
        h100.mig_profile("1g.10gb").unwrap().usable.get(),
        9850 * MIB
    );
    assert_eq!(
        h100.mig_profile("3g.40gb").unwrap().usable.get(),
        40192 * MIB
    );
    assert_eq!(
        h100.mig_profile("7g.80gb").unwrap().usable.get(),
        2 * 40192 * MIB
    );
    // A30 (nvidia-smi mig -lgip): 1g.6gb 5.81, 2g.12gb 11.69, 4g.24gb 23.50 GiB.
    let a30 = gpu("a30");
    assert_eq!(
        a30.mig_profile("1g.6gb").unwrap().usable.display_gib(),
        "5.81 GiB"
    );
    assert_eq!(
        a30.mig_profile("2g.12gb").unwrap().usable.display_gib(),
        "11.69 GiB"
    );
    assert_eq!(
        a30.mig_profile("4g.24gb").unwrap().usable.get(),
        24_064 * MIB
    );
    for g in gpus().iter().filter(|g| g.has_mig()) {
        for p in g.mig_profiles() {
            // The label's figure (40 in 3g.40gb) is above the usable memory in GiB.
            let label: f64 = p
                .name
                .split('.')
                .nth(1)
                .unwrap()
                .trim_end_matches("gb")
                .parse()
                .unwrap();
            assert!(
                p.usable.as_gib() < label,
                "{} {}: {}",
                g.id,
                p.name,
                p.usable
            );
        }
    }
    // The MIG GPUs of the brief.
    for id in [
        "a100-sxm4-40gb",
        "a100-sxm4-80gb",
        "h100-sxm5-80gb",
        "h100-nvl-94gb",
        "h200-sxm-141gb",
        "h20-96gb",
        "a30",
    ] {
        assert!(gpu(id).has_mig(), "{id}");
    }
    assert!(!gpu("rtx-4090").has_mig() && !gpu("l40s").has_mig());
}

// ---- MIG placement ---------------------------------------------------------------------------

/// An independent check of the placement rules, written from the MIG user guide: each
/// instance starts at an allowed index, memory ranges are disjoint, compute adds up to at most
/// the GPU's, and no profile has more instances than allowed.
fn independent_valid(g: &Gpu, layout: &[(usize, u8)]) -> bool {
    let mut occupied = vec![false; g.mig_memory_slices as usize];
    let mut compute = 0u32;
    let mut counts = vec![0u8; g.mig_profiles().len()];
    for &(pi, start) in layout {
        let p = &g.mig_profiles()[pi];
        if !p.starts.contains(&start) {
            return false;
        }
        for s in start..start + p.memory_slices {
            match occupied.get_mut(s as usize) {
                Some(o) if !*o => *o = true,
                _ => return false,
            }
        }
        compute += u32::from(p.compute_slices);
        counts[pi] += 1;
        if counts[pi] > p.max_instances {
            return false;
        }
    }
    compute <= u32::from(g.mig_compute_slices)
}

#[test]
fn every_layout_enumerated_is_valid_and_every_valid_layout_is_enumerated() {
    for g in gpus().iter().filter(|g| g.has_mig()) {
        // All (profile, start) placements; every subset of them is a candidate layout.
        let all: Vec<(usize, u8)> = g
            .mig_profiles()
            .iter()
            .enumerate()
            .flat_map(|(i, p)| p.starts.iter().map(move |&s| (i, s)))
            .collect();
        assert!(
            all.len() <= 20,
            "{}: brute force over 2^{} subsets",
            g.id,
            all.len()
        );
        // Brute force over every subset, without allocating: memory bits, compute and counts.
        let bits: Vec<(u32, u32, usize)> = all
            .iter()
            .map(|&(i, st)| {
                let p = &g.mig_profiles()[i];
                (
                    ((1u32 << p.memory_slices) - 1) << st,
                    u32::from(p.compute_slices),
                    i,
                )
            })
            .collect();
        let mut brute = 0usize;
        'subsets: for mask in 1u32..(1 << all.len()) {
            let (mut mem, mut compute, mut counts) = (0u32, 0u32, [0u8; 8]);
            for (b, &(m, c, i)) in bits.iter().enumerate() {
                if mask & (1 << b) == 0 {
                    continue;
                }
                if mem & m != 0 {
                    continue 'subsets;
                }
                mem |= m;
                compute += c;
                counts[i] += 1;
                if counts[i] > g.mig_profiles()[i].max_instances {
                    continue 'subsets;
                }
            }
            if compute <= u32::from(g.mig_compute_slices) {
                brute += 1;
            }
        }
        let layouts = valid_layouts(g);
        assert_eq!(
            layouts.len(),
            brute,
            "{}: the enumeration finds exactly the valid layouts",
            g.id
        );
        for l in &layouts {
            let idx: Vec<(usize, u8)> = l
                .iter()
                .map(|p| {
                    (
                        g.mig_profiles()
                            .iter()
                            .position(|q| q.name == p.profile.name)
                            .unwrap(),
                        p.start,
                    )
                })
                .collect();
            assert!(independent_valid(g, &idx), "{}: {:?}", g.id, idx);
            assert_eq!(check_layout(g, l), Ok(()));
        }
    }
}

#[test]
fn placement_rules_match_the_mig_user_guide() {
    let g = gpu("a100-sxm4-80gb");
    let p = |name: &str, start: u8| Placement {
        profile: g.mig_profile(name).unwrap(),
        start,
    };
    // Valid: the guide's 3g.40gb + 2 × 2g.20gb; 4g.40gb + 3g.40gb; seven 1g.10gb.
    assert!(check_layout(g, &[p("3g.40gb", 4), p("2g.20gb", 0), p("2g.20gb", 2)]).is_ok());
    assert!(check_layout(g, &[p("4g.40gb", 0), p("3g.40gb", 4)]).is_ok());
    assert!(check_layout(g, &(0..7).map(|s| p("1g.10gb", s)).collect::<Vec<_>>()).is_ok());
    // Invalid: 2g.20gb may not start at 6 ({0,2,4}:2); 1g.10gb not at 7; 3g.40gb not at 2;
    // 4g.40gb + 4g.40gb (one start only); 3g.40gb × 2 + 1g.10gb (7 compute + 1).
    assert!(check_layout(g, &[p("2g.20gb", 6)]).is_err());
    assert!(check_layout(g, &[p("1g.10gb", 7)]).is_err());
    assert!(check_layout(g, &[p("3g.40gb", 2)]).is_err());
    assert!(check_layout(g, &[p("4g.40gb", 0), p("4g.40gb", 0)]).is_err());
    assert!(check_layout(g, &[p("3g.40gb", 0), p("3g.40gb", 4), p("1g.10gb", 3)]).is_err());
    // Eight one-slice instances: 8 memory slices but only 7 compute, and starts stop at 6.
    assert!(check_layout(g, &(0..8).map(|s| p("1g.10gb", s)).collect::<Vec<_>>()).is_err());
}

// ---- MIG planner -----------------------------------------------------------------------------

fn zhixingyun() -> MigOptions {
    MigOptions {
        provider: Some("zhixingyun".into()),
        ..MigOptions::default()
    }
}

#[test]
fn guide_5_3_example_one_a100_80gb_as_3g_plus_two_2g() {
    // §5.3: a 13B model under debugging (needs a 40 GB slice) and two 7B inference services
    // (20 GB slices) share one A100 80GB: 3g.40gb + 2 × 2g.20gb for about 5 CNY/h, against
    // about 16 CNY/h for two whole A100 80GB (8 CNY per card-hour).
    let jobs = [Bytes::gib(36), Bytes::gib(16), Bytes::gib(16)];
    let plan = plan_mig(gpu("a100-sxm4-80gb"), &jobs, offers(), &zhixingyun()).unwrap();
    assert_eq!(plan.cards.len(), 1);
    let mut got: Vec<(&str, usize)> = plan.cards[0]
        .slices
        .iter()
        .map(|s| (s.profile.as_str(), s.job))
        .collect();
    got.sort();
    assert_eq!(got, [("2g.20gb", 1), ("2g.20gb", 2), ("3g.40gb", 0)]);
    assert_eq!(plan.pricing, MigPricing::PerSlice);
    // Per-slice prices = memory share of 5 CNY/h: 3g.40gb 4/8 × 5 = 2.5, 2g.20gb 2/8 × 5 = 1.25.
    close(plan.cost_per_hour.unwrap(), 2.5 + 1.25 + 1.25, 1e-9);
    // Each job on its own whole card: 3 × 8 = 24 CNY/h. The guide's 16 CNY/h counts the two 7B
    // replicas as one service on one card: 2 × 8.
    close(plan.whole_cards_cost_per_hour.unwrap(), 24.0, 1e-9);
    let two_jobs = plan_mig(
        gpu("a100-sxm4-80gb"),
        &[Bytes::gib(36), Bytes::gib(32)],
        offers(),
        &zhixingyun(),
    )
    .unwrap();
    close(two_jobs.whole_cards_cost_per_hour.unwrap(), 16.0, 1e-9);
    assert_eq!(plan.currency, Currency::Cny);
    // The layout is one the driver accepts.
    let g = gpu("a100-sxm4-80gb");
    let layout: Vec<Placement> = plan.cards[0]
        .slices
        .iter()
        .map(|s| Placement {
            profile: g.mig_profile(&s.profile).unwrap(),
            start: s.start,
        })
        .collect();
    assert_eq!(check_layout(g, &layout), Ok(()));
}

#[test]
fn a_job_fits_a_slice_by_usable_memory_not_by_label() {
    let g = gpu("a100-sxm4-80gb");
    // 20 GB (20e9 B = 18.63 GiB) fits a 2g.20gb (19.50 GiB usable, nvidia-smi mig -lgip on
    // A100 80GB) …
    let p = plan_mig(g, &[Bytes::new(20 * GB)], offers(), &zhixingyun()).unwrap();
    assert_eq!(p.cards[0].slices[0].usable_bytes.display_gib(), "19.50 GiB");
    // … but 20 GiB (21.47 GB) does not: the next slice up has 4 memory slices (39.25 GiB).
    let p = plan_mig(g, &[Bytes::gib(20)], offers(), &zhixingyun()).unwrap();
    assert!(p.cards[0].slices[0].profile.ends_with(".40gb"));
    // A100-40GB, whole-card pricing (no slice offers): seven 5 GB jobs (4.66 GiB each) fit the
    // seven 1g.5gb of one card (4.75 GiB each); seven 4.8 GiB jobs need two-slice instances
    // (9.62 GiB), at most 4 per card (8 memory slices / 2), so 2 cards.
    let a40 = gpu("a100-sxm4-40gb");
    let p = plan_mig(
        a40,
        &[Bytes::new(5 * GB); 7],
        offers(),
        &MigOptions::default(),
    )
    .unwrap();
    assert_eq!(p.cards.len(), 1);
    assert!(p.cards[0].slices.iter().all(|s| s.profile == "1g.5gb"));
    assert_eq!(p.pricing, MigPricing::WholeCard);
    let p = plan_mig(
        a40,
        &[Bytes::mib(4915); 7],
        offers(),
        &MigOptions::default(),
    )
    .unwrap();
    assert_eq!(p.cards.len(), 2);
    assert!(
        p.cards
            .iter()
            .flat_map(|c| &c.slices)
            .all(|s| s.profile != "1g.5gb")
    );
    // Whole-card pricing: the cheapest A100-40GB card is Lambda's 1.48 USD/h = 10.508 CNY at 7.1
    // (AWS p4d 32.7726 / 8 = 4.10, Azure 27.197 / 8 = 3.40, GCP 3.67 USD are dearer);
    // 2 cards = 21.016 CNY/h; 7 jobs on 7 whole cards = 73.556 CNY/h.
    close(p.cost_per_hour.unwrap(), 2.0 * 1.48 * 7.1, 1e-9);
    close(p.whole_cards_cost_per_hour.unwrap(), 7.0 * 1.48 * 7.1, 1e-9);
    // Too big for any slice: error names the field.
    let e = plan_mig(g, &[Bytes::gib(80)], offers(), &zhixingyun()).unwrap_err();
    assert_eq!(e.field, "job");
    assert!(
        plan_mig(
            gpu("rtx-4090"),
            &[Bytes::gib(1)],
            offers(),
            &MigOptions::default()
        )
        .is_err()
    );
}

#[test]
fn mig_packs_onto_as_few_cards_as_possible() {
    // Eight 9 GiB jobs each need a 1-memory-slice instance (9.75 GiB); a card holds at most 7
    // (7 compute slices), so 2 cards; per-slice cost 8 × (1/8 × 5) = 5 CNY/h.
    let g = gpu("a100-sxm4-80gb");
    let p = plan_mig(g, &[Bytes::gib(9); 8], offers(), &zhixingyun()).unwrap();
    assert_eq!(p.cards.len(), 2);
    assert!(p.exhaustive);
    close(p.cost_per_hour.unwrap(), 5.0, 1e-9);
    let slices: usize = p.cards.iter().map(|c| c.slices.len()).sum();
    assert_eq!(slices, 8);
    // Two 39 GiB jobs fit one card (3g.40gb at 0 and 4), not two.
    let p = plan_mig(
        g,
        &[Bytes::gib(39), Bytes::gib(39)],
        offers(),
        &zhixingyun(),
    )
    .unwrap();
    assert_eq!(p.cards.len(), 1);
    // Three 39 GiB jobs: only two 4-slice instances fit a card, so 2 cards.
    let p = plan_mig(g, &[Bytes::gib(39); 3], offers(), &zhixingyun()).unwrap();
    assert_eq!(p.cards.len(), 2);
    for c in &p.cards {
        let layout: Vec<Placement> = c
            .slices
            .iter()
            .map(|s| Placement {
                profile: g.mig_profile(&s.profile).unwrap(),
                start: s.start,
            })
            .collect();
        assert_eq!(check_layout(g, &layout), Ok(()));
    }
}

// ---- cheapest fit ----------------------------------------------------------------------------

/// A 150 GiB job: a single GPU needs all of it; TP/PP split it (+1 GiB each for buffers); ZeRO-3
/// shards it (+3 GiB); data parallel would replicate it.
fn job_150(l: Layout, _: &Gpu) -> Bytes {
    let n = u64::from(l.gpus);
    match l.kind {
        ParallelKind::Single | ParallelKind::Mig | ParallelKind::Data | ParallelKind::Expert => {
            Bytes::gib(150)
        }
        ParallelKind::Tensor | ParallelKind::Pipeline | ParallelKind::TensorPipeline => {
            Bytes::gib(150 / n + 1)
        }
        ParallelKind::Zero3 => Bytes::gib(150 / n + 3),
    }
}

#[test]
fn cheapest_fit_by_hand() {
    let offers: Vec<_> = [
        "lambda-h100-sxm-8x",
        "runpod-h100-sxm-1x",
        "lambda-h100-pcie-1x",
    ]
    .iter()
    .map(|id| find_offer(id).unwrap().clone())
    .collect();
    let opts = PlanOptions::default();
    let got = plan(job_150, &offers, gpus(), &opts);
    // On an H100 (79.19 GiB): 1 GPU needs 150 GiB, no. 2 GPUs: TP/PP need 76 GiB, ZeRO-3 78 GiB:
    // all fit, but only in one machine with 2 GPUs or more (plan.rs: a layout of n GPUs needs an
    // offer with count >= n; two separate 1-GPU rentals are two machines). So only the 8-GPU
    // server, rented whole (8 × 3.78 = 30.24), with TP=2, PP=2 and ZeRO-3 × 2; TP×PP on 4 GPUs
    // is dominated by the 2-GPU layouts at the same price.
    assert_eq!(got.len(), 3);
    assert!(got.iter().all(|o| o.offer == "lambda-h100-sxm-8x"
        && o.count == 2
        && o.rented_gpus == 8
        && o.parallelism.kind != ParallelKind::TensorPipeline));
    close(got[0].price_per_hour, 30.24, 1e-9);
    // Without the 2-GPU layouts (a job that needs 4 GPUs), TP×PP appears, on the server only.
    let needs_4 = |l: Layout, _: &Gpu| match (l.gpus, l.kind) {
        (4, ParallelKind::TensorPipeline) => Bytes::gib(40),
        _ => Bytes::gib(100),
    };
    let got4 = plan(needs_4, &offers, gpus(), &opts);
    assert_eq!(got4.len(), 1);
    close(got4[0].price_per_hour, 30.24, 1e-9);
    assert_eq!(got4[0].parallelism.kind, ParallelKind::TensorPipeline);
    // Same price and count: fewer pipeline stages first (`Layout::speed_rank`), then the larger
    // margin: TP (79.19 − 76 = 3.19 GiB), ZeRO-3 (no pipeline either, 1.19 GiB), then PP=2
    // (3.19 GiB, but two stages in turn).
    assert_eq!(got[0].parallelism.kind, ParallelKind::Tensor);
    assert_eq!(got[0].margin_bytes.get(), 81_090 * MIB - 76 * GIB);
    assert_eq!(got[1].parallelism.kind, ParallelKind::Zero3);
    assert_eq!(got[1].margin_bytes.get(), 81_090 * MIB - 78 * GIB);
    assert_eq!(got[2].parallelism.kind, ParallelKind::Pipeline);
    assert_eq!(got[2].margin_bytes.get(), 81_090 * MIB - 76 * GIB);
    // In CNY at 7.1: 30.24 × 7.1 = 214.704.
    let cny = plan(
        job_150,
        &offers,
        gpus(),
        &PlanOptions {
            currency: Currency::Cny,
            cny_per_usd: 7.1,
            ..opts
        },
    );
    close(cny[0].price_per_hour, 214.704, 1e-9);
}

#[test]
fn data_parallel_never_cuts_per_gpu_memory() {
    // A naive memory function that divides by the GPU count for every kind, data parallel
    // included. Unless the options ask for replicas (`PlanOptions::for_run`, a vLLM or SGLang
    // serving run, whose per-GPU function counts each replica's share of the concurrency),
    // the planner must never ask about (or propose) a data-parallel layout.
    let asked = RefCell::new(Vec::new());
    let naive = |l: Layout, _: &Gpu| {
        asked.borrow_mut().push(l.kind);
        Bytes::gib(150).div_ceil(u64::from(l.gpus))
    };
    let got = plan(naive, offers(), gpus(), &PlanOptions::default());
    assert!(!got.is_empty());
    assert!(got.iter().all(|o| o.parallelism.kind != ParallelKind::Data));
    assert!(!asked.borrow().contains(&ParallelKind::Data));
    // And every option fits: margin = usable − need, need ≤ usable.
    for o in &got {
        assert!(o.per_gpu_bytes <= o.usable_bytes);
        assert_eq!(o.margin_bytes, o.usable_bytes.minus(o.per_gpu_bytes));
        assert!(o.price_per_hour.is_finite() && o.price_per_hour > 0.0);
    }
    // Sorted cheapest first.
    assert!(
        got.windows(2)
            .all(|w| w[0].price_per_hour <= w[1].price_per_hour)
    );
}

#[test]
fn small_jobs_land_on_slices() {
    // 8 GiB fits a 1g.10gb slice (9.75 GiB) at 5/8 = 0.625 CNY/h, the cheapest option in CNY.
    let got = plan(
        |_, _| Bytes::gib(8),
        offers(),
        gpus(),
        &PlanOptions {
            currency: Currency::Cny,
            cny_per_usd: 7.1,
            ..PlanOptions::default()
        },
    );
    // The 1/4 T4 vGPU (3775 MiB) is too small for 8 GiB; the cheapest is the MIG slice.
    assert_eq!(got[0].mig_profile.as_deref(), Some("1g.10gb"));
    close(got[0].price_per_hour, 0.625, 1e-9);
    assert_eq!(got[0].parallelism.kind, ParallelKind::Mig);
}

// ---- decision matrix -------------------------------------------------------------------------

#[test]
fn decision_matrix_by_hand() {
    let ranked = rank_platforms(platforms(), offers(), gpus(), &Weights::default());
    let zx = ranked.iter().find(|p| p.platform == "zhixingyun").unwrap();
    // memory: slices 9.75 (≤16), 19.62 (16–24), 39.50 (32–48) GiB, whole A100/H100 (48–80):
    // 4 bands; billing per minute 4; MIG 5; InfiniBand HDR 200 Gbit/s 3; PyTorch, TensorFlow,
    // Megatron-LM, vLLM 4; support 4 h 3. Equal weights: 23 / 6.
    assert_eq!(zx.scores, [4, 4, 5, 3, 4, 3]);
    close(zx.total, 23.0 / 6.0, 1e-12);
    let aws = ranked.iter().find(|p| p.platform == "aws").unwrap();
    // memory: T4 14.56, A10G 22.06, L4 22.03, A100 40GB 39.59, H100 79.19 GiB: 4 bands; per second 5;
    // no slicing 0; 3200 Gbit/s EFA 5; PyTorch, TensorFlow, DeepSpeed, vLLM 4; 1 h 4 → 22 / 6.
    assert_eq!(aws.scores, [4, 5, 0, 5, 4, 4]);
    close(aws.total, 22.0 / 6.0, 1e-12);
    assert!(zx.rank < aws.rank);
    // Weighting slicing 5: Zhixingyun (4+4+25+3+4+3)/10 = 4.3.
    let w = Weights::parse("weights", "slicing=5").unwrap();
    let ranked = rank_platforms(platforms(), offers(), gpus(), &w);
    assert_eq!(ranked[0].platform, "zhixingyun");
    close(ranked[0].total, 4.3, 1e-12);
    // Ranks are 1..n in order of total.
    assert!(
        ranked
            .windows(2)
            .all(|p| p[0].total >= p[1].total && p[1].rank == p[0].rank + 1)
    );
    for bad in [
        "memory",
        "speed=3",
        "memory=x",
        "memory=101",
        "memory=0,billing=0,slicing=0,interconnect=0,frameworks=0,support=0",
    ] {
        assert_eq!(
            Weights::parse("weights", bad).unwrap_err().field,
            "weights",
            "{bad}"
        );
    }
}

// ---- spot ------------------------------------------------------------------------------------

#[test]
fn spot_against_on_demand_by_hand() {
    // H = 24 h, P = 8/h, S = 2.4/h (30 %), M = 12 h, C = 1 h, R = 0.25 h.
    // λ = 1/12; e^(1/12) − 1 = 0.0869040495; T(1) = 0.0869040495 × (12 + 0.25) = 1.0645746066;
    // W = 24 × T(1) = 25.5497905592 h; N = 24 × 0.0869040495 = 2.0856971885;
    // spot cost = 2.4 × W = 61.3194973422; on-demand 8 × 24 = 192; break-even S* = 192 / W
    // = 7.5147387042; lost per interruption 12 − e^(−1/12) / (1 − e^(−1/12)) = 0.4930563592 h.
    let c = compare(&SpotInput {
        hours: 24.0,
        on_demand_price: 8.0,
        spot_price: 2.4,
        mtbi_hours: 12.0,
        checkpoint_every_hours: 1.0,
        restart_hours: 0.25,
    })
    .unwrap();
    close(c.expected_wall_hours, 25.5497905592, 1e-9);
    close(c.expected_interruptions, 2.0856971885, 1e-9);
    close(c.spot_cost, 61.3194973422, 1e-9);
    close(c.on_demand_cost, 192.0, 1e-12);
    close(c.savings, 192.0 - 61.3194973422, 1e-9);
    close(c.break_even_spot_price, 7.5147387042, 1e-9);
    close(c.expected_lost_hours_per_interruption, 0.4930563592, 1e-9);
    assert!(c.spot_is_cheaper);
    assert!(!c.guide_prefers_on_demand);
    // The break-even MTBI: W(M*) = P·H / S = 80 h. With 24 segments, T(1) = 80/24 = 3.3333…:
    // (e^(1/M) − 1)(M + 0.25) = 3.3333 → check that the returned M gives that wall time.
    let m = c.break_even_mtbi_hours.unwrap();
    let t1 = ((1.0 / m).exp() - 1.0) * (m + 0.25);
    close(24.0 * t1 * 2.4, 192.0, 1e-6);
}

#[test]
fn spot_edge_cases() {
    let base = SpotInput {
        hours: 10.5,
        on_demand_price: 4.0,
        spot_price: 1.0,
        mtbi_hours: 6.0,
        checkpoint_every_hours: 2.0,
        restart_hours: 0.0,
    };
    // H = 10.5 = 5 × 2 + 0.5, R = 0, λ = 1/6: W = 5·6·(e^(1/3) − 1) + 6·(e^(1/12) − 1)
    // = 30 × 0.3956124251 + 6 × 0.0869040495 = 11.868372753 + 0.521424297 = 12.389797050.
    let c = compare(&base).unwrap();
    close(c.expected_wall_hours, 12.389797050, 1e-8);
    // Spot at the on-demand price is never cheaper: no break-even MTBI.
    assert!(
        compare(&SpotInput {
            spot_price: 4.0,
            ..base
        })
        .unwrap()
        .break_even_mtbi_hours
        .is_none()
    );
    // Bad input names its field.
    for (input, field) in [
        (SpotInput { hours: 0.0, ..base }, "hours"),
        (
            SpotInput {
                on_demand_price: f64::NAN,
                ..base
            },
            "on_demand_price",
        ),
        (
            SpotInput {
                spot_price: -1.0,
                ..base
            },
            "spot_price",
        ),
        (
            SpotInput {
                mtbi_hours: 0.0,
                ..base
            },
            "mtbi",
        ),
        (
            SpotInput {
                checkpoint_every_hours: f64::INFINITY,
                ..base
            },
            "checkpoint_every",
        ),
        (
            SpotInput {
                checkpoint_every_hours: 1000.0,
                hours: 1000.0,
                mtbi_hours: 1.0,
                ..base
            },
            "checkpoint_every",
        ),
    ] {
        assert_eq!(compare(&input).unwrap_err().field, field);
    }
    // Over 24 h the guide prefers on-demand.
    assert!(
        compare(&SpotInput {
            hours: 48.0,
            ..base
        })
        .unwrap()
        .guide_prefers_on_demand
    );
}

// ---- largest fit and tiers -------------------------------------------------------------------

#[test]
fn largest_batch_by_hand() {
    // need(b) = 10 GiB + 1.5 GiB × b on an H100 (81,090 MiB): b ≤ (81090 − 10240) / 1536
    // = 46.13, so 46; 47 needs 10240 + 72192 = 82,432 MiB > 81,090.
    let need = |b: u64| Bytes::mib(10_240 + 1536 * b);
    let f = largest_fitting(need, gpu("h100-sxm5-80gb").memory, 1, 1 << 20).unwrap();
    assert_eq!(f.value, 46);
    assert_eq!(f.next_value, Some(47));
    assert_eq!(f.next_bytes, Some(Bytes::mib(82_432)));
    assert!(f.bytes <= gpu("h100-sxm5-80gb").memory);
    // Nothing fits; everything fits (the upper bound is the answer, no next value).
    assert!(largest_fitting(need, Bytes::gib(5), 1, 100).is_none());
    let f = largest_fitting(need, Bytes::gib(1000), 1, 100).unwrap();
    assert_eq!((f.value, f.next_value), (100, None));
    assert!(largest_fitting(need, Bytes::gib(1000), 5, 4).is_none());
}

#[test]
fn guide_tiers() {
    assert_eq!(tier_for(25_557_032).inference_gpus, ["t4"]); // ResNet-50
    assert_eq!(tier_for(99_999_999).training_gpus, ["rtx-3090", "a10g"]);
    assert!(tier_for(100_000_000).name.starts_with("medium")); // 1 亿 starts the second tier
    assert!(tier_for(335_000_000).name.starts_with("medium")); // BERT-large
    assert!(tier_for(7_000_000_000).name.starts_with("large"));
    // The guide lists GPT-NeoX 20B under 1B–10B; its own bounds put it in ≥ 10B, which we keep.
    assert!(tier_for(20_000_000_000).name.starts_with("very large"));
    assert!(tier_for(u64::MAX).max_params.is_none());
    for t in &vramfit::hardware::tiers::TIERS {
        for id in t.inference_gpus.iter().chain(t.training_gpus) {
            gpu(id);
        }
    }
}

#[test]
fn mig_refuses_an_unknown_provider_and_sizes_a_model_job() {
    let opts = MigOptions {
        provider: Some("nowhere".into()),
        ..MigOptions::default()
    };
    let e = plan_mig(gpu("a100-sxm4-80gb"), &[Bytes::gib(10)], offers(), &opts).unwrap_err();
    assert_eq!(e.field, "provider");
    // The job of a preset is its default inference estimate.
    let direct = vramfit::estimate::estimate(&vramfit::estimate::EstimateInput {
        model: vramfit::estimate::ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap()
    .required_bytes;
    assert_eq!(
        vramfit::hardware::mig::model_job_bytes("meta-llama/Llama-3.1-8B").unwrap(),
        direct
    );
    // Llama-3.1-8B's bf16 weights alone are 8,030,261,248 × 2 B.
    assert!(direct.get() > 8_030_261_248 * 2);
    assert_eq!(
        vramfit::hardware::mig::model_job_bytes("no/such-model")
            .unwrap_err()
            .field,
        "job_model"
    );
}

#[test]
fn mig_jobs_are_read_named_and_refused_when_empty() {
    use vramfit::hardware::mig::parse_job;
    // A name, a bare size (named by its position from 1), an empty name (the same).
    assert_eq!(
        parse_job("jobs", 0, "13b=36GiB").unwrap(),
        (String::from("13b"), Bytes::gib(36))
    );
    assert_eq!(
        parse_job("jobs", 1, "16GiB").unwrap(),
        (String::from("job 2"), Bytes::gib(16))
    );
    assert_eq!(parse_job("jobs", 2, " =10GiB").unwrap().0, "job 3");
    let e = parse_job("jobs", 0, "a=0GiB").unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.problem.as_str()),
        ("jobs", "a needs less than 1 MiB")
    );
    // The planner names a job too large for any slice by its name.
    let a100 = vramfit::hardware::find_gpu("a100-sxm4-80gb").unwrap();
    let e = plan_mig(
        a100,
        &[Bytes::gib(10), Bytes::gib(500)],
        &[],
        &MigOptions {
            job_names: vec![String::from("small"), String::from("big")],
            ..MigOptions::default()
        },
    )
    .unwrap_err();
    assert!(e.problem.starts_with("big needs 500.00 GiB"), "{e}");
    let e = plan_mig(a100, &[Bytes::new(0)], &[], &MigOptions::default()).unwrap_err();
    assert_eq!(e.problem, "job 1 needs less than 1 MiB");
    // Under 1 MiB is not a job (1e-30GiB, 0.0000001B); past an f64 is past 1 PiB.
    for t in ["1e-30GiB", "0.0000001B", "1023KiB"] {
        let e = parse_job("jobs", 0, t).unwrap_err();
        assert_eq!(e.problem, "job 1 needs less than 1 MiB", "{t}");
        assert_eq!(
            e.accepted,
            "a size from 1 MiB to 1 PiB with its unit, e.g. 16GiB"
        );
    }
    assert_eq!(parse_job("jobs", 0, "1MiB").unwrap().1, Bytes::new(MIB));
    let e = parse_job("jobs", 0, "1e400GiB").unwrap_err();
    assert_eq!(e.problem, "`1e400GiB` is larger than 1 PiB");
}
