//! The data types of the JavaScript API that the core does not have: options objects and
//! results that group several core values; only the `full` build uses them. Their TypeScript
//! comes from the same generator as the core's (see `tests/dts.rs`).

#![cfg_attr(not(feature = "full"), allow(dead_code))]

use serde::{Deserialize, Serialize};
use vramfit::Bytes;
use vramfit::estimate::Estimate;
use vramfit::hardware::PlanOption;
use vramfit::hardware::job::JobCost;
use vramfit::hardware::mig::MigPlan;
use vramfit::hardware::tiers::Tier;

/// Options of `recommend`, as the CLI's `recommend` flags.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecommendOptions {
    /// Currency of prices: `CNY` or `USD` (default `USD`).
    pub currency: String,
    /// Yuan per US dollar (default: the data set's reference rate).
    pub cny_per_usd: Option<f64>,
    /// Include spot offers (default false).
    pub spot: bool,
    /// Most GPUs in one node, 1 to 64 (default 8).
    pub max_gpus: f64,
    /// Most nodes (servers of one multi-GPU offer, tensor parallel inside, pipeline across) a
    /// layout spans where one server holds none, 1 to 64 (default 4).
    pub max_nodes: f64,
    /// Only these providers (platform ids); empty means all.
    pub provider: Vec<String>,
    /// Return at most this many options; 0 means all (default 15).
    pub limit: f64,
    /// Also rank the options by what a whole job costs: tokens to generate (`1M tokens`) for
    /// inference and serving, an epoch to train on (`epoch:50M tokens`) for training.
    pub per_job: Option<String>,
}

impl Default for RecommendOptions {
    fn default() -> Self {
        RecommendOptions {
            currency: "USD".into(),
            cny_per_usd: None,
            spot: false,
            max_gpus: 8.0,
            max_nodes: 4.0,
            provider: Vec::new(),
            limit: 15.0,
            per_job: None,
        }
    }
}

/// What `recommend` returns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recommendation {
    /// The estimate on one GPU.
    pub estimate: Estimate,
    /// The guide's model-size tier (§3.2) with its recommended cards.
    pub tier: &'static Tier,
    /// The ways to run it, cheapest first.
    pub options: Vec<PlanOption>,
    /// With `per_job`: the ways to run the whole job, cheapest job first (as many as `limit`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobs: Option<Vec<JobCost>>,
}

/// One job of `planMig`: exactly one of `memory` and `model`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MigJob {
    /// A name for the job (default `job N`).
    #[serde(default)]
    pub name: Option<String>,
    /// The memory the job needs, with its unit: `36GiB`, `20GB`.
    #[serde(default)]
    pub memory: Option<String>,
    /// A preset served for inference with the estimator's defaults; its `required_bytes` is the
    /// job's need.
    #[serde(default)]
    pub model: Option<String>,
}

/// Options of `planMig`, as the CLI's `mig` flags.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MigOptionsInput {
    /// Currency of costs: `CNY` or `USD` (default `CNY`).
    pub currency: String,
    /// Yuan per US dollar (default: the data set's reference rate).
    pub cny_per_usd: Option<f64>,
    /// Only offers of this provider (platform id).
    pub provider: Option<String>,
    /// Most cards to use, 1 to 64 (default 8).
    pub max_cards: f64,
}

impl Default for MigOptionsInput {
    fn default() -> Self {
        MigOptionsInput {
            currency: "CNY".into(),
            cny_per_usd: None,
            provider: None,
            max_cards: 8.0,
        }
    }
}

/// A job of `planMig` with the memory it was given or estimated to need.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MigJobSize {
    /// The job's name.
    pub name: String,
    /// The memory it needs.
    pub bytes: Bytes,
}

/// What `planMig` returns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MigResult {
    /// The plan; a slice's `job` indexes `jobs`.
    pub plan: MigPlan,
    /// The jobs, in the order given.
    pub jobs: Vec<MigJobSize>,
}
