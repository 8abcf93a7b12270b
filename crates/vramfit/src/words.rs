//! Finding catalog records by the words a person types: `h200` for the H200 SXM 141GB,
//! `mixtral` for Mixtral-8x7B-Instruct. Words are runs of ASCII letters and digits; every id and
//! name of the catalogs is ASCII, so ASCII case folding is enough (Unicode's tables would cost
//! the WebAssembly modules kilobytes for no record).

use alloc::vec::Vec;

/// The records whose names (any of those `names` gives) have every word of `query`, in order,
/// each a whole word; only when none has, those where each word begins one (`mi300` for
/// `mi300x`). Empty when the query has no word or nothing matches.
pub(crate) fn named_by<'a, T, const N: usize>(
    query: &str,
    records: &'a [T],
    names: impl Fn(&T) -> [&str; N],
) -> Vec<&'a T> {
    let query: Vec<&str> = words(query).collect();
    if query.is_empty() {
        return Vec::new();
    }
    for whole in [true, false] {
        let found: Vec<&T> = records
            .iter()
            .filter(|r| names(r).iter().any(|n| has_words(&query, n, whole)))
            .collect();
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

/// Whether `text`'s last words are `query`'s words, whole (`rtx 4080` ends `NVIDIA GeForce RTX
/// 4080`, not `NVIDIA GeForce RTX 4080 SUPER`). ASCII case is ignored.
pub(crate) fn ends_with_words(query: &str, text: &str) -> bool {
    let q: Vec<&str> = words(query).collect();
    let t: Vec<&str> = words(text).collect();
    !q.is_empty()
        && t.len() >= q.len()
        && q.iter()
            .zip(&t[t.len() - q.len()..])
            .all(|(a, b)| a.eq_ignore_ascii_case(b))
}

/// The words of `text`: its runs of ASCII letters and digits.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// Whether each of `query`'s words is a word of `text` (`whole`) or begins one, in order, each on
/// a word of its own. ASCII case is ignored.
fn has_words(query: &[&str], text: &str, whole: bool) -> bool {
    let mut ws = words(text);
    query.iter().all(|q| {
        ws.by_ref().any(|w| {
            if whole {
                w.eq_ignore_ascii_case(q)
            } else {
                // Words are ASCII, so any byte index is a character boundary.
                w.len() >= q.len() && w[..q.len()].eq_ignore_ascii_case(q)
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_ascii_letters_and_digits() {
        let w: Vec<&str> = words("meta-llama/Llama-3.1-8B, 显卡 x").collect();
        assert_eq!(w, ["meta", "llama", "Llama", "3", "1", "8B", "x"]);
    }

    #[test]
    fn whole_words_first_then_beginnings_in_order() {
        let names = ["nvidia h20 96gb", "nvidia h200 sxm 141gb", "amd mi300x"];
        let by =
            |q: &str| -> Vec<&str> { named_by(q, &names, |n| [*n]).into_iter().copied().collect() };
        assert_eq!(by("H20"), ["nvidia h20 96gb"]);
        assert_eq!(by("h2"), ["nvidia h20 96gb", "nvidia h200 sxm 141gb"]);
        assert_eq!(by("mi300"), ["amd mi300x"]);
        assert_eq!(by("nvidia"), ["nvidia h20 96gb", "nvidia h200 sxm 141gb"]);
        assert!(ends_with_words("rtx 4080", "NVIDIA GeForce RTX 4080"));
        assert!(ends_with_words("4080", "rtx-4080"));
        assert!(!ends_with_words("4080", "NVIDIA GeForce RTX 4080 SUPER"));
        assert!(!ends_with_words("", "rtx-4080") && !ends_with_words("a b c", "b c"));
        // In order: `141gb h200` is not `h200 … 141gb`.
        assert!(by("141gb h200").is_empty());
        assert!(by("").is_empty() && by("--").is_empty() && by("显卡").is_empty());
    }
}
