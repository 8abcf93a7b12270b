//! SGLang's releases and the rules that change its pool between them.
//!
//! SGLang sizes its token pool the same way in every release from 0.4.0 to 0.5.23
//! (`ModelRunner.profile_max_num_token` in `srt/model_executor/model_runner.py`: `rest_memory =
//! available_gpu_memory − total_gpu_memory × (1 − mem_fraction_static)`, `total_gpu_memory` the
//! memory free before loading), so a given `mem_fraction_static` gives the same pool in each.
//! What changes by release is what SGLang picks when the user gives nothing, read from each
//! release's wheel on PyPI (`srt/server_args.py`, from 0.5.20 `srt/arg_groups/memory_hook.py`):
//!
//! - the default `mem_fraction_static` ([`FractionRule`]): fixed by tensor parallel size up to
//!   0.4.4, a big-card correction in 0.4.5 and 0.4.6, a reserve by card class from 0.4.7, the
//!   reserve computed from the prefill chunk and the CUDA graphs from 0.5.3;
//! - the default `chunked_prefill_size` and `cuda_graph_max_bs` by card memory
//!   ([`SglangVersion::defaults`]);
//! - whether prefill (piecewise, later "breakable") CUDA graphs are captured by default and
//!   reserved for: from 0.5.10 (`disable_piecewise_cuda_graph = False`; before it
//!   `enable_piecewise_cuda_graph = False`, opt-in);
//! - DP attention: up to 0.4.4 `--enable-dp-attention` forces `dp_size = tp_size` and halves the
//!   prefill chunk; from 0.4.5 `--dp-size` names the groups and divides the chunk; from 0.5.22
//!   `--attn-dp-size` spells it.
//!
//! Unchanged over the range, and so not versioned: the pool formula, the fp32 checkpoint run in
//! fp16 under dtype "auto" (`_get_and_verify_dtype` in `srt/configs/model_config.py`, 0.4.0 to
//! 0.5.23), the default page size of 1 token (`page_size: int = 1` 0.4.4–0.4.8, `None` then set
//! to 1 for the default attention backends), which rounds no token off the pool.
//!
//! The published logs the rules are held to are in `tests/data/sglang-calibration.csv` (notes
//! in `sglang-calibration.notes.md`) and `tests/it/sglang_versions.rs`.

use super::{Defaults, Reserve};
use crate::error::Result;
use crate::estimate::DisaggregationMode;
use core::fmt;

/// An SGLang release `0.minor.patch` from 0.4.0 to [`SglangVersion::LATEST`] (0.5.23), ordered
/// as released; a `.postN` or `rcN` build is read as its patch (`0.4.3.post3` is 0.4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SglangVersion {
    minor: u16,
    patch: u16,
}

/// What `engine_version` accepts for SGLang, in the words of an error.
#[cfg(any(feature = "en", not(feature = "zh")))]
const ACCEPTED: &str =
    "an SGLang release from 0.4.0 to 0.5.23, e.g. 0.5.23, 0.4.3.post3 or 0.5.2rc1";
#[cfg(feature = "zh")]
const ACCEPTED_ZH: &str = "0.4.0 到 0.5.23 的 SGLang 版本，如 0.5.23、0.4.3.post3 或 0.5.2rc1";

/// The last patch of each minor line: 0.4.10 and 0.5.23 (PyPI's releases of `sglang`).
const LAST_PATCH: [(u16, u16); 2] = [(4, 10), (5, 23)];

/// How a release picks `mem_fraction_static` when it is not given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FractionRule {
    /// 0.4.0–0.4.4: 0.88 at tp 1, 0.87 at tp ≥ 2, 0.85 at ≥ 4, 0.81 at ≥ 8, 0.79 at ≥ 16
    /// (`ServerArgs.__post_init__`, v0.4.0 and v0.4.3.post3).
    FixedByTp,
    /// 0.4.5: the same by tp on cards up to 81,920 MiB; above, `(memory − 13 GiB) / memory`.
    BigCardLess13Gib,
    /// 0.4.6: the same by tp × pp up to 81,920 MiB, 0.88 above; above 96 GiB raised to
    /// `min(f + 48 GiB × (1 − f) / memory, (memory − 18 GiB) / memory)`.
    BigCardLift,
    /// 0.4.7–0.5.2: `(memory − reserve) / memory` rounded to three places, the reserve by card
    /// class: below 35 GiB `(2.8 + tp × pp / 10)` GiB, below 90 GiB `(9.5 + tp × pp / 2)`,
    /// below 160 GiB `(12 + tp × pp / 2)`, above 32 GiB; 4 GiB more with DP attention.
    ReserveByCard,
    /// 0.5.3 on: the reserve from the prefill chunk and the CUDA graphs
    /// (`_handle_gpu_memory_settings`, [`super::default_fraction`]).
    ReserveByChunk,
}

impl SglangVersion {
    /// The oldest release vramfit models: 0.4.0.
    pub const OLDEST: SglangVersion = SglangVersion::new(4, 0);
    /// The newest release vramfit knows, the default: 0.5.23.
    pub const LATEST: SglangVersion = SglangVersion::new(5, 23);

    /// `0.minor.patch`.
    pub const fn new(minor: u16, patch: u16) -> SglangVersion {
        SglangVersion { minor, patch }
    }

    /// Reads `0.5.23`, `v0.4.3.post3`, `0.5.2rc1` or `0.4` (its last patch, 0.4.10), from 0.4.0
    /// to [`SglangVersion::LATEST`]; anything else is an error naming `field`.
    pub fn parse(field: &'static str, text: &str) -> Result<SglangVersion> {
        let bad = || {
            input_error!(
                Malformed,
                field,
                ["{} is not an SGLang version", crate::units::quoted(text)],
                ["{} 不是 SGLang 版本", crate::units::quoted(text)],
                [= ACCEPTED],
                [= ACCEPTED_ZH],
            )
        };
        let mut parts = crate::estimate::release::parts(text);
        let number = crate::estimate::release::number;
        let (Some(0), Some(minor)) = (number(parts.next()), number(parts.next())) else {
            return Err(bad());
        };
        let last = LAST_PATCH
            .iter()
            .find(|(m, _)| *m == minor)
            .map(|(_, p)| *p);
        let patch = match parts.next() {
            None => last,
            Some(p) => Some(number(Some(p)).ok_or_else(bad)?),
        };
        // A fourth part is a build of the patch (`post3`); nothing after it.
        match parts.next() {
            Some(build) if !build.starts_with("post") => return Err(bad()),
            _ if parts.next().is_some() => return Err(bad()),
            _ => {}
        }
        match (last, patch) {
            (Some(last), Some(patch)) if patch <= last => Ok(SglangVersion::new(minor, patch)),
            _ => Err(input_error!(
                OutOfRange,
                field,
                ["SGLang {} is not modelled", text],
                ["未建模 SGLang {}", text],
                [= ACCEPTED],
                [= ACCEPTED_ZH],
            )),
        }
    }

    /// How this release picks `mem_fraction_static`.
    pub const fn fraction_rule(self) -> FractionRule {
        match (self.minor, self.patch) {
            (4, 0..=4) => FractionRule::FixedByTp,
            (4, 5) => FractionRule::BigCardLess13Gib,
            (4, 6) => FractionRule::BigCardLift,
            (4, _) | (5, 0..=2) => FractionRule::ReserveByCard,
            _ => FractionRule::ReserveByChunk,
        }
    }

    /// Prefill CUDA graphs are captured by default (and reserved for in the default fraction):
    /// from 0.5.10, whose `server_args.py` turns the opt-in `enable_piecewise_cuda_graph` into
    /// `disable_piecewise_cuda_graph = False`.
    pub const fn prefill_graphs_by_default(self) -> bool {
        self.minor > 5 || (self.minor == 5 && self.patch >= 10)
    }

    /// DP attention's groups are `--dp-size` (any divisor of tp): from 0.4.5. Up to 0.4.4
    /// `--enable-dp-attention` set `dp_size = tp_size` and halved the prefill chunk
    /// (`ServerArgs.__post_init__`, v0.4.3.post3).
    pub const fn dp_attention_groups_given(self) -> bool {
        self.minor > 4 || self.patch >= 5
    }

    /// DP attention is spelled `--attn-dp-size N`: from 0.5.22 (its `arg_groups`); before it
    /// `--dp-size N --enable-dp-attention`.
    pub const fn spells_attn_dp_size(self) -> bool {
        self.minor > 5 || (self.minor == 5 && self.patch >= 22)
    }

    /// CUDA graphs are turned off with `--cuda-graph-backend-decode disabled` and
    /// `--cuda-graph-backend-prefill disabled` (0.5.14 on, where the decode bound is
    /// `--cuda-graph-max-bs-decode`); before it `--disable-cuda-graph` and `--cuda-graph-max-bs`.
    pub const fn spells_graph_backends(self) -> bool {
        self.minor > 5 || (self.minor == 5 && self.patch >= 14)
    }

    /// What this release cannot run as vramfit models it, refused naming the field: expert
    /// parallel before 0.4.3 (its `--ep-size`), pipeline parallel before 0.4.6 (its
    /// `--pp-size`), DP attention groups before 0.4.5 (0.4.0–0.4.4 forced `dp_size = tp_size`
    /// and halved the chunk), LoRA before 0.5.0 (0.4.9 has no `--max-loaded-loras`, and
    /// vramfit's LoRA pool is 0.5's) and P/D disaggregation other than at 0.5.23 (its sides are
    /// read from 0.5.23).
    pub fn check(self, par: Parallelism, lora: bool, disaggregated: bool) -> Result<()> {
        let Parallelism {
            ep,
            pp,
            dp_attention,
        } = par;
        let needs = |field: &'static str, from: SglangVersion| {
            input_error!(
                Unsupported,
                "engine_version",
                ["SGLang {} is not modelled with {}", self, field],
                ["未建模 SGLang {} 下的 {}", self, field],
                ["engine_version {} or later with {}", from, field],
                ["与 {} 同用时 engine_version 为 {} 或更新", field, from],
            )
        };
        if ep > 1 && self < SglangVersion::new(4, 3) {
            return Err(needs("ep", SglangVersion::new(4, 3)));
        }
        if pp > 1 && self < SglangVersion::new(4, 6) {
            return Err(needs("pp", SglangVersion::new(4, 6)));
        }
        if dp_attention > 1 && !self.dp_attention_groups_given() {
            return Err(needs("enable_dp_attention", SglangVersion::new(4, 5)));
        }
        if lora && self < SglangVersion::new(5, 0) {
            return Err(needs("enable_lora", SglangVersion::new(5, 0)));
        }
        if disaggregated && self != SglangVersion::LATEST {
            return Err(needs("disaggregation_mode", SglangVersion::LATEST));
        }
        Ok(())
    }

    /// `chunked_prefill_size` and `cuda_graph_max_bs` when not given, for a card of `gpu_mib`
    /// MiB (SGLang reads nvidia-smi's `memory.total`) at tensor parallel `tp`.
    ///
    /// - 0.4.0–0.4.6: below 25,000 MiB 2048 tokens and 8 graphs (80 at tp ≥ 4 from 0.4.3),
    ///   else 8192 and 160 (from 0.4.5 the graph runner's list, up to 256 above 81,920 MiB).
    /// - 0.4.7–0.5.2: below 35 GiB 2048 and 8 (80 at tp ≥ 4); below 160 GiB 8192, else 16384;
    ///   graphs up to 160, 256 above 90 GiB, 512 above 160,000 MiB (`cuda_graph_runner.py`
    ///   `get_batch_sizes_to_capture`); 4096 tokens without a card.
    /// - 0.5.3 on: [`super::defaults`], whose 24 graphs below 35 GiB at tp < 4 were 16 in 0.5.3
    ///   and 0.5.4.
    pub(in crate::estimate) fn defaults(self, gpu_mib: Option<u64>, tp: u64) -> Defaults {
        let wide = tp >= 4;
        let (chunked_prefill_size, cuda_graph_max_bs) = match (self.fraction_rule(), gpu_mib) {
            (FractionRule::ReserveByChunk, m) => {
                let d = super::defaults(m, tp);
                let small = m.is_some_and(|m| (20 * 1024..35 * 1024).contains(&m));
                let old_small = small && !wide && self.patch < 5;
                return Defaults {
                    cuda_graph_max_bs: if old_small { 16 } else { d.cuda_graph_max_bs },
                    ..d
                };
            }
            (FractionRule::ReserveByCard, None) => (4096, 160),
            (FractionRule::ReserveByCard, Some(m)) if m < 35 * 1024 => {
                (2048, if wide { 80 } else { 8 })
            }
            (FractionRule::ReserveByCard, Some(m)) => (
                if m < 160 * 1024 { 8192 } else { 16384 },
                match m {
                    m if m > 160_000 => 512,
                    m if m > 90 * 1024 => 256,
                    _ => 160,
                },
            ),
            (_, Some(m)) if m < 25_000 => (2048, if wide && self.patch >= 3 { 80 } else { 8 }),
            (rule, Some(m)) if rule != FractionRule::FixedByTp && m > 81_920 => (8192, 256),
            _ => (8192, 160),
        };
        Defaults {
            chunked_prefill_size,
            cuda_graph_max_bs,
        }
    }

    /// The default `mem_fraction_static` of this release for `r` (a P/D `side` only at 0.5.23,
    /// which the input checks).
    pub(in crate::estimate) fn default_fraction(
        self,
        r: &Reserve,
        side: Option<DisaggregationMode>,
    ) -> f64 {
        let parallel = r.tp_pp;
        // Before 0.4.6 the fixed fractions read tp alone; `tp_pp` is tp there (0.4.6 brought
        // `pp_size`: pipeline parallel is refused before it, [`SglangVersion::check`]).
        let fixed = || match parallel {
            16.. => 0.79,
            8.. => 0.81,
            4.. => 0.85,
            2.. => 0.87,
            _ => 0.88,
        };
        let rule = self.fraction_rule();
        if rule == FractionRule::ReserveByChunk {
            return super::default_fraction(r, side);
        }
        // Without a card: the fixed fractions up to 0.4.5; 0.88 from 0.4.6 (`gpu_mem is None`).
        let Some(m) = r.gpu_mib.filter(|&m| m > 0) else {
            return match rule {
                FractionRule::FixedByTp | FractionRule::BigCardLess13Gib => fixed(),
                _ => 0.88,
            };
        };
        let f = match rule {
            FractionRule::BigCardLess13Gib if m > 81_920 => (m as f64 - 13.0 * 1024.0) / m as f64,
            FractionRule::FixedByTp | FractionRule::BigCardLess13Gib => fixed(),
            FractionRule::BigCardLift => {
                let f = if m <= 81_920 { fixed() } else { 0.88 };
                if m > 96 * 1024 {
                    let m = m as f64;
                    (f + 48.0 * 1024.0 * (1.0 - f) / m).min((m - 18.0 * 1024.0) / m)
                } else {
                    f
                }
            }
            FractionRule::ReserveByCard | FractionRule::ReserveByChunk => {
                let p = parallel as f64;
                let gib = match m {
                    m if m < 35 * 1024 => 2.8 + p / 10.0,
                    m if m < 90 * 1024 => 9.5 + p / 2.0,
                    m if m < 160 * 1024 => 12.0 + p / 2.0,
                    _ => 32.0,
                };
                let dp = if r.dp_attention > 1 { 4.0 } else { 0.0 };
                let reserved = (gib + dp) * 1024.0;
                libm::round((m as f64 - reserved) / m as f64 * 1000.0) / 1000.0
            }
        };
        f.clamp(0.01, 0.99)
    }
}

/// The parallelism a release is checked against ([`SglangVersion::check`]).
#[derive(Clone, Copy, Debug)]
pub struct Parallelism {
    /// Expert parallel size.
    pub ep: u64,
    /// Pipeline parallel size.
    pub pp: u64,
    /// DP attention's groups (1: none).
    pub dp_attention: u64,
}

impl Default for SglangVersion {
    fn default() -> Self {
        SglangVersion::LATEST
    }
}

impl fmt::Display for SglangVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0.{}.{}", self.minor, self.patch)
    }
}

#[cfg(test)]
#[path = "version_tests.rs"]
mod tests;
