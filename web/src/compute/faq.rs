//! The live values of the FAQ's `{slot}`s ([`faq_values`]), one question's worth at a time, and
//! the runs they come from ([`faq_runs`]), which the answers link to the calculator.

use vramfit::Bytes;
use vramfit::estimate::{Estimate, EstimateInput, Mode, estimate};
use vramfit::estimate::{ModelInput, RunInput};

use crate::state::AppState;

/// Slot names and their values, in the order they are computed.
type Values = Vec<(&'static str, String)>;

/// The live values of the FAQ's `{slot}`s, computed by the estimator and the planners as
/// each slot's description in the FAQ data says. A value that cannot be computed is left out
/// (the answer then shows its slot name rather than a made-up number).
pub fn faq_values(s: &AppState) -> Values {
    let mut v: Values = Vec::new();
    training_7b(&mut v);
    spot_example(&mut v);
    multi_gpu_13b(&mut v);
    yours(s, &mut v);
    kv_per_token(&mut v);
    mlx_guardrail(&mut v);
    v.retain(|(_, x)| !x.is_empty());
    v
}

/// Bytes as the FAQ writes them: decimal GB, one decimal.
fn gb(b: Bytes) -> String {
    format!("{:.1} GB", b.as_gb())
}

/// The estimate of `i`, if the estimator takes it.
fn est(i: EstimateInput) -> Option<Estimate> {
    estimate(&i).ok()
}

/// Llama-2-7B training, the first question's run.
fn llama7() -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-2-7b-hf".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Q1's LoRA run: rank 16 on q, k, v and o, checkpointing, bf16.
fn lora() -> EstimateInput {
    {
        let mut input = llama7();
        input.training.lora_rank = 16.0;
        input.training.lora_targets = ["q_proj", "k_proj", "v_proj", "o_proj"]
            .map(String::from)
            .to_vec();
        input.training.grad_checkpointing = vramfit::estimate::Checkpointing::Full;
        input.run.dtype = Some(vramfit::precision::Dtype::Bf16);
        input
    }
}

/// Q1's QLoRA run: the LoRA run over a 4-bit base.
fn qlora() -> EstimateInput {
    {
        let mut input = lora();
        input.training.qlora = true;
        input
    }
}

/// Q3's model: Llama-2-13B training.
fn l13() -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-2-13b-hf".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Q3's layouts on 8 GPUs: data parallel, tensor parallel 4, ZeRO-3.
fn dp8() -> EstimateInput {
    {
        let mut input = l13();
        input.placement.gpus = Some(8.0);
        input
    }
}

fn tp4() -> EstimateInput {
    {
        let mut input = l13();
        input.placement.gpus = Some(4.0);
        input.placement.tp = 4.0;
        input
    }
}

fn zero3() -> EstimateInput {
    {
        let mut input = l13();
        input.placement.gpus = Some(8.0);
        input.placement.zero = 3.0;
        input
    }
}

/// The KV-cache answer's model: Llama 3 8B inference.
fn llama3_8b() -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The runs an answer's numbers come from, each with its words, by the answer's id: what its
/// "open in the calculator" links open.
#[cfg(feature = "full")]
pub fn faq_runs() -> Vec<(&'static str, crate::i18n::Key, EstimateInput)> {
    vec![
        ("guide_q1_7b_on_a100_40gb", key!("faq.run_full"), llama7()),
        ("guide_q1_7b_on_a100_40gb", key!("faq.run_lora"), lora()),
        ("guide_q1_7b_on_a100_40gb", key!("faq.run_qlora"), qlora()),
        ("guide_q3_multi_gpu", key!("faq.run_dp8"), dp8()),
        ("guide_q3_multi_gpu", key!("faq.run_tp4"), tp4()),
        ("guide_q3_multi_gpu", key!("faq.run_zero3"), zero3()),
        ("kv_cache_gqa", key!("faq.run_llama3_8b"), llama3_8b()),
    ]
}

/// Q1: training a 7B model, by the quick rule and in detail, and with LoRA and QLoRA.
fn training_7b(v: &mut Values) {
    if let Some(e) = est(EstimateInput {
        model: ModelInput {
            params: Some("7B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            dtype: Some(vramfit::precision::Dtype::Fp16),
            ..Default::default()
        },
        ..Default::default()
    }) {
        v.push(("train_7b_quick_gb", gb(e.quick.theory_bytes)));
    }
    if let Some(e) = est(llama7()) {
        v.push(("train_7b_detailed_gb", gb(e.total_bytes)));
    }
    if let Some(e) = est(lora()) {
        v.push(("lora_7b_gb", gb(e.total_bytes)));
    }
    if let Some(e) = est(qlora()) {
        v.push(("qlora_7b_gb", gb(e.total_bytes)));
    }
}

/// The cheapest per-GPU price in USD of the catalog's whole-card offers of `gpu` on market `m`.
fn per_gpu_price(gpu: &str, m: vramfit::hardware::Market) -> Option<f64> {
    let rate = vramfit::hardware::exchange_rate();
    vramfit::hardware::offers()
        .iter()
        .filter(|o| {
            o.gpu == gpu
                && o.market == m
                && o.mig_profile.is_none()
                && o.slice_memory_bytes.is_none()
        })
        .map(|o| {
            rate.convert(
                o.price_per_hour,
                o.currency,
                vramfit::hardware::Currency::Usd,
            ) / f64::from(o.count.max(1))
        })
        .filter(|p| p.is_finite() && *p > 0.0)
        .min_by(f64::total_cmp)
}

/// Q2: a 24-hour job on an A100 80GB, cheapest on-demand and spot offers of the catalog.
fn spot_example(v: &mut Values) {
    let gpu = "a100-sxm4-80gb";
    let (Some(g), Some(od)) = (
        vramfit::hardware::find_gpu(gpu),
        per_gpu_price(gpu, vramfit::hardware::Market::OnDemand),
    ) else {
        return;
    };
    let spot = per_gpu_price(gpu, vramfit::hardware::Market::Spot)
        .unwrap_or(od * vramfit::hardware::spot::GUIDE_SPOT_FRACTION);
    let input = vramfit::hardware::spot::SpotInput {
        hours: 24.0,
        on_demand_price: od,
        spot_price: spot,
        mtbi_hours: 12.0,
        checkpoint_every_hours: 0.5,
        restart_hours: 0.25,
    };
    if let Ok(c) = vramfit::hardware::spot::compare(&input) {
        v.push(("spot_example_gpu", g.name.to_string()));
        v.push(("spot_example_hours", "24".into()));
        v.push((
            "on_demand_example_cost",
            format!("{:.2} USD", c.on_demand_cost),
        ));
        v.push(("spot_example_cost", format!("{:.2} USD", c.spot_cost)));
        v.push(("spot_example_checkpoint_minutes", "30".into()));
    }
}

/// Q3: Llama-2-13B training on 8 GPUs: data parallel, TP=4 and ZeRO-3.
fn multi_gpu_13b(v: &mut Values) {
    if let Some(p) = vramfit::presets::find("meta-llama/Llama-2-13b-hf") {
        v.push(("multi_gpu_example_model", p.name.to_string()));
    }
    // What each GPU must hold (`required_bytes`), as the crate's FAQ and the book say it: under
    // ZeRO-3 the total less the allocator-cache margin, which PyTorch gives back before an OOM.
    if let Some(e) = est(dp8()) {
        v.push(("dp_per_gpu_gb", gb(e.required_bytes)));
    }
    if let Some(e) = est(tp4()) {
        v.push(("tp4_per_gpu_gb", gb(e.required_bytes)));
    }
    if let Some(e) = est(zero3()) {
        v.push(("zero3_8_per_gpu_gb", gb(e.required_bytes)));
    }
}

/// Q4: the calculator's own run and card (the quick 7B figure and 40 GB when it has none).
fn yours(s: &AppState, v: &mut Values) {
    let mine = super::estimate_of(s).ok();
    v.push((
        "your_estimate_gb",
        match &mine {
            Some(e) => gb(e.peak_allocated_bytes),
            None => v
                .iter()
                .find(|(k, _)| *k == "train_7b_quick_gb")
                .map(|(_, x)| x.clone())
                .unwrap_or_default(),
        },
    ));
    let card = vramfit::hardware::find_gpu(&s.value("gpu")).map(|g| g.marketed_memory.to_string());
    let card = card.or_else(|| {
        mine.as_ref()
            .and_then(|e| e.fit.as_ref())
            .map(|f| gb(f.memory_bytes))
    });
    v.push(("your_card_capacity", card.unwrap_or_else(|| "40 GB".into())));
}

/// LM Studio's guardrail: Llama-3.1-8B in MLX 4-bit under mlx-lm on a 16 GB Mac, the
/// estimator's own FAQ values (`vramfit::faq::lm_studio_values`).
fn mlx_guardrail(v: &mut Values) {
    v.extend(vramfit::faq::lm_studio_values());
}

/// KV cache per token, Llama 3 8B, against the guide's MHA formula.
fn kv_per_token(v: &mut Values) {
    if let Some(p) = vramfit::presets::find("meta-llama/Llama-3.1-8B")
        && let Some(e) = est(llama3_8b())
    {
        let per_token = Bytes::new(e.kv_bytes_per_token);
        let mha = Bytes::new(2 * p.arch.num_layers * p.arch.hidden_size * 2);
        v.push(("llama3_8b_kv_per_token", per_token.display_auto()));
        v.push(("llama3_8b_kv_per_token_mha", mha.display_auto()));
        v.push((
            "llama3_8b_kv_8k",
            Bytes::new(e.kv_bytes_per_token.saturating_mul(8192)).display_auto(),
        ));
    }
}

#[cfg(test)]
#[cfg(feature = "full")]
mod tests {
    use super::*;
    use crate::compute::tests::state;

    #[test]

    fn every_faq_slot_gets_a_value() {
        let values = faq_values(&state(""));
        for entry in vramfit::diagnose::faq() {
            for slot in entry.slots {
                assert!(
                    values.iter().any(|(k, _)| *k == slot.name),
                    "{}: no value for {}",
                    entry.id,
                    slot.name
                );
            }
            let refs: Vec<(&str, &str)> = values.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let text = entry.render(vramfit::diagnose::Lang::En, &refs);
            assert!(!text.contains('{'), "{}: {text}", entry.id);
        }
        let q1 = values
            .iter()
            .find(|(k, _)| *k == "train_7b_quick_gb")
            .unwrap();
        assert_eq!(q1.1, "49.0 GB");
    }
}
