//! `gpus`, `recommend`, `mig`, `platforms`, `spot`: the hardware catalog and planners.

use std::fmt::Write as _;

use clap::Args;
use serde::Serialize;
use vramfit::estimate::EstimateInput;
use vramfit::hardware::job::{JobKind, cost_per_job, parse_job};
use vramfit::hardware::matrix::{CRITERIA, Weights, rank_platforms};
use vramfit::hardware::mig::{MigOptions, MigPricing, plan_mig};
use vramfit::hardware::spot::{GUIDE_SPOT_FRACTION, SpotInput, compare};
use vramfit::hardware::tiers::tier_for;
use vramfit::hardware::{
    self as hw, Currency, ExchangeRate, Gpu, Layout, ParallelKind, PlanOptions, exchange_rate,
    offers, plan,
};
use vramfit::units::{Bytes, GB, parse_params, parse_size};
use vramfit::{ErrorKind, InputError, Result};

use crate::output::{Failure, Outcome, json};

// ---- shared ----------------------------------------------------------------------------------

fn gpu_arg(id: &str) -> Result<&'static Gpu> {
    hw::lookup_gpu("gpu", id)
}

fn currency_arg(text: &str) -> Result<Currency> {
    Currency::parse("currency", text)
}

fn rate_arg(rate: Option<f64>) -> Result<ExchangeRate> {
    match rate {
        None => Ok(exchange_rate()),
        Some(r) => ExchangeRate::from_request("cny_per_usd", r),
    }
}

/// `79.19 GiB (80 GB)`: CUDA-visible GiB with the vendor label.
fn gib_and_label(b: Bytes, label: &str) -> String {
    format!("{} ({label})", b.display_gib())
}

fn money(x: Option<f64>, c: Currency) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.2} {}", c.code()),
        _ => "—".into(),
    }
}

// ---- gpus ------------------------------------------------------------------------------------

#[derive(Args)]
pub struct GpusArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Only GPUs of this vendor (NVIDIA, AMD, Huawei, Apple).
    #[arg(long)]
    vendor: Option<String>,
}

#[derive(Serialize)]
struct GpuJson {
    id: &'static str,
    name: &'static str,
    vendor: &'static str,
    architecture: &'static str,
    marketed_memory: &'static str,
    memory_bytes: Bytes,
    memory_source: vramfit::hardware::MemorySource,
    memory_note: &'static str,
    bandwidth_bytes_per_s: u64,
    fp16_tflops: f64,
    bf16_tflops: f64,
    fp8_tflops: f64,
    interconnect: &'static str,
    tdp_watts: Option<u32>,
    unified_memory: bool,
    mig_profiles: Vec<&'static str>,
    mig: &'static [vramfit::hardware::MigProfile],
    source: &'static str,
    date: &'static str,
}

pub fn gpus(a: GpusArgs) -> Outcome {
    let list: Vec<&Gpu> = hw::gpus()
        .iter()
        .filter(|g| {
            a.vendor
                .as_deref()
                .is_none_or(|v| g.vendor.eq_ignore_ascii_case(v))
        })
        .collect();
    if a.json {
        let out: Vec<GpuJson> = list
            .iter()
            .map(|g| GpuJson {
                id: g.id,
                name: g.name,
                vendor: g.vendor,
                architecture: g.architecture,
                marketed_memory: g.marketed_memory,
                memory_bytes: g.memory,
                memory_source: g.memory_source,
                memory_note: g.memory_note,
                bandwidth_bytes_per_s: g.bandwidth_bytes_per_s(),
                fp16_tflops: g.fp16_tflops(),
                bf16_tflops: g.bf16_tflops,
                fp8_tflops: g.fp8_tflops(),
                interconnect: g.interconnect(),
                tdp_watts: g.tdp_watts(),
                unified_memory: g.unified_memory,
                mig_profiles: g.mig_profiles().iter().map(|p| p.name).collect(),
                mig: g.mig_profiles(),
                source: g.source(),
                date: g.date,
            })
            .collect();
        return json(&out);
    }
    let rows: Vec<(&Gpu, String)> = list
        .into_iter()
        .map(|g| {
            let derived = g.memory_source == vramfit::hardware::MemorySource::Derived;
            let memory = gib_and_label(g.memory, g.marketed_memory);
            (g, format!("{memory}{}", if derived { " *" } else { "" }))
        })
        .collect();
    // Columns as wide as their longest entry (a label such as `128 GB (2 x 64 GB GCDs)`).
    let (wid, wmem) = rows.iter().fold((2, 22), |(i, m), (g, memory)| {
        (i.max(g.id.chars().count()), m.max(memory.chars().count()))
    });
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<wid$} {:<wmem$} {:>10} {:>8}  MIG profiles",
        "id", "memory visible (label)", "bandwidth", "FP16 TF"
    );
    for (g, memory) in rows {
        let migs: Vec<&str> = g.mig_profiles().iter().map(|p| p.name).collect();
        let _ = writeln!(
            t,
            "{:<wid$} {:<wmem$} {:>10} {:>8.1}  {}",
            g.id,
            memory,
            format!("{:.0} GB/s", g.bandwidth_bytes_per_s() as f64 / GB as f64),
            g.fp16_tflops(),
            if migs.is_empty() {
                "—".into()
            } else {
                migs.join(" ")
            }
        );
    }
    t.push_str("* derived from the physical capacity by a stated rule (see --json memory_note); others measured\n");
    Ok(t)
}

// ---- recommend -------------------------------------------------------------------------------

/// Options of the offer search, shared with the estimate-driven `recommend`.
#[derive(Args, Clone)]
pub struct PlanFlags {
    /// Currency of prices: CNY or USD.
    #[arg(long, default_value = "USD")]
    currency: String,
    /// Yuan per US dollar (default: the data set's reference rate).
    #[arg(long)]
    cny_per_usd: Option<f64>,
    /// Include spot offers.
    #[arg(long)]
    spot: bool,
    /// Most GPUs in one node.
    #[arg(long, default_value_t = 8)]
    max_gpus: u32,
    /// Most nodes (servers of one offer, tensor parallel inside, pipeline across; vLLM and SGLang serving also data-parallel replicas and expert parallel across) a layout spans where one server holds none, 1 to 64.
    #[arg(long, default_value_t = vramfit::hardware::DEFAULT_MAX_NODES)]
    max_nodes: u32,
    /// Only these providers (platform ids, repeatable).
    #[arg(long)]
    provider: Vec<String>,
    /// Show at most this many options (0 = all).
    #[arg(long, default_value_t = 15)]
    limit: usize,
}

impl PlanFlags {
    fn options(&self) -> Result<PlanOptions> {
        PlanOptions::from_request(
            &self.currency,
            self.cny_per_usd,
            self.spot,
            f64::from(self.max_gpus),
            &self.provider,
            self.limit as f64,
        )
        .and_then(|o| o.with_max_nodes(f64::from(self.max_nodes)))
    }
}

#[derive(Args)]
pub struct RecommendArgs {
    /// Instead of a model: the memory the job needs on one GPU, with its unit (e.g. 40GB).
    /// Multi-GPU layouts then assume an ideal split (memory / GPUs under TP, PP and ZeRO-3).
    #[arg(long, conflicts_with_all = ["model"])]
    memory: Option<String>,
    /// The run, as for `vramfit estimate`: each layout is estimated with its own tp/pp/ZeRO.
    #[command(flatten)]
    estimate: Box<crate::estimate::EstimateFlags>,
    #[command(flatten)]
    plan: PlanFlags,
    /// Rank by what a whole job costs: tokens to generate (`1M tokens`) for inference and
    /// serving, an epoch to train on (`epoch:50M tokens`) for training.
    #[arg(long, conflicts_with = "memory")]
    per_job: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// The offers ranked by what the whole `job` costs: its hours at each option's speed (the
/// estimate's in that layout on that card) and price.
fn per_job(input: &EstimateInput, job: &str, flags: &PlanFlags, json_out: bool) -> Outcome {
    let job = parse_job("per_job", job)?;
    let opts = flags.options()?;
    let options = plan(
        |l: Layout, g: &Gpu| vramfit::hardware::layout_required_bytes(input, l, g),
        offers(),
        hw::gpus(),
        &PlanOptions {
            limit: 0,
            ..opts.clone()
        }
        .for_run(input),
    );
    let mut rows = cost_per_job(input, &options, job)?;
    if opts.limit > 0 {
        rows.truncate(opts.limit);
    }
    if json_out {
        return json(&serde_json::json!({ "job": job, "jobs": rows }));
    }
    let mut t = String::new();
    let what = match job.kind {
        JobKind::Generate => "generated",
        JobKind::Train => "trained on",
    };
    let _ = writeln!(
        t,
        "{} tokens {what}, cheapest job first (the hours at each option's speed and price):",
        vramfit::estimate::thousands(job.tokens)
    );
    let _ = writeln!(
        t,
        "{:<4} {:<32} {:<16} {:>6} {:>12} {:>10} {:>14} {:>14} {:>12}",
        "#", "offer", "gpu", "batch", "tokens/s", "hours", "price/hour", "job", "per 1M tok"
    );
    for (i, r) in rows.iter().enumerate() {
        let o = &r.option;
        let _ = writeln!(
            t,
            "{:<4} {:<32} {:<16} {:>6} {:>12.1} {:>10.2} {:>14} {:>14} {:>12}{}",
            i + 1,
            o.offer,
            format!("{} × {}", o.count, o.gpu),
            r.batch,
            r.tokens_per_s,
            r.wall_hours,
            money(Some(o.price_per_hour), o.currency),
            money(Some(r.cost), o.currency),
            money(Some(r.cost_per_million_tokens), o.currency),
            if r.guide_prefers_on_demand {
                "  spot, over 24 h: the guide advises on-demand"
            } else if o.market == vramfit::hardware::Market::Spot {
                "  spot, with expected interruptions"
            } else {
                ""
            }
        );
    }
    Ok(t)
}

/// Ranks the offers for a per-GPU memory function and prints them; `estimate` is echoed in the
/// JSON. The estimate-driven `recommend` calls this with the estimator as `per_gpu` and its
/// run as `run`, whose serving layouts (data-parallel replicas, expert parallel) are then
/// tried too (`PlanOptions::for_run`), and prints the first row's price as its offer states it.
pub fn recommend_with<F: Fn(Layout, &Gpu) -> Bytes>(
    per_gpu: F,
    run: Option<&EstimateInput>,
    estimate: serde_json::Value,
    flags: &PlanFlags,
    json_out: bool,
) -> Outcome {
    let opts = match run {
        Some(input) => flags.options()?.for_run(input),
        None => flags.options()?,
    };
    // The limit applies to the rows shown, after layouts of one offer are grouped.
    let limit = opts.limit;
    let mut options = plan(
        per_gpu,
        offers(),
        hw::gpus(),
        &PlanOptions {
            limit: 0,
            ..opts.clone()
        },
    );
    if json_out {
        if limit > 0 {
            options.truncate(limit);
        }
        return json(&serde_json::json!({ "estimate": estimate, "options": options }));
    }
    if options.is_empty() {
        return Ok(format!(
            "No offer fits on up to {} GPUs per node and {} node(s). Reduce memory (quantization, LoRA, ZeRO offload) or allow more GPUs (--max-gpus) or nodes (--max-nodes).\n",
            opts.max_gpus_per_node, opts.max_nodes
        ));
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<4} {:<32} {:<16} {:>12} {:>12} {:>12} {:>14}    layout",
        "#", "offer", "gpu", "per GPU", "usable", "margin", "price/hour"
    );
    // Layouts of the same offer, GPU count and price are one row.
    let mut rows: Vec<(&vramfit::hardware::PlanOption, Vec<String>)> = Vec::new();
    for o in &options {
        let layout = layout_text(o);
        match rows.iter_mut().find(|(r, _)| {
            r.offer == o.offer && r.count == o.count && r.price_per_hour == o.price_per_hour
        }) {
            Some((_, layouts)) => layouts.push(layout),
            None => rows.push((o, vec![layout])),
        }
    }
    if limit > 0 {
        rows.truncate(limit);
    }
    for (i, (o, layouts)) in rows.iter().enumerate() {
        let mut layout = layouts.join(" | ");
        if o.rented_gpus > o.count {
            layout = format!("{layout} (rents {})", o.rented_gpus);
        }
        let _ = writeln!(
            t,
            "{:<4} {:<32} {:<16} {:>12} {:>12} {:>12} {:>14}{}  {}",
            i + 1,
            o.offer,
            o.gpu,
            o.per_gpu_bytes.display_gib(),
            o.usable_bytes.display_gib(),
            o.margin_bytes.display_gib(),
            money(Some(o.price_per_hour), o.currency),
            if o.reference_estimate { " ~" } else { "  " },
            layout
        );
    }
    if let Some(line) = options
        .first()
        .and_then(|o| own_price_text(o, Some(opts.cny_per_usd)))
    {
        let _ = writeln!(t, "#1 {line}");
    }
    t.push_str(if opts.data_parallel {
        "~ reference estimate (see the offer's source); DP = data-parallel replicas, each holding its share of the --batch sequences; EP = the experts over those GPUs\n"
    } else {
        "~ reference estimate (see the offer's source); data parallel is not listed: it does not cut per-GPU memory (vLLM and SGLang serving runs list replicas sharing --batch)\n"
    });
    Ok(t)
}

/// What option `o` rents at its offer's own price, in its own currency and on its date, with
/// the planner's figure in the currency asked (`asked`: its rate in CNY per USD, where a
/// person asked for a currency) where that differs: the site's rental line says the same price.
fn own_price_text(o: &vramfit::hardware::PlanOption, asked: Option<f64>) -> Option<String> {
    let own = o.offer_price(offers())?;
    let converted = match asked {
        Some(rate) if own.currency != o.currency => format!(
            "; {} at {} CNY per USD",
            money(Some(o.price_per_hour), o.currency),
            vramfit::units::short(rate)
        ),
        _ => String::new(),
    };
    Some(format!(
        "{} an hour, the offer's price on {}{converted}",
        money(Some(own.price_per_hour), own.currency),
        own.date
    ))
}

/// An option's layout in words: its MIG profile, or its GPUs' parallelism.
fn layout_text(o: &vramfit::hardware::PlanOption) -> String {
    match &o.mig_profile {
        Some(p) => format!("MIG {p}"),
        None => o.parallelism.describe(),
    }
}

/// The cheapest rental of the catalog that holds the run as asked (its batch and context: the
/// estimator's `need` in each layout on each offer's card, as `vramfit recommend` ranks them),
/// in one line; `None` when no offer on up to 8 GPUs a node and the default nodes holds it.
pub fn cheapest_text(input: &EstimateInput) -> Option<String> {
    let options = plan(
        |l: Layout, g: &Gpu| vramfit::hardware::layout_required_bytes(input, l, g),
        offers(),
        hw::gpus(),
        &PlanOptions::default().for_run(input),
    );
    let o = options.first()?;
    let layout = layout_text(o);
    Some(format!(
        "Cheapest in the rental catalog that holds it as asked: {} ({} × {}, {layout}{}) at {}, {} to spare per GPU{}; `vramfit recommend` with the same flags ranks the rest.\n",
        o.offer,
        o.count,
        o.gpu,
        if o.rented_gpus > o.count {
            format!(", rents {}", o.rented_gpus)
        } else {
            String::new()
        },
        own_price_text(o, None)?,
        o.margin_bytes.display_gib().trim(),
        if o.reference_estimate {
            " (a reference price: see the offer's source)"
        } else {
            ""
        }
    ))
}

pub fn recommend(a: RecommendArgs) -> Outcome {
    let tier_text = |t: Option<&vramfit::hardware::tiers::Tier>| match (t, a.json) {
        (Some(t), false) => format!(
            "Guide tier: {} — inference {}, training {}\n\n",
            t.name, t.inference, t.training
        ),
        _ => String::new(),
    };
    if let Some(mem) = &a.memory {
        let tier = match &a.estimate.params {
            Some(p) => Some(tier_for(parse_params("params", p)?)),
            None => None,
        };
        let need = parse_size("memory", mem)?;
        if need == Bytes::ZERO {
            return Err(InputError::new(
                ErrorKind::OutOfRange,
                "memory",
                "zero",
                "a size above 0, e.g. 40GB",
            )
            .into());
        }
        let per_gpu = move |l: Layout, _: &Gpu| match l.kind {
            ParallelKind::Tensor
            | ParallelKind::Pipeline
            | ParallelKind::TensorPipeline
            | ParallelKind::Zero3 => need.div_ceil(u64::from(l.gpus)),
            _ => need,
        };
        let estimate = serde_json::json!({
            "per_gpu_bytes": need,
            "split": "ideal: per_gpu_bytes / GPUs under tensor, pipeline and ZeRO-3; data parallel never splits",
            "tier": tier,
        });
        let mut out = tier_text(tier);
        out.push_str(&recommend_with(per_gpu, None, estimate, &a.plan, a.json)?);
        return Ok(out);
    }
    // Estimate-driven: the one-GPU estimate is reported; every layout is estimated on its own.
    if a.estimate.model.is_none() && a.estimate.params.is_none() {
        return Err(InputError::new(
            ErrorKind::Missing,
            "model",
            "no model and no memory requirement given",
            "--model <preset id | config.json>, --params <count such as 7B>, or --memory <size such as 40GB>",
        )
        .into());
    }
    let input = a.estimate.to_input()?;
    if let Some(job) = &a.per_job {
        return per_job(&input, job, &a.plan, a.json);
    }
    let base = vramfit::estimate::estimate(&input)?;
    let per_gpu = |l: Layout, g: &Gpu| vramfit::hardware::layout_required_bytes(&input, l, g);
    let estimate = serde_json::to_value(&base).map_err(|e| Failure::io(e.to_string()))?;
    let mut out = tier_text(Some(tier_for(base.params)));
    if !a.json {
        out.push_str(&format!(
            "{}: needs {} on one GPU (peak allocated {}, M_rec {})\n\n",
            base.model,
            base.required_bytes.display_gib(),
            base.peak_allocated_bytes.display_gib(),
            base.recommended_bytes.display_gib()
        ));
    }
    out.push_str(&recommend_with(
        per_gpu,
        Some(&input),
        estimate,
        &a.plan,
        a.json,
    )?);
    Ok(out)
}

// ---- mig -------------------------------------------------------------------------------------

#[derive(Args)]
pub struct MigArgs {
    /// A GPU from the catalog: its id (a100-sxm4-80gb) or words that name it alone (h200, 4090).
    #[arg(long)]
    gpu: String,
    /// A job's memory need with its unit (repeatable), optionally named: `13b-debug=36GiB`.
    #[arg(long = "job", required_unless_present = "job_models")]
    jobs: Vec<String>,
    /// A job given as a preset served for inference (repeatable): its estimate's required memory
    /// (batch 1, 2048 prompt + 256 new tokens, HF transformers, the checkpoint's dtype).
    #[arg(long = "job-model")]
    job_models: Vec<String>,
    /// Only offers of this provider (platform id).
    #[arg(long)]
    provider: Option<String>,
    /// Currency of costs: CNY or USD.
    #[arg(long, default_value = "CNY")]
    currency: String,
    /// Yuan per US dollar (default: the data set's reference rate).
    #[arg(long)]
    cny_per_usd: Option<f64>,
    /// Most cards to use.
    #[arg(long, default_value_t = 8)]
    max_cards: u32,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn mig(a: MigArgs) -> Outcome {
    let gpu = gpu_arg(&a.gpu)?;
    let mut names = Vec::new();
    let mut sizes = Vec::new();
    for (i, j) in a.jobs.iter().enumerate() {
        let (name, size) = vramfit::hardware::mig::parse_job("job", i, j)?;
        names.push(name);
        sizes.push(size);
    }
    for m in &a.job_models {
        names.push(m.clone());
        sizes.push(vramfit::hardware::mig::model_job_bytes(m)?);
    }
    let options = MigOptions {
        currency: currency_arg(&a.currency)?,
        cny_per_usd: rate_arg(a.cny_per_usd)?.cny_per_usd,
        provider: a.provider.clone(),
        max_cards: a.max_cards,
        job_names: names.clone(),
    };
    let plan = plan_mig(gpu, &sizes, offers(), &options)?;
    if a.json {
        let mut v = serde_json::to_value(&plan).map_err(|e| Failure::io(e.to_string()))?;
        v["jobs"] = serde_json::json!(
            names
                .iter()
                .zip(&sizes)
                .map(|(n, s)| serde_json::json!({"name": n, "bytes": s}))
                .collect::<Vec<_>>()
        );
        return json(&v);
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{} × {} ({})",
        plan.cards.len(),
        gpu.name,
        gib_and_label(gpu.memory, gpu.marketed_memory)
    );
    for (ci, card) in plan.cards.iter().enumerate() {
        let _ = writeln!(t, "card {}:", ci + 1);
        for s in &card.slices {
            let _ = writeln!(
                t,
                "  {:<10} start {}  {:<16} needs {:>10}  usable {:>10}  margin {:>10}",
                s.profile,
                s.start,
                names.get(s.job).map_or("?", String::as_str),
                s.job_bytes.display_gib(),
                s.usable_bytes.display_gib(),
                s.margin_bytes.display_gib()
            );
        }
    }
    let _ = writeln!(
        t,
        "cost: {} per hour ({})",
        money(plan.cost_per_hour, plan.currency),
        match plan.pricing {
            MigPricing::PerSlice => "each slice at its offer's price",
            MigPricing::WholeCard => "each card at its cheapest whole-card price",
            MigPricing::Unpriced => "no offer prices this GPU",
        }
    );
    let _ = writeln!(
        t,
        "each job on its own whole card: {} per hour",
        money(plan.whole_cards_cost_per_hour, plan.currency)
    );
    if !plan.offers.is_empty() {
        let _ = writeln!(t, "prices from: {}", plan.offers.join(", "));
    }
    if !plan.exhaustive {
        t.push_str("note: the search stopped at its budget; this is the best plan found\n");
    }
    Ok(t)
}

// ---- platforms -------------------------------------------------------------------------------

#[derive(Args)]
pub struct PlatformsArgs {
    /// Criterion weights, e.g. memory=3,billing=1,slicing=2 (criteria: memory, billing,
    /// slicing, interconnect, frameworks, support; unnamed ones weigh 1).
    #[arg(long, default_value = "")]
    weights: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn platforms(a: PlatformsArgs) -> Outcome {
    let w = Weights::parse("weights", &a.weights)?;
    let ranked = rank_platforms(hw::platforms(), offers(), hw::gpus(), &w);
    if a.json {
        return json(
            &serde_json::json!({ "criteria": CRITERIA, "weights": w, "platforms": ranked }),
        );
    }
    let mut t = String::new();
    let _ = write!(t, "{:<4} {:<22}", "#", "platform");
    for c in CRITERIA {
        let _ = write!(t, " {c:>12}");
    }
    let _ = writeln!(t, " {:>7}", "total");
    for p in &ranked {
        let _ = write!(
            t,
            "{:<4} {:<22}",
            p.rank,
            format!(
                "{} {}",
                p.name,
                if p.name_zh != p.name {
                    p.name_zh.as_str()
                } else {
                    ""
                }
            )
        );
        for s in p.scores {
            let _ = write!(t, " {s:>12}");
        }
        let _ = writeln!(t, " {:>7.2}", p.total);
    }
    t.push_str("scores 0–5 by the rules in `vramfit::hardware::matrix`; total = weighted mean\n");
    Ok(t)
}

// ---- spot ------------------------------------------------------------------------------------

#[derive(Args)]
pub struct SpotArgs {
    /// Hours of work the job needs.
    #[arg(long)]
    hours: f64,
    /// On-demand price per hour.
    #[arg(long)]
    on_demand_price: f64,
    /// Spot price per hour.
    #[arg(long, conflicts_with = "spot_discount")]
    spot_price: Option<f64>,
    /// Spot discount in percent off on-demand (the guide: spot costs 20–30 % of on-demand, so
    /// 70–80). Without --spot-price or this, 75.
    #[arg(long)]
    spot_discount: Option<f64>,
    /// Mean time between interruptions, hours (the guide: 6–48).
    #[arg(long)]
    mtbi: f64,
    /// Hours of progress between checkpoints.
    #[arg(long)]
    checkpoint_every: f64,
    /// Hours lost to each restart (new instance, reload).
    #[arg(long, default_value_t = 0.25)]
    restart: f64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn spot(a: SpotArgs) -> Outcome {
    let spot_price = match (a.spot_price, a.spot_discount) {
        (Some(s), _) => s,
        (None, Some(d)) => {
            if !(d.is_finite() && (0.0..=100.0).contains(&d)) {
                return Err(InputError::new(
                    ErrorKind::OutOfRange,
                    "spot_discount",
                    format!("{d}"),
                    "a percentage from 0 to 100",
                )
                .into());
            }
            a.on_demand_price * (1.0 - d / 100.0)
        }
        (None, None) => a.on_demand_price * GUIDE_SPOT_FRACTION,
    };
    let c = compare(&SpotInput {
        hours: a.hours,
        on_demand_price: a.on_demand_price,
        spot_price,
        mtbi_hours: a.mtbi,
        checkpoint_every_hours: a.checkpoint_every,
        restart_hours: a.restart,
    })?;
    if a.json {
        return json(&c);
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "expected interruptions       {:>10.2}",
        c.expected_interruptions
    );
    let _ = writeln!(
        t,
        "work lost per interruption   {:>10.2} h",
        c.expected_lost_hours_per_interruption
    );
    let _ = writeln!(
        t,
        "expected wall time on spot   {:>10.2} h (on demand {:.2} h)",
        c.expected_wall_hours, a.hours
    );
    let _ = writeln!(t, "spot cost                    {:>10.2}", c.spot_cost);
    let _ = writeln!(t, "on-demand cost               {:>10.2}", c.on_demand_cost);
    let _ = writeln!(t, "savings with spot            {:>10.2}", c.savings);
    let _ = writeln!(
        t,
        "break-even spot price        {:>10.4} per hour",
        c.break_even_spot_price
    );
    match c.break_even_mtbi_hours {
        Some(m) => {
            let _ = writeln!(
                t,
                "break-even MTBI              {m:>10.2} h (spot costs more below it)"
            );
        }
        None => {
            let _ = writeln!(
                t,
                "break-even MTBI                       — (spot is never cheaper at this price)"
            );
        }
    }
    let _ = writeln!(
        t,
        "verdict: {}",
        if c.spot_is_cheaper {
            "spot is expected to be cheaper"
        } else {
            "on-demand is cheaper"
        }
    );
    if c.guide_prefers_on_demand {
        t.push_str("note: the guide advises on-demand or reserved instances for stable runs over 24 h (§6 Q2)\n");
    }
    Ok(t)
}
