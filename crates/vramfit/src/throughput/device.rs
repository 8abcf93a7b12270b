//! A card's speed figures, read once from the catalog so that a sweep over many estimates does
//! not read them again.

use crate::error::Result;
use crate::gpu::Gpu;
use crate::units::number_text;

/// The figures of one GPU the speed model reads. Every GPU of a layout is the same card.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Device {
    /// Memory bandwidth in bytes per second (datasheet).
    pub bandwidth_bytes_per_s: f64,
    /// Dense 16-bit tensor throughput in FLOPS (FP16; BF16 is the same where the card has it).
    pub flops_16bit: f64,
    /// Dense FP8 tensor throughput in FLOPS; 0 where the card has no FP8.
    pub flops_fp8: f64,
    /// GPU-to-GPU bandwidth per direction in bytes per second; 0 where unknown.
    pub link_bytes_per_s: f64,
    /// Apple silicon: llama.cpp runs on it through Metal.
    pub metal: bool,
}

impl Device {
    /// The figures of a catalog card: [`Gpu::bandwidth_bytes_per_s`], the dense
    /// [`Gpu::fp16_tflops`] and [`Gpu::fp8_tflops`] (dense, not the sparse figures datasheets
    /// also print), and the first link of [`Gpu::interconnect`] (see [`link_bytes_per_s`], which
    /// the catalog's generator applies to its text).
    pub fn of(gpu: &Gpu) -> Device {
        Device {
            bandwidth_bytes_per_s: gpu.bandwidth_bytes_per_s() as f64,
            flops_16bit: gpu.fp16_tflops() * 1e12,
            flops_fp8: gpu.fp8_tflops() * 1e12,
            link_bytes_per_s: gpu.link_bytes_per_s,
            metal: gpu.generation().apple(),
        }
    }
}

/// A link's bandwidth per direction, in bytes per second, from the catalog's text; 0 when the
/// text names no bandwidth (`Infinity Fabric`, `unified memory`).
///
/// - `PCIe G.0 xN`: 0.985 GB/s per lane at 3.0 (8 GT/s, 128b/130b coding), doubling with each
///   generation: 15.75 GB/s at 3.0 x16, 31.5 at 4.0 x16, 63 at 5.0 x16, each direction.
/// - Any other link with a figure (`NVLink 4 900 GB/s`, `HCCS 392 GB/s`, `Infinity Fabric
///   896 GB/s`): vendors print the sum of both directions, so half of it.
///
/// Only the first link is read: `PCIe 4.0 x16 (NVLink bridge 600 GB/s)` is PCIe, since a
/// bridge joins two cards and rented machines seldom have one.
pub fn link_bytes_per_s(interconnect: &str) -> f64 {
    let first = interconnect.split('(').next().unwrap_or("");
    if let Some(rest) = first.trim().strip_prefix("PCIe ") {
        let mut words = rest.split_whitespace();
        let generation = words
            .next()
            .and_then(|g| g.split('.').next())
            .and_then(|g| g.parse::<u32>().ok());
        let lanes = words
            .next()
            .and_then(|w| w.strip_prefix('x'))
            .and_then(|n| n.parse::<u32>().ok());
        return match (generation, lanes) {
            (Some(g @ 3..=7), Some(n @ 1..=32)) => {
                // 8 GT/s at 3.0, doubling each generation, 128b/130b coding, 8 bits a byte.
                let gt_per_s = 8e9 * f64::from(1u32 << (g - 3));
                gt_per_s * 128.0 / 130.0 / 8.0 * f64::from(n)
            }
            _ => 0.0,
        };
    }
    // The number before `GB/s`, halved: the vendors' figure counts both directions.
    let Some(at) = first.find("GB/s") else {
        return 0.0;
    };
    let before = first[..at].trim_end();
    let start = before
        .rfind(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or(0, |i| i + 1);
    match before[start..].parse::<f64>() {
        Ok(gb) if gb.is_finite() && gb > 0.0 => gb * 1e9 / 2.0,
        _ => 0.0,
    }
}

/// `d` checked: its bandwidth and 16-bit throughput present and in range (an error naming
/// `gpu` otherwise); an FP8 throughput below 1 GFLOPS or a link below 1 MB/s (negative or not a
/// number included) is taken as missing (0).
pub(super) fn checked(d: &Device) -> Result<Device> {
    let bandwidth = d.bandwidth_bytes_per_s;
    if !(1e6..=1e16).contains(&bandwidth) {
        return Err(input_error!(
            OutOfRange,
            "gpu",
            ["has a memory bandwidth of {} B/s", number_text(bandwidth)],
            ["显存带宽为 {} B/s", number_text(bandwidth)],
            "a card with its memory bandwidth, from 1 MB/s to 10 PB/s",
            "带有显存带宽数据的显卡，1 MB/s 到 10 PB/s"
        ));
    }
    let flops = d.flops_16bit;
    if !(1e9..=1e19).contains(&flops) {
        return Err(input_error!(
            OutOfRange,
            "gpu",
            ["has a 16-bit throughput of {} FLOPS", number_text(flops)],
            ["16 位算力为 {} FLOPS", number_text(flops)],
            "a card with its dense FP16 throughput, from 1 GFLOPS to 10 EFLOPS",
            "带有 FP16 稠密算力数据的显卡，1 GFLOPS 到 10 EFLOPS"
        ));
    }
    // Below a plausible figure (or not a number), a figure is taken as missing.
    let present = |x: f64, low: f64, high: f64| if x >= low { x.min(high) } else { 0.0 };
    Ok(Device {
        bandwidth_bytes_per_s: bandwidth,
        flops_16bit: flops,
        flops_fp8: present(d.flops_fp8, 1e9, 1e19),
        link_bytes_per_s: present(d.link_bytes_per_s, 1e6, 1e16),
        metal: d.metal,
    })
}
