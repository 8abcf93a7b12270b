//! Numbers on screen, always with their unit. GiB (2^30) is what CUDA and PyTorch report;
//! GB (10^9) is what vendors print on cards, shown beside it where a card is concerned.

use vramfit::Bytes;
use vramfit::units::fixed;

/// `15.26 GiB` (three significant digits at least, never negative, never NaN).
pub fn gib(b: Bytes) -> String {
    let g = b.as_gib();
    if b.get() == 0 {
        "0 GiB".to_string()
    } else if g >= 1000.0 {
        format!("{} GiB", vramfit::estimate::thousands(g.round() as u64))
    } else if g >= 100.0 {
        format!("{} GiB", fixed(g, 0))
    } else if g >= 10.0 {
        format!("{} GiB", fixed(g, 1))
    } else if g >= 0.01 {
        format!("{} GiB", fixed(g, 2))
    } else {
        format!("{} MiB", fixed(b.get() as f64 / (1u64 << 20) as f64, 1))
    }
}

/// `16.4 GB`.
pub fn gb(b: Bytes) -> String {
    let g = b.as_gb();
    if g >= 1000.0 {
        format!("{} GB", vramfit::estimate::thousands(g.round() as u64))
    } else if g >= 100.0 {
        format!("{} GB", fixed(g, 0))
    } else {
        format!("{} GB", fixed(g, 1))
    }
}

/// A size in MiB, digits grouped, as `nvidia-smi` prints memory: `67,762 MiB`.
pub fn mib(b: Bytes) -> String {
    format!(
        "{} MiB",
        vramfit::estimate::thousands(b.get().div_ceil(1 << 20))
    )
}

/// `15.26 GiB (16.4 GB)`.
pub fn both(b: Bytes) -> String {
    format!("{} ({})", gib(b), gb(b))
}

/// A parameter count to three significant digits: `7.24 B`, `70.6 B`, `117 B`, `25.6 M`.
pub fn params(n: u64) -> String {
    let x = n as f64;
    let (v, unit) = if x >= 1e12 {
        (x / 1e12, "T")
    } else if x >= 1e9 {
        (x / 1e9, "B")
    } else if x >= 1e6 {
        (x / 1e6, "M")
    } else {
        return vramfit::estimate::thousands(n);
    };
    if v >= 100.0 {
        format!("{} {unit}", fixed(v, 0))
    } else if v >= 10.0 {
        format!("{} {unit}", fixed(v, 1))
    } else {
        format!("{} {unit}", fixed(v, 2))
    }
}

/// A percentage of `part` in `whole`, `0 %` when `whole` is zero.
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        "0 %".into()
    } else {
        format!("{} %", fixed(part as f64 * 100.0 / whole as f64, 0))
    }
}

/// A price per hour with its currency code.
pub fn price(amount: f64, currency: &str) -> String {
    if amount.is_finite() && amount >= 0.0 {
        format!("{} {currency}/h", fixed(amount, 2))
    } else {
        "—".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_always_shown() {
        assert_eq!(gib(Bytes::ZERO), "0 GiB");
        assert_eq!(gib(Bytes::gib(80)), "80.0 GiB");
        assert_eq!(gib(Bytes::new(14_000_000_000)), "13.0 GiB");
        assert_eq!(gb(Bytes::new(14_000_000_000)), "14.0 GB");
        assert_eq!(gib(Bytes::mib(3)), "3.0 MiB");
        assert_eq!(gib(Bytes::gib(640)), "640 GiB");
        assert_eq!(params(7_241_732_096), "7.24 B");
        // Three significant digits at every size: ResNet-50's 25,557,032, a 117 B MoE.
        assert_eq!(params(25_557_032), "25.6 M");
        assert_eq!(params(70_553_706_496), "70.6 B");
        assert_eq!(params(116_829_156_672), "117 B");
        assert_eq!(params(124_439), "124,439");
        // Huge sizes keep their digits grouped.
        assert_eq!(gib(Bytes::gib(546_801)), "546,801 GiB");
        assert_eq!(gb(Bytes::new(2_500_000_000_000)), "2,500 GB");
        assert_eq!(percent(1, 4), "25 %");
        assert_eq!(percent(1, 0), "0 %");
    }
}
