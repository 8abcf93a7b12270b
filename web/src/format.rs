//! Numbers on screen, always with their unit. GiB (2^30) is what CUDA and PyTorch report;
//! GB (10^9) is what vendors print on cards, shown beside it where a card is concerned.

use vramfit::Bytes;

/// `15.26 GiB` (three significant digits at least, never negative, never NaN).
pub fn gib(b: Bytes) -> String {
    let g = b.as_gib();
    if b.get() == 0 {
        "0 GiB".to_string()
    } else if g >= 100.0 {
        format!("{g:.0} GiB")
    } else if g >= 10.0 {
        format!("{g:.1} GiB")
    } else if g >= 0.01 {
        format!("{g:.2} GiB")
    } else {
        format!("{:.1} MiB", b.get() as f64 / (1u64 << 20) as f64)
    }
}

/// `16.4 GB`.
pub fn gb(b: Bytes) -> String {
    let g = b.as_gb();
    if g >= 100.0 {
        format!("{g:.0} GB")
    } else {
        format!("{g:.1} GB")
    }
}

/// `15.26 GiB (16.4 GB)`.
pub fn both(b: Bytes) -> String {
    format!("{} ({})", gib(b), gb(b))
}

/// A parameter count: `7.24 B`, `135 M`.
pub fn params(n: u64) -> String {
    let x = n as f64;
    if x >= 1e12 {
        format!("{:.2} T", x / 1e12)
    } else if x >= 1e9 {
        format!("{:.2} B", x / 1e9)
    } else if x >= 1e6 {
        format!("{:.0} M", x / 1e6)
    } else {
        format!("{n}")
    }
}

/// A percentage of `part` in `whole`, `0 %` when `whole` is zero.
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        "0 %".into()
    } else {
        format!("{:.0} %", part as f64 * 100.0 / whole as f64)
    }
}

/// A price per hour with its currency code.
pub fn price(amount: f64, currency: &str) -> String {
    if amount.is_finite() && amount >= 0.0 {
        format!("{amount:.2} {currency}/h")
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
        assert_eq!(percent(1, 4), "25 %");
        assert_eq!(percent(1, 0), "0 %");
    }
}
