//! mlx-lm's settings (`--max-kv-size`, `--kv-bits`, `--kv-group-size`, `--quantized-kv-start`)
//! checked as mlx-lm takes them, the card an MLX run needs (Apple silicon), and macOS's
//! `iogpu.wired_limit_mb` in place of Metal's working set.

use super::{MAX_SEQ, int};
use crate::error::Result;
use crate::estimate::{Device, EstimateInput};
use crate::precision::MLX_GROUPS;
use crate::units::{Bytes, GIB, MIB};

/// What macOS keeps for itself when the GPU's wired limit is raised: the limit is refused above
/// the Mac's RAM less this. mlx-lm's README asks for a limit "smaller than the memory size of
/// the machine" (ml-explore/mlx-lm README, "Large Models", at d78bf58, 2026-08-22); a headless
/// 64 GB M2 Max "consumes about 4GB out of its total 64GB at idle" (jundot/omlx issue 1533,
/// 2026-05-30). A desktop with applications open needs more: the estimate's note says so.
pub const MACOS_RESERVE: Bytes = Bytes::new(4 * GIB);

/// `mlx_lm.generate`'s `DEFAULT_QUANTIZED_KV_START` (`mlx_lm/generate.py` at d78bf58): the KV
/// cache is quantized once this many tokens are cached.
pub const MLX_QUANTIZED_KV_START: u64 = 5000;

/// `--kv-group-size`'s default (`mlx_lm/generate.py`).
pub const MLX_KV_GROUP_SIZE: u64 = 64;

/// mlx-lm's settings of a run, given or its defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MlxSettings {
    /// `--max-kv-size`: a rotating cache of this many tokens.
    pub max_kv_size: Option<u64>,
    /// `--kv-bits`: the KV cache quantized to these bits.
    pub kv_bits: Option<u8>,
    /// `--kv-group-size`.
    pub kv_group_size: u64,
    /// `--quantized-kv-start`.
    pub quantized_kv_start: u64,
    /// `iogpu.wired_limit_mb` as given, in bytes.
    pub wired_limit: Option<Bytes>,
}

impl EstimateInput {
    /// mlx-lm's settings, refused on another engine; the card an MLX run takes (an Apple card,
    /// or a memory size given as its working set); the card's memory replaced by the wired
    /// limit when one is given (any engine: it is the Mac's setting).
    pub(super) fn resolve_mlx(
        &self,
        device: Option<Device>,
    ) -> Result<(Option<Device>, MlxSettings)> {
        let is_mlx = self.runner() == crate::estimate::Runner::Mlx;
        let given = [
            ("max_kv_size", self.serving.max_kv_size),
            ("kv_bits", self.serving.kv_bits),
            ("kv_group_size", self.serving.kv_group_size),
            ("quantized_kv_start", self.serving.quantized_kv_start),
            ("wired_limit_mb", self.hardware.wired_limit_mb),
        ];
        // A build without the `mlx` feature reads none of them, and refuses the first given
        // ([`super::checks::not_built`]); mlx-lm itself it refuses as an engine not built.
        if !cfg!(feature = "mlx") {
            return match given.iter().find(|(_, v)| v.is_some()) {
                Some((field, _)) => Err(super::checks::not_built(field)),
                None => Ok((
                    device,
                    MlxSettings {
                        kv_group_size: MLX_KV_GROUP_SIZE,
                        quantized_kv_start: MLX_QUANTIZED_KV_START,
                        ..MlxSettings::default()
                    },
                )),
            };
        }
        let given = &given[..4];
        if let Some((field, _)) = given.iter().find(|(_, v)| v.is_some()).filter(|_| !is_mlx) {
            return Err(input_error!(
                Unsupported,
                *field,
                ["{field} is mlx-lm's setting"],
                ["{field} 是 mlx-lm 的设置"],
                "none, or engine mlx",
                "不填，或使用 mlx 引擎",
            ));
        }
        if self.serving.kv_bits.is_none()
            && let Some((field, _)) = given[2..].iter().find(|(_, v)| v.is_some())
        {
            return Err(input_error!(
                Conflict,
                *field,
                ["{field} applies to a quantized KV cache: kv_bits is not given"],
                ["{field} 只用于量化的 KV 缓存：未给出 kv_bits"],
                "kv_bits with it, or neither",
                "与 kv_bits 一起给出，或都不填",
            ));
        }
        let kv_bits = match self.serving.kv_bits {
            Some(v) => {
                let b = int("kv_bits", v, 2, 8)?;
                if !matches!(b, 2 | 3 | 4 | 5 | 6 | 8) {
                    return Err(input_error!(
                        OutOfRange,
                        "kv_bits",
                        ["{b} is not an MLX width"],
                        ["{b} 不是 MLX 的位宽"],
                        "2, 3, 4, 5, 6 or 8",
                        "2、3、4、5、6 或 8",
                    ));
                }
                Some(b as u8)
            }
            None => None,
        };
        let kv_group_size = match self.serving.kv_group_size {
            Some(v) => {
                let g = int("kv_group_size", v, 1, 128)?;
                if !MLX_GROUPS.contains(&(g as u32)) {
                    return Err(input_error!(
                        OutOfRange,
                        "kv_group_size",
                        ["{g} is not an MLX group size"],
                        ["{g} 不是 MLX 的分组大小"],
                        "32, 64 or 128",
                        "32、64 或 128",
                    ));
                }
                g
            }
            None => MLX_KV_GROUP_SIZE,
        };
        let quantized_kv_start = self
            .serving
            .quantized_kv_start
            .map(|v| int("quantized_kv_start", v, 0, MAX_SEQ))
            .transpose()?
            .unwrap_or(MLX_QUANTIZED_KV_START);
        let max_kv_size = self
            .serving
            .max_kv_size
            .map(|v| int("max_kv_size", v, 1, MAX_SEQ))
            .transpose()?;
        // mlx-lm's `RotatingKVCache.to_quantized` is not implemented: `--kv-bits` with
        // `--max-kv-size` fails once the cache is quantized.
        if max_kv_size.is_some() && kv_bits.is_some() {
            return Err(input_error!(
                Conflict,
                "kv_bits",
                "mlx-lm does not quantize a rotating KV cache (--max-kv-size)",
                "mlx-lm 不量化旋转 KV 缓存（--max-kv-size）",
                "kv_bits or max_kv_size, not both",
                "kv_bits 与 max_kv_size 二者之一",
            ));
        }
        if is_mlx
            && let Some(d) = device.as_ref()
            && d.gpu.is_some_and(|g| !g.generation().apple())
        {
            let id = d.id;
            return Err(input_error!(
                Unsupported,
                "gpu",
                ["mlx-lm runs on Apple silicon (Metal), not on {id}"],
                ["mlx-lm 运行在 Apple 芯片（Metal）上，不能运行在 {id} 上"],
                "an Apple card such as apple-m4-max-128gb, or gpu_memory (the Mac's GPU working set)",
                "Apple 芯片，如 apple-m4-max-128gb，或 gpu_memory（Mac 的 GPU 工作集）",
            ));
        }
        let (device, wired_limit) = self.wired_limit(device)?;
        Ok((
            device,
            MlxSettings {
                max_kv_size,
                kv_bits,
                kv_group_size,
                quantized_kv_start,
                wired_limit,
            },
        ))
    }

    /// The card with `iogpu.wired_limit_mb` as its memory: on an Apple card of the catalog
    /// only, from 256 MiB to its RAM less [`MACOS_RESERVE`].
    fn wired_limit(&self, device: Option<Device>) -> Result<(Option<Device>, Option<Bytes>)> {
        let Some(mb) = self.hardware.wired_limit_mb else {
            return Ok((device, None));
        };
        let Some((mut d, g)) = device.and_then(|d| d.gpu.map(|g| (d, g))) else {
            return Err(input_error!(
                Conflict,
                "wired_limit_mb",
                "iogpu.wired_limit_mb is a Mac's setting: no Apple card of the catalog is named",
                "iogpu.wired_limit_mb 是 Mac 的设置：没有指定目录中的 Apple 芯片",
                "an Apple card (gpu apple-m4-max-128gb …) with it, or no wired_limit_mb",
                "与 Apple 芯片（gpu apple-m4-max-128gb 等）一起给出，或不填 wired_limit_mb",
            ));
        };
        let ram = g.unified_memory_bytes.get();
        if ram == 0 {
            let id = d.id;
            return Err(input_error!(
                Unsupported,
                "wired_limit_mb",
                ["{id} has memory of its own, not a Mac's unified memory"],
                ["{id} 有独立显存，不是 Mac 的统一内存"],
                "an Apple card (apple-m1-max-64gb … apple-m3-ultra-512gb), or no wired_limit_mb",
                "Apple 芯片（apple-m1-max-64gb … apple-m3-ultra-512gb），或不填 wired_limit_mb",
            ));
        }
        let top = ram.saturating_sub(MACOS_RESERVE.get()) / MIB;
        let limit = int("wired_limit_mb", mb, 256, top).map_err(|_| {
            // As error messages write numbers: core's float formatter stays out of the
            // modules that format no other float.
            let (ram_gib, id, mb) = (ram / GIB, d.id, crate::units::number_text(mb));
            input_error!(
                OutOfRange,
                "wired_limit_mb",
                ["{mb} MiB is outside what {id} ({ram_gib} GiB of RAM) can wire"],
                ["{mb} MiB 超出 {id}（{ram_gib} GiB 内存）可锁定的范围"],
                ["a whole number of MiB from 256 to {top} (the RAM less 4 GiB for macOS)"],
                ["256 到 {top} 之间的整数 MiB（内存减去留给 macOS 的 4 GiB）"],
            )
        })?;
        let bytes = Bytes::new(limit * MIB);
        d.memory = bytes;
        Ok((Some(d), Some(bytes)))
    }
}
