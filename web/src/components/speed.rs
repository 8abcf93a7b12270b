//! How fast the run goes on its card: the estimate's `throughput`, each figure with its working.

use vramfit::estimate::Estimate;
use vramfit::units::fixed;
use yew::prelude::*;

use crate::i18n::{Key, Lang};

/// Seconds in the unit that reads best: ms under a second, s under an hour, h above.
pub fn seconds(x: f64) -> String {
    if x < 1.0 {
        format!("{} ms", fixed(x * 1e3, 1))
    } else if x < 3600.0 {
        format!("{} s", fixed(x, 2))
    } else {
        format!("{} h", fixed(x / 3600.0, 2))
    }
}

/// Tokens per second, to the precision the model has.
pub fn rate(x: f64) -> String {
    if x >= 100.0 {
        format!(
            "{} tokens/s",
            vramfit::estimate::thousands(x.round() as u64)
        )
    } else {
        format!("{} tokens/s", fixed(x, 1))
    }
}

/// The speed panel, or nothing without a catalog card.
pub fn panel(lang: Lang, e: &Estimate) -> Html {
    let Some(t) = &e.throughput else {
        return Html::default();
    };
    let rows: [(&str, Key, Option<String>); 8] = [
        (
            "prefill_tokens_per_s",
            key!("speed.prefill"),
            t.prefill_tokens_per_s.map(rate),
        ),
        (
            "time_to_first_token_s",
            key!("speed.ttft"),
            t.time_to_first_token_s.map(seconds),
        ),
        (
            "decode_tokens_per_s_per_sequence",
            key!("speed.decode_seq"),
            t.decode_tokens_per_s_per_sequence.map(rate),
        ),
        (
            "decode_tokens_per_s",
            key!("speed.decode_batch"),
            t.decode_tokens_per_s.map(rate),
        ),
        (
            "speculative_decode_tokens_per_s",
            key!("speed.speculative"),
            t.speculative_decode_tokens_per_s.map(rate),
        ),
        (
            "generation_s",
            key!("speed.generation"),
            t.generation_s.map(seconds),
        ),
        (
            "step_time_s",
            key!("speed.step"),
            t.step_time_s.map(seconds),
        ),
        (
            "tokens_per_s",
            key!("speed.training"),
            t.tokens_per_s.map(rate),
        ),
    ];
    html! {
        <div class="panel" id="speed">
            <h2>{ lang.t(key!("speed.title")) }</h2>
            <div class="scroll">
                <table>
                    <tbody>
                        { for rows.into_iter().filter_map(|(k, label, value)| {
                            let value = value?;
                            let working = t.formulas.iter().find(|f| f.key == k).map(|f| if lang.is_zh() { f.zh.clone() } else { f.en.clone() }).unwrap_or_default();
                            Some(html! {
                                <tr data-key={k}>
                                    <td>{ lang.t(label) }</td>
                                    <td class="num">{ value }</td>
                                    <td><div class="formula">{ working }</div></td>
                                </tr>
                            })
                        }) }
                    </tbody>
                </table>
            </div>
            <p class="hint">{ lang.t(key!("speed.hint")) }</p>
        </div>
    }
}
