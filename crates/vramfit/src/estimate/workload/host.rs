//! The host memory of a llama.cpp or Ollama run: a catalog record (`host_memory`), the user's own
//! peak (`host_bandwidth`), or the stated default. Read for the speed under offload, so only
//! with the `speed` feature; a build without it refuses either field.

use crate::error::Result;
use crate::estimate::EstimateInput;
#[cfg(feature = "speed")]
use crate::host::{DEFAULT_HOST, HostChoice, find_host, lookup_host};
#[cfg(feature = "speed")]
use crate::units::parse_size;

/// The bounds of a host's peak: 1 GB/s (an old laptop's single channel is 10) to 10 TB/s.
#[cfg(feature = "speed")]
const LOW: u64 = 1_000_000_000;
#[cfg(feature = "speed")]
const HIGH: u64 = 10_000_000_000_000;

impl EstimateInput {
    /// The host memory: `host_memory` (a catalog id or words), `host_bandwidth` (a rate with its
    /// unit: `80GB/s`, `75GiB/s`, `1.2TB/s`), not both; [`DEFAULT_HOST`] when neither is given.
    #[cfg(feature = "speed")]
    pub(super) fn resolve_host(&self) -> Result<HostChoice> {
        self.host_engine()?;
        match (&self.hardware.host_memory, &self.hardware.host_bandwidth) {
            (Some(_), Some(_)) => Err(input_error!(
                Conflict,
                "host_bandwidth",
                "both a host memory and a host bandwidth given",
                "同时给出了主机内存与主机带宽",
                "one of host_memory (a catalog id such as ddr5-6000-2ch) or host_bandwidth (a rate such as 80GB/s)",
                "host_memory（目录 id，如 ddr5-6000-2ch）与 host_bandwidth（如 80GB/s 的速率）二者之一",
            )),
            (Some(q), None) => Ok(HostChoice::Catalog(lookup_host("host_memory", q)?)),
            (None, Some(rate)) => {
                let t = rate.trim();
                let size = t
                    .strip_suffix("/s")
                    .or_else(|| t.strip_suffix("/sec"))
                    .unwrap_or(t);
                let b = parse_size("host_bandwidth", size)?.get();
                if !(LOW..=HIGH).contains(&b) {
                    return Err(input_error!(
                        OutOfRange,
                        "host_bandwidth",
                        ["`{t}` is outside a host memory's range"],
                        ["`{t}` 超出主机内存带宽的范围"],
                        "a rate with its unit from 1GB/s to 10TB/s, e.g. 80GB/s",
                        "带单位的速率，1GB/s 到 10TB/s，如 80GB/s",
                    ));
                }
                Ok(HostChoice::Given(b))
            }
            (None, None) => Ok(match find_host(DEFAULT_HOST) {
                Some(h) => HostChoice::Assumed(h),
                // The default is a record of the table (its test says so); a rate stands in.
                None => HostChoice::Given(89_600_000_000),
            }),
        }
    }

    /// A build without the `speed` feature times no run, so it reads no host memory: it refuses
    /// `host_memory` and `host_bandwidth`, naming the one given ([`super::checks::not_built`]),
    /// as the site's calculator builds do, which hand either over to the full build.
    #[cfg(not(feature = "speed"))]
    pub(super) fn resolve_host(&self) -> Result<()> {
        self.host_engine()?;
        if self.hardware.host_memory.is_some() {
            return Err(super::checks::not_built("host_memory"));
        }
        if self.hardware.host_bandwidth.is_some() {
            return Err(super::checks::not_built("host_bandwidth"));
        }
        Ok(())
    }

    /// A host memory is read by the engines that keep layers in CPU memory (llama.cpp, Ollama)
    /// only: on another engine either field is refused, naming the engine, in every build.
    fn host_engine(&self) -> Result<()> {
        let rules = self.runner().rules();
        if !rules.offload.splits_layers()
            && (self.hardware.host_memory.is_some() || self.hardware.host_bandwidth.is_some())
        {
            let (field, name) = (
                if self.hardware.host_memory.is_some() {
                    "host_memory"
                } else {
                    "host_bandwidth"
                },
                rules.name,
            );
            return Err(input_error!(
                Unsupported,
                field,
                ["{name} keeps no layers in CPU memory"],
                ["{name} 不把层留在 CPU 内存"],
                "none, or engine llamacpp or ollama",
                "不填，或使用 llamacpp 或 ollama 引擎",
            ));
        }
        Ok(())
    }
}
