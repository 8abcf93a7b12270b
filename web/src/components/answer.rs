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

/// The answer's block: its sentence (`#answer`, with the verdict in `data-verdict`), where the
/// run does not fit as asked the cheapest rental that holds it (the full build's), and the
/// guide's rule beside it.
pub fn block(app: &crate::Ctx, a: &Answer) -> Html {
    let lang = app.lang;
    let (kind, text) = sentence(lang, a);
    html! {
        <div class="answer" id="answer" data-verdict={kind} role="status">
            <p class="verdict">{ text }</p>
            { rent_line(app, a) }
            <p class="rule muted" id="answer-rule" data-bytes={a.m_rec.get().to_string()}>
                { lang.f(key!("verdict.rule"), &[&format::gb(a.m_rec)]) }
            </p>
        </div>
    }
}

/// The verdict's name (`yes`, `queues`, …) and its sentence.
pub fn sentence(lang: Lang, a: &Answer) -> (&'static str, String) {
    let run = run_text(lang, &a.run);
    let on = a.card.map(|g| {
        if a.one_of {
            lang.f(
                key!("verdict.one_of"),
                &[&cards(lang, 1, g), &a.gpus.to_string()],
            )
        } else {
            cards(lang, a.gpus, g)
        }
    });
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

/// The cheapest rental that holds the run as asked, in words, with its offer's source and an
/// "apply" button that sets the form to its layout (the card, its GPUs, tp, pp, the GPUs of a
/// node), as the what-ifs' buttons set theirs. A MIG or vGPU slice, no card of the form's,
/// has no button.
#[cfg(feature = "full")]
fn rent_line(app: &crate::Ctx, a: &Answer) -> Html {
    let Some(r) = &a.rent else {
        return Html::default();
    };
    let lang = app.lang;
    let apply = crate::compute::layout_changes(app, &r.option).map(|changes| {
        let changes: Vec<(String, String)> = changes
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let app = app.clone();
        Callback::from(move |_: MouseEvent| {
            app.dispatch(crate::state::Action::SetMany(changes.clone()))
        })
    });
    let l = &r.option.parallelism;
    html! {
        <p class="rent" id="answer-rent" data-offer={r.option.offer.clone()} data-gpu={r.option.gpu.clone()}
           data-gpus={l.gpus.to_string()} data-tp={l.tp.to_string()} data-pp={l.pp.to_string()} data-nodes={l.nodes.to_string()}
           data-price={r.price_per_hour.to_string()} data-currency={r.currency.code()}>
            <span title={lang.f(key!("verdict.rent_source"), &[&r.source])}>{ rent_text(lang, r) }</span>
            if let Some(apply) = apply {
                { " " }<button type="button" id="answer-apply" onclick={apply}>{ lang.t(key!("verdict.rent_apply")) }</button>
            }
        </p>
    }
}

/// A calculator build prices no rental.
#[cfg(not(feature = "full"))]
fn rent_line(_: &crate::Ctx, _: &Answer) -> Html {
    Html::default()
}

/// The rental's sentence: the cards and their count, the layout (tp × pp, ZeRO-3, a MIG
/// slice), the nodes, the platform, the price per hour as the offer states it in its own
/// currency, and its date; the whole server where the layout uses fewer of its GPUs.
#[cfg(feature = "full")]
pub fn rent_text(lang: Lang, r: &crate::answer::Rent) -> String {
    use vramfit::hardware::ParallelKind;
    let o = &r.option;
    let l = &o.parallelism;
    let on = vramfit::hardware::find_gpu(&o.gpu).map_or_else(
        || format!("{} × {}", o.count, o.gpu),
        |g| cards(lang, u64::from(o.count), g),
    );
    // The engines' notation, the same in both languages: `TP=4 × PP=1`-style for tensor and
    // pipeline layouts, `DP=2 × TP=4` for replicas, `TP=8 + EP=8` for expert parallel.
    let layout = match (&o.mig_profile, l.kind) {
        (Some(p), _) => format!("MIG {p}"),
        (None, ParallelKind::Zero3 | ParallelKind::Data | ParallelKind::Expert) => l.notation(),
        (None, _) => format!("TP={} × PP={}", l.tp, l.pp),
    };
    let nodes = if l.nodes > 1 {
        lang.f(key!("verdict.rent_nodes"), &[&l.nodes.to_string()])
    } else {
        lang.t(key!("verdict.rent_node")).to_string()
    };
    let platform = if lang.is_zh() {
        &r.platform.1
    } else {
        &r.platform.0
    };
    let mut more = String::new();
    if o.rented_gpus > o.count {
        more += &lang.f(key!("verdict.rent_server"), &[&o.rented_gpus.to_string()]);
    }
    if o.reference_estimate {
        more += lang.t(key!("verdict.rent_reference"));
    }
    lang.f(
        key!("verdict.rent"),
        &[
            &on,
            &layout,
            &nodes,
            platform,
            &format::price(r.price_per_hour, r.currency.code()),
            &r.date,
            &more,
        ],
    )
}
