//! The views and their parts.

pub mod answer;
pub mod calc;
pub mod chart;
#[cfg(feature = "full")]
pub mod config_drop;
#[cfg(feature = "full")]
pub mod device;
#[cfg(feature = "full")]
pub mod diagnose;
#[cfg(feature = "full")]
pub mod faq;
pub mod field;
#[cfg(feature = "full")]
pub mod fit;
pub mod gpus;
#[cfg(feature = "full")]
pub mod hub_lookup;
#[cfg(feature = "full")]
pub mod jobs;
#[cfg(feature = "full")]
pub mod launch;
#[cfg(feature = "full")]
pub mod matrix;
#[cfg(feature = "full")]
pub mod mig;
pub mod model_picker;
#[cfg(feature = "full")]
pub mod models;
#[cfg(feature = "full")]
pub mod prices;
pub mod shell;
#[cfg(feature = "full")]
pub mod speed;
#[cfg(feature = "full")]
pub mod spot;
#[cfg(feature = "full")]
pub mod training_config;

#[cfg(test)]
pub(crate) mod tests {
    use std::path::Path;

    /// The source of everything a calculator build compiles (every file of the crate but the
    /// views that only the full build has, by the `cfg` lines above; tests left out), as one
    /// text; the text tables' own file (`i18n.rs`, which writes every key) left out too.
    pub(crate) fn calculator_source() -> String {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mods = include_str!("mod.rs");
        let full_only: Vec<String> = mods
            .split("#[cfg(feature = \"full\")]\npub mod ")
            .skip(1)
            .map(|rest| format!("{}.rs", &rest[..rest.find(';').unwrap()]))
            .collect();
        assert!(
            full_only.len() >= 8,
            "the full build's views: {full_only:?}"
        );
        let mut text = String::new();
        let mut stack = vec![dir];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_str().unwrap().to_string();
                if path.is_dir() {
                    stack.push(path);
                } else if name.ends_with(".rs")
                    && name != "i18n.rs"
                    && !(d.ends_with("components") && full_only.contains(&name))
                {
                    let file = std::fs::read_to_string(&path).unwrap();
                    text.push_str(file.split("#[cfg(test)]").next().unwrap());
                }
            }
        }
        text
    }

    /// Every selector of `css`'s rules (comments dropped, `@media` blocks opened).
    fn selectors(css: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = css;
        while let Some(open) = rest.find('{') {
            let head = rest[..open].rsplit("*/").next().unwrap_or("").trim();
            rest = &rest[open + 1..];
            if head.starts_with('@') {
                continue;
            }
            rest = &rest[rest.find('}').map_or(rest.len(), |c| c + 1)..];
            out.extend(head.split(',').map(|s| s.trim().to_string()));
        }
        out
    }

    /// A selector's classes (`.x`), ids (`#x`), elements and pseudo-classes (`:x`).
    fn parts(selector: &str) -> Vec<(char, String)> {
        let mut out = Vec::new();
        for compound in selector
            .split([' ', '>', '+', '~'])
            .filter(|p| !p.is_empty())
        {
            let mut kind = 'e';
            let mut word = String::new();
            let mut in_attribute = false;
            for ch in compound.chars().chain([' ']) {
                if in_attribute || ch == '[' || ch == ']' {
                    in_attribute = (in_attribute || ch == '[') && ch != ']';
                } else if matches!(ch, '.' | '#' | ':' | ' ') {
                    if !word.is_empty() {
                        out.push((kind, std::mem::take(&mut word)));
                    }
                    kind = ch;
                } else {
                    word.push(ch);
                }
            }
        }
        out
    }

    #[test]
    fn the_views_style_names_nothing_a_calculator_build_shows() {
        let sel = selectors(include_str!("../../../www/views.css"));
        // The sheet's own reading, checked on a few rules by hand.
        assert!(sel.contains(&"#price-table .err".to_string()), "{sel:?}");
        assert!(sel.contains(&".slider-row input[type=\"range\"]".to_string()));
        assert_eq!(
            parts(".file-button input[type=\"file\"]:focus-visible + label"),
            [
                ('.', "file-button"),
                ('e', "input"),
                (':', "focus-visible"),
                ('e', "label")
            ]
            .map(|(k, w)| (k, w.to_string()))
        );
        assert_eq!(
            parts("a.button.primary"),
            [('e', "a"), ('.', "button"), ('.', "primary")].map(|(k, w)| (k, w.to_string()))
        );
        let source = calculator_source();
        // A class attribute holds literal words (a computed class is never written, see
        // ARCHITECTURE), so its value is what stands between the quotes after `class="`.
        let classes: Vec<&str> = source
            .split("class=\"")
            .skip(1)
            .flat_map(|v| v[..v.find('"').unwrap_or(0)].split_whitespace())
            .collect();
        assert!(
            classes.contains(&"totals") && classes.contains(&"err"),
            "{classes:?}"
        );
        // Can the selector match on a calculator build's page? Only if every class, id and
        // element it names is there (`td`, `a`, `input`, … are everywhere).
        let shown = |kind: char, word: &str| match kind {
            '.' => classes.contains(&word),
            '#' => source.contains(&format!("id=\"{word}\"")),
            'e' => match word {
                "textarea" | "pre" | "dl" | "caption" => {
                    source.contains(&format!("<{word}>")) || source.contains(&format!("<{word} "))
                }
                _ => true,
            },
            _ => word != "disabled" || source.contains("disabled="),
        };
        let matching: Vec<&String> = sel
            .iter()
            .filter(|s| parts(s).iter().all(|(k, w)| shown(*k, w)))
            .collect();
        assert!(
            matching.is_empty(),
            "a calculator build shows what these rules of www/views.css style, which its first \
             load lacks (move them to www/style.css): {matching:?}"
        );
    }
}
