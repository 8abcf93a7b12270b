//! Ollama's one retry of a load that runs out of memory (0.30 on: `server/sched.go`,
//! ollama/ollama fb3076099, the code from 9db4bdbad of 2026-05-29, the first `llama-server`
//! release): when llama-server's load fails with an out-of-memory error
//! (`llm.IsOutOfMemory`) and `num_ctx` is Ollama's automatic one (`req.numCtxAuto`: no
//! `num_ctx` in the request or the Modelfile, no `OLLAMA_CONTEXT_LENGTH`;
//! `server/routes.go` `usesAutomaticNumCtx`), `reduceAutoNumCtxForLoadOOM` lowers it once
//! (`nextLowerAutoNumCtx` of the context clamped to the trained one: 32,768 above it, else
//! 4,096), sizes the batch again for it (`applyAutomaticGenerationBatch`) and loads again; a
//! `num_ctx` set by the user is never lowered, and the load's error is reported.

use super::super::{Parts, Run, b, thousands};

/// Ollama's next automatic `num_ctx` after a load that failed out of memory
/// (`nextLowerAutoNumCtx`): 32,768 above it, 4,096 above that, else none.
pub(super) fn next_lower_auto_num_ctx(num_ctx: u64) -> Option<u64> {
    if num_ctx > 32_768 {
        Some(32_768)
    } else if num_ctx > 4096 {
        Some(4096)
    } else {
        None
    }
}

impl Run<'_> {
    /// The note of the retry: the automatic `num_ctx` whose load failed, the one Ollama retried
    /// with, and whether that load fails too.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn ollama_retry_note(&self, p: &mut Parts, old: u64, new: u64, fails: bool) {
        let (old, new) = (thousands(old), thousands(new));
        let (then_en, then_zh) = if fails {
            (
                en!(" At num_ctx {new} it fails too, and Ollama reports the error."),
                zh!("num_ctx {new} 时同样失败，Ollama 报错。"),
            )
        } else {
            (
                en!(" Shown at num_ctx {new}, the load Ollama keeps."),
                zh!("此处按 num_ctx {new} 显示，即 Ollama 最终保留的加载。"),
            )
        };
        p.note(
            "ollama_retry",
            en!(
                "At Ollama's automatic num_ctx {old}, llama-server's load runs out of GPU memory: Ollama retries it once with num_ctx {new} (server/sched.go reduceAutoNumCtxForLoadOOM, nextLowerAutoNumCtx: 32,768 above it, else 4,096), its batch sized again.{then_en} A num_ctx you set is never lowered."
            ),
            zh!(
                "在 Ollama 自动选定的 num_ctx {old} 下，llama-server 加载时 GPU 显存不足：Ollama 以 num_ctx {new} 重试一次（server/sched.go reduceAutoNumCtxForLoadOOM、nextLowerAutoNumCtx：高于 32,768 时降到 32,768，否则降到 4,096），并重新确定批大小。{then_zh}用户自己设定的 num_ctx 不会被降低。"
            ),
        );
    }

    /// The note of a load that fails with no retry: `num_ctx` set by the user, or an automatic
    /// one of 4,096 or less, which Ollama does not lower.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn ollama_no_retry_note(&self, p: &mut Parts, num_ctx: u64) {
        let ctx = thousands(num_ctx);
        let (why_en, why_zh) = if self.auto_context {
            (
                en!("its automatic num_ctx is lowered only above 4,096"),
                zh!("自动 num_ctx 只有高于 4,096 时才会被降低"),
            )
        } else {
            (
                en!(
                    "it lowers only its automatic num_ctx, not one set by num_ctx, the Modelfile or OLLAMA_CONTEXT_LENGTH"
                ),
                zh!(
                    "它只降低自动选定的 num_ctx，不降低由 num_ctx、Modelfile 或 OLLAMA_CONTEXT_LENGTH 设定的值"
                ),
            )
        };
        p.note(
            "ollama_no_retry",
            en!(
                "At num_ctx {ctx}, llama-server's load runs out of GPU memory and Ollama reports the error without a retry: {why_en} (server/sched.go reduceAutoNumCtxForLoadOOM)."
            ),
            zh!(
                "num_ctx {ctx} 时 llama-server 加载显存不足，Ollama 直接报错而不重试：{why_zh}（server/sched.go reduceAutoNumCtxForLoadOOM）。"
            ),
        );
    }
}

#[cfg(test)]
#[path = "retry_tests.rs"]
mod tests;

impl Run<'_> {
    /// What a load that keeps part of the model in CPU memory asks of the host's memory, as
    /// Ollama checks it (`cpu`, its own estimate's total less its GPU part). Its Go runner
    /// (`llm/server.go` `Load`, to v0.24.0 at the tag): "On linux and windows, over-allocating
    /// CPU memory will almost always result in an error", so where `TotalSize − VRAMSize` is
    /// over the free memory and swap it fails with "model requires more system memory (…) than
    /// is available (…)", before any load and with no retry (macOS is not checked). From 0.30
    /// (`llama-server`) the check is gone from `llm/` (v0.30.0 to v0.32.15): llama-server
    /// allocates or maps that part itself, and the one retry of a failed load
    /// (`reduceAutoNumCtxForLoadOOM`) lowers `num_ctx`, which leaves the layers' weights as
    /// they are.
    #[cfg_attr(not(all(feature = "en", feature = "zh")), allow(unused_variables))]
    pub(super) fn ollama_system_memory_note(&self, p: &mut Parts, cpu: u64, llama_server: bool) {
        if cpu == 0 {
            return;
        }
        let need = b(cpu);
        if llama_server {
            p.note(
                "ollama_system_memory",
                en!(
                    "{need} of the model stays in CPU memory: have that much system memory free. Ollama from 0.30 does not check it before the load (its Go runner's \"model requires more system memory\" check is gone), and its one retry of a load that runs out of memory lowers num_ctx, which does not shrink the layers kept in CPU memory."
                ),
                zh!(
                    "模型有 {need} 留在 CPU 内存：系统内存需空闲这么多。Ollama 0.30 起加载前不再检查（Go 运行器的 \"model requires more system memory\" 检查已去掉），内存不足时的那一次重试只降低 num_ctx，留在 CPU 内存的层并不因此变小。"
                ),
            );
        } else {
            p.note(
                "ollama_system_memory",
                en!(
                    "{need} of the model stays in CPU memory (Ollama's estimate less its GPU part): on Linux and Windows Ollama's Go runner loads it only where free system memory and swap hold that much, else it fails with \"model requires more system memory ({need}) than is available\" and does not retry (llm/server.go, to v0.24.0; macOS is not checked)."
                ),
                zh!(
                    "模型有 {need} 留在 CPU 内存（Ollama 的估算减去其 GPU 部分）：在 Linux 与 Windows 上，Ollama 的 Go 运行器只在空闲系统内存加交换空间放得下时才加载，否则报错 \"model requires more system memory ({need}) than is available\" 且不重试（llm/server.go，至 v0.24.0；macOS 不检查）。"
                ),
            );
        }
    }
}
