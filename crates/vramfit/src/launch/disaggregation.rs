//! The launch of disaggregated prefill and decode, and its flags read back.
//!
//! SGLang: the prefill server, the decode server and SGLang's router, as SGLang's PD guide
//! writes them for one node (github.com/sgl-project/sglang, docs/advanced_features/
//! pd_disaggregation.md at 08edc506): `--disaggregation-mode prefill --port 30000`,
//! `--disaggregation-mode decode --port 30001 --base-gpu-id N`, then `python -m
//! sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 --decode
//! http://127.0.0.1:30001 --host 0.0.0.0 --port 8000`. Each side carries its own
//! `mem_fraction_static`.
//!
//! vLLM: two `vllm serve` with `--kv-transfer-config '{"kv_connector": …, "kv_role": …}'`
//! (`KVTransferConfig`, vLLM 0.33 `config/kv_transfer.py`), the prefill side a `kv_producer` on
//! port 8100 and the decode side a `kv_consumer` on 8200, as vLLM's disaggregated-prefill
//! examples place them; requests go through a P/D proxy of the user's choice.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Builder;
use super::flags::{self, Setting};
use super::serve::{Args, words};
use crate::error::Result;
use crate::estimate::{
    Disaggregation, DisaggregationMode, EstimateInput, SGLANG_RESERVED_DECODE_TOKENS,
    TransferBackend, Workload,
};
use crate::units::short;

/// SGLang's prefill and decode ports and the router's, as its PD guide has them.
const SGLANG_PORTS: (u64, u64, u64) = (30000, 30001, 8000);
/// vLLM's prefill and decode ports, as its disaggregated-prefill examples have them.
const VLLM_PORTS: (u64, u64) = (8100, 8200);

/// Over several nodes each side is a multi-node server of its own: not written.
fn one_node(w: &Workload) -> Result<()> {
    let nodes = w.nodes.nodes;
    if nodes <= 1 {
        return Ok(());
    }
    Err(crate::input_error!(
        Unsupported,
        "gpus",
        [
            "no launch written for a P/D side over {nodes} nodes: each side is then a multi-node server of its own"
        ],
        ["不为跨 {nodes} 个节点的 P/D 一端写启动命令：此时每一端各自是一个多节点服务"],
        "the GPUs of one node (gpus up to gpus_per_node) for a written P/D launch",
        "要写出 P/D 启动命令，GPU 数不超过一个节点（gpus 不超过 gpus_per_node）",
    ))
}

/// Both SGLang servers and the router; `server(fraction)` is one server's words at that
/// `mem_fraction_static`.
pub(super) fn sglang(
    w: &Workload,
    d: Disaggregation,
    l: &mut Builder,
    server: impl Fn(f64) -> Result<Args<'static>>,
) -> Result<()> {
    one_node(w)?;
    let (prefill_fraction, decode_fraction) = match d.mode {
        DisaggregationMode::Prefill => (w.mem_fraction_static, d.other_mem_fraction_static),
        DisaggregationMode::Decode => (d.other_mem_fraction_static, w.mem_fraction_static),
    };
    let (prefill_port, decode_port, router_port) = SGLANG_PORTS;
    let mut a = server(prefill_fraction)?;
    a.set(
        Setting::DisaggregationMode,
        DisaggregationMode::Prefill.name(),
    );
    a.set(Setting::TransferBackend, d.backend.name());
    let mut argv = a.done();
    argv.extend([String::from("--port"), prefill_port.to_string()]);
    l.command(argv);
    let mut a = server(decode_fraction)?;
    a.set(
        Setting::DisaggregationMode,
        DisaggregationMode::Decode.name(),
    );
    a.set(Setting::TransferBackend, d.backend.name());
    a.set_unless(
        Setting::ReservedDecodeTokens,
        d.reserved_decode_tokens,
        SGLANG_RESERVED_DECODE_TOKENS,
    );
    // The decode server on the GPUs after the prefill server's, on the same node (where a
    // server listens and starts sets no figure: read back as words not read).
    let mut argv = a.done();
    argv.extend([
        String::from("--port"),
        decode_port.to_string(),
        String::from("--base-gpu-id"),
        (w.tp * w.pp).to_string(),
    ]);
    l.command(argv);
    let (p, d_url) = (
        alloc::format!("http://127.0.0.1:{prefill_port}"),
        alloc::format!("http://127.0.0.1:{decode_port}"),
    );
    let router_port = router_port.to_string();
    l.command(words(&[
        "python",
        "-m",
        "sglang_router.launch_router",
        "--pd-disaggregation",
        "--prefill",
        &p,
        "--decode",
        &d_url,
        "--host",
        "0.0.0.0",
        "--port",
        &router_port,
    ]));
    let gpus = w.tp * w.pp;
    let (pf, df) = (short(prefill_fraction), short(decode_fraction));
    l.note(
        alloc::format!(
            "Prefill and decode servers on one node, {gpus} GPU(s) each (the decode server from GPU {gpus}), each at its own mem_fraction_static ({pf} and {df}); SGLang's router serves the requests on port {router_port}. On two nodes, drop --base-gpu-id and give the router each server's address."
        ),
        alloc::format!(
            "预填充与解码服务在同一节点上，各用 {gpus} 个 GPU（解码服务从第 {gpus} 号 GPU 起），各用自己的 mem_fraction_static（{pf} 与 {df}）；SGLang 的 router 在 {router_port} 端口接收请求。若在两个节点上，去掉 --base-gpu-id，并把各服务的地址交给 router。"
        ),
    );
    Ok(())
}

/// `--kv-transfer-config`'s JSON for `mode` over `backend`.
pub(super) fn kv_transfer_json(backend: TransferBackend, mode: DisaggregationMode) -> String {
    alloc::format!(
        "{{\"kv_connector\":\"{}\",\"kv_role\":\"{}\"}}",
        backend.connector(),
        mode.kv_role()
    )
}

/// Both `vllm serve` sides from one server's words `base` (vLLM sizes both alike).
pub(super) fn vllm(
    w: &Workload,
    d: Disaggregation,
    base: Vec<String>,
    l: &mut Builder,
) -> Result<()> {
    one_node(w)?;
    let (prefill_port, decode_port) = VLLM_PORTS;
    for (mode, port) in [
        (DisaggregationMode::Prefill, prefill_port),
        (DisaggregationMode::Decode, decode_port),
    ] {
        let mut argv = base.clone();
        argv.extend([
            String::from("--port"),
            port.to_string(),
            flags::name(flags::VLLM, Setting::KvTransferConfig).to_string(),
            kv_transfer_json(d.backend, mode),
        ]);
        l.command(argv);
    }
    let connector = d.backend.connector();
    l.note(
        alloc::format!(
            "Prefill instance on port {prefill_port} (kv_producer) and decode instance on port {decode_port} (kv_consumer) over {connector}: on one node give each its own GPUs (CUDA_VISIBLE_DEVICES) and, for NIXL, its own VLLM_NIXL_SIDE_CHANNEL_PORT; a P/D proxy (vLLM's disaggregated-serving example proxy, llm-d or Dynamo) sends each request to both."
        ),
        alloc::format!(
            "预填充实例在 {prefill_port} 端口（kv_producer），解码实例在 {decode_port} 端口（kv_consumer），经 {connector} 传输：在同一节点上请为两者分配各自的 GPU（CUDA_VISIBLE_DEVICES），使用 NIXL 时还需各自的 VLLM_NIXL_SIDE_CHANNEL_PORT；由 P/D 代理（vLLM 分离式服务示例中的代理、llm-d 或 Dynamo）把每个请求交给两端。"
        ),
    );
    Ok(())
}

/// SGLang's `--disaggregation-mode` word: `prefill`, `decode`, or `null` (none).
pub(super) fn mode(flag: &str, value: &str) -> Result<Option<DisaggregationMode>> {
    Ok(match value {
        "prefill" => Some(DisaggregationMode::Prefill),
        "decode" => Some(DisaggregationMode::Decode),
        "null" => None,
        _ => {
            return Err(crate::input_error!(
                UnknownName,
                "command",
                ["{flag} {value} is not a disaggregation mode"],
                ["{flag} {value} 不是分离模式"],
                "prefill, decode or null",
                "prefill、decode 或 null",
            ));
        }
    })
}

/// SGLang's `--disaggregation-transfer-backend` word (`mooncake_tcp` is Mooncake over TCP).
pub(super) fn backend(flag: &str, value: &str) -> Result<TransferBackend> {
    match value {
        "mooncake" | "mooncake_tcp" => Ok(TransferBackend::Mooncake),
        "nixl" => Ok(TransferBackend::Nixl),
        _ => Err(crate::input_error!(
            Unsupported,
            "disaggregation_transfer_backend",
            ["{flag} {value} is not modelled"],
            ["未建模 {flag} {value}"],
            "mooncake or nixl",
            "mooncake 或 nixl",
        )),
    }
}

/// vLLM's `--kv-transfer-config` JSON onto `i`: `kv_connector` (`NixlConnector`,
/// `MooncakeConnector`) and `kv_role` (`kv_producer` the prefill side, `kv_consumer` the decode
/// side); `kv_both`, which serves either side with a plain server's memory, and other keys are
/// listed as not read.
pub(super) fn read_kv_transfer(
    flag: &str,
    value: &str,
    i: &mut EstimateInput,
    not_read: &mut Vec<String>,
) -> Result<()> {
    let bad = || {
        crate::input_error!(
            Malformed,
            "command",
            ["{flag} is not a JSON object"],
            ["{flag} 不是 JSON 对象"],
            [
                "a JSON object such as {{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}}"
            ],
            ["JSON 对象，如 {{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}}"],
        )
    };
    let map = super::json_object(value, bad)?;
    let text = |key: &str| map.get(key).and_then(|v| v.as_str());
    let mode = match text("kv_role") {
        Some("kv_producer") => Some(DisaggregationMode::Prefill),
        Some("kv_consumer") => Some(DisaggregationMode::Decode),
        _ => None,
    };
    let Some(mode) = mode else {
        // `kv_both` (or no role): no side to estimate, a plain server's memory.
        not_read.extend([flag.to_string(), value.to_string()]);
        return Ok(());
    };
    let backend = match text("kv_connector") {
        Some("NixlConnector") => TransferBackend::Nixl,
        Some("MooncakeConnector") => TransferBackend::Mooncake,
        other => {
            let name = other.unwrap_or("none");
            return Err(crate::input_error!(
                Unsupported,
                "disaggregation_transfer_backend",
                ["vLLM's kv_connector {name} is not modelled"],
                ["未建模 vLLM 的 kv_connector {name}"],
                "NixlConnector or MooncakeConnector (both register the existing KV pool)",
                "NixlConnector 或 MooncakeConnector（两者都只注册已有的 KV 池）",
            ));
        }
    };
    i.serving.disaggregation_mode = Some(mode);
    i.serving.disaggregation_transfer_backend = Some(backend);
    for (key, v) in &map {
        if !matches!(key.as_str(), "kv_connector" | "kv_role") {
            not_read.push(alloc::format!("{flag} {key}={v}"));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "disaggregation_tests.rs"]
mod tests;
