//! Disaggregated prefill and decode (`disaggregation_mode`, `disaggregation_transfer_backend`,
//! `num_reserved_decode_tokens`), checked into a typed [`Disaggregation`]: SGLang's
//! `--disaggregation-mode` (SGLang 0.5.23, `arg_groups/fields/disagg.py`,
//! `arg_groups/pd_disaggregation_hook.py`) and vLLM's `--kv-transfer-config` with a KV connector
//! (vLLM 0.33, `config/kv_transfer.py`, `distributed/kv_transfer/kv_connector/factory.py`).

use super::{MAX_SEQ, int};
use crate::error::Result;
use crate::estimate::{DisaggregationMode, EstimateInput, TransferBackend, VllmVersion};

/// SGLang's default `num_reserved_decode_tokens` (`arg_groups/fields/disagg.py`).
pub const SGLANG_RESERVED_DECODE_TOKENS: u64 = 512;

/// One side of a disaggregated deployment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Disaggregation {
    /// The side this instance serves.
    pub mode: DisaggregationMode,
    /// The transfer library, given or the engine's default (SGLang's `mooncake`, vLLM's
    /// `NixlConnector` here).
    pub backend: TransferBackend,
    /// SGLang's `num_reserved_decode_tokens` (the decode side's), given or 512; 0 for vLLM.
    pub reserved_decode_tokens: u64,
    /// SGLang's `disaggregation_decode_extra_slots` as it defaults them: with
    /// `max_running_requests` given and at most 32 per DP-attention group, twice that many
    /// request rows more on the decode side; else none (`handle_pd_disaggregation`).
    pub extra_slots: u64,
    /// The other side's `mem_fraction_static`: SGLang's default for that side, or the one
    /// given (the same on both).
    pub other_mem_fraction_static: f64,
}

impl super::Workload {
    /// This instance's P/D side; `None` for a plain server, and always in a build without the
    /// `disaggregation` feature, so that no code of its sides is linked there.
    pub fn disaggregation(&self) -> Option<Disaggregation> {
        if cfg!(feature = "disaggregation") {
            self.disaggregation
        } else {
            None
        }
    }
}

impl EstimateInput {
    /// The P/D side: SGLang or vLLM serving; the backend and the reserved tokens only with a side;
    /// `num_reserved_decode_tokens` SGLang's alone; vLLM's connectors as 0.33 registers them.
    pub(super) fn resolve_disaggregation(
        &self,
        version: VllmVersion,
        dp_attention: u64,
        max_running_requests: Option<u64>,
        other_mem_fraction_static: f64,
    ) -> Result<Option<Disaggregation>> {
        // A build without the `disaggregation` feature reads none of them, and refuses the
        // first given ([`super::checks::not_built`]).
        if !cfg!(feature = "disaggregation") {
            let given = [
                (
                    "disaggregation_mode",
                    self.serving.disaggregation_mode.is_some(),
                ),
                (
                    "disaggregation_transfer_backend",
                    self.serving.disaggregation_transfer_backend.is_some(),
                ),
                (
                    "num_reserved_decode_tokens",
                    self.serving.num_reserved_decode_tokens.is_some(),
                ),
            ];
            return match given.iter().find(|(_, g)| *g) {
                Some((field, _)) => Err(super::checks::not_built(field)),
                None => Ok(None),
            };
        }
        let Some(mode) = self.serving.disaggregation_mode else {
            if self.serving.disaggregation_transfer_backend.is_some() {
                return Err(input_error!(
                    Conflict,
                    "disaggregation_transfer_backend",
                    "a transfer backend without disaggregation_mode: one server does both sides then",
                    "给出了传输后端却没有 disaggregation_mode：此时一个服务同时做预填充与解码",
                    "with disaggregation_mode prefill or decode only",
                    "仅与 disaggregation_mode prefill 或 decode 同用",
                ));
            }
            if self.serving.num_reserved_decode_tokens.is_some() {
                return Err(input_error!(
                    Conflict,
                    "num_reserved_decode_tokens",
                    "num_reserved_decode_tokens without disaggregation_mode: SGLang reads it on the decode side only",
                    "没有 disaggregation_mode 却给出 num_reserved_decode_tokens：SGLang 只在解码端读取它",
                    "with disaggregation_mode decode (or prefill, for the decode side's note and launch)",
                    "与 disaggregation_mode decode 同用（或 prefill，用于解码端的附注与启动命令）",
                ));
            }
            return Ok(None);
        };
        let runner = self.runner();
        let name = runner.rules().name;
        if !runner.disaggregates() {
            return Err(input_error!(
                Unsupported,
                "disaggregation_mode",
                [
                    "disaggregated prefill and decode is modelled for SGLang and vLLM serving, not {name}"
                ],
                ["预填充与解码分离仅对 SGLang 与 vLLM 服务部署建模，不含 {name}"],
                "no disaggregation_mode with this engine; engine sglang (--disaggregation-mode) or vllm (--kv-transfer-config)",
                "这个引擎下不设 disaggregation_mode；可用 sglang（--disaggregation-mode）或 vllm（--kv-transfer-config）引擎",
            ));
        }
        let sglang = runner.sizes_by_side();
        if !sglang {
            if self.serving.num_reserved_decode_tokens.is_some() {
                return Err(input_error!(
                    Unsupported,
                    "num_reserved_decode_tokens",
                    "vLLM has no num_reserved_decode_tokens: it is SGLang's decode side's",
                    "vLLM 没有 num_reserved_decode_tokens：这是 SGLang 解码端的参数",
                    "none with vLLM; engine sglang (--num-reserved-decode-tokens)",
                    "vLLM 下不设；可用 sglang 引擎（--num-reserved-decode-tokens）",
                ));
            }
            if version != VllmVersion::LATEST {
                let v = version;
                return Err(input_error!(
                    Unsupported,
                    "disaggregation_mode",
                    ["vramfit read vLLM's KV connectors in 0.33's source, not {v}'s"],
                    ["vramfit 只读过 vLLM 0.33 源码中的 KV 连接器，未读 {v}"],
                    "engine_version 0.33 (the default) with disaggregation_mode",
                    "与 disaggregation_mode 同用时 engine_version 为 0.33（默认）",
                ));
            }
        }
        let reserved_decode_tokens = match self.serving.num_reserved_decode_tokens {
            Some(v) => int("num_reserved_decode_tokens", v, 0, MAX_SEQ / 16)?,
            None if sglang => SGLANG_RESERVED_DECODE_TOKENS,
            None => 0,
        };
        let extra_slots = match max_running_requests {
            Some(r) if sglang => {
                let per_worker = (r / dp_attention.max(1)).max(1);
                if per_worker <= 32 { per_worker * 2 } else { 0 }
            }
            _ => 0,
        };
        let backend = self
            .serving
            .disaggregation_transfer_backend
            .unwrap_or(if sglang {
                TransferBackend::Mooncake
            } else {
                TransferBackend::Nixl
            });
        Ok(Some(Disaggregation {
            mode,
            backend,
            reserved_decode_tokens,
            extra_slots,
            other_mem_fraction_static,
        }))
    }
}
