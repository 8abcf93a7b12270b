//! The cheapest way to run a job on the rental offers (guide §3.1 stage 3, §6 Q3).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::hardware::{Currency, ExchangeRate, Gpu, Market, Offer};
use crate::units::Bytes;

/// How a job is spread over GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum ParallelKind {
    /// One GPU.
    Single,
    /// Tensor parallel: every layer split over `tp` GPUs.
    Tensor,
    /// Pipeline parallel: layers split into `pp` stages.
    Pipeline,
    /// Tensor and pipeline parallel together (`tp × pp` GPUs).
    TensorPipeline,
    /// DeepSpeed ZeRO stage 3: parameters, gradients and optimizer states sharded.
    Zero3,
    /// Data parallel: `dp` replicas of the model, each over `tp` GPUs. It never lowers the
    /// weights per GPU (§6 Q3), but a serving target of N concurrent sequences is held by `dp`
    /// replicas of ceil(N / dp) each (vLLM `--data-parallel-size`, SGLang `--dp-size`): tried
    /// only where [`PlanOptions::data_parallel`] asks.
    Data,
    /// One MIG slice of a GPU.
    Mig,
    /// Expert parallel for a mixture-of-experts model: the routed experts over all `tp × dp`
    /// GPUs (`ep`), the attention in `dp` groups of `tp` (vLLM `--enable-expert-parallel` with
    /// `--data-parallel-size`; SGLang `--ep-size` with `--attn-dp-size`): tried
    /// only where [`PlanOptions::expert_parallel`] asks.
    Expert,
}

/// A parallel layout: what the per-GPU memory function is asked about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Layout {
    /// GPUs used (1 for a MIG slice).
    pub gpus: u32,
    /// Tensor-parallel degree.
    pub tp: u32,
    /// Pipeline-parallel degree.
    pub pp: u32,
    /// ZeRO stage (0 to 3).
    pub zero_stage: u8,
    /// The kind of layout.
    pub kind: ParallelKind,
    /// Nodes (servers) the GPUs fill: 1, or `k` rented servers with tensor parallel inside each
    /// and pipeline parallel across them ([`Layout::across_nodes`]).
    #[cfg_attr(feature = "serde", serde(default = "one_node"))]
    pub nodes: u32,
    /// Data-parallel degree: replicas ([`ParallelKind::Data`]) or attention groups
    /// ([`ParallelKind::Expert`]); 1 otherwise.
    #[cfg_attr(feature = "serde", serde(default = "one_node"))]
    pub dp: u32,
    /// Expert-parallel degree: the GPUs the routed experts are divided over
    /// ([`ParallelKind::Expert`]: `tp × dp`); 1 otherwise.
    #[cfg_attr(feature = "serde", serde(default = "one_node"))]
    pub ep: u32,
}

/// A layout's nodes (and its dp and ep) where a JSON layout names none: 1.
#[cfg(feature = "serde")]
fn one_node() -> u32 {
    1
}

/// Nodes the planner tries at most where one does not hold the run ([`PlanOptions::max_nodes`]).
pub const DEFAULT_MAX_NODES: u32 = 4;

impl Layout {
    /// One GPU, no parallelism.
    pub const SINGLE: Layout = Layout {
        gpus: 1,
        tp: 1,
        pp: 1,
        zero_stage: 0,
        kind: ParallelKind::Single,
        nodes: 1,
        dp: 1,
        ep: 1,
    };

    /// The layouts the planner tries on `n` GPUs of one node.
    ///
    /// Data parallel is absent on purpose: it replicates the whole model, so it never lowers
    /// per-GPU memory and cannot make a job fit (guide §6 Q3).
    pub fn candidates(n: u32) -> Vec<Layout> {
        let mut v = Vec::new();
        if n == 1 {
            v.push(Layout::SINGLE);
            return v;
        }
        v.push(Layout {
            gpus: n,
            tp: n,
            pp: 1,
            zero_stage: 0,
            kind: ParallelKind::Tensor,
            nodes: 1,
            dp: 1,
            ep: 1,
        });
        v.push(Layout {
            gpus: n,
            tp: 1,
            pp: n,
            zero_stage: 0,
            kind: ParallelKind::Pipeline,
            nodes: 1,
            dp: 1,
            ep: 1,
        });
        let mut tp = 2;
        while tp < n {
            if n.is_multiple_of(tp) {
                v.push(Layout {
                    gpus: n,
                    tp,
                    pp: n / tp,
                    zero_stage: 0,
                    kind: ParallelKind::TensorPipeline,
                    nodes: 1,
                    dp: 1,
                    ep: 1,
                });
            }
            tp *= 2;
        }
        v.push(Layout {
            gpus: n,
            tp: 1,
            pp: 1,
            zero_stage: 3,
            kind: ParallelKind::Zero3,
            nodes: 1,
            dp: 1,
            ep: 1,
        });
        v
    }

    /// `nodes` servers of `per_node` GPUs as vLLM's and SGLang's users lay them out: tensor
    /// parallel over each server's GPUs (NVLink), pipeline parallel across the servers (the
    /// network), one stage per server.
    pub fn across_nodes(nodes: u32, per_node: u32) -> Layout {
        Layout {
            gpus: nodes * per_node,
            tp: per_node,
            pp: nodes,
            zero_stage: 0,
            kind: ParallelKind::TensorPipeline,
            nodes,
            dp: 1,
            ep: 1,
        }
    }

    /// Short human description: `TP=4`, `TP=2 × PP=2`, `DP=2 × TP=4`, `TP=8 + EP=8`,
    /// `ZeRO-3 × 8`, `1 GPU`; over several nodes `2 nodes × 8 GPUs: TP=8 × PP=2`.
    pub fn describe(&self) -> String {
        if self.nodes > 1 {
            let per_node = self.gpus / self.nodes.max(1);
            return alloc::format!(
                "{} nodes × {per_node} GPUs: {}",
                self.nodes,
                self.notation()
            );
        }
        match self.kind {
            ParallelKind::Single => "1 GPU".into(),
            ParallelKind::Mig => "MIG slice".into(),
            _ => self.notation(),
        }
    }

    /// The layout in the engines' notation, the same in every language (no words): `TP=4`,
    /// `PP=4`, `TP=8 × PP=2`, `ZeRO-3 × 8`, `DP=2 × TP=4` (replicas of TP=4), `TP=8 + EP=8`
    /// (the experts over the tensor-parallel GPUs), `DP=16 + EP=16` (DP attention, the experts
    /// over all 16); `TP=1` for one GPU or a slice.
    pub fn notation(&self) -> String {
        let (tp, pp, dp, ep) = (self.tp, self.pp, self.dp, self.ep);
        match self.kind {
            ParallelKind::Single | ParallelKind::Mig => "TP=1".into(),
            ParallelKind::Tensor => alloc::format!("TP={tp}"),
            ParallelKind::Pipeline => alloc::format!("PP={pp}"),
            ParallelKind::TensorPipeline => alloc::format!("TP={tp} × PP={pp}"),
            ParallelKind::Zero3 => alloc::format!("ZeRO-3 × {}", self.gpus),
            ParallelKind::Data if tp > 1 => alloc::format!("DP={dp} × TP={tp}"),
            ParallelKind::Data => alloc::format!("DP={dp}"),
            ParallelKind::Expert => match (dp, tp) {
                (1, _) => alloc::format!("TP={tp} + EP={ep}"),
                (_, 1) => alloc::format!("DP={dp} + EP={ep}"),
                _ => alloc::format!("DP={dp} × TP={tp} + EP={ep}"),
            },
        }
    }
}

/// [`PlanOptions::max_nodes`] where a JSON request names none.
#[cfg(feature = "serde")]
fn default_max_nodes() -> u32 {
    DEFAULT_MAX_NODES
}

/// Options of [`plan`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlanOptions {
    /// Currency of the prices returned.
    pub currency: Currency,
    /// Yuan per dollar used to compare prices.
    pub cny_per_usd: f64,
    /// Most GPUs in one node (layouts of 1, 2, 4, … up to this, and up to the offer's own
    /// GPU count, are tried).
    pub max_gpus_per_node: u32,
    /// Most nodes (rented servers of one offer) a layout spans where one server does not hold
    /// the run: `k` servers of a multi-GPU offer on a platform with a network between its
    /// instances, at `k` times its price (default [`DEFAULT_MAX_NODES`]).
    #[cfg_attr(feature = "serde", serde(default = "default_max_nodes"))]
    pub max_nodes: u32,
    /// Include spot offers.
    pub include_spot: bool,
    /// Include MIG and vGPU slices.
    pub include_slices: bool,
    /// Only these providers (platform ids); empty means all.
    pub providers: Vec<String>,
    /// Keep at most this many options (0 = all).
    pub limit: usize,
    /// Also try data-parallel replicas ([`ParallelKind::Data`]): a serving run's concurrency
    /// shared by replicas. Set from the run by [`PlanOptions::for_run`]; default false (the
    /// per-GPU function then never meets a data-parallel layout).
    #[cfg_attr(feature = "serde", serde(default))]
    pub data_parallel: bool,
    /// Also try expert-parallel layouts ([`ParallelKind::Expert`]) for a mixture-of-experts
    /// model. Set from the run by [`PlanOptions::for_run`]; default false.
    #[cfg_attr(feature = "serde", serde(default))]
    pub expert_parallel: bool,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            currency: Currency::Usd,
            cny_per_usd: crate::hardware::exchange_rate().cny_per_usd,
            max_gpus_per_node: 8,
            max_nodes: DEFAULT_MAX_NODES,
            include_spot: false,
            include_slices: true,
            providers: Vec::new(),
            limit: 0,
            data_parallel: false,
            expert_parallel: false,
        }
    }
}

impl PlanOptions {
    /// The options from what a person gives (the CLI's flags, the npm package's object),
    /// validated; errors name the fields as the CLI and the npm package spell them: `currency`
    /// (`CNY`/`USD`), `cny_per_usd` (absent: the data set's rate), `max_gpus` (1 to 64),
    /// `provider` (platform ids) and `limit` (0 = all). Slices (MIG, vGPU) are always included.
    pub fn from_request(
        currency: &str,
        cny_per_usd: Option<f64>,
        include_spot: bool,
        max_gpus: f64,
        providers: &[String],
        limit: f64,
    ) -> crate::Result<PlanOptions> {
        use crate::{ErrorKind, InputError};
        use alloc::format;
        if !(max_gpus.is_finite()
            && libm::trunc(max_gpus) == max_gpus
            && (1.0..=64.0).contains(&max_gpus))
        {
            return Err(InputError::new(
                ErrorKind::OutOfRange,
                "max_gpus",
                format!("{max_gpus}"),
                "1 to 64 GPUs per node",
            ));
        }
        if !(limit.is_finite() && libm::trunc(limit) == limit && (0.0..=1e6).contains(&limit)) {
            return Err(InputError::new(
                ErrorKind::OutOfRange,
                "limit",
                format!("{limit}"),
                "a whole number of options from 0 (all) to 1000000",
            ));
        }
        for p in providers {
            if !crate::hardware::platforms().iter().any(|q| q.id == p) {
                let ids: Vec<&str> = crate::hardware::platforms().iter().map(|q| q.id).collect();
                return Err(InputError::new(
                    ErrorKind::UnknownName,
                    "provider",
                    format!("unknown provider `{p}`"),
                    ids.join(", "),
                ));
            }
        }
        let rate = match cny_per_usd {
            None => crate::hardware::exchange_rate(),
            Some(r) => ExchangeRate::from_request("cny_per_usd", r)?,
        };
        Ok(PlanOptions {
            currency: Currency::parse("currency", currency)?,
            cny_per_usd: rate.cny_per_usd,
            max_gpus_per_node: max_gpus as u32,
            max_nodes: DEFAULT_MAX_NODES,
            include_spot,
            include_slices: true,
            providers: providers.to_vec(),
            limit: limit as usize,
            data_parallel: false,
            expert_parallel: false,
        })
    }
}

impl PlanOptions {
    /// These options with `max_nodes` as a person gives it (the CLI's `--max-nodes`, the npm
    /// package's `max_nodes`): a whole number from 1 to 64, else an error naming `max_nodes`.
    pub fn with_max_nodes(self, max_nodes: f64) -> crate::Result<PlanOptions> {
        if !(max_nodes.is_finite()
            && libm::trunc(max_nodes) == max_nodes
            && (1.0..=64.0).contains(&max_nodes))
        {
            return Err(crate::InputError::new(
                crate::ErrorKind::OutOfRange,
                "max_nodes",
                alloc::format!("{max_nodes}"),
                "1 to 64 nodes",
            ));
        }
        Ok(PlanOptions {
            max_nodes: max_nodes as u32,
            ..self
        })
    }
}

/// One way to run the job, with its price.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlanOption {
    /// GPU id.
    pub gpu: String,
    /// GPUs used by the job.
    pub count: u32,
    /// GPUs rented (an 8-GPU server rents 8 even for a 2-GPU layout).
    pub rented_gpus: u32,
    /// The layout.
    pub parallelism: Layout,
    /// Memory the job needs on each GPU in that layout.
    pub per_gpu_bytes: Bytes,
    /// Memory CUDA sees on each GPU (or slice).
    pub usable_bytes: Bytes,
    /// `usable_bytes - per_gpu_bytes` (never negative: only fitting options are listed).
    pub margin_bytes: Bytes,
    /// Offer id.
    pub offer: String,
    /// Provider id.
    pub provider: String,
    /// MIG profile, for a slice.
    pub mig_profile: Option<String>,
    /// Spot or on-demand.
    pub market: Market,
    /// Price per hour of what is rented.
    pub price_per_hour: f64,
    /// Currency of the price.
    pub currency: Currency,
    /// The offer's price is an estimate.
    pub reference_estimate: bool,
}

/// Whether the platform `provider` states a network between its GPU instances (InfiniBand,
/// RoCE, EFA: its `network_gbps`), so that servers of its offers can run one job together.
fn networked(provider: &str) -> bool {
    crate::hardware::platforms()
        .iter()
        .any(|p| p.id == provider && p.network_gbps > 0)
}

/// Ranks every way to run a job on the offers, cheapest first.
///
/// `per_gpu` gives the memory one GPU needs in a layout on the offer's GPU (the estimator, as a
/// closure: the card decides its cuBLAS workspace and vLLM's defaults). For each
/// offer whose GPU is in `gpus`: a MIG or vGPU slice is tried with [`Layout::SINGLE`] against
/// the slice's usable memory; a whole-card offer is tried with 1 GPU, then with 2, 4, … up to
/// `max_gpus_per_node` GPUs under tensor, pipeline, tensor × pipeline and ZeRO-3 layouts, on
/// one rented unit: a layout of `n` GPUs needs an offer whose machine has `count >= n` GPUs
/// (one node; `n` separate 1-GPU rentals are never combined; where no layout of one server
/// fits, `k` servers of a multi-GPU offer on a networked platform, up to `max_nodes`, as
/// [`Layout::across_nodes`]), and the whole unit is paid for
/// (a 2-GPU layout on an 8-GPU server rents 8). For each offer and
/// kind only the smallest fitting GPU count is kept, and a layout is dropped when another of
/// the same offer uses fewer GPUs for no more money (or the same GPUs for less). A layout the
/// model cannot use (say, TP that does not divide the attention heads) should be answered with
/// a size no card has, e.g. [`crate::units::MAX_SIZE`]. Options are sorted by price in
/// `options.currency`, then by fewer GPUs, then by the faster layout at equal price
/// ([`Layout::speed_rank`]: fewer nodes, then fewer pipeline stages, so that tensor parallel
/// over a server's NVLink comes before pipeline parallel), then by larger margin, then by
/// offer id.
///
/// Data parallel and expert parallel are tried only where the options ask
/// ([`PlanOptions::data_parallel`], [`PlanOptions::expert_parallel`], set for a serving run by
/// [`PlanOptions::for_run`]): replicas never cut the weights per GPU (guide §6 Q3), only each
/// replica's share of a serving run's concurrency, which the per-GPU function must count.
pub fn plan<F: Fn(Layout, &Gpu) -> Bytes>(
    per_gpu: F,
    offers: &[Offer],
    gpus: &[Gpu],
    options: &PlanOptions,
) -> Vec<PlanOption> {
    let Some(rate) = ExchangeRate::custom(options.cny_per_usd) else {
        return Vec::new();
    };
    let max_node = options.max_gpus_per_node.clamp(1, 64);
    let mut out: Vec<PlanOption> = Vec::new();
    for offer in offers {
        if offer.market == Market::Spot && !options.include_spot {
            continue;
        }
        if !options.providers.is_empty() && !options.providers.iter().any(|p| *p == offer.provider)
        {
            continue;
        }
        let Some(gpu) = gpus.iter().find(|g| g.id == offer.gpu) else {
            continue;
        };
        let price = rate.convert(offer.price_per_hour, offer.currency, options.currency);
        if !price.is_finite() || price < 0.0 {
            continue;
        }
        let slice_usable = match (offer.mig_profile.as_deref(), offer.slice_memory_bytes) {
            (Some(name), _) => match gpu.mig_profile(name) {
                Some(p) => Some((p.usable, Some(name))),
                None => continue,
            },
            (None, Some(b)) => Some((b, None)),
            (None, None) => None,
        };
        let mut push =
            |layout: Layout, usable: Bytes, rented: u32, price: f64, mig: Option<&str>| {
                let need = per_gpu(layout, gpu);
                if need <= usable {
                    out.push(PlanOption {
                        gpu: gpu.id.to_string(),
                        count: layout.gpus,
                        rented_gpus: rented,
                        parallelism: layout,
                        per_gpu_bytes: need,
                        usable_bytes: usable,
                        margin_bytes: usable.minus(need),
                        offer: offer.id.to_string(),
                        provider: offer.provider.to_string(),
                        mig_profile: mig.map(ToString::to_string),
                        market: offer.market,
                        price_per_hour: price,
                        currency: options.currency,
                        reference_estimate: offer.reference_estimate,
                    });
                    true
                } else {
                    false
                }
            };
        if let Some((usable, mig)) = slice_usable {
            if options.include_slices {
                let layout = Layout {
                    kind: if mig.is_some() {
                        ParallelKind::Mig
                    } else {
                        ParallelKind::Single
                    },
                    ..Layout::SINGLE
                };
                push(layout, usable, 1, price, mig);
            }
            continue;
        }
        // One rented unit is one machine: a layout of n GPUs needs n GPUs in that machine
        // (tensor and pipeline parallelism talk over NVLink or PCIe inside one node), so it is
        // tried only where n <= count. n separate 1-GPU rentals are n machines, not a node.
        let unit = offer.count.max(1);
        // Kinds (wide expert parallel a kind of its own) already satisfied with fewer GPUs on
        // this offer.
        let mut done: Vec<(ParallelKind, bool)> = Vec::new();
        let mut n = 1u32;
        while n <= max_node && n <= unit {
            let mut tried = Layout::candidates(n);
            tried.extend(Layout::serving_candidates(n, options));
            for layout in tried {
                if done.contains(&layout.family()) || done.contains(&Layout::SINGLE.family()) {
                    continue;
                }
                if push(layout, gpu.memory, unit, price, None) {
                    done.push(layout.family());
                }
            }
            n *= 2;
        }
        // Where one server holds no layout, k servers of this offer: tensor parallel inside
        // each and pipeline across, and where the run asks for them data-parallel replicas and
        // expert-parallel layouts over all the servers' GPUs ([`Layout::serving_across_nodes`]):
        // only a multi-GPU offer whose whole server is a node the options allow
        // (`max_gpus_per_node`), on a platform that states a network between its instances,
        // each server paid for; the fewest servers that hold one, the first of each kind.
        if done.is_empty() && unit >= 2 && unit <= max_node && networked(&offer.provider) {
            for k in 2..=options.max_nodes.min(64) {
                let mut tried = alloc::vec![Layout::across_nodes(k, unit)];
                tried.extend(Layout::serving_across_nodes(k, unit, options));
                for layout in tried {
                    if !done.contains(&layout.family())
                        && push(layout, gpu.memory, k * unit, f64::from(k) * price, None)
                    {
                        done.push(layout.family());
                    }
                }
                if !done.is_empty() {
                    break;
                }
            }
        }
    }
    // Drop options dominated on their own offer: another layout of the same offer uses no more
    // GPUs for no more money, and is better in one of the two (e.g. TP×PP on 4 GPUs when TP on
    // 2 already fits).
    let dominated: Vec<bool> = out
        .iter()
        .map(|a| {
            out.iter().any(|b| {
                b.offer == a.offer
                    && b.count <= a.count
                    && b.price_per_hour <= a.price_per_hour
                    && (b.count < a.count || b.price_per_hour < a.price_per_hour)
            })
        })
        .collect();
    let mut keep = dominated.iter().map(|d| !d);
    out.retain(|_| keep.next().unwrap_or(true));
    out.sort_by(|a, b| {
        a.price_per_hour
            .total_cmp(&b.price_per_hour)
            .then(a.count.cmp(&b.count))
            .then(a.parallelism.speed_rank().cmp(&b.parallelism.speed_rank()))
            .then(b.margin_bytes.cmp(&a.margin_bytes))
            .then(a.offer.cmp(&b.offer))
            .then(a.parallelism.kind.cmp(&b.parallelism.kind))
    });
    if options.limit > 0 {
        out.truncate(options.limit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    fn offer(id: &str) -> Offer {
        crate::hardware::offers()
            .iter()
            .find(|o| o.id == id)
            .unwrap()
            .clone()
    }

    /// A job that needs 100 GiB on one GPU and 100 / n + 1 GiB on n GPUs.
    fn job_100(l: Layout, _: &Gpu) -> Bytes {
        match l.kind {
            ParallelKind::Single | ParallelKind::Mig | ParallelKind::Data => Bytes::gib(100),
            _ => Bytes::gib(100 / u64::from(l.gpus) + 1),
        }
    }

    #[test]
    fn a_multi_gpu_layout_needs_a_machine_with_that_many_gpus() {
        // plan.rs's own rule: one rented unit is one node. A 1-GPU VM (aliyun's A10 at 1.2 CNY)
        // never hosts TP=8 over eight separate VMs, however cheap; an 8-GPU server (Lambda's
        // 8 x A100 80GB) does.
        let offers = [offer("aliyun-a10-1x"), offer("lambda-a100-80gb-8x")];
        let got = plan(
            job_100,
            &offers,
            crate::hardware::gpus(),
            &PlanOptions::default(),
        );
        assert!(!got.is_empty());
        for o in &got {
            let count = offers.iter().find(|f| f.id == o.offer).unwrap().count;
            assert!(o.count <= count, "{} uses {} GPUs", o.offer, o.count);
            assert_eq!(o.rented_gpus, count);
        }
        assert!(got.iter().all(|o| o.offer == "lambda-a100-80gb-8x"));
        // On the 8-GPU server the 2-GPU layouts fit (51 GiB each; the A10 would need TP=8 at
        // 13 GiB) and cost the whole server.
        assert!(got.iter().all(|o| o.count == 2));
    }

    #[test]
    fn a_rate_outside_0_01_to_1000_is_refused_naming_the_field_and_range() {
        for r in [
            1e-300,
            0.009,
            0.0,
            -7.1,
            1000.5,
            1e300,
            f64::NAN,
            f64::INFINITY,
        ] {
            let e = PlanOptions::from_request("USD", Some(r), false, 8.0, &[], 0.0).unwrap_err();
            assert_eq!(e.field, "cny_per_usd");
            assert_eq!(e.accepted, "yuan per US dollar, 0.01 to 1000, e.g. 7.1");
            assert!(ExchangeRate::custom(r).is_none(), "{r}");
        }
        for r in [0.01, 7.1, 1000.0] {
            assert!(ExchangeRate::custom(r).is_some(), "{r}");
        }
        // At the extremes every offer stays listed with a printable price.
        let offers = [offer("aliyun-a10-1x"), offer("lambda-a10-1x")];
        for r in [0.01, 1000.0] {
            let opts = PlanOptions {
                cny_per_usd: r,
                ..PlanOptions::default()
            };
            let got = plan(
                |_, _| Bytes::gib(1),
                &offers,
                crate::hardware::gpus(),
                &opts,
            );
            assert_eq!(got.len(), 2, "{r}");
            assert!(got.iter().all(|o| o.price_per_hour.is_finite()
                && o.price_per_hour > 0.0
                && o.price_per_hour < 1e6));
        }
    }

    #[test]
    fn plan_options_from_a_request() {
        let o = PlanOptions::from_request("cny", Some(7.0), true, 4.0, &[], 15.0).unwrap();
        assert_eq!(o.currency, Currency::Cny);
        assert_eq!(o.cny_per_usd, 7.0);
        assert_eq!((o.max_gpus_per_node, o.limit), (4, 15));
        assert!(o.include_spot && o.include_slices);
        let field = |r: crate::Result<PlanOptions>| r.unwrap_err().field;
        assert_eq!(
            field(PlanOptions::from_request("EUR", None, false, 8.0, &[], 0.0)),
            "currency"
        );
        assert_eq!(
            field(PlanOptions::from_request(
                "USD",
                Some(0.0),
                false,
                8.0,
                &[],
                0.0
            )),
            "cny_per_usd"
        );
        assert_eq!(
            field(PlanOptions::from_request("USD", None, false, 0.0, &[], 0.0)),
            "max_gpus"
        );
        assert_eq!(
            field(PlanOptions::from_request("USD", None, false, 2.5, &[], 0.0)),
            "max_gpus"
        );
        assert_eq!(
            field(PlanOptions::from_request(
                "USD",
                None,
                false,
                8.0,
                &[],
                -1.0
            )),
            "limit"
        );
        assert_eq!(
            field(PlanOptions::from_request(
                "USD",
                None,
                false,
                8.0,
                &["nowhere".to_string()],
                0.0
            )),
            "provider"
        );
    }
}
