//! The launches of the engines that run a GGUF file on the machine at hand: llama.cpp's
//! `llama-server` and Ollama.

use alloc::string::{String, ToString};

use super::flags::{self, Setting};
use super::serve::Args;
use super::{Builder, no_model_name};
use crate::error::Result;
use crate::estimate::{Kernel, SplitMode, Workload};
use crate::estimate::{is_ollama_name, ollama_models};
use crate::precision::{Dtype, KvDtype, Quantization};

/// The GGUF file type the run counts (a 16-bit file for an unquantized one).
fn file_type(w: &Workload) -> String {
    match w.quantization {
        Quantization::Gguf { file_type } => file_type.name().to_ascii_uppercase(),
        _ if w.dtype == Dtype::Bf16 => "BF16".to_string(),
        _ => "F16".to_string(),
    }
}

/// llama.cpp's name of a KV cache type, where it is not its default f16.
fn cache_type(kv: KvDtype) -> Option<&'static str> {
    match kv {
        KvDtype::Q8_0 => Some("q8_0"),
        KvDtype::Q4_0 => Some("q4_0"),
        KvDtype::Bf16 => Some("bf16"),
        KvDtype::Auto | KvDtype::Fp16 | KvDtype::Fp8 | KvDtype::Nvfp4 => None,
    }
}

/// `llama-server -m FILE.gguf …`: the context all sequences share (`-c`), the sequences
/// (`-np`), the layers on the GPUs (`-ngl`, the output layer counted as one), the physical
/// batch, `--embedding` for a pooling run, the cache types, flash attention and
/// `--kv-unified` where the cache is to be one.
pub(super) fn llama_server(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = super::serve::checkpoint(w)?;
    let ft = file_type(w);
    let stem = p.id.rsplit('/').next().unwrap_or(p.id);
    let file = alloc::format!("{stem}-{ft}.gguf");
    l.note(
        alloc::format!("`{file}` stands for your GGUF file of {} in {ft}.", p.id),
        alloc::format!("`{file}` 指你的 {} 的 {ft} GGUF 文件。", p.id),
    );
    let mut a = Args::new(flags::LLAMA_SERVER, &["llama-server"]);
    a.set(Setting::Model, &file);
    a.set(Setting::Context, w.max_model_len);
    a.set(Setting::Parallel, w.batch);
    a.set(Setting::GpuLayers, w.gpu_layers);
    a.set(Setting::Ubatch, w.ubatch);
    // An embedding or reranking run: the GGUF's own pooling type, an encoder's input in one
    // ubatch (`-ub` above, checked by the estimate).
    if w.pooling {
        a.switch(Setting::IsEmbedding);
    }
    if let Some(t) = cache_type(w.kv_dtype) {
        a.set(Setting::KvDtype, t);
        a.set(Setting::KvDtypeV, t);
    }
    let fa = if w.kernel == Kernel::Flash {
        "on"
    } else {
        "off"
    };
    a.set(Setting::FlashAttn, fa);
    a.set_unless(Setting::NCpuMoe, w.n_cpu_moe, 0);
    // One KV cache for the sequences where asked; without the flag, -np splits it by sequence.
    if w.kv_unified == Some(true) {
        a.switch(Setting::KvUnified);
    }
    // Each slot's cap (ggml-org/llama.cpp#24124): `-c` above already pins the pool it sized.
    if let Some(n) = w.kv_unified_per_slot {
        a.set(Setting::KvPerSlot, n);
        l.note(
            String::from(
                "--kv-unified-per-slot needs llama.cpp build b10662 or later (ggml-org/llama.cpp#24124); an older llama-server refuses it: leave it out there, -c already sizes the KV pool.",
            ),
            String::from(
                "--kv-unified-per-slot 需要 llama.cpp b10662 或更新的构建（ggml-org/llama.cpp#24124）；更早的 llama-server 不认这个参数：那里去掉它即可，-c 已给出 KV 池的大小。",
            ),
        );
    }
    split_flags(w, &mut a, l);
    l.command(a.done());
    Ok(())
}

/// llama.cpp's split over several GPUs: `-sm none` with its `-mg`, or the tensor split given
/// (`-ts 3,1`); over unlike cards without one, a note that llama.cpp splits by free memory.
fn split_flags(w: &Workload, a: &mut Args<'_>, l: &mut Builder) {
    if w.split_mode == SplitMode::None {
        a.set(Setting::SplitMode, SplitMode::None.name());
        a.set_unless(Setting::MainGpu, w.main_gpu, 0);
        return;
    }
    if !w.tensor_split.is_empty() {
        let shares: alloc::vec::Vec<String> = w
            .tensor_split
            .iter()
            .map(|x| alloc::format!("{x}"))
            .collect();
        a.set(Setting::TensorSplit, shares.join(","));
    } else if !w.cards.is_empty() {
        let ids: alloc::vec::Vec<&str> = w.cards.iter().map(|d| d.id).collect();
        let ids = ids.join(", ");
        l.note(
            alloc::format!(
                "llama.cpp numbers the GPUs as CUDA does ({ids}, in this order: set CUDA_VISIBLE_DEVICES to match) and splits the layers by each one's free memory at start; give -ts to fix the split the estimate assumed."
            ),
            alloc::format!(
                "llama.cpp 按 CUDA 的顺序编号 GPU（{ids}，依此顺序：用 CUDA_VISIBLE_DEVICES 对应），并按启动时各卡的空闲显存切分层；可用 -ts 固定估算所假定的切分。"
            ),
        );
    }
}

/// The Ollama library tag of the run: the name given, the default tag the estimator ran the
/// preset as, or the tag of its preset in the file type asked for.
fn ollama_tag(w: &Workload) -> Option<String> {
    if is_ollama_name(&w.model_name) {
        return Some(w.model_name.clone());
    }
    if let Some(tag) = &w.ollama_tag {
        return Some(tag.clone());
    }
    let p = crate::presets::find(&w.model_name)?;
    let Quantization::Gguf { file_type } = w.quantization else {
        return None;
    };
    ollama_models().iter().find_map(|m| {
        let t = m
            .tags
            .iter()
            .find(|t| t.preset == p.id && t.file_type == file_type)?;
        Some(alloc::format!("{}:{}", m.name, t.size))
    })
}

/// Ollama: the server's environment (`OLLAMA_NUM_PARALLEL`, `OLLAMA_FLASH_ATTENTION`,
/// `OLLAMA_KV_CACHE_TYPE`), a Modelfile with `PARAMETER num_ctx` (and `num_gpu` where given),
/// then `ollama create` and `ollama run`.
pub(super) fn ollama(w: &Workload, l: &mut Builder) -> Result<()> {
    let tag = ollama_tag(w).ok_or_else(|| no_model_name(w))?;
    l.env("OLLAMA_NUM_PARALLEL", w.batch.to_string());
    if w.kernel == Kernel::Flash {
        l.env("OLLAMA_FLASH_ATTENTION", "1".to_string());
    }
    if let Some(t) = cache_type(w.kv_dtype) {
        l.env("OLLAMA_KV_CACHE_TYPE", t.to_string());
    }
    let mut modelfile = alloc::format!("FROM {tag}\nPARAMETER num_ctx {}\n", w.max_model_len);
    if let Some(n) = w.num_gpu {
        modelfile += &alloc::format!("PARAMETER num_gpu {n}\n");
    }
    l.file("Modelfile", modelfile);
    let name = alloc::format!("{}-ctx{}", tag.replace([':', '/'], "-"), w.max_model_len);
    l.note(
        "Run `ollama serve` with this environment (or set it where the Ollama service starts), then the commands.".to_string(),
        "请在此环境下运行 `ollama serve`（或在 Ollama 服务启动处设置这些变量），再运行这些命令。".to_string(),
    );
    l.command(
        ["ollama", "create", &name, "-f", "Modelfile"]
            .map(String::from)
            .to_vec(),
    );
    l.command(["ollama", "run", &name].map(String::from).to_vec());
    Ok(())
}
