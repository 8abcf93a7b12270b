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
