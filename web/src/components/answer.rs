//! The calculator's one answer, in words: a sentence that answers the question asked (does
//! the run, as asked, fit the card), then the guide's M_rec beside it as the guide's rule. The
//! numbers are `crate::answer`'s; a plain function of them, like the form's parts (see
//! `components::shell`).

use vramfit::hardware::Gpu;
use vramfit::units::fixed;
use yew::prelude::*;

use crate::answer::{Answer, Run, Target, Verdict, tokens};
use crate::format;
use crate::i18n::Lang;

/// The answer's block: its sentence (`#answer`, with the verdict in `data-verdict`) and the
/// guide's rule beside it.
pub fn block(lang: Lang, a: &Answer) -> Html {
    let (kind, text) = sentence(lang, a);
    html! {
        <div class="answer" id="answer" data-verdict={kind} role="status">
            <p class="verdict">{ text }</p>
            <p class="rule muted" id="answer-rule" data-bytes={a.m_rec.get().to_string()}>
                { lang.f(key!("verdict.rule"), &[&format::gb(a.m_rec)]) }
            </p>
        </div>
    }
}

/// The verdict's name (`yes`, `queues`, …) and its sentence.
pub fn sentence(lang: Lang, a: &Answer) -> (&'static str, String) {
    let run = run_text(lang, &a.run);
    let on = a.card.map(|g| cards(lang, a.gpus, g));
    let on = on.unwrap_or_else(|| {
        let size = a.memory.map_or_else(String::new, format::gib);
        lang.f(key!("verdict.your_card"), &[&size])
    });
    let (name, text) = match &a.verdict {
        Verdict::Needs { need, smallest } => (
            "needs",
            lang.f(key!("verdict.needs"), &[&run, &format::gib(*need)])
                + &smallest_text(lang, *smallest),
        ),
        Verdict::Yes { spare, speed } => {
            let speed = speed.map_or_else(String::new, |s| {
                lang.f(
                    key!("verdict.speed"),
                    &[&fixed(s, if s < 10.0 { 1 } else { 0 })],
                )
            });
            (
                "yes",
                lang.f(
                    key!("verdict.yes"),
                    &[&run, &on, &speed, &format::gib(*spare)],
                ),
            )
        }
        Verdict::Queues {
            engine,
            held,
            need,
            fewest,
        } => (
            "queues",
            lang.f(
                key!("verdict.queues"),
                &[
                    engine,
                    &on,
                    &fixed(*held, 2),
                    &a.run.batch.to_string(),
                    &tokens(a.run.context),
                    &format::gib(*need),
                ],
            ) + &fewest_text(lang, *fewest, a.card),
        ),
        Verdict::Offloads {
            cpu_percent,
            need,
            smallest,
        } => (
            "offloads",
            lang.f(
                key!("verdict.offloads"),
                &[&run, &on, &cpu_percent.to_string(), &format::gib(*need)],
            ) + &smallest_text(lang, *smallest),
        ),
        Verdict::Refuses {
            engine,
            free,
            asked,
            largest,
        } => (
            "refuses",
            lang.f(
                key!("verdict.refuses"),
                &[
                    engine,
                    &on,
                    &format::gib(*free),
                    &format::gib(*asked),
                    &fixed(*largest, 2),
                ],
            ),
        ),
        Verdict::No {
            need,
            fewest,
            smallest,
        } => {
            // Against what is free: the card's memory less what is already in use on it.
            let have = a
                .memory
                .map_or_else(String::new, |m| format::gib(m.minus(a.in_use)));
            (
                "no",
                lang.f(key!("verdict.no"), &[&run, &format::gib(*need), &on, &have])
                    + &fewest_text(lang, *fewest, a.card)
                    + &smallest_text(lang, *smallest),
            )
        }
    };
    // The memory already in use, named: the verdict is said against what is free.
    let in_use = match a.memory {
        Some(m) if a.in_use.get() > 0 => lang.f(
            key!("verdict.in_use"),
            &[&format::gib(a.in_use), &format::gib(m.minus(a.in_use))],
        ),
        _ => String::new(),
    };
    (name, text + &in_use)
}

/// The run: the model and its format, with the target asked (users, context, batch).
fn run_text(lang: Lang, r: &Run) -> String {
    let model = lang.f(key!("verdict.model"), &[&r.model, &r.format]);
    let (ctx, batch) = (tokens(r.context), r.batch.to_string());
    match r.target {
        Target::Serving => lang.f(key!("verdict.run_serve"), &[&model, &ctx, &batch]),
        Target::Training => lang.f(key!("verdict.run_train"), &[&model, &ctx, &batch]),
        Target::Inference if r.batch > 1 => {
            lang.f(key!("verdict.run_batch"), &[&model, &ctx, &batch])
        }
        Target::Inference => lang.f(key!("verdict.run"), &[&model, &ctx]),
    }
}

/// `one RTX 4090`, `2 × H100 SXM5 80GB`.
fn cards(lang: Lang, n: u64, g: &Gpu) -> String {
    let name = super::gpus::short_name(g);
    if n == 1 {
        lang.f(key!("verdict.one_card"), &[&name])
    } else {
        lang.f(key!("verdict.cards"), &[&n.to_string(), &name])
    }
}

/// What more of the same card would do, where more hold the run.
fn fewest_text(lang: Lang, fewest: Option<u64>, card: Option<&Gpu>) -> String {
    match (fewest, card) {
        (Some(n), Some(g)) => lang.f(key!("verdict.fewest"), &[&cards(lang, n, g)]),
        (Some(n), None) => lang.f(key!("verdict.fewest_yours"), &[&n.to_string()]),
        _ => String::new(),
    }
}

/// The smallest catalog card that holds the run alone, or that none does (the full build's
/// search; a calculator build says to choose a card).
fn smallest_text(lang: Lang, smallest: Option<&Gpu>) -> String {
    match smallest {
        Some(g) => lang.f(
            key!("verdict.smallest"),
            &[&super::gpus::short_name(g), &format::gib(g.memory)],
        ),
        None if cfg!(feature = "full") => lang.t(key!("verdict.none_single")).to_string(),
        None => lang.t(key!("verdict.choose")).to_string(),
    }
}
