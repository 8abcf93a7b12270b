//! FSDP as the configs set it: the version (accelerate 1.16's `FullyShardedDataParallelPlugin`
//! defaults to 1, transformers 5.25's `fsdp_config["version"]` to 2, axolotl's `fsdp_version`),
//! and what is resharded: FSDP1's sharding strategy (`FULL_SHARD`, `SHARD_GRAD_OP`, `NO_SHARD`,
//! `HYBRID_SHARD`, or its number), FSDP2's `reshard_after_forward` boolean.

use super::Reading;
use super::tree::Map;
use crate::error::Result;

/// Reads the version at `version_key` (`default` when absent) and the resharding at
/// `reshard_key` or, FSDP1's older spelling, `strategy_key` of `m` onto the input: ZeRO stage 3
/// (full shard), 2 (`SHARD_GRAD_OP`) or 0 (`NO_SHARD`), as the estimator spells FSDP.
pub(super) fn read(
    m: &Map<'_>,
    r: &mut Reading,
    version_key: &str,
    default: f64,
    reshard_key: &str,
    strategy_key: &str,
) -> Result<()> {
    let version = m.num(version_key)?.unwrap_or(default);
    r.input.placement.fsdp_version = Some(version);
    r.input.placement.zero = 3.0;
    // FSDP2: `reshard_after_forward` true or false.
    if version >= 2.0 {
        if let Some(b) = m.bool(reshard_key)? {
            r.input.placement.reshard_after_forward = Some(b);
        }
        return Ok(());
    }
    let strategy = match m.str(reshard_key)? {
        Some(s) => Some(s),
        None => m.str(strategy_key)?,
    };
    r.input.placement.zero = match strategy.as_deref().map(str::to_ascii_uppercase).as_deref() {
        Some("SHARD_GRAD_OP" | "2" | "HYBRID_SHARD_ZERO2" | "5") => 2.0,
        Some("NO_SHARD" | "3") => 0.0,
        _ => 3.0,
    };
    // NO_SHARD stays FSDP1's (zero 0): plain data parallelism without DDP's bucket.
    Ok(())
}
