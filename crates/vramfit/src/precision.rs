//! Number formats: plain dtypes, quantization formats with their true bits per weight, and the
//! KV-cache dtype.
//!
//! Bits per weight include every stored byte of a quantized tensor (scales, zero points, block
//! headers), because that is what lands in GPU memory.

use core::fmt;

use crate::error::Result;

mod mlx;
#[cfg(feature = "serde")]
mod quantization_serde;

pub use mlx::{MLX_BITS, MLX_GROUPS, MlxMode};

/// A plain element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
pub enum Dtype {
    /// 32-bit float, 4 bytes.
    Fp32,
    /// IEEE half, 2 bytes.
    Fp16,
    /// bfloat16, 2 bytes.
    Bf16,
    /// 8-bit float (E4M3/E5M2), 1 byte.
    Fp8,
    /// 8-bit integer, 1 byte.
    Int8,
    /// 4-bit integer, half a byte (the guide's rule; real int4 formats carry scales, see [`Quantization`]).
    Int4,
}

impl Dtype {
    /// Bits per element.
    pub const fn bits(self) -> u32 {
        match self {
            Dtype::Fp32 => 32,
            Dtype::Fp16 | Dtype::Bf16 => 16,
            Dtype::Fp8 | Dtype::Int8 => 8,
            Dtype::Int4 => 4,
        }
    }

    /// The guide's bytes per parameter `b` (§2.1): fp32 4, fp16/bf16 2, int8 1, int4 0.5.
    pub fn bytes(self) -> f64 {
        self.bits() as f64 / 8.0
    }

    /// Lower-case name as the CLI and JSON spell it.
    pub const fn name(self) -> &'static str {
        match self {
            Dtype::Fp32 => "fp32",
            Dtype::Fp16 => "fp16",
            Dtype::Bf16 => "bf16",
            Dtype::Fp8 => "fp8",
            Dtype::Int8 => "int8",
            Dtype::Int4 => "int4",
        }
    }

    /// Parses `fp32|fp16|bf16|fp8|int8|int4` (also `float32`, `float16`, `bfloat16`, `half`).
    pub fn parse(field: &str, s: &str) -> Result<Dtype> {
        // `strip_prefix`, not `trim_start_matches`: the same for one prefix, without core's
        // substring search in the wasm modules.
        let lower = s.trim().to_ascii_lowercase();
        Ok(match lower.strip_prefix("torch.").unwrap_or(&lower) {
            "fp32" | "float32" | "float" | "f32" => Dtype::Fp32,
            "fp16" | "float16" | "half" | "f16" => Dtype::Fp16,
            "bf16" | "bfloat16" => Dtype::Bf16,
            "fp8" | "float8" | "float8_e4m3fn" | "f8" => Dtype::Fp8,
            "int8" | "i8" => Dtype::Int8,
            "int4" | "i4" => Dtype::Int4,
            other => {
                return Err(input_error!(
                    UnknownName,
                    field,
                    ["unknown dtype `{other}`"],
                    ["未知的数据类型 `{other}`"],
                    "fp32, fp16, bf16, fp8, int8, int4",
                    "fp32, fp16, bf16, fp8, int8, int4",
                ));
            }
        })
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A ggml tensor type, as GGUF files store them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "UPPERCASE")
)]
#[allow(non_camel_case_types, missing_docs)]
pub enum GgmlType {
    F32,
    F16,
    BF16,
    Q8_0,
    Q4_0,
    Q4_1,
    Q5_0,
    Q5_1,
    Q2_K,
    Q3_K,
    Q4_K,
    Q5_K,
    Q6_K,
    Q8_K,
    /// 4-bit non-linear, blocks of 32: llama.cpp's fallback for Q2_K and Q3_K rows that are not
    /// whole super-blocks of 256.
    IQ4_NL,
}

impl GgmlType {
    /// (bytes per block, weights per block), from ggml's block structs (`ggml-common.h`):
    /// `block_q4_0` is an f16 scale + 16 bytes of nibbles for 32 weights = 18 bytes; the k-quants
    /// use super-blocks of 256 weights (`QK_K`), e.g. `block_q4_K` = 2 f16 + 12 scale bytes + 128
    /// bytes = 144 bytes.
    pub const fn block(self) -> (u64, u64) {
        match self {
            GgmlType::F32 => (4, 1),
            GgmlType::F16 | GgmlType::BF16 => (2, 1),
            GgmlType::Q8_0 => (34, 32),
            GgmlType::Q4_0 => (18, 32),
            GgmlType::Q4_1 => (20, 32),
            GgmlType::Q5_0 => (22, 32),
            GgmlType::Q5_1 => (24, 32),
            GgmlType::Q2_K => (84, 256),
            GgmlType::Q3_K => (110, 256),
            GgmlType::Q4_K => (144, 256),
            GgmlType::Q5_K => (176, 256),
            GgmlType::Q6_K => (210, 256),
            GgmlType::Q8_K => (292, 256),
            // `block_iq4_nl`: an f16 scale + 16 bytes of 4-bit indices for 32 weights.
            GgmlType::IQ4_NL => (18, 32),
        }
    }

    /// Bits per weight: 8 × block bytes / block weights (Q4_K: 8 × 144 / 256 = 4.5).
    pub fn bits_per_weight(self) -> f64 {
        let (b, n) = self.block();
        8.0 * b as f64 / n as f64
    }

    /// Bytes of a tensor of `n` weights: whole blocks (ggml requires rows to be block multiples;
    /// a partial block is rounded up).
    pub const fn bytes_for(self, n: u64) -> u64 {
        let (b, per) = self.block();
        n.div_ceil(per).saturating_mul(b)
    }

    /// The ggml type id in GGUF files (`enum ggml_type`).
    pub const fn from_id(id: u32) -> Option<GgmlType> {
        Some(match id {
            0 => GgmlType::F32,
            1 => GgmlType::F16,
            2 => GgmlType::Q4_0,
            3 => GgmlType::Q4_1,
            6 => GgmlType::Q5_0,
            7 => GgmlType::Q5_1,
            8 => GgmlType::Q8_0,
            10 => GgmlType::Q2_K,
            11 => GgmlType::Q3_K,
            12 => GgmlType::Q4_K,
            13 => GgmlType::Q5_K,
            14 => GgmlType::Q6_K,
            15 => GgmlType::Q8_K,
            20 => GgmlType::IQ4_NL,
            30 => GgmlType::BF16,
            _ => return None,
        })
    }
}

/// A GGUF file type (llama.cpp's `llama_ftype`): a base ggml type plus the rule that gives some
/// tensors more bits (`llama_tensor_get_type` in llama.cpp's `llama-quant.cpp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[allow(non_camel_case_types, missing_docs)]
pub enum GgufFileType {
    F16,
    Q8_0,
    Q6_K,
    Q5_K_M,
    Q5_K_S,
    Q5_1,
    Q5_0,
    Q4_K_M,
    Q4_K_S,
    Q4_1,
    Q4_0,
    Q3_K_L,
    Q3_K_M,
    Q3_K_S,
    Q2_K,
}

impl GgufFileType {
    /// Every file type, in decreasing size.
    pub const ALL: [GgufFileType; 15] = [
        GgufFileType::F16,
        GgufFileType::Q8_0,
        GgufFileType::Q6_K,
        GgufFileType::Q5_K_M,
        GgufFileType::Q5_K_S,
        GgufFileType::Q5_1,
        GgufFileType::Q5_0,
        GgufFileType::Q4_K_M,
        GgufFileType::Q4_K_S,
        GgufFileType::Q4_1,
        GgufFileType::Q4_0,
        GgufFileType::Q3_K_L,
        GgufFileType::Q3_K_M,
        GgufFileType::Q3_K_S,
        GgufFileType::Q2_K,
    ];

    /// Lower-case name: `q4_k_m`.
    pub const fn name(self) -> &'static str {
        match self {
            GgufFileType::F16 => "f16",
            GgufFileType::Q8_0 => "q8_0",
            GgufFileType::Q6_K => "q6_k",
            GgufFileType::Q5_K_M => "q5_k_m",
            GgufFileType::Q5_K_S => "q5_k_s",
            GgufFileType::Q5_1 => "q5_1",
            GgufFileType::Q5_0 => "q5_0",
            GgufFileType::Q4_K_M => "q4_k_m",
            GgufFileType::Q4_K_S => "q4_k_s",
            GgufFileType::Q4_1 => "q4_1",
            GgufFileType::Q4_0 => "q4_0",
            GgufFileType::Q3_K_L => "q3_k_l",
            GgufFileType::Q3_K_M => "q3_k_m",
            GgufFileType::Q3_K_S => "q3_k_s",
            GgufFileType::Q2_K => "q2_k",
        }
    }

    /// The base type of the bulk of the weights.
    pub const fn base(self) -> GgmlType {
        match self {
            GgufFileType::F16 => GgmlType::F16,
            GgufFileType::Q8_0 => GgmlType::Q8_0,
            GgufFileType::Q6_K => GgmlType::Q6_K,
            GgufFileType::Q5_K_M | GgufFileType::Q5_K_S => GgmlType::Q5_K,
            GgufFileType::Q5_1 => GgmlType::Q5_1,
            GgufFileType::Q5_0 => GgmlType::Q5_0,
            GgufFileType::Q4_K_M | GgufFileType::Q4_K_S => GgmlType::Q4_K,
            GgufFileType::Q4_1 => GgmlType::Q4_1,
            GgufFileType::Q4_0 => GgmlType::Q4_0,
            GgufFileType::Q3_K_L | GgufFileType::Q3_K_M | GgufFileType::Q3_K_S => GgmlType::Q3_K,
            GgufFileType::Q2_K => GgmlType::Q2_K,
        }
    }
}

/// How the weights are stored; as JSON, tagged by `format`:
/// `{"format": "gptq", "bits": 4, "group_size": 128}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(tag = "format", rename_all = "kebab-case")
)]
pub enum Quantization {
    /// Unquantized: every weight in the model dtype.
    #[default]
    None,
    /// FP8 weights with one fp32 scale per output channel (vLLM `--quantization fp8`,
    /// compressed-tensors `fp8-dynamic`); embeddings and the LM head stay in the model dtype.
    Fp8,
    /// compressed-tensors W8A8: int8 weights, one fp32 scale per output channel.
    W8a8,
    /// compressed-tensors W4A16: 4-bit weights, one 16-bit scale per group of `group_size`.
    W4a16 {
        /// Weights per scale group (128 by default).
        group_size: u32,
    },
    /// GPTQ: `bits`-bit weights, per group an fp16 scale and a packed `bits`-bit zero point, and an
    /// int32 `g_idx` per input row.
    Gptq {
        /// 2, 3, 4 or 8.
        bits: u8,
        /// Weights per group (128 by default; 0 would mean one group per row and is refused).
        group_size: u32,
    },
    /// AWQ (GEMM layout): 4-bit weights, per group an fp16 scale and a packed 4-bit zero.
    Awq {
        /// Weights per group (128 by default).
        group_size: u32,
    },
    /// bitsandbytes LLM.int8(): int8 weights with one fp32 scale per output row; the LM head is skipped.
    BnbInt8,
    /// bitsandbytes NF4: 4-bit weights, an absmax per block of 64 (fp32, or 8-bit with a second
    /// fp32 level per 256 blocks under double quantization); the LM head is skipped.
    BnbNf4 {
        /// Double quantization of the absmax constants (`bnb_4bit_use_double_quant`).
        double_quant: bool,
    },
    /// OCP MXFP4: 4-bit E2M1 weights with one 8-bit E8M0 scale per 32; gpt-oss applies it to the
    /// MoE experts only.
    Mxfp4,
    /// A GGUF file type.
    Gguf {
        /// The llama.cpp file type.
        file_type: GgufFileType,
    },
    /// torchao's `NF4Tensor` as `to_nf4` makes it (torchtune's QLoRA): 4-bit NF4 codes, an int8
    /// scaler per block of 64, a 16-bit factor per 256 scalers, per tensor a 16-bit mean and the
    /// 16-entry table; the LM head and embeddings stay unquantized.
    TorchaoNf4,
    /// HQQ (half-quadratic quantization, `HqqConfig`): `bits`-bit codes packed in bytes (3 bits:
    /// ten per int32), a 16-bit scale and a 16-bit zero per group of `group_size`.
    Hqq {
        /// 1, 2, 3, 4, 5, 6 or 8 (5 and 6 are stored in a byte each).
        bits: u8,
        /// Weights per group (64 by default).
        group_size: u32,
    },
    /// MLX's quantization as `mlx_lm.convert -q` writes it (an MLX repo's `config.json`
    /// `quantization: {group_size, bits, mode}`): `bits`-bit codes packed in uint32 words and,
    /// per group, an affine scale and bias in the model's dtype, or one 8-bit scale in the
    /// floating-point modes; every `Linear` and `Embedding` whose rows are whole groups,
    /// the embedding and the LM head included (`mlx_lm.utils.quantize_model`).
    Mlx {
        /// The mode (`affine` unless `--q-mode` says otherwise).
        mode: MlxMode,
        /// Bits per weight: 2, 3, 4, 5, 6 or 8 affine; 4 in mxfp4 and nvfp4, 8 in mxfp8.
        bits: u8,
        /// Weights per group: 32, 64 or 128 affine (64 by default); 32 in mxfp4 and mxfp8,
        /// 16 in nvfp4.
        group_size: u32,
    },
}

impl Quantization {
    /// Every weight format once with its usual settings (GPTQ 4-bit and the int4 formats in
    /// groups of 128, NF4 with double quantization), then every GGUF file type: what the
    /// benchmarks sweep and the parity cases cover.
    pub fn every_format() -> alloc::vec::Vec<Quantization> {
        let mut f = alloc::vec![
            Quantization::None,
            Quantization::Fp8,
            Quantization::W8a8,
            Quantization::W4a16 { group_size: 128 },
            Quantization::Gptq {
                bits: 4,
                group_size: 128,
            },
            Quantization::Awq { group_size: 128 },
            Quantization::BnbInt8,
            Quantization::BnbNf4 { double_quant: true },
            Quantization::Mxfp4,
        ];
        f.extend(
            GgufFileType::ALL
                .into_iter()
                .map(|file_type| Quantization::Gguf { file_type }),
        );
        f
    }

    /// Parses the CLI spelling: `none|fp8|w8a8|w4a16|gptq|awq|bnb-int8|bnb-nf4|bnb-nf4-dq|mxfp4|
    /// torchao-nf4|hqq|hqq-<bits>bit|gguf-<type>`. `hqq` is 4 bits in groups of 64 (`HqqConfig`'s
    /// `nbits=4, group_size=64` defaults, LLaMA-Factory's `quantization_bit: 4`).
    /// GPTQ/AWQ/W4A16 take their usual defaults (4 bits, group 128); `bnb-nf4` is what
    /// `BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4")` loads (no double
    /// quantization, its default), `bnb-nf4-dq` adds `bnb_4bit_use_double_quant=True` (as QLoRA
    /// uses it).
    pub fn parse(field: &str, s: &str) -> Result<Quantization> {
        let t = s.trim().to_ascii_lowercase();
        /// An error of this field: what is wrong, in English and in Chinese (see `input_error!`).
        macro_rules! format_error {
            ([$($en:tt)*], [$($zh:tt)*]) => {
                input_error!(
                    UnknownName,
                    field,
                    [$($en)*],
                    [$($zh)*],
                    ["none, fp8, w8a8, w4a16, gptq, awq, bnb-int8, bnb-nf4, bnb-nf4-dq, mxfp4, torchao-nf4, hqq (4-bit), hqq-<bits>bit with bits 1, 2, 3, 4, 5, 6 or 8, mlx-<bits>bit[-g<group>] with bits 2, 3, 4, 5, 6 or 8 and group 32, 64 or 128 (64 if not given), mlx-mxfp4, mlx-nvfp4, mlx-mxfp8, gguf-<type> with type one of {GGUF_TYPES}"],
                    ["none、fp8、w8a8、w4a16、gptq、awq、bnb-int8、bnb-nf4、bnb-nf4-dq、mxfp4、torchao-nf4、hqq（4 位）、hqq-<位数>bit（位数为 1、2、3、4、5、6 或 8）、mlx-<位数>bit[-g<分组>]（位数为 2、3、4、5、6 或 8，分组为 32、64 或 128，默认 64）、mlx-mxfp4、mlx-nvfp4、mlx-mxfp8，或 gguf-<type>，type 为以下之一：{GGUF_TYPES}"],
                )
            };
        }
        const GGUF_TYPES: &str = "f16, q8_0, q6_k, q5_k_m, q5_k_s, q5_1, q5_0, q4_k_m, q4_k_s, q4_1, q4_0, q3_k_l, q3_k_m, q3_k_s, q2_k";
        Ok(match t.as_str() {
            "none" | "" => Quantization::None,
            "fp8" => Quantization::Fp8,
            "w8a8" | "int8" => Quantization::W8a8,
            "w4a16" => Quantization::W4a16 { group_size: 128 },
            "gptq" => Quantization::Gptq {
                bits: 4,
                group_size: 128,
            },
            "awq" => Quantization::Awq { group_size: 128 },
            "bnb-int8" | "llm.int8" => Quantization::BnbInt8,
            "bnb-nf4" | "nf4" => Quantization::BnbNf4 {
                double_quant: false,
            },
            "bnb-nf4-dq" | "nf4-dq" => Quantization::BnbNf4 { double_quant: true },
            "mxfp4" => Quantization::Mxfp4,
            "torchao-nf4" => Quantization::TorchaoNf4,
            "hqq" => Quantization::Hqq {
                bits: 4,
                group_size: 64,
            },
            other if other.starts_with("mlx-") => {
                return Quantization::parse_mlx(other).ok_or_else(|| {
                    format_error!(
                        ["unknown MLX format `{other}`"],
                        ["未知的 MLX 格式 `{other}`"]
                    )
                });
            }
            other => {
                if let Some(b) = other
                    .strip_prefix("hqq-")
                    .and_then(|b| b.strip_suffix("bit"))
                {
                    return match b.parse::<u8>() {
                        Ok(bits) if HQQ_BITS.contains(&bits) => Ok(Quantization::Hqq {
                            bits,
                            group_size: 64,
                        }),
                        _ => Err(format_error!(
                            ["unknown HQQ width `{b}`"],
                            ["未知的 HQQ 位宽 `{b}`"]
                        )),
                    };
                }
                let Some(ty) = other.strip_prefix("gguf-") else {
                    return Err(format_error!(
                        ["unknown format `{other}`"],
                        ["未知的格式 `{other}`"]
                    ));
                };
                match GgufFileType::ALL.iter().find(|f| f.name() == ty) {
                    Some(&file_type) => Quantization::Gguf { file_type },
                    None => {
                        return Err(format_error!(
                            ["unknown GGUF type `{ty}`"],
                            ["未知的 GGUF 类型 `{ty}`"]
                        ));
                    }
                }
            }
        })
    }

    /// The CLI spelling.
    pub fn name(&self) -> alloc::string::String {
        use alloc::string::ToString;
        match self {
            Quantization::None => "none".to_string(),
            Quantization::Fp8 => "fp8".to_string(),
            Quantization::W8a8 => "w8a8".to_string(),
            Quantization::W4a16 { .. } => "w4a16".to_string(),
            Quantization::Gptq { .. } => "gptq".to_string(),
            Quantization::Awq { .. } => "awq".to_string(),
            Quantization::BnbInt8 => "bnb-int8".to_string(),
            Quantization::BnbNf4 {
                double_quant: false,
            } => "bnb-nf4".to_string(),
            Quantization::BnbNf4 { double_quant: true } => "bnb-nf4-dq".to_string(),
            Quantization::Mxfp4 => "mxfp4".to_string(),
            Quantization::Gguf { file_type } => alloc::format!("gguf-{}", file_type.name()),
            Quantization::TorchaoNf4 => "torchao-nf4".to_string(),
            Quantization::Hqq { bits: 4, .. } => "hqq".to_string(),
            Quantization::Hqq { bits, .. } => alloc::format!("hqq-{bits}bit"),
            Quantization::Mlx {
                mode: MlxMode::Affine,
                bits,
                group_size: 64,
            } => alloc::format!("mlx-{bits}bit"),
            Quantization::Mlx {
                mode: MlxMode::Affine,
                bits,
                group_size,
            } => alloc::format!("mlx-{bits}bit-g{group_size}"),
            Quantization::Mlx { mode, .. } => alloc::format!("mlx-{}", mode.name()),
        }
    }

    /// Checks the parameters of the format.
    pub fn validate(&self, field: &str) -> Result<()> {
        let group = |g: u32| {
            if (8..=4096).contains(&g) {
                Ok(())
            } else {
                Err(input_error!(
                    OutOfRange,
                    alloc::format!("{field}.group_size"),
                    ["{g} is out of range"],
                    ["{g} 超出范围"],
                    "an integer from 8 to 4096 (usually 32, 64 or 128)",
                    "8 到 4096 的整数（通常为 32、64 或 128）",
                ))
            }
        };
        match *self {
            Quantization::W4a16 { group_size } | Quantization::Awq { group_size } => {
                group(group_size)
            }
            Quantization::Gptq { bits, group_size } => {
                if !matches!(bits, 2 | 3 | 4 | 8) {
                    return Err(input_error!(
                        OutOfRange,
                        alloc::format!("{field}.bits"),
                        ["{bits} is not a GPTQ width"],
                        ["{bits} 不是 GPTQ 的位宽"],
                        "2, 3, 4 or 8",
                        "2、3、4 或 8",
                    ));
                }
                group(group_size)
            }
            Quantization::Hqq { bits, group_size } => {
                if !HQQ_BITS.contains(&bits) {
                    return Err(input_error!(
                        OutOfRange,
                        alloc::format!("{field}.bits"),
                        ["{bits} is not an HQQ width"],
                        ["{bits} 不是 HQQ 的位宽"],
                        "1, 2, 3, 4, 5, 6 or 8",
                        "1、2、3、4、5、6 或 8",
                    ));
                }
                if !group_size.is_multiple_of(8) {
                    return Err(input_error!(
                        OutOfRange,
                        alloc::format!("{field}.group_size"),
                        ["{group_size} is not a multiple of 8 (HQQ's groups are)"],
                        ["{group_size} 不是 8 的倍数（HQQ 的分组须为 8 的倍数）"],
                        "from 8 to 4096, a multiple of 8 (usually 64)",
                        "8 到 4096，8 的倍数（通常为 64）",
                    ));
                }
                group(group_size)
            }
            Quantization::Mlx {
                mode,
                bits,
                group_size,
            } => mlx::validate(field, mode, bits, group_size),
            _ => Ok(()),
        }
    }
}

/// HQQ's widths (hqq 0.2.8 `Quantizer.SUPPORTED_BITS`, less its 1.58).
const HQQ_BITS: [u8; 7] = [1, 2, 3, 4, 5, 6, 8];

/// The KV-cache element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum KvDtype {
    /// The activation dtype of the model (fp16/bf16; fp32 for an fp32 model).
    #[default]
    Auto,
    /// 2 bytes.
    Fp16,
    /// 2 bytes.
    Bf16,
    /// 1 byte (vLLM `--kv-cache-dtype fp8`).
    Fp8,
    /// llama.cpp `-ctk q8_0`: 34 bytes per 32 values.
    Q8_0,
    /// llama.cpp `-ctk q4_0`: 18 bytes per 32 values.
    Q4_0,
    /// TensorRT-LLM `kv_cache_config.dtype: nvfp4` (Blackwell): 4-bit values with an FP8 scale
    /// per 16, 9 bytes per 16 values.
    Nvfp4,
}

impl KvDtype {
    /// Parses `auto|fp16|bf16|fp8|q8_0|q4_0|nvfp4`.
    pub fn parse(field: &str, s: &str) -> Result<KvDtype> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => KvDtype::Auto,
            "fp16" | "f16" | "float16" => KvDtype::Fp16,
            "bf16" | "bfloat16" => KvDtype::Bf16,
            "fp8" | "fp8_e4m3" | "fp8_e5m2" => KvDtype::Fp8,
            "q8_0" => KvDtype::Q8_0,
            "q4_0" => KvDtype::Q4_0,
            "nvfp4" => KvDtype::Nvfp4,
            other => {
                return Err(input_error!(
                    UnknownName,
                    field,
                    ["unknown KV-cache dtype `{other}`"],
                    ["未知的 KV 缓存数据类型 `{other}`"],
                    "auto, fp16, bf16, fp8, q8_0, q4_0, nvfp4",
                    "auto, fp16, bf16, fp8, q8_0, q4_0, nvfp4",
                ));
            }
        })
    }

    /// Bytes per `n` cached values, with `activation` standing for `auto`.
    pub fn bytes_for(self, n: u64, activation: Dtype) -> u64 {
        match self {
            KvDtype::Auto => n.saturating_mul(activation.bits() as u64) / 8,
            KvDtype::Fp16 | KvDtype::Bf16 => n.saturating_mul(2),
            KvDtype::Fp8 => n,
            KvDtype::Q8_0 => GgmlType::Q8_0.bytes_for(n),
            KvDtype::Q4_0 => GgmlType::Q4_0.bytes_for(n),
            KvDtype::Nvfp4 => n.div_ceil(16).saturating_mul(9),
        }
    }

    /// The CLI spelling.
    pub const fn name(self) -> &'static str {
        match self {
            KvDtype::Auto => "auto",
            KvDtype::Fp16 => "fp16",
            KvDtype::Bf16 => "bf16",
            KvDtype::Fp8 => "fp8",
            KvDtype::Q8_0 => "q8_0",
            KvDtype::Q4_0 => "q4_0",
            KvDtype::Nvfp4 => "nvfp4",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "serde")]
    #[test]
    fn quantization_reads_what_it_writes() {
        use alloc::string::ToString;
        for q in Quantization::every_format() {
            let json = serde_json::to_string(&q).unwrap();
            assert_eq!(
                serde_json::from_str::<Quantization>(&json).unwrap(),
                q,
                "{json}"
            );
        }
        // The tag anywhere, unknown fields ignored, as serde's internally tagged enums read.
        assert_eq!(
            serde_json::from_str::<Quantization>(
                r#"{"group_size": 64, "note": 1, "bits": 3, "format": "gptq"}"#
            )
            .unwrap(),
            Quantization::Gptq {
                bits: 3,
                group_size: 64
            }
        );
        assert_eq!(
            serde_json::to_string(&Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M
            })
            .unwrap(),
            r#"{"format":"gguf","file_type":"Q4_K_M"}"#
        );
        let e = |json: &str| {
            serde_json::from_str::<Quantization>(json)
                .unwrap_err()
                .to_string()
        };
        assert!(e(r#"{"format": "gptq", "bits": 4}"#).starts_with("missing field `group_size`"));
        assert!(
            e(r#"{"format": "int3"}"#)
                .starts_with("unknown variant `int3`, expected one of `none`, `fp8`")
        );
        assert!(e(r#"{"bits": 4}"#).starts_with("missing field `format`"));
        assert!(e(r#"{"format": "gguf", "file_type": "Q9"}"#).starts_with("unknown variant `Q9`"));
        // The CLI's spelling as a string, with its defaults (4 bits, groups of 128).
        assert_eq!(
            serde_json::from_str::<Quantization>(r#""GPTQ""#).unwrap(),
            Quantization::Gptq {
                bits: 4,
                group_size: 128
            }
        );
        assert_eq!(
            serde_json::from_str::<Quantization>(r#""gguf-q4_k_m""#).unwrap(),
            Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M
            }
        );
        let bad = e(r#""gguf-q9""#);
        assert!(
            bad.starts_with("unknown GGUF type `q9`; accepted: none, fp8, w8a8"),
            "{bad}"
        );
        let other = e("4");
        assert!(
            other.starts_with("invalid type: integer `4`, expected a format as the CLI spells it"),
            "{other}"
        );
    }

    #[test]
    fn every_format_once_with_the_parsers_defaults() {
        let all = Quantization::every_format();
        // Nine named formats, then the fifteen GGUF file types.
        assert_eq!(all.len(), 9 + 15);
        for q in &all {
            assert_eq!(&Quantization::parse("quantization", &q.name()).unwrap(), q);
        }
    }

    #[test]
    fn ggml_block_sizes_match_ggml_common_h() {
        // Hand: block_q4_0 = 2 (f16 d) + 32/2 = 18 bytes per 32 → 4.5 bits.
        assert_eq!(GgmlType::Q4_0.bits_per_weight(), 4.5);
        // block_q8_0 = 2 + 32 = 34 per 32 → 8.5 bits.
        assert_eq!(GgmlType::Q8_0.bits_per_weight(), 8.5);
        // block_q6_K = 128 ql + 64 qh + 16 scales + 2 d = 210 per 256 → 6.5625.
        assert_eq!(GgmlType::Q6_K.bits_per_weight(), 6.5625);
        // block_q2_K = 16 scales + 64 qs + 2 d + 2 dmin = 84 per 256 → 2.625.
        assert_eq!(GgmlType::Q2_K.bits_per_weight(), 2.625);
        // block_q3_K = 32 hmask + 64 qs + 12 scales + 2 d = 110 → 3.4375.
        assert_eq!(GgmlType::Q3_K.bits_per_weight(), 3.4375);
        assert_eq!(GgmlType::Q5_K.bits_per_weight(), 5.5);
        assert_eq!(
            GgmlType::Q4_K.bytes_for(4096 * 4096),
            4096 * 4096 / 256 * 144
        );
    }

    #[test]
    fn kv_dtypes() {
        assert_eq!(KvDtype::Auto.bytes_for(100, Dtype::Bf16), 200);
        assert_eq!(KvDtype::Fp8.bytes_for(100, Dtype::Bf16), 100);
        assert_eq!(KvDtype::Q8_0.bytes_for(128, Dtype::Fp16), 4 * 34);
        assert_eq!(KvDtype::Q4_0.bytes_for(128, Dtype::Fp16), 4 * 18);
    }

    #[test]
    fn quantization_parsing() {
        assert_eq!(
            Quantization::parse("quantization", "gguf-q4_k_m").unwrap(),
            Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M
            }
        );
        assert_eq!(
            Quantization::parse("quantization", "GPTQ").unwrap(),
            Quantization::Gptq {
                bits: 4,
                group_size: 128
            }
        );
        let e = Quantization::parse("quantization", "gguf-q9_k").unwrap_err();
        assert_eq!(e.field, "quantization");
        assert!(e.accepted.contains("q4_k_m"));
        assert!(
            Quantization::Gptq {
                bits: 5,
                group_size: 128
            }
            .validate("quantization")
            .is_err()
        );
        for f in GgufFileType::ALL {
            let q = Quantization::Gguf { file_type: f };
            assert_eq!(Quantization::parse("q", &q.name()).unwrap(), q);
        }
    }
}
