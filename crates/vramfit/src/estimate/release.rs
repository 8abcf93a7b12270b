//! A Python package's release as its tags write it (`v0.5.2rc1`, `0.8.5.post1`): the parts and
//! numbers vLLM's and SGLang's versions are read from.

/// The dotted parts of `text`, trimmed and without a leading `v`.
pub(crate) fn parts(text: &str) -> core::str::Split<'_, char> {
    let t = text.trim();
    t.strip_prefix('v').unwrap_or(t).split('.')
}

/// The leading digits of a part as a number (`2rc1` is 2); `None` for no part, a part without
/// digits, or one too large.
pub(crate) fn number(part: Option<&str>) -> Option<u16> {
    let p = part?;
    let digits = p.find(|c: char| !c.is_ascii_digit()).unwrap_or(p.len());
    (digits > 0).then(|| p[..digits].parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tags_parts_and_their_leading_numbers() {
        let p: alloc::vec::Vec<_> = parts(" v0.5.2rc1 ").map(|p| number(Some(p))).collect();
        assert_eq!(p, [Some(0), Some(5), Some(2)]);
        assert_eq!(number(Some("post3")), None);
        assert_eq!(number(Some("70000")), None);
        assert_eq!(number(None), None);
    }
}
