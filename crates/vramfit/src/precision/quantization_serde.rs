//! `Quantization` read from JSON: a tagged object or the CLI's spelling.

use super::{GgufFileType, MlxMode, Quantization};

/// Reads what `Serialize` writes: the `format` tag and the fields of that format, in any order,
/// others ignored, a missing one named — as serde's derive for an internally tagged enum does.
/// The derive would buffer the whole object in serde's `Content` to find the tag first, code
/// that costs about 5 KB gzip in every WebAssembly module; one flat struct of every format's
/// fields reads the same objects without it.
///
/// A string is read as the CLI spells the format ([`Quantization::parse`]: `"gptq"`,
/// `"gguf-q4_k_m"`), so that JSON and JavaScript callers may write either form.
impl<'de> serde::Deserialize<'de> for Quantization {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        d.deserialize_any(QuantizationVisitor)
    }
}

struct QuantizationVisitor;

impl<'de> serde::de::Visitor<'de> for QuantizationVisitor {
    type Value = Quantization;

    fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str(
            "a format as the CLI spells it (\"gptq\", \"gguf-q4_k_m\") or an object tagged by `format`",
        )
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> core::result::Result<Quantization, E> {
        // The accepted forms ride along after "; accepted: ", where the npm module's reader
        // splits them off into the error's own `accepted`.
        Quantization::parse("quantization", s)
            .map_err(|e| E::custom(format_args!("{}; accepted: {}", e.problem, e.accepted)))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        map: A,
    ) -> core::result::Result<Quantization, A::Error> {
        use serde::Deserialize;
        use serde::de::Error;

        #[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
        #[serde(rename_all = "kebab-case")]
        enum Format {
            None,
            Fp8,
            W8a8,
            W4a16,
            Gptq,
            Awq,
            BnbInt8,
            BnbNf4,
            Mxfp4,
            Gguf,
            TorchaoNf4,
            Hqq,
            Mlx,
        }

        #[derive(serde::Deserialize)]
        struct Fields {
            format: Format,
            bits: Option<u8>,
            group_size: Option<u32>,
            double_quant: Option<bool>,
            file_type: Option<GgufFileType>,
            mode: Option<MlxMode>,
        }

        fn need<T, E: Error>(v: Option<T>, field: &'static str) -> core::result::Result<T, E> {
            v.ok_or_else(|| E::missing_field(field))
        }

        let f = Fields::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        Ok(match f.format {
            Format::None => Quantization::None,
            Format::Fp8 => Quantization::Fp8,
            Format::W8a8 => Quantization::W8a8,
            Format::W4a16 => Quantization::W4a16 {
                group_size: need(f.group_size, "group_size")?,
            },
            Format::Gptq => Quantization::Gptq {
                bits: need(f.bits, "bits")?,
                group_size: need(f.group_size, "group_size")?,
            },
            Format::Awq => Quantization::Awq {
                group_size: need(f.group_size, "group_size")?,
            },
            Format::BnbInt8 => Quantization::BnbInt8,
            Format::BnbNf4 => Quantization::BnbNf4 {
                double_quant: need(f.double_quant, "double_quant")?,
            },
            Format::Mxfp4 => Quantization::Mxfp4,
            Format::Gguf => Quantization::Gguf {
                file_type: need(f.file_type, "file_type")?,
            },
            Format::TorchaoNf4 => Quantization::TorchaoNf4,
            Format::Hqq => Quantization::Hqq {
                bits: need(f.bits, "bits")?,
                group_size: need(f.group_size, "group_size")?,
            },
            // The mode affine when not given, as an MLX repo's `quantization` before mlx-lm
            // wrote `mode`.
            Format::Mlx => Quantization::Mlx {
                mode: f.mode.unwrap_or_default(),
                bits: need(f.bits, "bits")?,
                group_size: need(f.group_size, "group_size")?,
            },
        })
    }
}
