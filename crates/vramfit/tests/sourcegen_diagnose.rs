//! Renders the OOM decision tree (`data/oom-tree.toml`) and the FAQ (`data/faq/*.toml`) into
//! `&'static` Rust tables under `src/generated/`, rust-analyzer's sourcegen pattern: the data is
//! checked, the Rust is rendered, and when the committed file differs this test rewrites it and
//! fails, so a stale table never passes CI. Run it again after it rewrote the files.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Text {
    en: String,
    zh: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TreeFile {
    root: String,
    node: Vec<NodeIn>,
    leaf: Vec<LeafIn>,
    check: Vec<CheckIn>,
    fix: Vec<FixIn>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeIn {
    id: String,
    question: Text,
    help: Text,
    answer: Vec<AnswerIn>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerIn {
    label: Text,
    next: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LeafIn {
    id: String,
    kind: String,
    title: Text,
    summary: Text,
    checks: Vec<String>,
    fixes: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckIn {
    id: String,
    title: Text,
    command: String,
    look_for: Text,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FixIn {
    id: String,
    effort: u8,
    title: Text,
    detail: Text,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FaqIn {
    id: String,
    source: String,
    see_also: Vec<String>,
    question: Text,
    answer: Text,
    #[serde(default)]
    slot: Vec<SlotIn>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SlotIn {
    name: String,
    computed: String,
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn text(t: &Text) -> String {
    format!("L10n {{ en: {}, zh: {} }}", lit(&t.en), lit(&t.zh))
}

fn check_text(what: &str, t: &Text, errors: &mut Vec<String>) {
    if t.en.trim().is_empty() || t.zh.trim().is_empty() {
        errors.push(format!("{what}: both `en` and `zh` must be non-empty"));
    }
    if !t.zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) {
        errors.push(format!("{what}: `zh` has no Chinese text"));
    }
}

fn ids(list: &[&str]) -> String {
    let items: Vec<String> = list.iter().map(|s| lit(s)).collect();
    format!("&[{}]", items.join(", "))
}

fn load_tree() -> TreeFile {
    let path = crate_dir().join("data/oom-tree.toml");
    let src = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn load_faq() -> Vec<(String, FaqIn)> {
    let dir = crate_dir().join("data/faq");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let src = fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (
                name,
                toml::from_str(&src).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
            )
        })
        .collect()
}

/// Checks the tree; returns the errors.
fn validate_tree(t: &TreeFile) -> Vec<String> {
    let mut errors = Vec::new();
    let mut seen = BTreeSet::new();
    for id in t
        .node
        .iter()
        .map(|n| &n.id)
        .chain(t.leaf.iter().map(|l| &l.id))
    {
        if !seen.insert(id.as_str()) {
            errors.push(format!("duplicate node/leaf id `{id}`"));
        }
    }
    let checks: BTreeSet<&str> = t.check.iter().map(|c| c.id.as_str()).collect();
    let fixes: BTreeSet<&str> = t.fix.iter().map(|f| f.id.as_str()).collect();
    if checks.len() != t.check.len() {
        errors.push("duplicate check id".into());
    }
    if fixes.len() != t.fix.len() {
        errors.push("duplicate fix id".into());
    }
    if !t.node.iter().any(|n| n.id == t.root) {
        errors.push(format!("root `{}` is not a node", t.root));
    }
    for n in &t.node {
        check_text(&format!("node {} question", n.id), &n.question, &mut errors);
        check_text(&format!("node {} help", n.id), &n.help, &mut errors);
        if n.answer.len() < 2 {
            errors.push(format!("node {} needs at least two answers", n.id));
        }
        for a in &n.answer {
            check_text(&format!("node {} answer", n.id), &a.label, &mut errors);
            if !seen.contains(a.next.as_str()) {
                errors.push(format!(
                    "node {}: answer leads to unknown `{}`",
                    n.id, a.next
                ));
            }
        }
    }
    // Every node and leaf reachable from the root, and no cycle (the walk is a tree walk).
    let mut reached = BTreeSet::new();
    let mut stack = vec![(t.root.as_str(), 0usize)];
    while let Some((id, depth)) = stack.pop() {
        if depth > 32 {
            errors.push(format!("the tree is deeper than 32 at `{id}`: a cycle?"));
            break;
        }
        reached.insert(id);
        if let Some(n) = t.node.iter().find(|n| n.id == id) {
            stack.extend(n.answer.iter().map(|a| (a.next.as_str(), depth + 1)));
        }
    }
    for id in &seen {
        if !reached.contains(id) {
            errors.push(format!("`{id}` cannot be reached from the root"));
        }
    }
    for l in &t.leaf {
        if !["capacity", "fragmentation", "leak"].contains(&l.kind.as_str()) {
            errors.push(format!(
                "leaf {}: kind `{}` is not capacity, fragmentation or leak",
                l.id, l.kind
            ));
        }
        check_text(&format!("leaf {} title", l.id), &l.title, &mut errors);
        check_text(&format!("leaf {} summary", l.id), &l.summary, &mut errors);
        if l.checks.is_empty() || l.fixes.is_empty() {
            errors.push(format!("leaf {} needs checks and fixes", l.id));
        }
        for c in &l.checks {
            if !checks.contains(c.as_str()) {
                errors.push(format!("leaf {}: unknown check `{c}`", l.id));
            }
        }
        for f in &l.fixes {
            if !fixes.contains(f.as_str()) {
                errors.push(format!("leaf {}: unknown fix `{f}`", l.id));
            }
        }
    }
    for c in &t.check {
        check_text(&format!("check {} title", c.id), &c.title, &mut errors);
        check_text(
            &format!("check {} look_for", c.id),
            &c.look_for,
            &mut errors,
        );
        if c.command.trim().is_empty() {
            errors.push(format!("check {} has no command", c.id));
        }
    }
    for f in &t.fix {
        check_text(&format!("fix {} title", f.id), &f.title, &mut errors);
        check_text(&format!("fix {} detail", f.id), &f.detail, &mut errors);
        if !(1..=5).contains(&f.effort) {
            errors.push(format!("fix {}: effort {} is not 1–5", f.id, f.effort));
        }
    }
    errors
}

/// `{name}` placeholders in a text.
fn placeholders(s: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                if !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                {
                    out.insert(name.to_string());
                }
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    out
}

fn validate_faq(faq: &[(String, FaqIn)], tree: &TreeFile) -> Vec<String> {
    let mut errors = Vec::new();
    let known: BTreeSet<&str> = tree
        .node
        .iter()
        .map(|n| n.id.as_str())
        .chain(tree.leaf.iter().map(|l| l.id.as_str()))
        .chain(tree.check.iter().map(|c| c.id.as_str()))
        .chain(tree.fix.iter().map(|f| f.id.as_str()))
        .collect();
    let mut seen = BTreeSet::new();
    for (file, e) in faq {
        if !seen.insert(e.id.as_str()) {
            errors.push(format!("{file}: duplicate id `{}`", e.id));
        }
        check_text(&format!("{file} question"), &e.question, &mut errors);
        check_text(&format!("{file} answer"), &e.answer, &mut errors);
        let declared: BTreeSet<String> = e.slot.iter().map(|s| s.name.clone()).collect();
        for (lang, s) in [("en", &e.answer.en), ("zh", &e.answer.zh)] {
            let used = placeholders(s);
            for u in used.difference(&declared) {
                errors.push(format!(
                    "{file}: answer.{lang} uses `{{{u}}}`, not declared as a slot"
                ));
            }
            for d in declared.difference(&used) {
                errors.push(format!("{file}: slot `{d}` is not used in answer.{lang}"));
            }
        }
        for s in &e.slot {
            if s.computed.trim().is_empty() {
                errors.push(format!(
                    "{file}: slot `{}` does not say how it is computed",
                    s.name
                ));
            }
        }
        for r in &e.see_also {
            if !known.contains(r.as_str()) {
                errors.push(format!(
                    "{file}: see_also `{r}` is not a node, leaf, check or fix"
                ));
            }
        }
        if e.source.starts_with("guide") && e.slot.is_empty() {
            errors.push(format!(
                "{file}: the guide's questions are answered with live numbers: declare slots"
            ));
        }
    }
    errors
}

const HEADER: &str = "// @generated by crates/vramfit/tests/sourcegen_diagnose.rs";

fn render_tree(t: &TreeFile) -> String {
    let mut o = String::new();
    writeln!(
        o,
        "{HEADER} from crates/vramfit/data/oom-tree.toml — do not edit."
    )
    .unwrap();
    o.push_str("// Edit the TOML, then run `cargo test -p vramfit --test sourcegen_diagnose`.\n\n");
    o.push_str("use super::{Answer, Check, DecisionTree, FixInfo, Kind, L10n, Leaf, Node};\n\n");
    o.push_str("pub(super) static TREE: DecisionTree = DecisionTree {\n");
    writeln!(o, "    root: {},", lit(&t.root)).unwrap();
    o.push_str("    nodes: &[\n");
    for n in &t.node {
        o.push_str("        Node {\n");
        writeln!(o, "            id: {},", lit(&n.id)).unwrap();
        writeln!(o, "            question: {},", text(&n.question)).unwrap();
        writeln!(o, "            help: {},", text(&n.help)).unwrap();
        o.push_str("            answers: &[\n");
        for a in &n.answer {
            writeln!(
                o,
                "                Answer {{ label: {}, next: {} }},",
                text(&a.label),
                lit(&a.next)
            )
            .unwrap();
        }
        o.push_str("            ],\n        },\n");
    }
    o.push_str("    ],\n    leaves: &[\n");
    for l in &t.leaf {
        let kind = match l.kind.as_str() {
            "capacity" => "Kind::Capacity",
            "fragmentation" => "Kind::Fragmentation",
            _ => "Kind::Leak",
        };
        o.push_str("        Leaf {\n");
        writeln!(o, "            id: {},", lit(&l.id)).unwrap();
        writeln!(o, "            kind: {kind},").unwrap();
        writeln!(o, "            title: {},", text(&l.title)).unwrap();
        writeln!(o, "            summary: {},", text(&l.summary)).unwrap();
        let c: Vec<&str> = l.checks.iter().map(String::as_str).collect();
        let f: Vec<&str> = l.fixes.iter().map(String::as_str).collect();
        writeln!(o, "            checks: {},", ids(&c)).unwrap();
        writeln!(o, "            fixes: {},", ids(&f)).unwrap();
        o.push_str("        },\n");
    }
    o.push_str("    ],\n    checks: &[\n");
    for c in &t.check {
        o.push_str("        Check {\n");
        writeln!(o, "            id: {},", lit(&c.id)).unwrap();
        writeln!(o, "            title: {},", text(&c.title)).unwrap();
        writeln!(o, "            command: {},", lit(&c.command)).unwrap();
        writeln!(o, "            look_for: {},", text(&c.look_for)).unwrap();
        o.push_str("        },\n");
    }
    o.push_str("    ],\n    fixes: &[\n");
    for f in &t.fix {
        o.push_str("        FixInfo {\n");
        writeln!(o, "            id: {},", lit(&f.id)).unwrap();
        writeln!(o, "            effort: {},", f.effort).unwrap();
        writeln!(o, "            title: {},", text(&f.title)).unwrap();
        writeln!(o, "            detail: {},", text(&f.detail)).unwrap();
        o.push_str("        },\n");
    }
    o.push_str("    ],\n};\n");
    o
}

fn render_faq(faq: &[(String, FaqIn)]) -> String {
    let mut o = String::new();
    writeln!(
        o,
        "{HEADER} from crates/vramfit/data/faq/*.toml — do not edit."
    )
    .unwrap();
    o.push_str("// Edit the TOML, then run `cargo test -p vramfit --test sourcegen_diagnose`.\n\n");
    o.push_str("use super::{FaqEntry, FaqSlot, L10n};\n\n");
    let mut names = Vec::new();
    for (file, e) in faq {
        let name = e.id.to_ascii_uppercase();
        writeln!(
            o,
            "/// {} ({}, `data/faq/{file}`).",
            e.question.en, e.source
        )
        .unwrap();
        if e.slot.is_empty() {
            o.push_str("///\n/// No live numbers.\n");
        } else {
            o.push_str("///\n/// Slots, filled by the caller from the estimator:\n");
            for s in &e.slot {
                writeln!(o, "/// - `{{{}}}`: {}", s.name, s.computed).unwrap();
            }
        }
        writeln!(o, "const {name}: FaqEntry = FaqEntry {{").unwrap();
        writeln!(o, "    id: {},", lit(&e.id)).unwrap();
        writeln!(o, "    source: {},", lit(&e.source)).unwrap();
        writeln!(o, "    question: {},", text(&e.question)).unwrap();
        writeln!(o, "    answer: {},", text(&e.answer)).unwrap();
        o.push_str("    slots: &[\n");
        for s in &e.slot {
            writeln!(
                o,
                "        FaqSlot {{ name: {}, computed: {} }},",
                lit(&s.name),
                lit(&s.computed)
            )
            .unwrap();
        }
        o.push_str("    ],\n");
        let see: Vec<&str> = e.see_also.iter().map(String::as_str).collect();
        writeln!(o, "    see_also: {},", ids(&see)).unwrap();
        o.push_str("};\n\n");
        names.push(name);
    }
    writeln!(
        o,
        "pub(super) static FAQ: &[FaqEntry] = &[{}];",
        names.join(", ")
    )
    .unwrap();
    o
}

#[test]
fn sourcegen_oom_tree_and_faq() {
    let tree = load_tree();
    let faq = load_faq();
    let mut errors = validate_tree(&tree);
    errors.extend(validate_faq(&faq, &tree));
    assert!(errors.is_empty(), "data errors:\n{}", errors.join("\n"));
    let dir = crate_dir().join("src/generated");
    let tree_rs = render_tree(&tree);
    let faq_rs = render_faq(&faq);
    // Both files are checked before failing, so one run refreshes both.
    let stale: Vec<&str> = [("oom_tree.rs", &tree_rs), ("faq.rs", &faq_rs)]
        .iter()
        .filter(|(name, contents)| {
            fs::read_to_string(dir.join(name)).ok().as_deref() != Some(contents.as_str())
        })
        .map(|(name, _)| *name)
        .collect();
    for name in &stale {
        let contents = if *name == "faq.rs" { &faq_rs } else { &tree_rs };
        fs::write(dir.join(name), contents).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    assert!(
        stale.is_empty(),
        "regenerated {stale:?} under src/generated; run the tests again and commit them"
    );
}

#[test]
fn placeholders_are_found() {
    let p = placeholders("about {a_1} and {b} but not {Not} or {}");
    assert_eq!(p.into_iter().collect::<Vec<_>>(), ["a_1", "b"]);
}
