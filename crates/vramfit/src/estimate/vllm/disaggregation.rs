//! vLLM's disaggregated prefill and decode: two `vllm serve` instances joined by a KV connector
//! (`--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'`), as vLLM
//! 0.33 holds them. `NixlConnector` (`kv_buffer_device` `cuda`, the default) and
//! `MooncakeConnector` register the KV caches vLLM already allocated
//! (`register_kv_caches`): no memory of their own, and nothing in the profile run or the pool's
//! budget depends on `kv_role`. So each side's pool is a plain server's, the same on both:
//! this note says so with its numbers. (NIXL's `kv_buffer_device: "cpu"` would mirror the pool
//! in host memory, `NixlConnectorWorker.initialize_host_xfer_buffer`; vramfit writes and reads
//! the default.)

use super::super::{Parts, Run};
use super::figures::{VllmFigures, VllmPool};

impl Run<'_> {
    /// The note of a P/D side: the connector holds nothing, each side's pool is this one.
    // In one language, the other's words are not used.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn vllm_side_note(&self, f: &VllmFigures, p: &mut Parts) {
        let Some(d) = self.disaggregation().filter(|_| self.text) else {
            return;
        };
        let (connector, role, side) = (d.backend.connector(), d.mode.kv_role(), d.mode.name());
        let tokens = super::super::thousands(f.tokens);
        let held = match f.pool {
            VllmPool::Card { concurrency, .. } => crate::units::short(concurrency),
            VllmPool::Demand { .. } => crate::units::short(self.batch as f64),
        };
        p.note(
            "vllm_pd",
            en!("PD disaggregation, the {side} side (--kv-transfer-config with kv_connector {connector}, kv_role {role}): the connector registers the KV pool vLLM already allocated for the transfer and holds no GPU memory of its own, and vLLM sizes the pool the same way on both sides. So the prefill instance and the decode instance with these settings each hold {tokens} tokens, {held} requests of max_model_len at once. Prefix caching holds no memory of its own either: it reuses the pool's blocks."),
            zh!("预填充与解码分离，{side} 端（--kv-transfer-config，kv_connector {connector}，kv_role {role}）：连接器只是把 vLLM 已分配的 KV 池注册用于传输，自身不占 GPU 显存，vLLM 在两端按同样方式确定池的大小。因此相同设置下预填充实例与解码实例各容纳 {tokens} 个 token，可同时容纳 {held} 个 max_model_len 长的请求。前缀缓存同样不占用额外显存：它复用池中的块。"),
        );
    }
}
