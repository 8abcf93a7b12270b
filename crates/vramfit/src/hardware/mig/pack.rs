//! The MIG planner's steps (see [`plan_mig`](super::plan_mig)): the request checked, the offers
//! priced, each job's candidate profiles, the search set up, and each card of the plan.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::{
    Candidate, MAX_JOBS, MIN_JOB, MigCard, MigOptions, MigPricing, MigSlice, Placement, Search,
    job_name, mig_gpu_list,
};
use crate::error::{ErrorKind, InputError, Result};
use crate::hardware::{Currency, ExchangeRate, Gpu, Market, MigProfile, Offer};
use crate::units::Bytes;

/// The name of job `i` for messages: the one given, or [`job_name`].
pub(super) fn name_of(options: &MigOptions, i: usize) -> String {
    options
        .job_names
        .get(i)
        .cloned()
        .unwrap_or_else(|| job_name(i))
}

/// Refuses a request the planner cannot take: a GPU without MIG, no jobs or too many, a job
/// under [`MIN_JOB`], an unknown provider, or a card count out of 1 to 64.
pub(super) fn check_request(gpu: &Gpu, jobs: &[Bytes], options: &MigOptions) -> Result<()> {
    if !gpu.has_mig() {
        return Err(InputError::new(
            ErrorKind::Unsupported,
            "gpu",
            format!("{} does not support MIG", gpu.id),
            mig_gpu_list(),
        ));
    }
    if jobs.is_empty() || jobs.len() > MAX_JOBS {
        return Err(InputError::new(
            ErrorKind::OutOfRange,
            "job",
            format!("{} jobs given", jobs.len()),
            format!("1 to {MAX_JOBS} jobs"),
        ));
    }
    if let Some(i) = jobs.iter().position(|b| *b < MIN_JOB) {
        return Err(InputError::new(
            ErrorKind::OutOfRange,
            "job",
            format!("{} needs less than 1 MiB", name_of(options, i)),
            "a size from 1 MiB to 1 PiB with its unit, e.g. 16GiB",
        ));
    }
    if let Some(p) = &options.provider
        && !crate::hardware::platforms().iter().any(|q| q.id == p)
    {
        let ids: Vec<&str> = crate::hardware::platforms().iter().map(|q| q.id).collect();
        return Err(InputError::new(
            ErrorKind::UnknownName,
            "provider",
            format!("unknown provider `{p}`"),
            ids.join(", "),
        ));
    }
    if options.max_cards == 0 || options.max_cards > 64 {
        return Err(InputError::new(
            ErrorKind::OutOfRange,
            "max_cards",
            format!("{}", options.max_cards),
            "1 to 64 cards",
        ));
    }
    Ok(())
}

/// What the offers say a plan on one GPU costs, in the options' currency.
pub(super) struct Prices<'o> {
    /// The GPU's MIG profiles.
    profiles: &'static [MigProfile],
    /// Per profile (by index), the cheapest on-demand slice offer's price and its id.
    slice: Vec<Option<(f64, &'o str)>>,
    /// The cheapest whole card (per GPU of the offer) and its offer's id.
    pub(super) card: Option<(f64, &'o str)>,
    /// Per slice when any slice is offered, else per whole card when one is, else unpriced.
    pub(super) pricing: MigPricing,
}

impl<'o> Prices<'o> {
    /// The cheapest slice of each profile and the cheapest whole card among `offers` of `gpu`
    /// (on demand, of the provider asked for, if any).
    pub(super) fn of(
        gpu: &Gpu,
        offers: &'o [Offer],
        options: &MigOptions,
        rate: &ExchangeRate,
    ) -> Self {
        let mine = |o: &&Offer| {
            o.gpu == gpu.id
                && o.market == Market::OnDemand
                && options.provider.as_deref().is_none_or(|p| p == o.provider)
        };
        let profiles = gpu.mig_profiles();
        let mut slice: Vec<Option<(f64, &'o str)>> = vec![None; profiles.len()];
        for o in offers.iter().filter(mine) {
            let Some(name) = o.mig_profile.as_deref() else {
                continue;
            };
            let Some(i) = profiles.iter().position(|p| p.name == name) else {
                continue;
            };
            if let Some(p) = price_in(o, options.currency, rate)
                && slice[i].is_none_or(|(q, _)| p < q)
            {
                slice[i] = Some((p, &o.id));
            }
        }
        let mut card: Option<(f64, &'o str)> = None;
        for o in offers
            .iter()
            .filter(mine)
            .filter(|o| o.mig_profile.is_none() && o.vgpu.is_none())
        {
            if let Some(p) = price_in(o, options.currency, rate) {
                let per = p / f64::from(o.count.max(1));
                if card.is_none_or(|(q, _)| per < q) {
                    card = Some((per, &o.id));
                }
            }
        }
        let pricing = if slice.iter().any(Option::is_some) {
            MigPricing::PerSlice
        } else if card.is_some() {
            MigPricing::WholeCard
        } else {
            MigPricing::Unpriced
        };
        Prices {
            profiles,
            slice,
            card,
            pricing,
        }
    }

    /// The per-slice price and offer of `profile` under per-slice pricing; `None` otherwise or
    /// when no offer rents it.
    pub(super) fn slice_of(&self, profile: &MigProfile) -> Option<(f64, &'o str)> {
        let idx = self.profiles.iter().position(|q| q.name == profile.name);
        idx.and_then(|i| self.slice[i])
            .filter(|_| self.pricing == MigPricing::PerSlice)
    }
}

/// The jobs in the order the search places them, with the profiles each may take.
pub(super) struct JobCandidates {
    /// (input index, need), largest first (ties by input order).
    order: Vec<(usize, Bytes)>,
    /// Per job of `order`, the profiles whose usable memory holds it, smallest first.
    candidates: Vec<Vec<Candidate>>,
}

/// The jobs by size, largest first (ties by input order), with their candidate profiles: those
/// whose usable memory holds the job (and, under per-slice pricing, that an offer rents),
/// smallest first. A job no profile holds is an error.
pub(super) fn job_candidates(
    gpu: &Gpu,
    jobs: &[Bytes],
    prices: &Prices<'_>,
    options: &MigOptions,
) -> Result<JobCandidates> {
    let usable_profiles: Vec<&'static MigProfile> = prices
        .profiles
        .iter()
        .enumerate()
        .filter(|(i, _)| prices.pricing != MigPricing::PerSlice || prices.slice[*i].is_some())
        .map(|(_, p)| p)
        .collect();
    let largest = usable_profiles
        .iter()
        .map(|p| p.usable)
        .max()
        .unwrap_or(Bytes::ZERO);
    let mut order: Vec<(usize, Bytes)> = jobs.iter().copied().enumerate().collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut candidates: Vec<Vec<Candidate>> = Vec::new();
    for &(i, need) in &order {
        let mut c: Vec<Candidate> = usable_profiles
            .iter()
            .copied()
            .filter(|p| p.usable >= need)
            .map(|p| Candidate {
                profile: p,
                price: prices.slice_of(p).map_or(0.0, |s| s.0),
            })
            .collect();
        if c.is_empty() {
            return Err(InputError::new(
                ErrorKind::TooLarge,
                "job",
                format!(
                    "{} needs {}, more than the largest MIG slice offered on {} ({})",
                    name_of(options, i),
                    need.display_gib(),
                    gpu.id,
                    largest.display_gib()
                ),
                format!(
                    "sizes up to {} per job on {}",
                    largest.display_gib(),
                    gpu.id
                ),
            ));
        }
        c.sort_by(|a, b| {
            a.profile
                .usable
                .cmp(&b.profile.usable)
                .then(a.profile.compute_slices.cmp(&b.profile.compute_slices))
        });
        candidates.push(c);
    }
    Ok(JobCandidates { order, candidates })
}

impl<'a> Search<'a> {
    /// A search over the `jobs` (largest first, with their candidate profiles), with the bounds it
    /// prunes by: for each k, the least memory slices, compute slices and price the jobs k.. need.
    pub(super) fn new(
        gpu: &'a Gpu,
        jobs: JobCandidates,
        prices: &Prices<'_>,
        max_cards: usize,
    ) -> Self {
        let JobCandidates {
            order: jobs,
            candidates,
        } = jobs;
        let n = candidates.len();
        let mut suffix_slices = vec![0u32; n + 1];
        let mut suffix_compute = vec![0u32; n + 1];
        let mut suffix_price = vec![0f64; n + 1];
        for k in (0..n).rev() {
            let c = &candidates[k];
            suffix_slices[k] = suffix_slices[k + 1]
                + c.iter()
                    .map(|x| u32::from(x.profile.memory_slices))
                    .min()
                    .unwrap_or(0);
            suffix_compute[k] = suffix_compute[k + 1]
                + c.iter()
                    .map(|x| u32::from(x.profile.compute_slices))
                    .min()
                    .unwrap_or(0);
            suffix_price[k] = suffix_price[k + 1]
                + c.iter()
                    .map(|x| x.price)
                    .fold(f64::INFINITY, f64::min)
                    .min(1e300);
        }
        Search {
            gpu,
            jobs,
            candidates,
            suffix_slices,
            suffix_compute,
            suffix_price,
            pricing: prices.pricing,
            card_price: prices.card.map_or(0.0, |c| c.0),
            max_cards,
            nodes: 0,
            cost: 0.0,
            compute: 0,
            held: 0,
            used_slices: 0,
            used_compute: 0,
            best: None,
        }
    }
}

/// One card of the plan from the search's (job, placement) pairs, its slices by start, adding
/// the id of each slice offer it uses to `used_offers` (once).
pub(super) fn plan_card(
    gpu: &Gpu,
    items: &[(usize, Placement)],
    jobs: &[Bytes],
    prices: &Prices<'_>,
    used_offers: &mut Vec<String>,
) -> MigCard {
    let mut slices: Vec<MigSlice> = items
        .iter()
        .map(|&(job, p)| {
            let need = jobs.get(job).copied().unwrap_or(Bytes::ZERO);
            let offer = prices.slice_of(p.profile);
            if let Some((_, o)) = offer
                && !used_offers.iter().any(|u| u == o)
            {
                used_offers.push(o.to_string());
            }
            MigSlice {
                profile: p.profile.name.to_string(),
                start: p.start,
                job,
                job_bytes: need,
                usable_bytes: p.profile.usable,
                margin_bytes: p.profile.usable.minus(need),
                price_per_hour: offer.map(|s| s.0),
            }
        })
        .collect();
    slices.sort_by_key(|s| s.start);
    MigCard {
        gpu: gpu.id.to_string(),
        slices,
    }
}

/// The price of `offer` per hour in `currency`, when it converts to a finite, non-negative one.
fn price_in(offer: &Offer, currency: Currency, rate: &ExchangeRate) -> Option<f64> {
    let p = rate.convert(offer.price_per_hour, offer.currency, currency);
    (p.is_finite() && p >= 0.0).then_some(p)
}
