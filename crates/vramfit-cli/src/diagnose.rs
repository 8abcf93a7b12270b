//! `diagnose`: classify an OOM message, a memory_summary() report or an nvidia-smi log.
//!
//! `vramfit diagnose FILE` (or `-` for stdin) prints the kind, the numbers read and the fixes;
//! `--json` prints the whole `Diagnosis`. `--tree`, `--checks` and `--faq` print the decision
//! tree, the verification commands and the FAQ instead.

use std::fmt::Write as _;
use std::io::{Read, Seek, SeekFrom};

use clap::{Args, ValueEnum};
use vramfit::diagnose::{self, Diagnosis, Lang, Parsed, Pattern, XUnit};

use crate::output::{Failure, Outcome, json};

/// Read at most the last this-many bytes: the core reads the last 4 MiB and says when there was more.
const READ_LIMIT: u64 = (diagnose::MAX_INPUT_BYTES as u64) + 1;

#[derive(Clone, Copy, ValueEnum)]
pub enum LangArg {
    /// English.
    En,
    /// Simplified Chinese.
    Zh,
}

#[derive(Args)]
pub struct DiagnoseArgs {
    /// The text to diagnose: a `CUDA out of memory` message, `torch.cuda.memory_summary()`
    /// output, an `nvidia-smi` log (table or CSV), a TensorFlow/JAX/vLLM/llama.cpp error;
    /// `-` reads standard input.
    #[arg(value_name = "FILE", required_unless_present_any = ["tree", "checks", "faq"])]
    pub input: Option<String>,
    /// Language of the text output (JSON always has both).
    #[arg(long, value_enum, default_value = "en")]
    pub lang: LangArg,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print the decision tree: questions, answers, leaves with their checks and fixes.
    #[arg(long, conflicts_with_all = ["input", "checks", "faq"])]
    pub tree: bool,
    /// Print the verification commands (guide §3.3) and what to look for.
    #[arg(long, conflicts_with_all = ["input", "faq"])]
    pub checks: bool,
    /// Print the FAQ, its numbers computed now by the estimator and planners.
    #[arg(long, conflicts_with_all = ["input"])]
    pub faq: bool,
}

pub fn run(args: DiagnoseArgs) -> Outcome {
    let lang = match args.lang {
        LangArg::En => Lang::En,
        LangArg::Zh => Lang::Zh,
    };
    if args.tree {
        return if args.json {
            json(diagnose::tree())
        } else {
            Ok(tree_text(lang))
        };
    }
    if args.checks {
        return if args.json {
            json(&diagnose::tree().checks)
        } else {
            Ok(checks_text(lang))
        };
    }
    if args.faq {
        return if args.json {
            json(&vramfit::faq::answered(
                lang,
                &vramfit::faq::Context::default(),
            ))
        } else {
            Ok(faq_text(lang))
        };
    }
    let Some(input) = args.input else {
        return Err(Failure {
            message:
                "give a FILE to diagnose, `-` for standard input, or --tree / --checks / --faq"
                    .into(),
            code: 2,
        });
    };
    let text = read_input(&input)?;
    let d = diagnose::diagnose(&text);
    if args.json {
        json(&d)
    } else {
        Ok(diagnosis_text(&d, lang))
    }
}

fn read_input(input: &str) -> Result<String, Failure> {
    let result = if input == "-" {
        read_tail(std::io::stdin().lock())
    } else {
        std::fs::File::open(input).and_then(|mut f| {
            // A long log: only its end matters (the core reads the last 4 MiB), so seek there.
            let len = f.metadata()?.len();
            if len > READ_LIMIT {
                f.seek(SeekFrom::Start(len - READ_LIMIT))?;
            }
            read_tail(f)
        })
    };
    match result {
        // Logs are not always valid UTF-8 (progress bars cut mid-character): replace, don't refuse.
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) => {
            let what = if input == "-" {
                "standard input".to_string()
            } else {
                format!("`{input}`")
            };
            Err(Failure::io(format!("cannot read {what}: {e}")))
        }
    }
}

/// Reads to the end, keeping only the last [`READ_LIMIT`] bytes (memory stays bounded on a
/// stream of any length).
fn read_tail(mut r: impl Read) -> std::io::Result<Vec<u8>> {
    let limit = READ_LIMIT as usize;
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > 2 * limit {
            buf.drain(..buf.len() - limit);
        }
    }
    if buf.len() > limit {
        buf.drain(..buf.len() - limit);
    }
    Ok(buf)
}

fn heading(lang: Lang, en: &'static str, zh: &'static str) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

fn diagnosis_text(d: &Diagnosis, lang: Lang) -> String {
    let mut o = String::new();
    let confidence = match d.confidence {
        diagnose::Confidence::Low => heading(lang, "low", "低"),
        diagnose::Confidence::Medium => heading(lang, "medium", "中"),
        diagnose::Confidence::High => heading(lang, "high", "高"),
    };
    let _ = writeln!(
        o,
        "{}: {} ({})   {}: {}   {}: {}",
        heading(lang, "Kind", "类型"),
        d.kind.as_str(),
        d.kind.name(Lang::Zh),
        heading(lang, "confidence", "置信度"),
        confidence,
        heading(lang, "input", "输入"),
        d.input.as_str()
    );
    if let Some(leaf) = d.leaf.as_deref().and_then(diagnose::leaf) {
        let _ = writeln!(
            o,
            "{}: {} — {}",
            heading(lang, "Leaf", "结论"),
            leaf.id,
            leaf.title.get(lang)
        );
    }
    o.push('\n');
    if !d.evidence.is_empty() {
        let _ = writeln!(
            o,
            "{}",
            heading(lang, "Evidence (as read):", "证据（读取的数字）：")
        );
        for e in &d.evidence {
            let number = match (e.bytes, e.value) {
                (Some(b), _) => format!(
                    "{} ({} B)",
                    b.display_auto(),
                    vramfit::estimate::thousands(b.get())
                ),
                (None, Some(v)) if v.fract() == 0.0 && v < 1e15 => format!("{v:.0}"),
                (None, Some(v)) => format!("{v:.4}"),
                (None, None) => String::new(),
            };
            let _ = writeln!(o, "  {:<24} {:<32} {}", e.name, number, e.text);
        }
        o.push('\n');
    }
    if let Parsed::NvidiaSmi(log) = &d.parsed {
        for s in &log.series {
            let unit = match s.x_unit {
                XUnit::Seconds => "s",
                XUnit::Sample => "sample",
            };
            let _ = write!(
                o,
                "  gpu{}: {} samples, {}",
                s.gpu,
                s.points.len(),
                match s.pattern {
                    Pattern::Rising => "still rising (a leak)",
                    Pattern::JumpThenFlat => "one jump, then level",
                    Pattern::SteppedPlateau => "steps up, then level (the caching allocator)",
                    Pattern::Flat => "level",
                    Pattern::Falling => "falling",
                    Pattern::TooShort => "too few samples for a shape",
                }
            );
            if let Some(g) = s.growth_mib_per_x {
                let _ = write!(o, ", +{g:.1} MiB/{unit}");
            }
            if let Some(h) = s.hits_total_at_x {
                let at = if unit == "s" {
                    format!("after {h:.0} s")
                } else {
                    format!("at sample {h:.0}")
                };
                let _ = write!(o, ", reaches memory.total {at}");
            }
            o.push('\n');
        }
        o.push('\n');
    }
    let _ = writeln!(
        o,
        "{}\n  {}\n",
        heading(lang, "Why:", "原因："),
        d.explanation.get(lang)
    );
    if !d.fixes.is_empty() {
        let _ = writeln!(
            o,
            "{}",
            heading(
                lang,
                "Fixes, cheapest first:",
                "解决办法（按难度从低到高）："
            )
        );
        for (i, f) in d.fixes.iter().enumerate() {
            let _ = writeln!(
                o,
                "  {}. [{} {}] {}\n     {}",
                i + 1,
                heading(lang, "effort", "难度"),
                f.effort,
                f.title.get(lang),
                f.detail.get(lang)
            );
        }
        o.push('\n');
    }
    if let Some(leaf) = d.leaf.as_deref().and_then(diagnose::leaf) {
        let _ = writeln!(o, "{}", heading(lang, "Checks:", "验证："));
        for c in leaf.checks.iter().filter_map(|c| diagnose::check(c)) {
            let _ = writeln!(o, "  $ {}\n    {}", c.command, c.look_for.get(lang));
        }
        o.push('\n');
    }
    if let Some(p) = &d.what_to_paste_instead {
        let _ = writeln!(
            o,
            "{}\n  {}\n",
            heading(lang, "To decide, paste instead:", "请改为粘贴："),
            p.get(lang)
        );
    }
    for n in &d.notes {
        let _ = writeln!(o, "{} {}", heading(lang, "Note:", "注意："), n.get(lang));
    }
    o
}

fn tree_text(lang: Lang) -> String {
    let t = diagnose::tree();
    let mut o = String::new();
    for n in t.nodes {
        let root = if n.id == t.root { " (start)" } else { "" };
        let _ = writeln!(
            o,
            "[{}]{root} {}\n    {}",
            n.id,
            n.question.get(lang),
            n.help.get(lang)
        );
        for a in n.answers {
            let _ = writeln!(o, "  - {} → {}", a.label.get(lang), a.next);
        }
        o.push('\n');
    }
    for l in t.leaves {
        let _ = writeln!(
            o,
            "[{}] {} ({})\n    {}",
            l.id,
            l.title.get(lang),
            l.kind.as_str(),
            l.summary.get(lang)
        );
        let _ = writeln!(
            o,
            "    {} {}",
            heading(lang, "checks:", "验证："),
            l.checks.join(", ")
        );
        let _ = writeln!(
            o,
            "    {} {}\n",
            heading(lang, "fixes:", "解决："),
            l.fixes.join(", ")
        );
    }
    o
}

fn checks_text(lang: Lang) -> String {
    let mut o = String::new();
    for c in diagnose::tree().checks {
        let _ = writeln!(
            o,
            "{} [{}]\n  $ {}\n  {}\n",
            c.title.get(lang),
            c.id,
            c.command,
            c.look_for.get(lang)
        );
    }
    o
}

/// The FAQ with every number computed now by the estimator and planners.
fn faq_text(lang: Lang) -> String {
    let mut o = String::new();
    let answered = vramfit::faq::answered(lang, &vramfit::faq::Context::default());
    for (e, a) in diagnose::faq().iter().zip(answered) {
        let _ = writeln!(o, "Q ({}): {}\nA: {}\n", e.source, a.question, a.answer);
    }
    o
}
