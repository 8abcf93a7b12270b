//! Disaggregated prefill and decode, as [`EstimateInput`](super::EstimateInput) names it:
//! which side an instance serves ([`DisaggregationMode`], SGLang's `--disaggregation-mode`,
//! vLLM's `kv_role`) and how the KV cache crosses between them ([`TransferBackend`], SGLang's
//! `--disaggregation-transfer-backend`, vLLM's `kv_connector`).

/// The side of a disaggregated deployment one instance serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum DisaggregationMode {
    /// The prefill instance: it runs the prompts and sends their KV cache (SGLang
    /// `--disaggregation-mode prefill`; vLLM `"kv_role":"kv_producer"`).
    Prefill,
    /// The decode instance: it receives the KV cache and generates (SGLang
    /// `--disaggregation-mode decode`; vLLM `"kv_role":"kv_consumer"`).
    Decode,
}

impl DisaggregationMode {
    /// SGLang's word for it.
    pub const fn name(self) -> &'static str {
        match self {
            DisaggregationMode::Prefill => "prefill",
            DisaggregationMode::Decode => "decode",
        }
    }

    /// vLLM's `kv_role` for it.
    pub const fn kv_role(self) -> &'static str {
        match self {
            DisaggregationMode::Prefill => "kv_producer",
            DisaggregationMode::Decode => "kv_consumer",
        }
    }

    /// The other side.
    pub const fn other(self) -> DisaggregationMode {
        match self {
            DisaggregationMode::Prefill => DisaggregationMode::Decode,
            DisaggregationMode::Decode => DisaggregationMode::Prefill,
        }
    }
}

/// The library that moves the KV cache from the prefill instance to the decode one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum TransferBackend {
    /// Mooncake's transfer engine (SGLang's default; vLLM's `MooncakeConnector`).
    #[default]
    Mooncake,
    /// NVIDIA's NIXL (SGLang `nixl`; vLLM's `NixlConnector`).
    Nixl,
}

impl TransferBackend {
    /// SGLang's word for it.
    pub const fn name(self) -> &'static str {
        match self {
            TransferBackend::Mooncake => "mooncake",
            TransferBackend::Nixl => "nixl",
        }
    }

    /// vLLM's `kv_connector` for it.
    pub const fn connector(self) -> &'static str {
        match self {
            TransferBackend::Mooncake => "MooncakeConnector",
            TransferBackend::Nixl => "NixlConnector",
        }
    }
}
