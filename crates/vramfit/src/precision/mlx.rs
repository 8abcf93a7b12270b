//! MLX's quantization modes and the widths and groups `mx.quantize` takes (mlx 0.32).

use super::Quantization;
use crate::error::Result;

/// MLX's quantization modes (`mx.quantize(..., mode=)`, mlx 0.32; `mlx_lm.utils.quantize_model`'s
/// defaults per mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum MlxMode {
    /// Integer codes with a scale and a bias per group in the weights' dtype.
    #[default]
    Affine,
    /// OCP MXFP4: E2M1 codes, one E8M0 byte per 32.
    Mxfp4,
    /// NVFP4: E2M1 codes, one E4M3 byte per 16.
    Nvfp4,
    /// OCP MXFP8: E4M3 codes, one E8M0 byte per 32.
    Mxfp8,
}

impl MlxMode {
    /// The mode as `config.json` and `--q-mode` spell it.
    pub const fn name(self) -> &'static str {
        match self {
            MlxMode::Affine => "affine",
            MlxMode::Mxfp4 => "mxfp4",
            MlxMode::Nvfp4 => "nvfp4",
            MlxMode::Mxfp8 => "mxfp8",
        }
    }

    /// The mode `config.json` or `--q-mode` names.
    pub fn parse(s: &str) -> Option<MlxMode> {
        [
            MlxMode::Affine,
            MlxMode::Mxfp4,
            MlxMode::Nvfp4,
            MlxMode::Mxfp8,
        ]
        .into_iter()
        .find(|m| m.name() == s)
    }

    /// The bits and group size of a floating-point mode, which take no others (`None` for
    /// affine).
    pub const fn fixed(self) -> Option<(u8, u32)> {
        match self {
            MlxMode::Affine => None,
            MlxMode::Mxfp4 => Some((4, 32)),
            MlxMode::Nvfp4 => Some((4, 16)),
            MlxMode::Mxfp8 => Some((8, 32)),
        }
    }

    /// Bytes per group beside the codes: an affine scale and bias in the weights' dtype of
    /// `dtype_bytes` each, else one 8-bit scale.
    pub const fn group_bytes(self, dtype_bytes: u64) -> u64 {
        match self {
            MlxMode::Affine => 2 * dtype_bytes,
            _ => 1,
        }
    }
}

/// MLX's affine widths (`mx.quantize` in mlx 0.32).
pub const MLX_BITS: [u8; 6] = [2, 3, 4, 5, 6, 8];

/// MLX's affine group sizes.
pub const MLX_GROUPS: [u32; 3] = [32, 64, 128];

/// Checks an MLX format's parameters: a floating-point mode's fixed bits and group, an affine
/// width and group mlx takes.
pub(super) fn validate(field: &str, mode: MlxMode, bits: u8, group_size: u32) -> Result<()> {
    match mode.fixed() {
        Some((b, g)) if (b, g) != (bits, group_size) => Err(input_error!(
            OutOfRange,
            alloc::format!("{field}.group_size"),
            [
                "MLX {} takes {b} bits in groups of {g}, not {bits} in groups of {group_size}",
                mode.name()
            ],
            [
                "MLX {} 为每组 {g} 个、{b} 位，而不是每组 {group_size} 个、{bits} 位",
                mode.name()
            ],
            "mxfp4: 4 bits, groups of 32; nvfp4: 4 bits, groups of 16; mxfp8: 8 bits, groups of 32",
            "mxfp4：4 位、每组 32；nvfp4：4 位、每组 16；mxfp8：8 位、每组 32",
        )),
        Some(_) => Ok(()),
        None if !MLX_BITS.contains(&bits) => Err(input_error!(
            OutOfRange,
            alloc::format!("{field}.bits"),
            ["{bits} is not an MLX width"],
            ["{bits} 不是 MLX 的位宽"],
            "2, 3, 4, 5, 6 or 8",
            "2、3、4、5、6 或 8",
        )),
        None if !MLX_GROUPS.contains(&group_size) => Err(input_error!(
            OutOfRange,
            alloc::format!("{field}.group_size"),
            ["{group_size} is not an MLX group size"],
            ["{group_size} 不是 MLX 的分组大小"],
            "32, 64 or 128",
            "32、64 或 128",
        )),
        None => Ok(()),
    }
}

impl Quantization {
    /// Reads `mlx-<bits>bit`, `mlx-<bits>bit-g<group>` (affine; group 64 when not given,
    /// `mlx_lm.convert`'s default) and `mlx-mxfp4`, `mlx-nvfp4`, `mlx-mxfp8`; `None` for
    /// anything else (the widths and groups are checked by [`Quantization::validate`]).
    pub(super) fn parse_mlx(s: &str) -> Option<Quantization> {
        let rest = s.strip_prefix("mlx-")?;
        if let Some(mode) = MlxMode::parse(rest).filter(|m| *m != MlxMode::Affine) {
            let (bits, group_size) = mode.fixed()?;
            return Some(Quantization::Mlx {
                mode,
                bits,
                group_size,
            });
        }
        let (bits, group) = match rest.split_once("bit-g") {
            Some((b, g)) => (b, g.parse::<u32>().ok()?),
            None => (rest.strip_suffix("bit")?, 64),
        };
        let bits = bits.parse::<u8>().ok()?;
        let q = Quantization::Mlx {
            mode: MlxMode::Affine,
            bits,
            group_size: group,
        };
        q.validate("quantization").ok().map(|()| q)
    }
}
