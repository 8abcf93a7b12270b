//! The platform decision matrix of guide §4.2, with user weights.
//!
//! The guide names six criteria and leaves the weights to the user. Each criterion is scored
//! 0 to 5 from the platform and offer data by a stated rule:
//!
//! | criterion | rule |
//! |---|---|
//! | `memory` | one point per memory band covered by the platform's offers (whole cards by CUDA-visible memory, slices by usable memory): ≤ 16 GiB, 16–24, 24–32, 32–48, 48–80 GiB (the guide's 16–80 GB range) |
//! | `billing` | per second 5, per minute 4, per hour 2 |
//! | `slicing` | MIG 5, vGPU 3, whole cards only 0 |
//! | `interconnect` | inter-node network: ≥ 3200 Gbit/s 5, ≥ 800 4, ≥ 200 3, ≥ 100 2, > 0 1, none 0 |
//! | `frameworks` | one point per preinstalled framework among PyTorch, TensorFlow, DeepSpeed, Megatron-LM, vLLM, JAX, MindSpore (at most 5) |
//! | `support` | severe-issue response: ≤ 0.25 h 5, ≤ 1 h 4, ≤ 4 h 3, ≤ 24 h 2, longer 1 |
//!
//! The total is the weighted mean, `Σ wᵢ·sᵢ / Σ wᵢ`, from 0 to 5.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::error::{ErrorKind, InputError, Result};
use crate::hardware::{Billing, Gpu, Offer, Platform, Slicing};
use crate::units::{Bytes, GIB};

/// The six criteria, in the guide's order.
pub const CRITERIA: [&str; 6] = [
    "memory",
    "billing",
    "slicing",
    "interconnect",
    "frameworks",
    "support",
];

/// Weights of the six criteria, each 0 to 100.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Weights {
    /// Memory range coverage.
    pub memory: u32,
    /// Billing granularity.
    pub billing: u32,
    /// MIG / slicing support.
    pub slicing: u32,
    /// Interconnect bandwidth.
    pub interconnect: u32,
    /// Preinstalled frameworks.
    pub frameworks: u32,
    /// Support responsiveness.
    pub support: u32,
}

impl Default for Weights {
    /// Equal weights.
    fn default() -> Self {
        Weights {
            memory: 1,
            billing: 1,
            slicing: 1,
            interconnect: 1,
            frameworks: 1,
            support: 1,
        }
    }
}

impl Weights {
    /// Parses `memory=3,billing=1,…`; criteria not named keep weight 1.
    pub fn parse(field: &str, text: &str) -> Result<Weights> {
        let accepted = "criterion=weight pairs separated by commas, criteria memory, billing, slicing, interconnect, frameworks, support, weights whole numbers 0 to 100, not all 0";
        let mut w = Weights::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| {
                InputError::new(
                    ErrorKind::Malformed,
                    field,
                    format!("`{part}` has no `=`"),
                    accepted,
                )
            })?;
            let v: u32 = v.trim().parse().ok().filter(|v| *v <= 100).ok_or_else(|| {
                InputError::new(
                    ErrorKind::Malformed,
                    field,
                    format!("`{}` is not a weight", v.trim()),
                    accepted,
                )
            })?;
            match k.trim() {
                "memory" => w.memory = v,
                "billing" => w.billing = v,
                "slicing" | "mig" => w.slicing = v,
                "interconnect" | "network" => w.interconnect = v,
                "frameworks" => w.frameworks = v,
                "support" => w.support = v,
                other => {
                    return Err(InputError::new(
                        ErrorKind::UnknownName,
                        field,
                        format!("unknown criterion `{other}`"),
                        accepted,
                    ));
                }
            }
        }
        if w.as_array().iter().all(|x| *x == 0) {
            return Err(InputError::new(
                ErrorKind::OutOfRange,
                field,
                "every weight is 0",
                accepted,
            ));
        }
        Ok(w)
    }

    fn as_array(&self) -> [u32; 6] {
        [
            self.memory,
            self.billing,
            self.slicing,
            self.interconnect,
            self.frameworks,
            self.support,
        ]
    }
}

/// A platform's scores.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PlatformScore {
    /// Platform id.
    pub platform: String,
    /// Its name.
    pub name: String,
    /// Its Chinese name.
    pub name_zh: String,
    /// Scores 0–5 in the order of [`CRITERIA`].
    pub scores: [u8; 6],
    /// Weighted mean, 0–5.
    pub total: f64,
    /// Rank, 1 = best.
    pub rank: usize,
}

/// The memory bands of the `memory` criterion, as (above, up to) in GiB.
pub const MEMORY_BANDS_GIB: [(u64, u64); 5] = [(0, 16), (16, 24), (24, 32), (32, 48), (48, 80)];

/// Memory score: bands covered by some offer of the platform.
pub fn memory_score(platform: &Platform, offers: &[Offer], gpus: &[Gpu]) -> u8 {
    let sizes: Vec<Bytes> = offers
        .iter()
        .filter(|o| o.provider == platform.id)
        .filter_map(|o| {
            let gpu = gpus.iter().find(|g| g.id == o.gpu)?;
            match (&o.mig_profile, o.slice_memory_bytes) {
                (Some(p), _) => gpu.mig_profile(p).map(|p| p.usable),
                (None, Some(b)) => Some(b),
                (None, None) => Some(gpu.memory),
            }
        })
        .collect();
    MEMORY_BANDS_GIB
        .iter()
        .filter(|(lo, hi)| {
            sizes
                .iter()
                .any(|s| s.get() > lo * GIB && s.get() <= hi * GIB)
        })
        .count() as u8
}

/// Billing score.
pub fn billing_score(b: Billing) -> u8 {
    match b {
        Billing::Second => 5,
        Billing::Minute => 4,
        Billing::Hour => 2,
    }
}

/// Slicing score.
pub fn slicing_score(s: Slicing) -> u8 {
    match s {
        Slicing::Mig => 5,
        Slicing::Vgpu => 3,
        Slicing::None => 0,
    }
}

/// Interconnect score from the inter-node network in Gbit/s.
pub fn interconnect_score(gbps: u32) -> u8 {
    match gbps {
        3200.. => 5,
        800.. => 4,
        200.. => 3,
        100.. => 2,
        1.. => 1,
        0 => 0,
    }
}

/// The frameworks counted by the `frameworks` criterion.
pub const FRAMEWORKS: [&str; 7] = [
    "PyTorch",
    "TensorFlow",
    "DeepSpeed",
    "Megatron-LM",
    "vLLM",
    "JAX",
    "MindSpore",
];

/// Frameworks score.
pub fn frameworks_score(fw: &[&str]) -> u8 {
    FRAMEWORKS
        .iter()
        .filter(|f| fw.iter().any(|g| g.eq_ignore_ascii_case(f)))
        .count()
        .min(5) as u8
}

/// Support score from the response time in hours.
pub fn support_score(hours: f64) -> u8 {
    if !hours.is_finite() || hours < 0.0 {
        0
    } else if hours <= 0.25 {
        5
    } else if hours <= 1.0 {
        4
    } else if hours <= 4.0 {
        3
    } else if hours <= 24.0 {
        2
    } else {
        1
    }
}

/// Scores and ranks the platforms, best first (ties by id).
pub fn rank_platforms(
    platforms: &[Platform],
    offers: &[Offer],
    gpus: &[Gpu],
    weights: &Weights,
) -> Vec<PlatformScore> {
    let w = weights.as_array();
    let wsum: u32 = w.iter().sum();
    let mut out: Vec<PlatformScore> = platforms
        .iter()
        .map(|p| {
            let scores = [
                memory_score(p, offers, gpus),
                billing_score(p.billing),
                slicing_score(p.slicing),
                interconnect_score(p.network_gbps),
                frameworks_score(p.frameworks),
                support_score(p.support_response_hours),
            ];
            let num: u32 = scores
                .iter()
                .zip(w.iter())
                .map(|(s, w)| u32::from(*s) * w)
                .sum();
            let total = if wsum == 0 {
                0.0
            } else {
                f64::from(num) / f64::from(wsum)
            };
            PlatformScore {
                platform: p.id.to_string(),
                name: p.name.to_string(),
                name_zh: p.name_zh.to_string(),
                scores,
                total,
                rank: 0,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.total
            .total_cmp(&a.total)
            .then(a.platform.cmp(&b.platform))
    });
    for (i, s) in out.iter_mut().enumerate() {
        s.rank = i + 1;
    }
    out
}
