//! The FAQ answered with live numbers: every `{slot}` of the FAQ data computed by the estimator
//! and the planners, so the answers move when the formulas or the catalogs do.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::diagnose::{Lang, faq};
use crate::estimate::{
    Checkpointing, EstimateInput, HardwareInput, Mode, ModelInput, PlacementInput, RunInput,
    TrainingInput, estimate, thousands,
};
use crate::hardware::spot::{GUIDE_SPOT_FRACTION, SpotInput, compare};
use crate::hardware::{Currency, Market, find_gpu, offers};
use crate::precision::{Dtype, KvDtype};
use crate::units::Bytes;

/// What the person has entered, for the slots that answer about their own job.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Context {
    /// `M_theory` of the job in the calculator.
    pub estimate: Option<Bytes>,
    /// Memory of the selected card.
    pub card: Option<Bytes>,
}

/// The example spot job: 24 hours on an A100-80GB, checkpoints every 30 minutes, restarts of
/// 15 minutes, interruptions every 27 hours on average (the middle of the guide's 6–48 hours).
pub const SPOT_EXAMPLE_GPU: &str = "a100-sxm4-80gb";
/// Hours of the example spot job.
pub const SPOT_EXAMPLE_HOURS: f64 = 24.0;
/// Checkpoint interval of the example, in hours.
pub const SPOT_EXAMPLE_CHECKPOINT_HOURS: f64 = 0.5;
/// Mean time between interruptions of the example, in hours.
pub const SPOT_EXAMPLE_MTBI_HOURS: f64 = 27.0;

fn gb(b: Bytes) -> String {
    format!("{:.1} GB", b.as_gb())
}

fn llama2_7b(mode: Mode) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(String::from("meta-llama/Llama-2-7b-hf")),
            ..Default::default()
        },
        run: RunInput {
            mode,
            batch: 1.0,
            seq_len: 2048.0,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Per-GPU bytes (`required_bytes`) of an input; zero when it is refused (never for the fixed
/// examples here, which the tests run).
fn need(i: &EstimateInput) -> Bytes {
    estimate(i).map(|e| e.required_bytes).unwrap_or_default()
}

/// The LM Studio answer's slots: Llama-3.1-8B in MLX 4-bit under mlx-lm on a 16 GB Mac, its
/// weights, its total at 8k and the Mac's working set (the site's FAQ shows the same).
pub fn lm_studio_values() -> Vec<(&'static str, String)> {
    let mut v: Vec<(&'static str, String)> = Vec::new();
    if let Ok(e) = estimate(&EstimateInput {
        model: ModelInput {
            model: Some(String::from("meta-llama/Llama-3.1-8B")),
            quantization: crate::precision::Quantization::parse("quantization", "mlx-4bit")
                .unwrap_or_default(),
            ..Default::default()
        },
        run: RunInput {
            engine: crate::estimate::Engine::Mlx,
            seq_len: 8192.0,
            new_tokens: 0.0,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some(String::from("apple-m2-pro-16gb")),
            ..Default::default()
        },
        ..Default::default()
    }) {
        v.push(("mlx_llama8b_4bit_weights", format!("{}", e.weights_bytes)));
        v.push(("mlx_llama8b_4bit_8k", format!("{}", e.total_bytes)));
        if let Some(f) = e.fit {
            v.push(("mac16_working_set", format!("{}", f.memory_bytes)));
        }
    }
    v
}

/// Every slot's value.
pub fn values(ctx: &Context) -> Vec<(&'static str, String)> {
    let mut v: Vec<(&'static str, String)> = Vec::new();
    let quick = training_values(&mut v);
    spot_values(&mut v);
    multi_gpu_values(&mut v);
    // §6 Q4: the person's own job and card, else the guide's 49 GB on a 40 GB A100.
    v.push(("your_estimate_gb", gb(ctx.estimate.unwrap_or(quick))));
    v.push((
        "your_card_capacity",
        ctx.card.map_or_else(|| String::from("40 GB"), gb),
    ));
    kv_values(&mut v);
    v.extend(lm_studio_values());
    v
}

/// §6 Q1: Llama-2-7B's training, by the quick formula and in detail, with LoRA and QLoRA.
/// Returns the quick formula's bytes, Q4's example.
fn training_values(v: &mut Vec<(&'static str, String)>) -> Bytes {
    let quick = estimate(&EstimateInput {
        model: ModelInput {
            params: Some(String::from("7B")),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            dtype: Some(Dtype::Fp16),
            ..Default::default()
        },
        ..Default::default()
    })
    .map(|e| e.quick.theory_bytes)
    .unwrap_or_default();
    v.push(("train_7b_quick_gb", gb(quick)));
    v.push(("train_7b_detailed_gb", gb(need(&llama2_7b(Mode::Training)))));
    let lora = {
        let mut input = llama2_7b(Mode::Training);
        input.training.lora_rank = 16.0;
        input.training.grad_checkpointing = Checkpointing::Full;
        input
    };
    v.push(("lora_7b_gb", gb(need(&lora))));
    v.push((
        "qlora_7b_gb",
        gb(need(&EstimateInput {
            training: TrainingInput {
                qlora: true,
                ..lora.training
            },
            ..lora
        })),
    ));
    quick
}

/// §6 Q2: the spot example on the cheapest on-demand whole-card price of the example GPU, per
/// card.
fn spot_values(v: &mut Vec<(&'static str, String)>) {
    let rate = crate::hardware::exchange_rate();
    let price = offers()
        .iter()
        .filter(|o| {
            o.gpu == SPOT_EXAMPLE_GPU
                && o.market == Market::OnDemand
                && o.mig_profile.is_none()
                && o.vgpu.is_none()
                && o.count > 0
        })
        .map(|o| rate.convert(o.price_per_hour / o.count as f64, o.currency, Currency::Usd))
        .fold(f64::INFINITY, f64::min);
    let gpu_name = find_gpu(SPOT_EXAMPLE_GPU).map_or(SPOT_EXAMPLE_GPU, |g| g.name);
    v.push(("spot_example_gpu", String::from(gpu_name)));
    v.push(("spot_example_hours", format!("{SPOT_EXAMPLE_HOURS:.0}")));
    v.push((
        "spot_example_checkpoint_minutes",
        format!("{:.0}", SPOT_EXAMPLE_CHECKPOINT_HOURS * 60.0),
    ));
    if price.is_finite() {
        let cmp = compare(&SpotInput {
            hours: SPOT_EXAMPLE_HOURS,
            on_demand_price: price,
            spot_price: price * GUIDE_SPOT_FRACTION,
            mtbi_hours: SPOT_EXAMPLE_MTBI_HOURS,
            checkpoint_every_hours: SPOT_EXAMPLE_CHECKPOINT_HOURS,
            restart_hours: 0.25,
        });
        v.push((
            "on_demand_example_cost",
            format!("{:.2} USD", price * SPOT_EXAMPLE_HOURS),
        ));
        v.push((
            "spot_example_cost",
            cmp.map_or_else(|_| String::from("—"), |c| format!("{:.2} USD", c.spot_cost)),
        ));
    }
}

/// §6 Q3: Llama-2-13B, AMP AdamW, batch 1 per GPU, 2048 tokens, over 8 GPUs in data parallel,
/// 4 in tensor parallel and 8 under ZeRO-3.
fn multi_gpu_values(v: &mut Vec<(&'static str, String)>) {
    let m13 = {
        let mut input = llama2_7b(Mode::Training);
        input.model.model = Some(String::from("meta-llama/Llama-2-13b-hf"));
        input
    };
    v.push(("multi_gpu_example_model", String::from("Llama-2-13B")));
    v.push((
        "dp_per_gpu_gb",
        gb(need(&{
            let mut input = m13.clone();
            input.placement.gpus = Some(8.0);
            input
        })),
    ));
    v.push((
        "tp4_per_gpu_gb",
        gb(need(&{
            let mut input = m13.clone();
            input.placement.gpus = Some(4.0);
            input.placement.tp = 4.0;
            input
        })),
    ));
    v.push((
        "zero3_8_per_gpu_gb",
        gb(need(&EstimateInput {
            placement: PlacementInput {
                gpus: Some(8.0),
                zero: 3.0,
                ..m13.placement
            },
            ..m13
        })),
    ));
}

/// KV cache with GQA: Llama-3-8B in bf16, one sequence of its whole 8K context, against the
/// guide's MHA formula.
fn kv_values(v: &mut Vec<(&'static str, String)>) {
    let l3 = |kv: KvDtype, seq: f64| {
        estimate(&EstimateInput {
            model: ModelInput {
                model: Some(String::from("meta-llama/Meta-Llama-3-8B")),
                ..Default::default()
            },
            run: RunInput {
                seq_len: seq,
                new_tokens: 0.0,
                kv_dtype: kv,
                ..Default::default()
            },
            ..Default::default()
        })
    };
    if let Ok(e) = l3(KvDtype::Auto, 8192.0) {
        v.push((
            "llama3_8b_kv_per_token",
            format!(
                "{} B ({})",
                thousands(e.kv_bytes_per_token),
                Bytes::new(e.kv_bytes_per_token)
            ),
        ));
        v.push(("llama3_8b_kv_8k", format!("{}", e.kv_cache_bytes)));
        // What the guide's MHA formula gives per token: 2 × hidden × layers × 2 B.
        let mha = e.quick.kv_cache_bytes.get() / 8192;
        v.push((
            "llama3_8b_kv_per_token_mha",
            format!("{} B ({})", thousands(mha), Bytes::new(mha)),
        ));
    }
}

/// One answered question.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Answered {
    /// The FAQ entry's id.
    pub id: String,
    /// The question.
    pub question: String,
    /// The answer with every slot filled.
    pub answer: String,
}

/// The FAQ in `lang`, every slot filled.
pub fn answered(lang: Lang, ctx: &Context) -> Vec<Answered> {
    let vals = values(ctx);
    let pairs: Vec<(&str, &str)> = vals.iter().map(|(k, v)| (*k, v.as_str())).collect();
    faq()
        .iter()
        .map(|f| Answered {
            id: String::from(f.id),
            question: String::from(f.question.get(lang)),
            answer: f.render(lang, &pairs),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_slot_is_filled_in_both_languages() {
        for lang in [Lang::En, Lang::Zh] {
            for a in answered(lang, &Context::default()) {
                assert!(!a.answer.contains('{'), "{}: {}", a.id, a.answer);
                assert!(
                    !a.answer.contains("NaN") && !a.answer.contains("inf"),
                    "{}",
                    a.answer
                );
            }
        }
    }

    #[test]
    fn guide_numbers() {
        let v = values(&Context::default());
        let get = |k: &str| {
            v.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, s)| s.clone())
                .unwrap()
        };
        // §6 Q1: 14 × 3.5 = 49 GB.
        assert_eq!(get("train_7b_quick_gb"), "49.0 GB");
        // Llama-3-8B: 2 × 8 × 128 × 32 × 2 B = 131,072 B per token; MHA would be 2 × 4096 × 32 × 2 = 524,288.
        assert_eq!(get("llama3_8b_kv_per_token"), "131,072 B (128.00 KiB)");
        assert_eq!(get("llama3_8b_kv_per_token_mha"), "524,288 B (512.00 KiB)");
        // One 8,192-token sequence: 8,192 × 131,072 B = 1,073,741,824 B, 1 GiB exactly.
        assert_eq!(get("llama3_8b_kv_8k"), "1.00 GiB");
        // §6 Q1 on an A100 40 GB: the detailed estimate is far above 40 GB; LoRA fits.
        let gbs = |k: &str| get(k).trim_end_matches(" GB").parse::<f64>().unwrap();
        assert!(gbs("train_7b_detailed_gb") > 40.0);
        assert!(gbs("lora_7b_gb") < 40.0 && gbs("qlora_7b_gb") < gbs("lora_7b_gb"));
        // §6 Q3: data parallel does not cut per-GPU memory; TP and ZeRO-3 do.
        assert!(
            gbs("tp4_per_gpu_gb") < gbs("dp_per_gpu_gb")
                && gbs("zero3_8_per_gpu_gb") < gbs("dp_per_gpu_gb")
        );
        assert!(get("spot_example_cost").ends_with("USD"));
    }
}
