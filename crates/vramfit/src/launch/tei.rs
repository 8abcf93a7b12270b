//! The launch of Text Embeddings Inference: its CUDA image run by Docker, as TEI's README
//! writes it (huggingface/text-embeddings-inference v1.9.3, `README.md`: `docker run --gpus
//! all -p 8080:80 -v $volume:/data --pull always
//! ghcr.io/huggingface/text-embeddings-inference:cuda-1.9 --model-id $model`), with the
//! numbers the estimate used: `--max-batch-tokens` always, `--dtype` always (TEI's default,
//! float16, written out so that the run is the one estimated).

use alloc::string::ToString;

use super::Builder;
use super::flags::{self, Setting};
use super::serve::{Args, checkpoint};
use crate::error::Result;
use crate::estimate::Workload;
use crate::precision::Dtype;

/// The image and tag written: TEI's CUDA image for every card from Turing on (its README's
/// `cuda-1.9`; the per-architecture tags `hopper-1.9`, `86-1.9` … run the same router).
pub(crate) const TEI_IMAGE: &str = "ghcr.io/huggingface/text-embeddings-inference:cuda-1.9";

/// `docker run … TEI_IMAGE --model-id MODEL --dtype … --max-batch-tokens N`.
pub(super) fn tei(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = checkpoint(w)?;
    let mut a = Args::new(
        flags::TEI,
        &[
            "docker",
            "run",
            "--gpus",
            "all",
            "-p",
            "8080:80",
            "-v",
            "tei-data:/data",
            TEI_IMAGE,
        ],
    );
    a.set(Setting::Model, p.id);
    // The workload's dtype is float16 or float32 (`estimate/tei.rs` refuses the others).
    let dtype = if w.dtype == Dtype::Fp32 {
        "float32"
    } else {
        "float16"
    };
    a.set(Setting::Dtype, dtype);
    a.set(Setting::BatchedTokens, w.max_num_batched_tokens);
    l.command(a.done());
    l.note(
        "`-v tei-data:/data` keeps the downloaded weights in a Docker volume between runs (the image's HUGGINGFACE_HUB_CACHE is /data); the server answers on port 8080 (/embed, /rerank, /v1/embeddings).".to_string(),
        "`-v tei-data:/data` 用一个 Docker 卷在多次运行之间保留下载的权重（镜像的 HUGGINGFACE_HUB_CACHE 为 /data）；服务在 8080 端口响应（/embed、/rerank、/v1/embeddings）。".to_string(),
    );
    Ok(())
}
