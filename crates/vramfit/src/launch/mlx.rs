//! mlx-lm's launches: `mlx_lm.generate` for one prompt (inference), `mlx_lm.server` for
//! requests (serve), after `mlx_lm.convert` where the estimate counts an MLX quantization of a
//! 16-bit checkpoint, and `sudo sysctl iogpu.wired_limit_mb=N` where the wired limit is raised.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::Builder;
use super::flags::{self, Setting};
use super::serve::Args;
use crate::error::Result;
use crate::estimate::{MLX_KV_GROUP_SIZE, MLX_QUANTIZED_KV_START, Mode, Workload};
use crate::precision::Quantization;
use crate::units::MIB;

/// The directory `mlx_lm.convert` writes a checkpoint's conversion to: its name and the format
/// as vramfit spells it (`Llama-3.1-8B-Instruct-mlx-4bit`), which the reader takes back.
pub(super) fn converted_path(id: &str, q: &Quantization) -> String {
    let stem = id.rsplit('/').next().unwrap_or(id);
    alloc::format!("{stem}-{}", q.name())
}

/// The launch of an mlx-lm run: the wired limit, the conversion, then the command.
pub(super) fn mlx(w: &Workload, l: &mut Builder) -> Result<()> {
    let p = super::serve::checkpoint(w)?;
    if let Some(limit) = w.mlx.wired_limit {
        l.command(
            ["sudo", "sysctl"]
                .map(String::from)
                .into_iter()
                .chain([alloc::format!("iogpu.wired_limit_mb={}", limit.get() / MIB)])
                .collect(),
        );
        l.note(
            "The wired limit lasts until the Mac restarts.".to_string(),
            "这个锁定上限在 Mac 重启前有效。".to_string(),
        );
    }
    let model = match w.quantization {
        Quantization::Mlx {
            mode,
            bits,
            group_size,
        } => {
            let path = converted_path(p.id, &w.quantization);
            let mut c: Vec<String> = [
                "mlx_lm.convert",
                "--hf-path",
                p.id,
                "--mlx-path",
                &path,
                "-q",
                "--q-bits",
            ]
            .map(String::from)
            .to_vec();
            c.extend([
                bits.to_string(),
                "--q-group-size".to_string(),
                group_size.to_string(),
            ]);
            if mode != crate::precision::MlxMode::Affine {
                c.extend(["--q-mode".to_string(), mode.name().to_string()]);
            }
            l.command(c);
            l.note(
                alloc::format!("`{path}` is written by mlx_lm.convert; an MLX repository of {} in this format (mlx-community's) loads the same.", p.id),
                alloc::format!("`{path}` 由 mlx_lm.convert 写出；{} 在同一格式下的 MLX 仓库（如 mlx-community 的）加载结果相同。", p.id),
            );
            path
        }
        _ => p.id.to_string(),
    };
    let s = &w.mlx;
    if w.mode == Mode::Serve {
        if let Some(field) = [
            ("max_kv_size", s.max_kv_size.is_some()),
            ("kv_bits", s.kv_bits.is_some()),
        ]
        .into_iter()
        .find_map(|(f, given)| given.then_some(f))
        {
            return Err(crate::input_error!(
                Unsupported,
                field,
                ["mlx_lm.server takes no {field}: it is mlx_lm.generate's"],
                ["mlx_lm.server 不接受 {field}：这是 mlx_lm.generate 的参数"],
                "mode inference (mlx_lm.generate), or no max_kv_size and kv_bits",
                "mode 为 inference（mlx_lm.generate），或不填 max_kv_size 与 kv_bits",
            ));
        }
        let mut a = Args::new(flags::MLX_SERVER, &["mlx_lm.server"]);
        a.set(Setting::Model, &model);
        a.set(Setting::BatchedTokens, w.max_num_batched_tokens);
        a.set(Setting::Parallel, w.batch);
        l.command(a.done());
        return Ok(());
    }
    if w.batch > 1 {
        let batch = w.batch;
        return Err(crate::input_error!(
            Unsupported,
            "batch",
            ["mlx_lm.generate runs one prompt, not {batch}"],
            ["mlx_lm.generate 一次只运行一个提示词，而不是 {batch} 个"],
            "batch 1, or mode serve (mlx_lm.server)",
            "batch 为 1，或 mode 为 serve（mlx_lm.server）",
        ));
    }
    let mut a = Args::new(flags::MLX_GENERATE, &["mlx_lm.generate"]);
    a.set(Setting::Model, &model);
    a.set(Setting::Prompt, "-");
    a.set(Setting::NewTokens, w.new_tokens);
    a.set(Setting::BatchedTokens, w.max_num_batched_tokens);
    if let Some(m) = s.max_kv_size {
        a.set(Setting::MaxKvSize, m);
    }
    if let Some(bits) = s.kv_bits {
        a.set(Setting::KvBits, bits);
        a.set_unless(Setting::KvGroupSize, s.kv_group_size, MLX_KV_GROUP_SIZE);
        a.set_unless(
            Setting::QuantizedKvStart,
            s.quantized_kv_start,
            MLX_QUANTIZED_KV_START,
        );
    }
    l.command(a.done());
    let tokens = w.seq_len;
    l.note(
        alloc::format!("--prompt - reads the prompt from standard input: the estimate counts one of {tokens} tokens."),
        alloc::format!("--prompt - 从标准输入读取提示词：估算按 {tokens} 个 token 的提示词计算。"),
    );
    Ok(())
}
