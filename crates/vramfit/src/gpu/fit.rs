//! The largest batch or context that fits a card.

use crate::units::Bytes;

/// The answer of [`largest_fitting`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Fit {
    /// The largest value whose need fits.
    pub value: u64,
    /// Its need.
    pub bytes: Bytes,
    /// The next value up (absent when `value` is the search's upper bound).
    pub next_value: Option<u64>,
    /// The next value's need, which does not fit: the proof that `value` is the largest.
    pub next_bytes: Option<Bytes>,
}

/// The largest `x` in `lo..=hi` with `need(x) <= capacity`, by binary search.
///
/// `need` must be non-decreasing in `x` (memory grows with batch and context). Returns `None`
/// when even `lo` does not fit or `lo > hi`. The answer carries `need(x + 1)`, evaluated, so a
/// caller can show that one more does not fit. At most about 64 + 2 evaluations.
pub fn largest_fitting<F: Fn(u64) -> Bytes>(
    need: F,
    capacity: Bytes,
    lo: u64,
    hi: u64,
) -> Option<Fit> {
    if lo > hi || need(lo) > capacity {
        return None;
    }
    // Invariant: need(a) fits; every value above b does not fit or is beyond hi.
    let (mut a, mut b) = (lo, hi);
    while a < b {
        let mid = a + (b - a).div_ceil(2);
        if need(mid) <= capacity {
            a = mid;
        } else {
            b = mid - 1;
        }
    }
    let next_value = (a < hi).then(|| a + 1);
    Some(Fit {
        value: a,
        bytes: need(a),
        next_value,
        next_bytes: next_value.map(&need),
    })
}
