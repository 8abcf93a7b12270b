//! Quantities: bytes, parameter counts, and their parsing and display.
//!
//! Bytes are integers internally. GiB (2^30) is the unit of CUDA and PyTorch; GB (10^9) is the
//! unit vendors print on cards and the guide uses ("7B fp16 = 14 GB"). Both are always written
//! with their unit.

use alloc::format;
use alloc::string::String;
use core::fmt;

use crate::error::Result;

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

    /// Formats as GiB with two decimals: `13.04 GiB`.
    pub fn display_gib(self) -> String {
        format!("{} GiB", fixed(self.as_gib(), 2))
    }

    /// Formats as GB with two decimals: `14.00 GB`.
    pub fn display_gb(self) -> String {
        format!("{} GB", fixed(self.as_gb(), 2))
    }

    /// Picks a readable binary unit: `512 B`, `8.00 MiB`, `13.04 GiB`, `1.20 TiB`.
    pub fn display_auto(self) -> String {
        let b = self.0;
        if b < KIB {
            format!("{b} B")
        } else if b < MIB {
            format!("{} KiB", fixed(b as f64 / KIB as f64, 2))
        } else if b < GIB {
            format!("{} MiB", fixed(b as f64 / MIB as f64, 2))
        } else if b < 1024 * GIB {
            format!("{} GiB", fixed(b as f64 / GIB as f64, 2))
        } else {
            format!("{} TiB", fixed(b as f64 / (1024 * GIB) as f64, 2))
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
    /// An error of this field: what is wrong, in English and in Chinese (see `input_error!`).
    macro_rules! size_error {
        ($kind:ident, [$($en:tt)*], [$($zh:tt)*]) => {
            input_error!(
                $kind,
                field,
                [$($en)*],
                [$($zh)*],
                "a size with its unit, e.g. 80GB, 79.19GiB, 512MiB (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), up to 1 PiB",
                "带单位的大小，如 80GB、79.19GiB、512MiB（B、KB、MB、GB、TB、KiB、MiB、GiB、TiB），至多 1 PiB",
            )
        };
    }
    let t = text.trim();
    let no_unit = || size_error!(UnitMissing, ["`{t}` has no unit"], ["`{t}` 没有单位"]);
    let mut split = t
        .find(|c: char| c.is_ascii_alphabetic())
        .ok_or_else(no_unit)?;
    // An exponent belongs to the number (`1.5e3MiB`, `1e30GiB`), as `parse_number` reads it.
    let b = t.as_bytes();
    if split > 0 && matches!(b[split], b'e' | b'E') {
        let mut j = split + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            split = t[j..]
                .find(|c: char| c.is_ascii_alphabetic())
                .map(|k| j + k)
                .ok_or_else(no_unit)?;
        }
    }
    let (num, unit) = t.split_at(split);
    let value = match parse_number(num.trim()) {
        Some(v) => v,
        // A well-formed number too large for an f64 (`1e400`) is a size beyond any limit, not
        // something that is not a number.
        None if overflows(num.trim()) => {
            return Err(size_error!(
                OutOfRange,
                ["`{t}` is larger than 1 PiB"],
                ["`{t}` 大于 1 PiB"]
            ));
        }
        None => {
            return Err(size_error!(
                NotANumber,
                ["`{t}` is not a number"],
                ["`{t}` 不是数字"]
            ));
        }
    };
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
        _ => {
            let unit = unit.trim();
            return Err(size_error!(
                UnknownName,
                ["unknown unit `{unit}`"],
                ["未知的单位 `{unit}`"]
            ));
        }
    };
    let bytes = value * mult;
    if bytes < 0.0 {
        return Err(size_error!(
            OutOfRange,
            ["`{t}` is negative"],
            ["`{t}` 是负数"]
        ));
    }
    if bytes > MAX_SIZE.get() as f64 {
        return Err(size_error!(
            OutOfRange,
            ["`{t}` is larger than 1 PiB"],
            ["`{t}` 大于 1 PiB"]
        ));
    }
    Ok(Bytes::from_f64(bytes))
}

/// Whether `s` is a well-formed positive number whose value does not fit an f64 (`1e400`,
/// `5E+999`): its mantissa and exponent each read as numbers, yet the whole does not.
fn overflows(s: &str) -> bool {
    let Some(k) = s.find(['e', 'E']) else {
        return false;
    };
    let exp = &s[k + 1..];
    let digits = exp.strip_prefix('+').unwrap_or(exp);
    !digits.is_empty()
        && digits.bytes().all(|c| c.is_ascii_digit())
        && parse_number(&s[..k]).is_some_and(|v| v > 0.0)
        && parse_number(s).is_none()
}

/// Largest parameter count accepted: 100 trillion.
pub const MAX_PARAMS: u64 = 100_000_000_000_000;

/// Parses a parameter count: `7B`, `7b`, `7e9`, `340M`, `1.5T`, `124439808`, `175K`.
pub fn parse_params(field: &str, text: &str) -> Result<u64> {
    /// An error of this field: what is wrong with `typed`, in English and in Chinese.
    macro_rules! params_error {
        ($kind:ident, $en:literal, $zh:literal) => {{
            let typed = text.trim();
            input_error!(
                $kind,
                field,
                [$en, typed],
                [$zh, typed],
                "a parameter count from 1 to 100T, e.g. 7B, 340M, 7e9, 124439808",
                "参数量，1 到 100T，如 7B、340M、7e9、124439808",
            )
        }};
    }
    let t = text.trim().replace(['_', ','], "");
    let (num, mult) = match t.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&t[..t.len() - 1], 1e3),
        Some('M') => (&t[..t.len() - 1], 1e6),
        Some('B') | Some('G') => (&t[..t.len() - 1], 1e9),
        Some('T') => (&t[..t.len() - 1], 1e12),
        _ => (t.as_str(), 1.0),
    };
    let value = parse_number(num.trim())
        .ok_or_else(|| params_error!(NotANumber, "`{}` is not a number", "`{}` 不是数字"))?;
    let p = value * mult;
    if !(1.0..=MAX_PARAMS as f64).contains(&libm::round(p)) {
        return Err(params_error!(
            OutOfRange,
            "`{}` is out of range",
            "`{}` 超出范围"
        ));
    }
    Ok(libm::round(p) as u64)
}

/// Float text without core's float formatter: [`fixed`] for `{:.N}` and [`short`] for `{}`.
///
/// Core's formatter (Grisu with a Dragon4 fallback on 1,280-bit integers, and their tables) is
/// kilobytes of WebAssembly. The site's calculator builds and the npm package's main module
/// format floats nowhere else (serde_json writes floats with its own code, in its error messages
/// too), so with the feature `own-float-text` they link these two instead; a module that links
/// core's formatter through other code (`vramfit/full`, the CLI) keeps it for these as well. The
/// property tests below hold them to core's text in every build; the book's performance chapter
/// has what the feature saves.
#[cfg_attr(not(feature = "own-float-text"), allow(dead_code))]
mod own {
    use alloc::format;
    use alloc::string::String;

    /// `x` as `{}` writes it: [`fixed`]'s digits at as many places as tell `x` from its
    /// neighbours (up to 19, and while |x| · 10^places stays below 2^64), trailing zeros dropped.
    /// Where `{}` needs no more places, the two give the same text: every value of 1e-5 to 2^53
    /// with at most 15 significant digits, which a property test checks; the few doubles whose
    /// shortest form takes 16 or 17 digits (`0.1 + 0.2`) come out rounded.
    pub fn short(x: f64) -> String {
        if !x.is_finite() {
            return fixed(x, 0);
        }
        let (_, e) = mantissa_exponent(x);
        // x's unit in the last place is 2^e; `places` decimals keep the nearest grid point to x the
        // one `{}` prints while 2^e < 10^-places, i.e. places < -e · log10 2; and fixed is exact
        // while |x| · 10^places < 2^64.
        let mut places = if e >= 0 {
            0
        } else {
            ((-e) as u64 * 30_103 / 100_000).min(19) as u32
        };
        while places > 0 && x.abs() * libm::pow(10.0, f64::from(places)) >= 1.8e19 {
            places -= 1;
        }
        let mut s = fixed(x, places);
        if s.contains('.') {
            while s.ends_with('0') {
                s.pop();
            }
            if s.ends_with('.') {
                s.pop();
            }
        }
        s
    }

    /// |x| = m · 2^e exactly.
    fn mantissa_exponent(x: f64) -> (u64, i32) {
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & ((1u64 << 52) - 1);
        if biased == 0 {
            (frac, -1074)
        } else {
            (frac | (1u64 << 52), biased - 1075)
        }
    }

    /// `x` with `places` decimals as `{:.N}` prints it: the exact binary value rounded half to
    /// even (`fixed(0.125, 2)` is `0.12`, `fixed(0.615, 2)` is `0.61` because 0.615 is stored as
    /// 0.61499…). Exact for every `|x| · 10^places` below 2^64 (every size, count and price
    /// vramfit shows: 10^13 GiB with six decimals); past that, close. A property test checks it
    /// against `{:.N}`.
    pub fn fixed(x: f64, places: u32) -> String {
        if !x.is_finite() {
            return String::from(if x.is_nan() {
                "NaN"
            } else if x > 0.0 {
                "inf"
            } else {
                "-inf"
            });
        }
        let places = places.min(19);
        let neg = x.is_sign_negative();
        let (m, e) = mantissa_exponent(x);
        // |x| · 10^places, rounded half to even, when it fits a u64 (u128 only for the exact
        // product and shift: its division and printing would cost kilobytes of WebAssembly).
        let p10 = 10u64.pow(places);
        let scaled: Option<u64> = if e >= 64 {
            None
        } else if e >= 0 {
            (m as u128)
                .checked_mul(1u128 << e)
                .and_then(|v| v.checked_mul(p10 as u128))
                .and_then(|v| u64::try_from(v).ok())
        } else {
            let n = m as u128 * p10 as u128;
            let s = (-e) as u32;
            let r = if s >= 128 {
                0
            } else {
                let q = n >> s;
                let rem = n & ((1u128 << s) - 1);
                let half = 1u128 << (s - 1);
                if rem > half || (rem == half && q & 1 == 1) {
                    q + 1
                } else {
                    q
                }
            };
            u64::try_from(r).ok()
        };
        let mut out = String::new();
        if neg {
            out.push('-');
        }
        match scaled {
            Some(r) => {
                out.push_str(&format!("{}", r / p10));
                if places > 0 {
                    let f = format!("{}", r % p10);
                    out.push('.');
                    out.extend(core::iter::repeat_n('0', places as usize - f.len()));
                    out.push_str(&f);
                }
            }
            // Past 2^64 (no size, count or price vramfit shows comes near): the integer part's
            // digits, close to the exact ones (each division by ten rounds), and zeros.
            None => {
                let mut digits = String::new();
                let mut v = libm::trunc(x.abs());
                while v >= 1.0 {
                    let q = libm::trunc(v / 10.0);
                    let d = (v - q * 10.0).clamp(0.0, 9.0) as u8;
                    digits.insert(0, (b'0' + d) as char);
                    v = q;
                }
                out.push_str(&digits);
                if places > 0 {
                    out.push('.');
                    out.extend(core::iter::repeat_n('0', places as usize));
                }
            }
        }
        out
    }
}

#[cfg(feature = "own-float-text")]
pub use own::{fixed, short};

/// `x` with `places` decimals: `format!("{x:.N}")` (the site's build writes it itself: see
/// `units::own`).
#[cfg(not(feature = "own-float-text"))]
pub fn fixed(x: f64, places: u32) -> String {
    format!("{x:.*}", places.min(19) as usize)
}

/// `x` as `{}` writes it (the site's build writes it itself: see `units::own`).
#[cfg(not(feature = "own-float-text"))]
pub fn short(x: f64) -> String {
    format!("{x}")
}

/// A number as an error message shows it: as written for everyday magnitudes, in exponent form
/// past them (`1e-300`, `1e300`), never three hundred digits.
pub fn number_text(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && a.is_finite() && !(1e-4..1e15).contains(&a) {
        // By hand rather than `{:e}`, whose exact-digit formatting adds kilobytes to every
        // WebAssembly module: six significant digits are plenty for a number out of range.
        let (mut m, mut e) = (a, 0i32);
        while m >= 10.0 {
            m /= 10.0;
            e += 1;
        }
        while m < 1.0 {
            m *= 10.0;
            e -= 1;
        }
        let mut m = libm::round(m * 1e5) / 1e5;
        if m >= 10.0 {
            m /= 10.0;
            e += 1;
        }
        let m = if v < 0.0 { -m } else { m };
        format!("{}e{e}", short(m))
    } else {
        short(v)
    }
}

/// Parses a finite decimal number as people type one: `7`, `-3`, `7.5`, `.5`, `1.`, `7e9`,
/// `1.5E-3`. Rejects empty text, NaN, infinities and anything else.
///
/// Why not `str::parse::<f64>`: it links core's correctly-rounding parser, whose table of
/// 128-bit powers of five (651 entries, 10.4 KB) does not compress, in every WebAssembly module
/// that reads a number (the book's performance chapter has the measured saving). Here the
/// digits make an integer mantissa and a power of ten, joined by one floating-point
/// multiplication or division. When the mantissa is below 2^53 and the power within ±22, both
/// are exact and that single operation rounds correctly, so the result is bit-identical to
/// `str::parse` (Clinger's fast path): every size, count and price a person types falls there,
/// and a property test checks it. Longer numbers are read to within a few units in the last
/// place.
pub fn parse_number(s: &str) -> Option<f64> {
    /// 10^0 … 10^22: every power of ten that an f64 holds exactly.
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let b = s.as_bytes();
    let mut i = 0;
    let negative = match b.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    // The significant digits as an integer (19 at most; the rest only scale), and the power of
    // ten that the point and the dropped digits add.
    let (mut mantissa, mut exp10, mut kept) = (0u64, 0i64, 0u32);
    let mut any_digit = false;
    let mut seen_point = false;
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' => {
                any_digit = true;
                if mantissa == 0 && c == b'0' {
                    // A leading zero adds nothing, but one after the point shifts the rest.
                } else if kept < 19 {
                    mantissa = mantissa * 10 + u64::from(c - b'0');
                    kept += 1;
                } else {
                    exp10 += 1;
                }
                if seen_point {
                    exp10 -= 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    if !any_digit {
        return None;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        let sign = match b.get(i) {
            Some(b'-') => {
                i += 1;
                -1
            }
            Some(b'+') => {
                i += 1;
                1
            }
            _ => 1,
        };
        let start = i;
        let mut e: i64 = 0;
        while let Some(&c @ b'0'..=b'9') = b.get(i) {
            e = (e * 10 + i64::from(c - b'0')).min(100_000);
            i += 1;
        }
        if i == start {
            return None;
        }
        exp10 += sign * e;
    }
    if i != b.len() {
        return None;
    }
    let m = mantissa as f64;
    let v = if mantissa == 0 {
        0.0
    } else if mantissa < 1 << 53 && (0..=22).contains(&exp10) {
        m * POW10[exp10 as usize]
    } else if mantissa < 1 << 53 && (-22..0).contains(&exp10) {
        m / POW10[(-exp10) as usize]
    } else {
        m * libm::pow(10.0, exp10 as f64)
    };
    let v = if negative { -v } else { v };
    v.is_finite().then_some(v)
}

/// `x` to four significant figures, 0 for what is not a positive finite number: for figures a
/// model gives to a few per cent (speeds, costs), as a short decimal that reads back exactly
/// from JSON in every reader.
pub fn four_figures(x: f64) -> f64 {
    if !x.is_finite() || x <= 0.0 {
        return 0.0;
    }
    let scale = libm::pow(10.0, 3.0 - libm::floor(libm::log10(x)));
    libm::round(x * scale) / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_messages_are_short() {
        assert_eq!(number_text(0.9), "0.9");
        assert_eq!(number_text(1048577.0), "1048577");
        assert_eq!(number_text(1e-300), "1e-300");
        assert_eq!(number_text(-2.5e300), "-2.5e300");
        assert_eq!(number_text(0.0), "0");
        assert_eq!(number_text(1.2345678e-7), "1.23457e-7");
        assert_eq!(number_text(9.999999e20), "1e21");
        assert_eq!(number_text(f64::MAX), "1.79769e308");
        assert_eq!(number_text(5e-324), "4.94066e-324");
    }

    #[test]
    fn a_size_past_f64_is_larger_than_1_pib_not_a_non_number() {
        for t in ["1e400GiB", "1E+999B", "9e308TB"] {
            let e = parse_size("job", t).unwrap_err();
            assert!(
                e.problem.ends_with("is larger than 1 PiB"),
                "{t}: {}",
                e.problem
            );
        }
        // Not numbers stay not numbers; a tiny exponent is a tiny number.
        for t in ["1e+GiB", "e5GiB", "1e5e5GiB", "-1e400GiB"] {
            let e = parse_size("job", t).unwrap_err();
            assert!(!e.problem.contains("1 PiB"), "{t}: {}", e.problem);
        }
        assert_eq!(parse_size("job", "1e-400GiB").unwrap(), Bytes::ZERO);
    }

    #[test]
    fn numbers_parse_as_rust_parses_them() {
        for t in [
            "0",
            "7",
            "-3",
            "+2",
            "7.5",
            ".5",
            "1.",
            "0.1",
            "0.3",
            "79.19",
            "1e9",
            "7e9",
            "1.5E-3",
            "1e+5",
            "0.000001",
            "123456789012345",
            "9007199254740991",
            "1e22",
            "1e-22",
            "3.14159",
            "00012.500",
            "-0.0",
            "2.5e-7",
        ] {
            assert_eq!(
                parse_number(t).map(f64::to_bits),
                t.parse::<f64>().ok().map(f64::to_bits),
                "{t}"
            );
        }
        for bad in [
            "",
            "-",
            ".",
            "e5",
            "1e",
            "1e+",
            "NaN",
            "inf",
            "-infinity",
            "1.2.3",
            "1,5",
            " 1",
            "1 ",
            "0x10",
            "1e400",
            "--1",
            "7B",
        ] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
        // Beyond the exact range: a few units in the last place at most.
        for t in [
            "12345678901234567890123",
            "1.2345678901234567e-200",
            "6.02214076e23",
            "1e300",
            "4.9e-300",
        ] {
            let (a, b) = (parse_number(t).unwrap(), t.parse::<f64>().unwrap());
            assert!(((a - b) / b).abs() < 1e-15, "{t}: {a} against {b}");
        }
    }

    #[test]
    fn floats_are_written_as_core_writes_them() {
        use super::own::{fixed, short};
        let cases = [
            0.0,
            -0.0,
            0.5625,
            2.0,
            1.2,
            0.1,
            0.0238,
            3.78,
            0.09,
            1e-6,
            1.5e15,
            4_294_967_296.5,
            0.125,
            0.375,
            2.5,
            3.5,
            0.615,
            1.005,
            14.995,
            99.995,
            999_999.5,
            -0.001,
            -2.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for x in cases
            .into_iter()
            .chain([81_090.0 / 1024.0, 1.0 / 3.0, 2.0625 / 8.0, 1e-9])
        {
            assert_eq!(short(x), format!("{x}"), "{x:e}");
        }
        for x in cases
            .into_iter()
            .chain([81_090.0 / 1024.0, 1.0 / 3.0, 8_591_066_630.907_362])
        {
            for p in 0..=6 {
                if !x.is_finite() || x.abs() * 10f64.powi(p as i32) < 1.8e19 {
                    assert_eq!(fixed(x, p), format!("{x:.*}", p as usize), "{x:e} .{p}");
                }
            }
        }
        // By hand: ties go to the even digit; 0.615 is stored just below its tie.
        assert_eq!(fixed(0.125, 2), "0.12");
        assert_eq!(fixed(0.375, 2), "0.38");
        assert_eq!(fixed(0.615, 2), "0.61");
        assert_eq!(fixed(13.04, 2), "13.04");
        assert_eq!(short(4.5 / 8.0), "0.5625");
        // A double whose shortest form takes 17 digits comes out rounded at 16 places.
        assert_eq!(short(0.1 + 0.2), "0.3");
    }

    proptest::proptest! {
        /// Any f64 with |x| · 10^N below 2^64 (and the non-finite ones): the same text as
        /// core's `{:.N}`; and from 1e-5 to 2^53, as `{}` wherever that takes at most 15
        /// significant digits.
        #[test]
        fn float_text_is_core_s(bits in proptest::prelude::any::<u64>(), p in 0u32..=6) {
            let x = f64::from_bits(bits);
            if !x.is_finite() || x.abs() * 10f64.powi(p as i32) < 1.8e19 {
                proptest::prop_assert_eq!(super::own::fixed(x, p), format!("{x:.*}", p as usize));
            }
            let core = format!("{x}");
            let digits: String = core.chars().filter(char::is_ascii_digit).collect();
            let significant = digits.trim_start_matches('0').trim_end_matches('0').len();
            if !x.is_finite() || ((1e-5..9_007_199_254_740_992.0).contains(&x.abs()) && significant <= 15) {
                proptest::prop_assert_eq!(super::own::short(x), core);
            }
        }

        /// Everyday magnitudes with few decimals, where ties and near-ties live.
        #[test]
        fn fixed_text_near_ties_is_core_s(n in 0u64..10_000_000_000, d in 0u32..=6, p in 0u32..=3) {
            let x = n as f64 / 10f64.powi(d as i32);
            proptest::prop_assert_eq!(super::own::fixed(x, p), format!("{x:.*}", p as usize));
            proptest::prop_assert_eq!(super::own::short(x), format!("{x}"));
            proptest::prop_assert_eq!(super::own::short(-x), format!("{}", -x));
        }
    }

    proptest::proptest! {
        /// Any number a person types (up to 15 significant digits, a power of ten within
        /// ±22 of them) reads bit for bit as `str::parse` reads it.
        #[test]
        fn typed_numbers_read_exactly(int in 0u64..1_000_000_000_000_000, frac in 0u32..8, exp in -7i32..8) {
            let digits = alloc::string::ToString::to_string(&int);
            let text = if frac as usize >= digits.len() {
                alloc::format!("0.{}{}e{exp}", "0".repeat(frac as usize - digits.len()), digits)
            } else {
                let (a, b) = digits.split_at(digits.len() - frac as usize);
                alloc::format!("{a}.{b}e{exp}")
            };
            proptest::prop_assert_eq!(
                parse_number(&text).map(f64::to_bits),
                text.parse::<f64>().ok().map(f64::to_bits),
                "{}", text
            );
        }
    }

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(
            parse_size("gpu_memory", "80GB").unwrap().get(),
            80_000_000_000
        );
        assert_eq!(parse_size("gpu_memory", "80 GiB").unwrap().get(), 80 * GIB);
        // 79.19 GiB is what CUDA reports for an H100-80GB: 79.19 × 1,073,741,824 = 85,029,615,042.56 → ceil.
        assert_eq!(
            parse_size("gpu_memory", "79.19GiB").unwrap().get(),
            85_029_615_043
        );
        assert_eq!(parse_size("gpu_memory", "512MiB").unwrap().get(), 512 * MIB);
        assert_eq!(
            parse_size("gpu_memory", "1.5TiB").unwrap().get(),
            1536 * GIB
        );
        // An exponent is part of the number, as in every numeric field: 1.5e3 MiB = 1500 MiB.
        assert_eq!(
            parse_size("gpu_memory", "1.5e3MiB").unwrap().get(),
            1500 * MIB
        );
        assert_eq!(parse_size("gpu_memory", "2E+1GB").unwrap().get(), 20 * GB);
        // Too large says so, instead of reading `e30GiB` as a unit.
        assert_eq!(
            parse_size("gpu_memory", "1e30GiB").unwrap_err().problem,
            "`1e30GiB` is larger than 1 PiB"
        );
        // A bare `e` with no digits is still a unit's letter: `5eb` is an unknown unit.
        assert_eq!(
            parse_size("gpu_memory", "5eb").unwrap_err().problem,
            "unknown unit `eb`"
        );
    }

    #[test]
    fn bad_sizes_name_the_field() {
        for bad in [
            "80",
            "",
            "abcGB",
            "-3GB",
            "NaNGB",
            "infGB",
            "5 parsecs",
            "2PiB",
            "1e300GB",
        ] {
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
            assert_eq!(
                parse_params("params", bad).unwrap_err().field,
                "params",
                "{bad}"
            );
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
