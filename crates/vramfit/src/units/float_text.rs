//! Float text: [`fixed`] for `{:.N}` and [`short`] for `{}`, written by the crate with the
//! feature `own-float-text` and by core's formatter without it.

#[cfg(not(feature = "own-float-text"))]
use alloc::format;
#[cfg(not(feature = "own-float-text"))]
use alloc::string::String;

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
/// `units::float_text`).
#[cfg(not(feature = "own-float-text"))]
pub fn fixed(x: f64, places: u32) -> String {
    format!("{x:.*}", places.min(19) as usize)
}

/// `x` as `{}` writes it (the site's build writes it itself: see `units::float_text`).
#[cfg(not(feature = "own-float-text"))]
pub fn short(x: f64) -> String {
    format!("{x}")
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::string::String;

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
}
