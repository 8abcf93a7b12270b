//! The decision tree and the FAQ: static tables generated from `data/oom-tree.toml` and
//! `data/faq/*.toml` by `tests/sourcegen_diagnose.rs`.
//!
//! The types are `Serialize` only: they are `&'static` data compiled into the crate, never read
//! back.

use alloc::string::String;

use super::{Kind, Lang, faq_data, oom_tree};

/// A static text in both languages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct L10n {
    /// English.
    pub en: &'static str,
    /// Simplified Chinese.
    pub zh: &'static str,
}

impl L10n {
    /// The text in `lang`.
    pub const fn get(&self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => self.en,
            Lang::Zh => self.zh,
        }
    }
}

/// A question of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Node {
    /// Its id, unique among nodes and leaves.
    pub id: &'static str,
    /// The question.
    pub question: L10n,
    /// How to answer it: what to look at.
    pub help: L10n,
    /// The answers, each leading to a node or a leaf.
    pub answers: &'static [Answer],
}

/// An answer to a question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Answer {
    /// The answer.
    pub label: L10n,
    /// The id of the node or leaf it leads to.
    pub next: &'static str,
}

/// An end of the tree: a kind, the checks that confirm it, and the fixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Leaf {
    /// Its id.
    pub id: &'static str,
    /// The kind of OOM.
    pub kind: Kind,
    /// A one-line name.
    pub title: L10n,
    /// What happens, and why.
    pub summary: L10n,
    /// Ids of the checks that confirm it ([`check`]), most telling first.
    pub checks: &'static [&'static str],
    /// Ids of the fixes ([`fix`]), cheapest first.
    pub fixes: &'static [&'static str],
}

/// A verification command (guide §3.3) and what to look for in its output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Check {
    /// Its id.
    pub id: &'static str,
    /// A one-line name.
    pub title: L10n,
    /// The command or code to run, verbatim.
    pub command: &'static str,
    /// What to look for in its output.
    pub look_for: L10n,
}

/// A fix, with its effort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FixInfo {
    /// Its id.
    pub id: &'static str,
    /// From 1 (a flag or one line) to 5 (new hardware).
    pub effort: u8,
    /// A one-line name.
    pub title: L10n,
    /// What to do, what it saves and what it costs.
    pub detail: L10n,
}

/// The whole tree: questions, leaves, checks and fixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DecisionTree {
    /// The id of the first question.
    pub root: &'static str,
    /// The questions.
    pub nodes: &'static [Node],
    /// The ends.
    pub leaves: &'static [Leaf],
    /// The verification commands.
    pub checks: &'static [Check],
    /// The fixes.
    pub fixes: &'static [FixInfo],
}

/// The decision tree.
pub fn tree() -> &'static DecisionTree {
    &oom_tree::TREE
}

/// The question with this id.
pub fn node(id: &str) -> Option<&'static Node> {
    oom_tree::TREE.nodes.iter().find(|n| n.id == id)
}

/// The leaf with this id.
pub fn leaf(id: &str) -> Option<&'static Leaf> {
    oom_tree::TREE.leaves.iter().find(|n| n.id == id)
}

/// The check with this id.
pub fn check(id: &str) -> Option<&'static Check> {
    oom_tree::TREE.checks.iter().find(|n| n.id == id)
}

/// The fix with this id.
pub fn fix(id: &str) -> Option<&'static FixInfo> {
    oom_tree::TREE.fixes.iter().find(|n| n.id == id)
}

/// A named value in an FAQ answer, filled from the estimator (`{train_7b_quick_gb}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FaqSlot {
    /// The name, as written between braces in the answer.
    pub name: &'static str,
    /// How the value is computed, for whoever fills it.
    pub computed: &'static str,
}

/// A frequently asked question with its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FaqEntry {
    /// Its id.
    pub id: &'static str,
    /// Where it comes from (`guide §6 Q1`, or `users`).
    pub source: &'static str,
    /// The question.
    pub question: L10n,
    /// The answer, with `{slot}` placeholders for live numbers.
    pub answer: L10n,
    /// The placeholders used in the answer.
    pub slots: &'static [FaqSlot],
    /// Ids of related leaves, checks or fixes of the tree.
    pub see_also: &'static [&'static str],
}

impl FaqEntry {
    /// The answer in `lang` with each `{name}` replaced by its value from `values`; slots with
    /// no value are left as written, so a missing number shows rather than disappears.
    pub fn render(&self, lang: Lang, values: &[(&str, &str)]) -> String {
        let mut out = String::from(self.answer.get(lang));
        for (name, value) in values {
            if self.slots.iter().any(|s| s.name == *name) {
                let mut key = String::from("{");
                key.push_str(name);
                key.push('}');
                out = out.replace(key.as_str(), value);
            }
        }
        out
    }
}

/// The FAQ.
pub fn faq() -> &'static [FaqEntry] {
    faq_data::FAQ
}

/// The FAQ entry with this id.
pub fn faq_entry(id: &str) -> Option<&'static FaqEntry> {
    faq_data::FAQ.iter().find(|e| e.id == id)
}

#[cfg(test)]
mod tests {
    use alloc::vec::Vec;

    use super::*;

    fn both(t: &L10n) -> bool {
        !t.en.trim().is_empty() && !t.zh.trim().is_empty()
    }

    #[test]
    fn every_answer_points_to_a_node_or_leaf() {
        let t = tree();
        for n in t.nodes {
            for a in n.answers {
                assert!(
                    node(a.next).is_some() || leaf(a.next).is_some(),
                    "{} → {}",
                    n.id,
                    a.next
                );
            }
        }
    }

    #[test]
    fn every_node_and_leaf_is_reachable_from_the_root() {
        let t = tree();
        let mut reached: Vec<&str> = Vec::new();
        let mut stack = alloc::vec![t.root];
        while let Some(id) = stack.pop() {
            if reached.contains(&id) {
                continue;
            }
            reached.push(id);
            if let Some(n) = node(id) {
                stack.extend(n.answers.iter().map(|a| a.next));
            }
        }
        for id in t
            .nodes
            .iter()
            .map(|n| n.id)
            .chain(t.leaves.iter().map(|l| l.id))
        {
            assert!(reached.contains(&id), "{id} unreachable");
        }
        // The three kinds of the guide each have a leaf.
        for k in [Kind::Capacity, Kind::Fragmentation, Kind::Leak] {
            assert!(t.leaves.iter().any(|l| l.kind == k), "{k:?}");
        }
    }

    #[test]
    fn every_leaf_has_checks_and_fixes_in_both_languages() {
        let t = tree();
        assert_eq!(t.leaves.len(), 4);
        for l in t.leaves {
            assert!(both(&l.title) && both(&l.summary), "{}", l.id);
            assert!(!l.checks.is_empty() && !l.fixes.is_empty(), "{}", l.id);
            for c in l.checks {
                let c = check(c).unwrap_or_else(|| panic!("{}: check {c}", l.id));
                assert!(both(&c.title) && both(&c.look_for) && !c.command.is_empty());
            }
            let efforts: Vec<u8> = l
                .fixes
                .iter()
                .map(|f| fix(f).unwrap_or_else(|| panic!("{}: fix {f}", l.id)).effort)
                .collect();
            assert!(
                efforts.windows(2).all(|w| w[0] <= w[1]),
                "{}: fixes not ranked by effort: {efforts:?}",
                l.id
            );
        }
        for f in t.fixes {
            assert!(
                both(&f.title) && both(&f.detail) && (1..=5).contains(&f.effort),
                "{}",
                f.id
            );
        }
        for n in t.nodes {
            assert!(
                both(&n.question) && both(&n.help) && n.answers.iter().all(|a| both(&a.label)),
                "{}",
                n.id
            );
        }
    }

    #[test]
    fn the_guide_commands_are_in_the_checks() {
        let cmds: Vec<&str> = tree().checks.iter().map(|c| c.command).collect();
        for needle in [
            "watch -n 1 nvidia-smi",
            "memory_summary",
            "dcgmi diag -r 4",
            "--format=csv -l 1",
            "_dump_snapshot",
        ] {
            assert!(cmds.iter().any(|c| c.contains(needle)), "{needle}");
        }
        let empty_cache = fix("empty_cache").map(|f| f.detail.en).unwrap_or("");
        assert!(
            empty_cache.contains("does not fix a leak")
                || empty_cache.contains("does nothing for a leak")
                || empty_cache.contains("not fix a leak")
        );
    }

    #[test]
    fn faq_has_the_guide_four_with_slots_and_renders_them() {
        let guide: Vec<&FaqEntry> = faq()
            .iter()
            .filter(|e| e.source.starts_with("guide"))
            .collect();
        assert_eq!(guide.len(), 4);
        assert!(guide.iter().all(|e| !e.slots.is_empty()));
        assert!(faq().len() >= 9);
        let q1 = faq_entry("guide_q1_7b_on_a100_40gb").expect("q1");
        let en = q1.render(
            Lang::En,
            &[("train_7b_quick_gb", "49 GB"), ("not_a_slot", "x")],
        );
        assert!(en.contains("14 × 3.5 = 49 GB"), "{en}");
        assert!(en.contains("{lora_7b_gb}"), "unfilled slots stay visible");
        let zh = q1.render(Lang::Zh, &[("train_7b_quick_gb", "49 GB")]);
        assert!(zh.contains("49 GB"));
    }
}
