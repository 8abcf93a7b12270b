//! transformers' release, where it changes what an estimate counts: from 5.15.0 DeepSeek's MLA
//! attention (`modeling_deepseek_v3.py`, `DeepseekV3Attention.forward`) caches the compressed
//! latent — `past_key_values.update(kv_nope, k_rot, …)`, one head of `kv_lora_rank` and one of
//! `qk_rope_head_dim` per token and layer — where 4.x to 5.14 cached every head's decompressed
//! keys (`qk_nope_head_dim + qk_rope_head_dim`) and values (`v_head_dim`): 71 times more for
//! DeepSeek-V3. Read from the wheels of 4.57.1, 5.0.0, 5.10.0 to 5.16.0, 5.20.0 and 5.22.0 to
//! 5.24.0, and checked on a tiny DeepSeek-V3 under 5.24.0 (its cache's keys `[2, 1, 5,
//! kv_lora_rank]` and values `[2, 1, 5, rope]`).

use crate::error::Result;

/// A transformers release, `major.minor` (the patch changes nothing counted here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TransformersVersion {
    major: u16,
    minor: u16,
}

/// What `engine_version` accepts for transformers, in the words of an error.
#[cfg(any(feature = "en", not(feature = "zh")))]
const ACCEPTED: &str = "a transformers release from 4.0 to 5.25, e.g. 4.57 or 5.24.0";
/// The same, in Chinese.
#[cfg(feature = "zh")]
const ACCEPTED_ZH: &str = "4.0 到 5.25 的 transformers 版本，如 4.57 或 5.24.0";

impl TransformersVersion {
    /// The latest release modelled, the default: the one the training stacks' defaults cite.
    pub const LATEST: TransformersVersion = TransformersVersion {
        major: 5,
        minor: 25,
    };
    /// The first release that caches MLA's compressed latent.
    const MLA_LATENT: TransformersVersion = TransformersVersion {
        major: 5,
        minor: 15,
    };

    /// `4.57`, `4.57.1`, `v5.24.0`: 4.0 to 5.25.
    pub fn parse(field: &'static str, text: &str) -> Result<TransformersVersion> {
        let t = text.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let mut parts = t.split('.');
        let number = |p: Option<&str>| p.and_then(|p| p.parse::<u16>().ok());
        let (major, minor) = (number(parts.next()), number(parts.next()));
        let patch_ok = parts.next().is_none_or(|p| p.parse::<u16>().is_ok());
        let v = match (major, minor, patch_ok, parts.next()) {
            (Some(major), Some(minor), true, None) => TransformersVersion { major, minor },
            _ => {
                return Err(crate::input_error!(
                    Malformed,
                    field,
                    ["{} is not a transformers version", crate::units::quoted(text)],
                    ["{} 不是 transformers 版本", crate::units::quoted(text)],
                    [= ACCEPTED],
                    [= ACCEPTED_ZH],
                ));
            }
        };
        let oldest = TransformersVersion { major: 4, minor: 0 };
        if v < oldest || v > TransformersVersion::LATEST {
            return Err(crate::input_error!(
                OutOfRange,
                field,
                ["transformers {} is not modelled", text],
                ["未建模 transformers {}", text],
                [= ACCEPTED],
                [= ACCEPTED_ZH],
            ));
        }
        Ok(v)
    }

    /// Whether an MLA model's cache holds the compressed latent (5.15 on) rather than every
    /// head's decompressed keys and values.
    pub fn keeps_mla_latent(self) -> bool {
        self >= TransformersVersion::MLA_LATENT
    }

    /// `major.minor`, for notes.
    pub fn text(self) -> alloc::string::String {
        alloc::format!("{}.{}", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_read_and_the_latent_from_5_15() {
        let v = |t: &str| TransformersVersion::parse("engine_version", t).unwrap();
        assert!(!v("4.57.1").keeps_mla_latent());
        assert!(!v("5.14").keeps_mla_latent());
        assert!(v("5.15.0").keeps_mla_latent());
        assert!(v("v5.24").keeps_mla_latent());
        assert_eq!(v("5.25"), TransformersVersion::LATEST);
        for bad in ["", "5", "five.1", "5.1.x", "5.1.2.3", "3.36", "5.26", "6.0"] {
            let e = TransformersVersion::parse("engine_version", bad).unwrap_err();
            assert_eq!(e.field, "engine_version", "{bad}");
        }
    }

    /// DeepSeek-V3 in transformers: 5.15 on caches 576 values (512 latent + 64 rope) per token
    /// per layer, 1,152 B in bf16 × 61 layers = 70,272 B a token; 4.57 cached 128 heads × (128 +
    /// 64 + 128) = 40,960 values, 81,920 B × 61 = 4,997,120 B a token. Another engine refuses a
    /// transformers release.
    #[test]
    fn deepseek_v3s_cache_by_release() {
        use crate::estimate::{Engine, EstimateInput, ModelInput, RunInput, estimate};
        let run = |version: Option<&str>| EstimateInput {
            model: ModelInput {
                model: Some("deepseek-ai/DeepSeek-V3".into()),
                ..Default::default()
            },
            run: RunInput {
                engine_version: version.map(Into::into),
                ..Default::default()
            },
            ..Default::default()
        };
        let per_token = |v| estimate(&run(v)).unwrap().kv_bytes_per_token;
        assert_eq!(per_token(None), 70_272);
        assert_eq!(per_token(Some("5.15")), 70_272);
        assert_eq!(per_token(Some("4.57.1")), 4_997_120);
        let e = estimate(&{
            let mut input = run(Some("5.24"));
            input.run.engine = Engine::Llamacpp;
            input
        })
        .unwrap_err();
        assert_eq!(e.field, "engine_version");
    }
}
