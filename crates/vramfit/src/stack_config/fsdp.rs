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

/// The wrap policy at `key` of `m`, `default` where the file has none: FSDP's unit is what it
/// wraps. vramfit gathers one decoder layer at a time (`TRANSFORMER_BASED_WRAP`, transformers
/// 5.25's default, `training_args.py`: `fsdp_config.get("auto_wrap_policy",
/// FSDP_AUTO_WRAP_POLICY[0])`). accelerate 1.16.0 defaults to `NO_WRAP` when its config names
/// none (`utils/dataclasses.py`, `FullyShardedDataParallelPlugin.__post_init__`:
/// `os.environ.get(env_prefix + "AUTO_WRAP_POLICY", "NO_WRAP")`): the whole model is then one
/// unit, gathered at once, and `SIZE_BASED_WRAP` cuts units by `min_num_params`. Both are
/// refused by the key rather than estimated as per-layer units, which would be an
/// under-estimate by up to the whole model's gathered weights.
pub(super) fn wrap_policy(m: &Map<'_>, key: &str, default: &str) -> Result<()> {
    let policy = m.str(key)?;
    let named = policy.as_deref().unwrap_or(default).to_ascii_uppercase();
    if named == "TRANSFORMER_BASED_WRAP" {
        return Ok(());
    }
    let line = m.line(key);
    let path = m.path_of(key);
    Err(match policy {
        Some(p) => crate::input_error!(
            Unsupported,
            path,
            [
                "line {line}: `{p}` makes FSDP units vramfit does not count (it gathers one decoder layer at a time)"
            ],
            ["第 {line} 行：`{p}` 划分的 FSDP 单元 vramfit 不计算（它按一次聚合一个解码层计算）"],
            "TRANSFORMER_BASED_WRAP",
            "TRANSFORMER_BASED_WRAP",
        ),
        None => crate::input_error!(
            Unsupported,
            path,
            [
                "absent: accelerate then wraps nothing (NO_WRAP), the whole model gathered at once, which vramfit does not count"
            ],
            ["缺失：accelerate 此时不做包装（NO_WRAP），整个模型一次聚合，vramfit 不计算这种情形"],
            "TRANSFORMER_BASED_WRAP",
            "TRANSFORMER_BASED_WRAP",
        ),
    })
}
