//! Sizes and numbers as people read them: [`Bytes`] with its unit, numbers in messages, figures
//! to four significant digits.

use alloc::format;
use alloc::string::String;
use core::fmt;

use super::{Bytes, GIB, KIB, MIB, fixed, short};

impl Bytes {
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

/// A person's own text in an error message, between double quotes as `{:?}` writes it: `"`, `\\`
/// and every ASCII control character escaped as Rust escapes them (`\"`, `\\`, `\n`, `\u{1b}`),
/// every other character as it is. By hand rather than `{:?}`, whose escaping reads Unicode's
/// printable and grapheme-extend tables and links them into every WebAssembly module that
/// quotes a string; the two differ only on a non-ASCII character Unicode counts unprintable or
/// combining (a zero-width space, a combining accent), which `{:?}` writes as `\u{…}`.
pub fn quoted(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\0' => out.push_str("\\0"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_ascii_control() => {
                // `\u{…}` in lower-case hex without leading zeros: 0x01 → `\u{1}`, 0x7f → `\u{7f}`.
                let b = c as u8;
                out.push_str("\\u{");
                if b >= 0x10 {
                    out.push(char::from(HEX[usize::from(b >> 4)]));
                }
                out.push(char::from(HEX[usize::from(b & 0xf)]));
                out.push('}');
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `x` to four significant figures, 0 for what is not a positive finite number: for figures a
/// model gives to a few per cent (speeds, costs), as a short decimal that reads back exactly
/// from JSON in every reader.
pub fn four_figures(x: f64) -> f64 {
    if !x.is_finite() || x <= 0.0 {
        return 0.0;
    }
    // `10^(3 - floor(log10 x))`: from the table for the figures' usual range, the same numbers
    // `libm` gives (tests check both steps) at a tenth of the cost; `libm` for the rest.
    let scale = decade(x)
        .and_then(|e| usize::try_from(3 - e - POW10_FIRST).ok())
        .and_then(|i| POW10.get(i).copied())
        .unwrap_or_else(|| libm::pow(10.0, 3.0 - libm::floor(libm::log10(x))));
    libm::round(x * scale) / scale
}

/// The exponent of [`POW10`]'s first entry.
const POW10_FIRST: i32 = -8;

/// `10^-8` to `10^16`, each the `f64` that `libm::pow(10.0, k)` gives (the test
/// `powers_of_ten_are_libms` checks it): the nearest to the power but for `10^-5`, which `libm`
/// gives one unit in the last place below `1e-5`.
const POW10: [f64; 25] = [
    1e-8,
    1e-7,
    1e-6,
    f64::from_bits(0x3ee4_f8b5_88e3_68f0),
    1e-4,
    1e-3,
    1e-2,
    1e-1,
    1e0,
    1e1,
    1e2,
    1e3,
    1e4,
    1e5,
    1e6,
    1e7,
    1e8,
    1e9,
    1e10,
    1e11,
    1e12,
    1e13,
    1e14,
    1e15,
    1e16,
];

/// `floor(log10 x)` for a positive `x` between two entries of [`POW10`] and more than a
/// billionth away from both, where no rounding of `libm::log10` (off by far less) can move it to
/// the next integer; `None` near a power of ten or outside the table.
fn decade(x: f64) -> Option<i32> {
    let i = POW10.partition_point(|&p| p <= x);
    let (lo, hi) = (*POW10.get(i.checked_sub(1)?)?, *POW10.get(i)?);
    (x > lo * (1.0 + 1e-9) && x < hi * (1.0 - 1e-9)).then(|| POW10_FIRST + i as i32 - 1)
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

    /// [`quoted`] is `{:?}` on every ASCII character, alone and among others, and on printable
    /// text beyond ASCII (Chinese, accents, emoji).
    #[test]
    fn quoted_text_is_debugs() {
        for b in 0u8..=0x7f {
            let one = alloc::string::String::from(b as char);
            assert_eq!(quoted(&one), format!("{one:?}"), "{b:#x}");
            let among = format!("b45{one}00 x");
            assert_eq!(quoted(&among), format!("{among:?}"), "{b:#x}");
        }
        for t in [
            "",
            "v0.11.x",
            "4.57b",
            "b\"1\"\\",
            "\u{1b}[0m",
            "版本 0.1",
            "café",
            "Å😀",
            "tab\there",
        ] {
            assert_eq!(quoted(t), format!("{t:?}"), "{t}");
        }
        // Where they differ: a zero-width space, which `{:?}` escapes.
        assert_eq!(quoted("1\u{200b}"), "\"1\u{200b}\"");
        assert_eq!(format!("{:?}", "1\u{200b}"), "\"1\\u{200b}\"");
    }

    /// The table is `libm::pow`'s powers of ten, bit for bit.
    #[test]
    fn powers_of_ten_are_libms() {
        for (k, p) in (POW10_FIRST..).zip(POW10) {
            assert_eq!(p.to_bits(), libm::pow(10.0, k as f64).to_bits(), "10^{k}");
        }
    }

    /// [`four_figures`] as `libm` alone computes it, bit for bit, over every decade of the
    /// table and beyond, and on both sides of each power of ten.
    #[test]
    fn four_figures_is_libms() {
        let by_libm = |x: f64| {
            let scale = libm::pow(10.0, 3.0 - libm::floor(libm::log10(x)));
            libm::round(x * scale) / scale
        };
        let mut xs = alloc::vec![];
        for k in -12..=20 {
            let p = libm::pow(10.0, k as f64);
            for ulps in -3i64..=3 {
                xs.push(f64::from_bits((p.to_bits() as i64 + ulps) as u64));
            }
            for d in [1.0 + 1e-9, 1.0 - 1e-9, 1.0 + 2e-9, 1.0 - 2e-9] {
                xs.push(p * d);
            }
            // Mantissas across the decade, some that round up to the next power of ten.
            let mut m = 1.0;
            while m < 10.0 {
                xs.push(p * m);
                m += 0.0137;
            }
            xs.extend([9.9995, 9.99949, 9.99951, 1.00005, 1.23456789].map(|m| p * m));
        }
        for x in xs {
            assert_eq!(four_figures(x).to_bits(), by_libm(x).to_bits(), "{x:e}");
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
}
