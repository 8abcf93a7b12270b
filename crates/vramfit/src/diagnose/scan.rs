//! Text scanning shared by the parsers: sizes with units, counts, phrase search.
//!
//! Every function here is total: it never panics, slices only at indices returned by `str`
//! searches or at ASCII bytes (always char boundaries), and bounds its work by its input.

use alloc::string::String;
use alloc::vec::Vec;

use crate::units::{Bytes, MAX_SIZE};

/// A size as read from the text: the exact byte count and the words it was written with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Size {
    pub bytes: Bytes,
    pub text: String,
}

/// How `KB`, `MB`, `GB`, `TB` are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Legacy {
    /// As powers of 1024: PyTorch's `memory_summary()` before 2.0 printed `MB` for MiB, and vLLM
    /// before 0.6 printed `GB` after dividing by 2^30.
    Binary,
    /// As powers of 1000, the SI meaning.
    Decimal,
}

/// The longest number accepted: more digits than this is not a memory size.
const MAX_DIGITS: usize = 24;

/// Parses an unsigned decimal `123`, `14.56`, `.5` at the start of `s` (no sign, no exponent).
/// Returns (digits as an integer, digits after the point, bytes consumed).
pub(crate) fn number_at(s: &str) -> Option<(u128, u32, usize)> {
    let b = s.as_bytes();
    let mut mantissa: u128 = 0;
    let mut scale: u32 = 0;
    let mut digits = 0usize;
    let mut seen_point = false;
    let mut i = 0usize;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            digits += 1;
            if digits > MAX_DIGITS {
                return None;
            }
            mantissa = mantissa
                .checked_mul(10)?
                .checked_add(u128::from(c - b'0'))?;
            if seen_point {
                scale += 1;
            }
        } else if c == b'.' && !seen_point && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
            seen_point = true;
        } else {
            break;
        }
        i += 1;
    }
    (digits > 0).then_some((mantissa, scale, i))
}

/// The multiplier of a unit word, or `None` when the word is not a size unit.
fn unit_bytes(unit: &str, legacy: Legacy) -> Option<u128> {
    let k: u128 = match legacy {
        Legacy::Binary => 1024,
        Legacy::Decimal => 1000,
    };
    let u = unit.to_ascii_lowercase();
    Some(match u.as_str() {
        "b" | "byte" | "bytes" => 1,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        "pib" => 1 << 50,
        "kb" => k,
        "mb" => k * k,
        "gb" => k * k * k,
        "tb" => k * k * k * k,
        _ => return None,
    })
}

/// `mantissa / 10^scale × unit`, rounded to the nearest byte (halves up), exactly, in integers;
/// `None` above `cap`.
fn exact_bytes(mantissa: u128, scale: u32, unit: u128, cap: u64) -> Option<Bytes> {
    let den = 10u128.checked_pow(scale)?;
    let num = mantissa.checked_mul(unit)?;
    let q = num / den;
    let r = num % den;
    let rounded = if r.checked_mul(2)? >= den { q + 1 } else { q };
    if rounded > u128::from(cap) {
        return None;
    }
    u64::try_from(rounded).ok().map(Bytes::new)
}

/// A size at the very start of `s`: a number, at most two spaces, a unit word, at most 1 PiB.
/// Returns the size and the bytes consumed.
pub(crate) fn size_at(s: &str, legacy: Legacy) -> Option<(Size, usize)> {
    size_at_capped(s, legacy, MAX_SIZE.get())
}

/// [`size_at`] with another ceiling: cumulative counters (`memory_summary()`'s `Tot Alloc`)
/// pass 1 PiB on long runs.
pub(crate) fn size_at_capped(s: &str, legacy: Legacy, cap: u64) -> Option<(Size, usize)> {
    let (mantissa, scale, n) = number_at(s)?;
    let rest = &s[n..];
    let spaces = rest.bytes().take_while(|&c| c == b' ').count();
    if spaces > 2 {
        return None;
    }
    let after = &rest[spaces..];
    let unit_len = after
        .bytes()
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    if unit_len == 0 || unit_len > 5 {
        return None;
    }
    let unit = &after[..unit_len];
    let bytes = exact_bytes(mantissa, scale, unit_bytes(unit, legacy)?, cap)?;
    let end = n + spaces + unit_len;
    Some((
        Size {
            bytes,
            text: String::from(&s[..end]),
        },
        end,
    ))
}

/// The first size in `s` that starts after skipping spaces.
pub(crate) fn size_after_spaces(s: &str, legacy: Legacy) -> Option<Size> {
    size_at(s.trim_start(), legacy).map(|(sz, _)| sz)
}

/// The size that follows the first occurrence of `needle` in `hay`.
pub(crate) fn size_after(hay: &str, needle: &str, legacy: Legacy) -> Option<Size> {
    let i = hay.find(needle)?;
    size_after_spaces(&hay[i + needle.len()..], legacy)
}

/// The size written immediately before the first occurrence of `phrase` in `hay`
/// (`14.56 GiB already allocated` → 14.56 GiB for the phrase `already allocated`).
pub(crate) fn size_before(hay: &str, phrase: &str, legacy: Legacy) -> Option<Size> {
    let i = hay.find(phrase)?;
    last_size_ending_at(&hay[..i], legacy)
}

/// The size that ends `prefix` (trailing spaces ignored), read from at most 40 bytes back.
pub(crate) fn last_size_ending_at(prefix: &str, legacy: Legacy) -> Option<Size> {
    let p = prefix.trim_end();
    let mut best = None;
    // Candidate starts: char boundaries in the last 40 bytes where a digit follows a non-digit.
    // Only the window is walked, so that a long prefix costs nothing (callers loop over lines).
    let mut from = p.len().saturating_sub(40);
    while !p.is_char_boundary(from) {
        from += 1;
    }
    for (j, c) in p[from..].char_indices() {
        let i = from + j;
        if !c.is_ascii_digit() {
            continue;
        }
        // A number starts a word: `1e300 GiB` is not `300 GiB`, `1,024.00 MiB` not `024.00 MiB`,
        // `-2.00 GiB` not `2.00 GiB`.
        let prev = p[..i].chars().next_back();
        if prev.is_some_and(|d| d.is_alphanumeric() || matches!(d, '.' | ',' | '_' | '-' | '+')) {
            continue;
        }
        if let Some((size, n)) = size_at(&p[i..], legacy)
            && i + n == p.len()
        {
            best = Some(size);
        }
    }
    best
}

/// The words a size is written with at the start of `s`, as given, for a note when it could not
/// be read (`99999999999999999999.00 GiB`, `1e30 GiB`, `-2.00 GiB`, `nan GiB`): the first word,
/// and the next one when it is the unit, at most 40 characters.
pub(crate) fn raw_size_text(s: &str) -> String {
    let mut words = s.split_whitespace();
    let mut out = String::new();
    if let Some(w) = words.next() {
        out.push_str(w);
        // The unit, when it is a word of its own: after `2.00`, `1e30`, `nan`, `-2.00`.
        if let Some(unit) = words.next()
            && (w.ends_with(|c: char| c.is_ascii_digit())
                || (!w.contains(|c: char| c.is_ascii_digit())
                    && unit.len() <= 4
                    && unit.chars().all(|c| c.is_ascii_alphabetic())))
        {
            out.push(' ');
            out.push_str(unit);
        }
    }
    let out: String = out.chars().take(40).collect();
    String::from(out.trim_end_matches(['.', ',', ';', ')', '(']))
}

/// The words of a size written just before the end of `prefix` (the last word, and the one
/// before when the last holds no digit), for a note when it could not be read.
pub(crate) fn raw_size_text_before(prefix: &str) -> String {
    let mut words = prefix.split_whitespace().rev();
    let last = words.next().unwrap_or("");
    let both = if last.chars().any(|c| c.is_ascii_digit()) {
        String::from(last)
    } else {
        match words.next() {
            Some(num) => alloc::format!("{num} {last}"),
            None => String::from(last),
        }
    };
    let n = both.chars().count();
    both.chars().skip(n.saturating_sub(40)).collect()
}

/// An unsigned integer count at the start of `s`, allowing `,` thousands separators
/// (`175,856`). Returns the value and the bytes consumed.
pub(crate) fn count_at(s: &str) -> Option<(u64, usize)> {
    let b = s.as_bytes();
    let mut v: u64 = 0;
    let mut i = 0;
    let mut digits = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
            digits += 1;
        } else if c == b',' && digits > 0 && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            // a separator, skipped
        } else {
            break;
        }
        i += 1;
    }
    (digits > 0).then_some((v, i))
}

/// The count after the first `needle`, spaces skipped.
pub(crate) fn count_after(hay: &str, needle: &str) -> Option<u64> {
    let i = hay.find(needle)?;
    count_at(hay[i + needle.len()..].trim_start()).map(|(v, _)| v)
}

/// A decimal like `0.9` at the start of `s` as an `f64` (finite by construction).
pub(crate) fn decimal_at(s: &str) -> Option<(f64, usize)> {
    let (m, scale, n) = number_at(s)?;
    let v = m as f64 / libm::pow(10.0, f64::from(scale));
    v.is_finite().then_some((v, n))
}

/// Collapses runs of whitespace to one space and drops per-line prefixes that distributed
/// launchers add (`[rank0]: `, `(EngineCore pid=316) `), so that a message wrapped over lines
/// reads as one. Bounded by the input length.
pub(crate) fn flatten(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(1 << 22));
    for line in text.lines() {
        let mut l = line.trim_start();
        // Strip up to four stacked prefixes.
        for _ in 0..4 {
            if let Some(rest) = strip_launcher_prefix(l) {
                l = rest.trim_start();
            } else {
                break;
            }
        }
        for word in l.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    out
}

/// `[rank0]: rest` → `rest`; `(EngineCore pid=316) rest` → `rest`; `(LLMRayActor pid=20770) rest`.
fn strip_launcher_prefix(l: &str) -> Option<&str> {
    if let Some(r) = l.strip_prefix("[rank") {
        let close = r.find("]:")?;
        if close <= 6 && r[..close].bytes().all(|c| c.is_ascii_digit()) {
            return Some(&r[close + 2..]);
        }
        return None;
    }
    if l.starts_with('(') {
        let close = l.find(") ")?;
        if close <= 60 && l[..close].contains("pid=") {
            return Some(&l[close + 2..]);
        }
    }
    None
}

/// Every start index of `needle` in `hay`, at most `cap` of them.
pub(crate) fn find_all(hay: &str, needle: &str, cap: usize) -> Vec<usize> {
    let mut out = Vec::new();
    if needle.is_empty() {
        return out;
    }
    let mut from = 0;
    while out.len() < cap {
        match hay[from..].find(needle) {
            Some(i) => {
                out.push(from + i);
                from += i + needle.len();
            }
            None => break,
        }
    }
    out
}

/// Text pasted from a Markdown quote (a GitHub issue, a chat) with `> ` before every line, the
/// quote marks taken off so that line-based readers (nvidia-smi tables, memory summaries) see
/// the lines as printed. Only when most non-empty lines are quoted; nested quotes (`> > `) too.
pub(crate) fn unquote(s: &str) -> alloc::borrow::Cow<'_, str> {
    let lines = s.lines().filter(|l| !l.trim().is_empty());
    let (quoted, all) = lines.fold((0usize, 0usize), |(q, a), l| {
        (q + usize::from(l.trim_start().starts_with('>')), a + 1)
    });
    if all == 0 || quoted * 2 < all {
        return alloc::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for line in s.lines() {
        let mut l = line.trim_start();
        for _ in 0..4 {
            match l.strip_prefix('>') {
                Some(rest) => l = rest.strip_prefix(' ').unwrap_or(rest),
                None => break,
            }
        }
        out.push_str(if line.trim_start().starts_with('>') {
            l
        } else {
            line
        });
        out.push('\n');
    }
    alloc::borrow::Cow::Owned(out)
}

/// The last `max` bytes of `s` at most, from a char boundary, and from a line start when one
/// comes within 4 KiB: errors are at the end of logs.
pub(crate) fn clip_tail(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while start < s.len() && !s.is_char_boundary(start) {
        start += 1;
    }
    let tail = &s[start..];
    match tail.find('\n') {
        Some(i) if i < 4096 => &tail[i + 1..],
        _ => tail,
    }
}

/// At most `max` bytes of `s`, cut back to a char boundary.
pub(crate) fn clip(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sz(s: &str) -> u64 {
        size_at(s, Legacy::Decimal)
            .map(|(s, _)| s.bytes.get())
            .unwrap_or(u64::MAX)
    }

    #[test]
    fn sizes_are_exact() {
        // 14.56 × 2^30 = 15,633,680,957.44 → nearest byte.
        assert_eq!(sz("14.56 GiB"), 15_633_680_957);
        assert_eq!(sz("3.44 MiB"), 3_607_101); // 3,607,101.44
        assert_eq!(sz("0 bytes"), 0);
        assert_eq!(sz("2.00 GiB."), 2 << 30);
        assert_eq!(sz("12345MiB"), 12345 << 20);
        assert_eq!(sz("7406166528 bytes"), 7_406_166_528);
        assert_eq!(sz("80 GB"), 80_000_000_000);
        assert_eq!(
            size_at("14935 MB", Legacy::Binary).unwrap().0.bytes.get(),
            14935 << 20
        );
        assert_eq!(sz("1 PiB"), 1 << 50);
        assert!(size_at("2 PiB", Legacy::Decimal).is_none());
        assert!(size_at("12 parsecs", Legacy::Decimal).is_none());
        assert!(size_at("99999999999999999999999999 GiB", Legacy::Decimal).is_none());
    }

    #[test]
    fn sizes_before_phrases() {
        let s = "(GPU 0; 15.78 GiB total capacity; 14.56 GiB already allocated; 3.44 MiB free)";
        assert_eq!(
            size_before(s, "already allocated", Legacy::Decimal)
                .unwrap()
                .text,
            "14.56 GiB"
        );
        assert_eq!(
            size_before(s, "total capacity", Legacy::Decimal)
                .unwrap()
                .text,
            "15.78 GiB"
        );
        assert_eq!(
            size_before(s, "free", Legacy::Decimal).unwrap().text,
            "3.44 MiB"
        );
    }

    #[test]
    fn a_number_is_read_from_its_start() {
        // The digits after an exponent, a comma or a sign are not a number of their own.
        for s in [
            "memory 1e300 GiB is allocated",
            "memory 1,024.00 MiB is allocated",
            "memory -2.00 GiB is allocated",
            "memory x300 GiB is allocated",
        ] {
            assert_eq!(size_before(s, "is allocated", Legacy::Decimal), None, "{s}");
        }
        assert_eq!(
            size_before(
                "memory 1.60 GiB is allocated",
                "is allocated",
                Legacy::Decimal
            )
            .map(|s| s.text),
            Some(String::from("1.60 GiB"))
        );
        assert_eq!(
            raw_size_text("99999999999999999999.00 GiB (GPU 0;"),
            "99999999999999999999.00 GiB"
        );
        assert_eq!(raw_size_text("1e30 GiB of which"), "1e30 GiB");
        assert_eq!(raw_size_text("2.00GiB. GPU 0"), "2.00GiB");
        assert_eq!(raw_size_text("nan GiB (GPU 0;"), "nan GiB");
        assert_eq!(raw_size_text_before("memory 1e300 GiB "), "1e300 GiB");
        assert_eq!(raw_size_text_before("memory -2.00GiB"), "-2.00GiB");
    }

    #[test]
    fn counts_and_flatten() {
        assert_eq!(count_at("175,856 tokens"), Some((175_856, 7)));
        assert_eq!(count_at("(38656)."), None);
        assert_eq!(
            flatten("[rank0]: a  b\n[rank0]:   c\n(EngineCore pid=316) d"),
            "a b c d"
        );
        assert_eq!(clip("显存", 4), "显");
        assert_eq!(clip_tail("显存", 4), "存");
        assert_eq!(clip_tail("ab\ncd", 4), "cd");
    }
}
