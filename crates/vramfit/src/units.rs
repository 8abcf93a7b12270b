//! Quantities: bytes, parameter counts, and their parsing and display.
//!
//! Bytes are integers internally. GiB (2^30) is the unit of CUDA and PyTorch; GB (10^9) is the
//! unit vendors print on cards and the guide uses ("7B fp16 = 14 GB"). Both are always written
//! with their unit.

use alloc::format;
use alloc::string::String;
use core::fmt;

use crate::error::{InputError, Result};

/// 2^10 bytes.
pub const KIB: u64 = 1 << 10;
/// 2^20 bytes.
pub const MIB: u64 = 1 << 20;
/// 2^30 bytes.
pub const GIB: u64 = 1 << 30;
/// 10^9 bytes, the vendors' gigabyte.
pub const GB: u64 = 1_000_000_000;

/// A size in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(transparent))]
pub struct Bytes(u64);

impl Bytes {
    /// Zero bytes.
    pub const ZERO: Bytes = Bytes(0);

    /// `n` bytes.
    pub const fn new(n: u64) -> Bytes {
        Bytes(n)
    }

    /// `n` GiB.
    pub const fn gib(n: u64) -> Bytes {
        Bytes(n * GIB)
    }

    /// `n` MiB.
    pub const fn mib(n: u64) -> Bytes {
        Bytes(n * MIB)
    }

    /// The count of bytes.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Rounds a non-negative finite byte count up to whole bytes; saturates at `u64::MAX`.
    /// Negative or NaN input gives zero (callers validate before arithmetic; this is the floor).
    pub fn from_f64(x: f64) -> Bytes {
        if x.is_nan() || x <= 0.0 {
            Bytes(0)
        } else if x >= u64::MAX as f64 {
            Bytes(u64::MAX)
        } else {
            Bytes(libm::ceil(x) as u64)
        }
    }

    /// The size in GiB.
    pub fn as_gib(self) -> f64 {
        self.0 as f64 / GIB as f64
    }

    /// The size in GB (10^9).
    pub fn as_gb(self) -> f64 {
        self.0 as f64 / GB as f64
    }

    /// Saturating sum.
    pub const fn plus(self, other: Bytes) -> Bytes {
        Bytes(self.0.saturating_add(other.0))
    }

    /// Saturating difference (zero when `other` is larger).
    pub const fn minus(self, other: Bytes) -> Bytes {
        Bytes(self.0.saturating_sub(other.0))
    }

    /// Saturating product with a count.
    pub const fn times(self, n: u64) -> Bytes {
        Bytes(self.0.saturating_mul(n))
    }

    /// Division rounding up; `n = 0` is treated as 1.
    pub const fn div_ceil(self, n: u64) -> Bytes {
        let n = if n == 0 { 1 } else { n };
        Bytes(self.0.div_ceil(n))
    }

    /// The larger of two sizes.
    pub fn max(self, other: Bytes) -> Bytes {
        if self >= other { self } else { other }
    }

    /// Formats as GiB with two decimals: `13.04 GiB`.
    pub fn display_gib(self) -> String {
        format!("{:.2} GiB", self.as_gib())
    }

    /// Formats as GB with two decimals: `14.00 GB`.
    pub fn display_gb(self) -> String {
        format!("{:.2} GB", self.as_gb())
    }

    /// Picks a readable binary unit: `512 B`, `8.00 MiB`, `13.04 GiB`, `1.20 TiB`.
    pub fn display_auto(self) -> String {
        let b = self.0;
        if b < KIB {
            format!("{b} B")
        } else if b < MIB {
            format!("{:.2} KiB", b as f64 / KIB as f64)
        } else if b < GIB {
            format!("{:.2} MiB", b as f64 / MIB as f64)
        } else if b < 1024 * GIB {
            format!("{:.2} GiB", b as f64 / GIB as f64)
        } else {
            format!("{:.2} TiB", b as f64 / (1024 * GIB) as f64)
        }
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display_auto())
    }
}

impl core::ops::Add for Bytes {
    type Output = Bytes;
    fn add(self, rhs: Bytes) -> Bytes {
        self.plus(rhs)
    }
}

impl core::iter::Sum for Bytes {
    fn sum<I: Iterator<Item = Bytes>>(iter: I) -> Bytes {
        iter.fold(Bytes::ZERO, Bytes::plus)
    }
}

/// Largest size any input may name: 1 PiB. Beyond it no single device or job exists, and
/// keeping sizes below it keeps every sum far from `u64` overflow.
pub const MAX_SIZE: Bytes = Bytes(1 << 50);

/// Parses a size with its unit: `79.19GiB`, `80GB`, `80 GB`, `512MiB`, `4096B`, `1.5TiB`.
///
/// A bare number is refused: whether it meant GB or GiB is exactly the ambiguity this tool
/// exists to remove.
pub fn parse_size(field: &str, text: &str) -> Result<Bytes> {
    let accepted = "a size with its unit, e.g. 80GB, 79.19GiB, 512MiB (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), up to 1 PiB";
    let t = text.trim();
    let split = t
        .find(|c: char| c.is_ascii_alphabetic())
        .ok_or_else(|| InputError::new(field, format!("`{t}` has no unit"), accepted))?;
    let (num, unit) = t.split_at(split);
    let value = parse_finite(num.trim()).ok_or_else(|| InputError::new(field, format!("`{t}` is not a number"), accepted))?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "tb" | "t" => 1e12,
        "kib" => KIB as f64,
        "mib" => MIB as f64,
        "gib" => GIB as f64,
        "tib" => (1024 * GIB) as f64,
        _ => return Err(InputError::new(field, format!("unknown unit `{}`", unit.trim()), accepted)),
    };
    let bytes = value * mult;
    if bytes < 0.0 {
        return Err(InputError::new(field, format!("`{t}` is negative"), accepted));
    }
    if bytes > MAX_SIZE.get() as f64 {
        return Err(InputError::new(field, format!("`{t}` is larger than 1 PiB"), accepted));
    }
    Ok(Bytes::from_f64(bytes))
}

/// Largest parameter count accepted: 100 trillion.
pub const MAX_PARAMS: u64 = 100_000_000_000_000;

/// Parses a parameter count: `7B`, `7b`, `7e9`, `340M`, `1.5T`, `124439808`, `175K`.
pub fn parse_params(field: &str, text: &str) -> Result<u64> {
    let accepted = "a parameter count from 1 to 100T, e.g. 7B, 340M, 7e9, 124439808";
    let t = text.trim().replace(['_', ','], "");
    let (num, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1e3),
        Some('M') => (&t[..t.len() - 1], 1e6),
        Some('B') | Some('G') => (&t[..t.len() - 1], 1e9),
        Some('T') => (&t[..t.len() - 1], 1e12),
        _ => (t.as_str(), 1.0),
    };
    let value = parse_finite(num.trim()).ok_or_else(|| InputError::new(field, format!("`{}` is not a number", text.trim()), accepted))?;
    let p = value * mult;
    if !(1.0..=MAX_PARAMS as f64).contains(&libm::round(p)) {
        return Err(InputError::new(field, format!("`{}` is out of range", text.trim()), accepted));
    }
    Ok(libm::round(p) as u64)
}

/// Parses a finite float; rejects NaN, infinities and empty text.
pub(crate) fn parse_finite(s: &str) -> Option<f64> {
    let v: f64 = s.parse().ok()?;
    v.is_finite().then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("gpu_memory", "80GB").unwrap().get(), 80_000_000_000);
        assert_eq!(parse_size("gpu_memory", "80 GiB").unwrap().get(), 80 * GIB);
        // 79.19 GiB is what CUDA reports for an H100-80GB: 79.19 × 1,073,741,824 = 85,029,615,042.56 → ceil.
        assert_eq!(parse_size("gpu_memory", "79.19GiB").unwrap().get(), 85_029_615_043);
        assert_eq!(parse_size("gpu_memory", "512MiB").unwrap().get(), 512 * MIB);
        assert_eq!(parse_size("gpu_memory", "1.5TiB").unwrap().get(), 1536 * GIB);
    }

    #[test]
    fn bad_sizes_name_the_field() {
        for bad in ["80", "", "abcGB", "-3GB", "NaNGB", "infGB", "5 parsecs", "2PiB", "1e300GB"] {
            let e = parse_size("gpu_memory", bad).unwrap_err();
            assert_eq!(e.field, "gpu_memory", "{bad}");
            assert!(e.accepted.contains("GiB"), "{bad}");
        }
    }

    #[test]
    fn params_parse_like_people_write_them() {
        assert_eq!(parse_params("params", "7B").unwrap(), 7_000_000_000);
        assert_eq!(parse_params("params", "7b").unwrap(), 7_000_000_000);
        assert_eq!(parse_params("params", "7e9").unwrap(), 7_000_000_000);
        assert_eq!(parse_params("params", "340M").unwrap(), 340_000_000);
        assert_eq!(parse_params("params", "1.5T").unwrap(), 1_500_000_000_000);
        assert_eq!(parse_params("params", "124_439_808").unwrap(), 124_439_808);
        for bad in ["", "0", "-7B", "NaN", "1e30", "seven", "B"] {
            assert_eq!(parse_params("params", bad).unwrap_err().field, "params", "{bad}");
        }
    }

    #[test]
    fn display_always_has_a_unit() {
        assert_eq!(Bytes::new(14_000_000_000).display_gb(), "14.00 GB");
        // 14e9 / 2^30 = 13.0385…
        assert_eq!(Bytes::new(14_000_000_000).display_gib(), "13.04 GiB");
        assert_eq!(Bytes::new(512).display_auto(), "512 B");
        assert_eq!(Bytes::mib(8).display_auto(), "8.00 MiB");
    }

    #[test]
    fn from_f64_is_total() {
        assert_eq!(Bytes::from_f64(f64::NAN), Bytes::ZERO);
        assert_eq!(Bytes::from_f64(-1.0), Bytes::ZERO);
        assert_eq!(Bytes::from_f64(f64::INFINITY).get(), u64::MAX);
        assert_eq!(Bytes::from_f64(1.2).get(), 2);
    }
}
