//! Quantities: bytes, parameter counts, and their parsing and display.
//!
//! Bytes are integers internally. GiB (2^30) is the unit of CUDA and PyTorch; GB (10^9) is the
//! unit vendors print on cards and the guide uses ("7B fp16 = 14 GB"). Both are always written
//! with their unit.

mod display;
mod float_text;
mod parse;

pub use display::{four_figures, number_text, quoted};
pub use float_text::{fixed, short};
pub use parse::{parse_number, parse_params, parse_size};

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
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
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

/// Largest parameter count accepted: 100 trillion.
pub const MAX_PARAMS: u64 = 100_000_000_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_f64_is_total() {
        assert_eq!(Bytes::from_f64(f64::NAN), Bytes::ZERO);
        assert_eq!(Bytes::from_f64(-1.0), Bytes::ZERO);
        assert_eq!(Bytes::from_f64(f64::INFINITY).get(), u64::MAX);
        assert_eq!(Bytes::from_f64(1.2).get(), 2);
    }
}
