//! Sizes, parameter counts and plain numbers read from text.

use super::{Bytes, GIB, KIB, MAX_PARAMS, MAX_SIZE, MIB};
use crate::error::Result;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{GB, GIB, MIB};

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
}
