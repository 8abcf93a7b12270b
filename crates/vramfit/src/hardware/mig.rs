//! MIG: the layouts NVIDIA's driver accepts, and packing jobs onto them (guide §4.1, §5.2, §5.3).
//!
//! A MIG-capable GPU has a row of memory slices (8 on A100/H100/H200, 4 on A30 and RTX PRO 6000
//! Blackwell) and fewer compute slices (7, or 4). A GPU instance of a profile occupies `memory_slices` consecutive
//! memory slices starting at one of the profile's allowed start indices (what
//! `nvidia-smi mig -lgipp` prints, e.g. `3g.40gb` at `{0,4}:4`), and `compute_slices` compute
//! slices. A layout is valid when its instances' memory ranges do not overlap, each starts at
//! an allowed index, the compute slices add up to at most the GPU's, and no profile exceeds its
//! instance count. Only such layouts are ever proposed here.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::error::{ErrorKind, InputError, Result};
use crate::hardware::{Currency, ExchangeRate, Gpu, MigProfile, Offer};
use crate::units::Bytes;

mod pack;
use pack::{Prices, check_request, job_candidates, plan_card};

/// One GPU instance in a layout: a profile at a start slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The profile.
    pub profile: &'static MigProfile,
    /// Index of the first memory slice it occupies.
    pub start: u8,
}

impl Placement {
    /// Bit mask of the memory slices occupied.
    fn mask(&self) -> u32 {
        slice_mask(self.start, self.profile.memory_slices)
    }
}

fn slice_mask(start: u8, len: u8) -> u32 {
    let len = u32::from(len.min(31));
    let start = u32::from(start.min(31));
    (((1u64 << len) - 1) << start) as u32
}

/// Why a layout is not valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The GPU has no MIG.
    NoMig,
    /// A profile may not start at this slice.
    BadStart {
        /// Profile name.
        profile: &'static str,
        /// The start given.
        start: u8,
    },
    /// Two instances share memory slices.
    Overlap,
    /// More compute slices than the GPU has.
    TooMuchCompute,
    /// More instances of a profile than allowed.
    TooManyInstances(&'static str),
}

/// Checks a layout against the GPU's placement rules.
pub fn check_layout(gpu: &Gpu, layout: &[Placement]) -> core::result::Result<(), LayoutError> {
    if !gpu.has_mig() {
        return Err(LayoutError::NoMig);
    }
    let mut used = 0u32;
    let mut compute = 0u32;
    for p in layout {
        if !p.profile.starts.contains(&p.start)
            || p.start + p.profile.memory_slices > gpu.mig_memory_slices
        {
            return Err(LayoutError::BadStart {
                profile: p.profile.name,
                start: p.start,
            });
        }
        if used & p.mask() != 0 {
            return Err(LayoutError::Overlap);
        }
        used |= p.mask();
        compute += u32::from(p.profile.compute_slices);
        let n = layout
            .iter()
            .filter(|q| q.profile.name == p.profile.name)
            .count();
        if n > usize::from(p.profile.max_instances) {
            return Err(LayoutError::TooManyInstances(p.profile.name));
        }
    }
    if compute > u32::from(gpu.mig_compute_slices) {
        return Err(LayoutError::TooMuchCompute);
    }
    Ok(())
}

/// Every non-empty valid layout of one GPU, each sorted by start slice.
///
/// Layouts need not fill the GPU (a free slice is allowed); there are a few hundred per GPU.
pub fn valid_layouts(gpu: &Gpu) -> Vec<Vec<Placement>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    enumerate(gpu, 0, 0, 0, &mut cur, &mut out);
    out
}

fn enumerate(
    gpu: &Gpu,
    min_start: u8,
    used: u32,
    compute: u8,
    cur: &mut Vec<Placement>,
    out: &mut Vec<Vec<Placement>>,
) {
    for profile in gpu.mig_profiles() {
        for &start in profile.starts {
            if start < min_start {
                continue;
            }
            let p = Placement { profile, start };
            if used & p.mask() != 0 || start + profile.memory_slices > gpu.mig_memory_slices {
                continue;
            }
            let c = compute + profile.compute_slices;
            if c > gpu.mig_compute_slices {
                continue;
            }
            let count = cur
                .iter()
                .filter(|q| q.profile.name == profile.name)
                .count();
            if count >= usize::from(profile.max_instances) {
                continue;
            }
            cur.push(p);
            out.push(cur.clone());
            enumerate(gpu, start + 1, used | p.mask(), c, cur, out);
            cur.pop();
        }
    }
}

/// Options of the MIG planner.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MigOptions {
    /// Currency of the costs.
    pub currency: Currency,
    /// Yuan per dollar used to compare prices.
    pub cny_per_usd: f64,
    /// Only offers of this provider (platform id), if set.
    pub provider: Option<String>,
    /// Most cards to use.
    pub max_cards: u32,
    /// The jobs' names, for messages (a job without one is [`job_name`]).
    pub job_names: Vec<String>,
}

impl Default for MigOptions {
    fn default() -> Self {
        MigOptions {
            currency: Currency::Cny,
            cny_per_usd: crate::hardware::exchange_rate().cny_per_usd,
            provider: None,
            max_cards: 8,
            job_names: Vec::new(),
        }
    }
}

/// The name of the `i`-th job (from 0) that was given none: `job 1`, `job 2`, …
pub fn job_name(i: usize) -> String {
    alloc::format!("job {}", i + 1)
}

/// Smallest job accepted: 1 MiB. Below it a "job" is a typo (`1e-30GiB`, `0.0000001B`), not a
/// process: a CUDA context alone takes hundreds of MiB.
pub const MIN_JOB: Bytes = Bytes::new(crate::units::MIB);

/// A job as a person writes it: `name=size`, or a bare size (named [`job_name`]); a job under
/// [`MIN_JOB`] (1 MiB) is refused.
pub fn parse_job(field: &str, i: usize, text: &str) -> Result<(String, Bytes)> {
    let (name, size) = match text.split_once('=') {
        Some((n, s)) if !n.trim().is_empty() => (String::from(n.trim()), s),
        Some((_, s)) => (job_name(i), s),
        None => (job_name(i), text),
    };
    let bytes = crate::units::parse_size(field, size)?;
    if bytes < MIN_JOB {
        return Err(InputError::new(
            ErrorKind::OutOfRange,
            field,
            alloc::format!("{name} needs less than 1 MiB"),
            "a size from 1 MiB to 1 PiB with its unit, e.g. 16GiB",
        ));
    }
    Ok((name, bytes))
}

/// How the MIG plan was priced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum MigPricing {
    /// Each slice at its offer's price (only profiles with an offer are used).
    PerSlice,
    /// Each card used at the cheapest whole-card price, whatever its slices.
    WholeCard,
    /// No offer prices this GPU: costs are absent.
    Unpriced,
}

/// One slice of a card and the job on it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MigSlice {
    /// Profile name, e.g. `3g.40gb`.
    pub profile: String,
    /// Start memory slice (for `nvidia-smi mig -cgi <profile>:<start>`).
    pub start: u8,
    /// Index of the job in the input.
    pub job: usize,
    /// Memory the job needs.
    pub job_bytes: Bytes,
    /// Memory CUDA sees in the slice.
    pub usable_bytes: Bytes,
    /// `usable_bytes - job_bytes`.
    pub margin_bytes: Bytes,
    /// Price of the slice per hour under per-slice pricing.
    pub price_per_hour: Option<f64>,
}

/// One physical card and its slices.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MigCard {
    /// GPU id.
    pub gpu: String,
    /// Its slices, by start.
    pub slices: Vec<MigSlice>,
}

/// The MIG planner's answer.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MigPlan {
    /// GPU id.
    pub gpu: String,
    /// Cards used, each with a valid layout.
    pub cards: Vec<MigCard>,
    /// Cost of the plan per hour.
    pub cost_per_hour: Option<f64>,
    /// Cost of running each job on its own whole card of the same GPU.
    pub whole_cards_cost_per_hour: Option<f64>,
    /// Currency of the costs.
    pub currency: Currency,
    /// How the plan was priced.
    pub pricing: MigPricing,
    /// Offers whose prices were used.
    pub offers: Vec<String>,
    /// True when the search covered every assignment; false when it stopped at its budget and
    /// returns the best plan found.
    pub exhaustive: bool,
}

/// Search budget (nodes of the search tree); exhaustive for a few cards of mixed jobs, and a
/// bound on time for many distinct jobs (the best plan found is returned, flagged).
const NODE_BUDGET: u64 = 300_000;

/// Most jobs accepted.
pub const MAX_JOBS: usize = 56;

/// Per card, the (job, placement) pairs.
type CardsLayout = Vec<Vec<(usize, Placement)>>;

/// A candidate profile of a job and its per-slice price (0 when not priced per slice).
#[derive(Clone, Copy)]
struct Candidate {
    profile: &'static MigProfile,
    price: f64,
}

struct Search<'a> {
    gpu: &'a Gpu,
    /// (input index, need), largest first.
    jobs: Vec<(usize, Bytes)>,
    candidates: Vec<Vec<Candidate>>,
    /// For each k, the least memory slices, compute slices and price the jobs k.. need.
    suffix_slices: Vec<u32>,
    suffix_compute: Vec<u32>,
    suffix_price: Vec<f64>,
    pricing: MigPricing,
    card_price: f64,
    max_cards: usize,
    nodes: u64,
    /// Running totals of the partial assignment.
    cost: f64,
    compute: i64,
    held: u64,
    used_slices: u32,
    used_compute: u32,
    best: Option<(Score, CardsLayout)>,
}

/// Lexicographic objective: fewer cards, lower cost, more compute for the jobs, less memory held.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
struct Score {
    cards: usize,
    cost: f64,
    neg_compute: i64,
    held: u64,
}

struct CardState {
    used: u32,
    compute: u8,
    items: Vec<(usize, Placement)>,
}

impl Search<'_> {
    fn cost_of(&self, cards: usize) -> f64 {
        match self.pricing {
            MigPricing::PerSlice => self.cost,
            MigPricing::WholeCard => self.card_price * cards as f64,
            MigPricing::Unpriced => 0.0,
        }
    }

    /// Card index and start slice where `job` was placed.
    fn position_of(cards: &[CardState], job: usize) -> Option<(usize, u8)> {
        cards.iter().enumerate().find_map(|(ci, c)| {
            c.items
                .iter()
                .find(|(j, _)| *j == job)
                .map(|(_, p)| (ci, p.start))
        })
    }

    fn dfs(&mut self, next: usize, cards: &mut Vec<CardState>) {
        if self.nodes >= NODE_BUDGET {
            return;
        }
        self.nodes += 1;
        if next == self.jobs.len() {
            let s = Score {
                cards: cards.len(),
                cost: self.cost_of(cards.len()),
                neg_compute: -self.compute,
                held: self.held,
            };
            if self.best.as_ref().is_none_or(|(b, _)| s < *b) {
                self.best = Some((s, cards.iter().map(|c| c.items.clone()).collect()));
            }
            return;
        }
        if let Some((b, _)) = &self.best {
            // Cards: the memory and compute slices still needed beyond the free ones of the
            // open cards, in whole cards.
            let per_mem = u32::from(self.gpu.mig_memory_slices).max(1);
            let per_compute = u32::from(self.gpu.mig_compute_slices).max(1);
            let open = cards.len() as u32;
            let free_mem = open * per_mem - self.used_slices;
            let free_compute = open * per_compute - self.used_compute;
            let more = self.suffix_slices[next]
                .saturating_sub(free_mem)
                .div_ceil(per_mem)
                .max(
                    self.suffix_compute[next]
                        .saturating_sub(free_compute)
                        .div_ceil(per_compute),
                );
            let lb = cards.len() + more as usize;
            let cost_lb = match self.pricing {
                MigPricing::PerSlice => self.cost + self.suffix_price[next],
                _ => self.cost_of(lb),
            };
            if lb > b.cards || (lb == b.cards && cost_lb > b.cost + 1e-9) {
                return;
            }
        }
        let job = self.jobs[next].0;
        // Identical jobs are interchangeable: place each after the previous one of the same
        // size (by card, then start slice), so permutations of one assignment are tried once.
        let floor = match next.checked_sub(1) {
            Some(prev) if self.jobs[prev].1 == self.jobs[next].1 => {
                Self::position_of(cards, self.jobs[prev].0)
            }
            _ => None,
        };
        let open = cards.len();
        for ci in 0..=open {
            if ci == open {
                if open >= self.max_cards {
                    break;
                }
                cards.push(CardState {
                    used: 0,
                    compute: 0,
                    items: Vec::new(),
                });
            }
            for k in 0..self.candidates[next].len() {
                let Candidate { profile, price } = self.candidates[next][k];
                for &start in profile.starts {
                    if floor.is_some_and(|f| (ci, start) <= f) {
                        continue;
                    }
                    let p = Placement { profile, start };
                    let card = &cards[ci];
                    if card.used & p.mask() != 0
                        || start + profile.memory_slices > self.gpu.mig_memory_slices
                        || card.compute + profile.compute_slices > self.gpu.mig_compute_slices
                        || card
                            .items
                            .iter()
                            .filter(|(_, q)| q.profile.name == profile.name)
                            .count()
                            >= usize::from(profile.max_instances)
                    {
                        continue;
                    }
                    let card = &mut cards[ci];
                    card.used |= p.mask();
                    card.compute += profile.compute_slices;
                    card.items.push((job, p));
                    self.cost += price;
                    self.compute += i64::from(profile.compute_slices);
                    self.held = self.held.saturating_add(profile.usable.get());
                    self.used_slices += u32::from(profile.memory_slices);
                    self.used_compute += u32::from(profile.compute_slices);
                    self.dfs(next + 1, cards);
                    self.cost -= price;
                    self.compute -= i64::from(profile.compute_slices);
                    self.held = self.held.saturating_sub(profile.usable.get());
                    self.used_slices -= u32::from(profile.memory_slices);
                    self.used_compute -= u32::from(profile.compute_slices);
                    let card = &mut cards[ci];
                    card.items.pop();
                    card.compute -= profile.compute_slices;
                    card.used &= !p.mask();
                }
            }
            if ci == open {
                cards.pop();
            }
        }
    }
}

/// The memory a MIG job needs when it is a preset served for inference: its estimate's
/// `required_bytes` with the estimator's defaults (batch 1, 2048 prompt + 256 new tokens, HF
/// transformers, the checkpoint's dtype). Errors name the field `job_model`.
pub fn model_job_bytes(model: &str) -> Result<Bytes> {
    let input = {
        let mut input = crate::estimate::EstimateInput::default();
        input.model.model = Some(String::from(model));
        input
    };
    crate::estimate::estimate(&input)
        .map(|e| e.required_bytes)
        .map_err(|mut e| {
            e.field = String::from("job_model");
            e
        })
}

/// Packs jobs (their memory needs) onto MIG slices of as few cards of `gpu` as possible, then
/// as cheaply as possible, searching every valid layout.
///
/// A job fits a slice only by the slice's usable memory, never its label. Pricing: when some
/// offer rents MIG slices of this GPU, each slice costs its cheapest such offer and only
/// profiles with an offer are used (per-slice); otherwise each card costs the cheapest
/// whole-card offer (per card of a multi-GPU offer). Ties in cost go to the layout that gives
/// the jobs more compute slices, then holds less memory. `whole_cards_cost_per_hour` is each
/// job on its own whole card at the cheapest whole-card price.
pub fn plan_mig(
    gpu: &Gpu,
    jobs: &[Bytes],
    offers: &[Offer],
    options: &MigOptions,
) -> Result<MigPlan> {
    check_request(gpu, jobs, options)?;
    let rate = ExchangeRate::from_request("cny_per_usd", options.cny_per_usd)?;
    let prices = Prices::of(gpu, offers, options, &rate);
    let ordered = job_candidates(gpu, jobs, &prices, options)?;
    let mut search = Search::new(gpu, ordered, &prices, options.max_cards as usize);
    let mut cards = Vec::new();
    search.dfs(0, &mut cards);
    let exhaustive = search.nodes < NODE_BUDGET;
    let Some((score, layout)) = search.best else {
        return Err(InputError::new(
            ErrorKind::TooLarge,
            "job",
            format!(
                "{} jobs do not fit on {} cards ({})",
                jobs.len(),
                options.max_cards,
                gpu.id
            ),
            format!(
                "at most {} slices per card, {} cards",
                gpu.mig_compute_slices, options.max_cards
            ),
        ));
    };
    let mut used_offers: Vec<String> = Vec::new();
    let out_cards = layout
        .into_iter()
        .map(|items| plan_card(gpu, &items, jobs, &prices, &mut used_offers))
        .collect();
    // The whole-card offer prices the plan (whole-card pricing) or its comparison.
    if let Some((_, id)) = prices.card {
        used_offers.push(id.to_string());
    }
    Ok(MigPlan {
        gpu: gpu.id.to_string(),
        cards: out_cards,
        cost_per_hour: (prices.pricing != MigPricing::Unpriced).then_some(score.cost),
        whole_cards_cost_per_hour: prices.card.map(|(p, _)| p * jobs.len() as f64),
        currency: options.currency,
        pricing: prices.pricing,
        offers: used_offers,
        exhaustive,
    })
}

/// The MIG-capable GPU ids, for error messages.
pub fn mig_gpu_list() -> String {
    let ids: Vec<&str> = crate::hardware::gpus()
        .iter()
        .filter(|g| g.has_mig())
        .map(|g| g.id)
        .collect();
    format!("a MIG-capable GPU: {}", ids.join(", "))
}
