//! Unit enums read by their wire names: one small reader shared by every such enum, in place of
//! the visitor serde's derive writes for each. The names and the error text are serde's own
//! (`unknown variant `x`, expected one of `a`, `b``), and the Chinese page's phrases match
//! them; what changes is the size: about 1 KB of WebAssembly per enum, in every module that
//! reads an estimate's input (the site's first load, the npm package's main module). A test
//! round-trips every variant through `Serialize`, which stays derived, so the names cannot drift.

/// `Deserialize` for a unit enum from its wire names, as the derived `Serialize` writes them.
macro_rules! deserialize_by_name {
    ($t:ty { $($name:literal => $v:expr),+ $(,)? }) => {
        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
                const NAMES: &[&str] = &[$($name),+];
                const VALUES: &[$t] = &[$($v),+];
                let i = $crate::named::index(d, NAMES)?;
                VALUES
                    .get(i)
                    .copied()
                    .ok_or_else(|| <D::Error as serde::de::Error>::unknown_variant("", NAMES))
            }
        }
        #[cfg(test)]
        impl $t {
            /// Every variant, for the round-trip test.
            #[allow(dead_code)]
            pub(crate) const ALL_NAMED: &'static [$t] = &[$($v),+];
        }
    };
}

/// `Deserialize` for a struct read with `serde(default, deny_unknown_fields)`: start from
/// `Default` and set each field given, by name; an unknown name is serde's `unknown field` error.
/// The derive writes the same reader plus one for arrays and a field-name visitor, about twice
/// the WebAssembly for the 31 fields of an architecture.
macro_rules! deserialize_with_defaults {
    ($t:ident { $($f:ident),+ $(,)? }) => {
        deserialize_with_defaults!($t { $($f),+ } required {});
    };
    // Every field must be given.
    ($t:ident all required { $($f:ident),+ $(,)? }) => {
        deserialize_with_defaults!($t { $($f),+ } required { $($f),+ });
    };
    // `required` fields must be given: serde's `missing field` error names the first one absent.
    ($t:ident { $($f:ident),+ $(,)? } required { $($r:ident),* $(,)? }) => {
        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
                const FIELDS: &[&str] = &[$(stringify!($f)),+];
                const REQUIRED: &[&str] = &[$(stringify!($r)),*];
                struct Fields;
                impl<'de> serde::de::Visitor<'de> for Fields {
                    type Value = $t;
                    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                        f.write_str(concat!("struct ", stringify!($t)))
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> core::result::Result<$t, A::Error> {
                        let mut out = <$t>::default();
                        let mut seen = 0u32;
                        while let Some(key) = map.next_key::<alloc::borrow::Cow<'de, str>>()? {
                            if let Some(i) = REQUIRED.iter().position(|r| *r == key.as_ref()) {
                                seen |= 1 << i;
                            }
                            match key.as_ref() {
                                $(stringify!($f) => out.$f = map.next_value()?,)+
                                other => {
                                    return Err(<A::Error as serde::de::Error>::unknown_field(
                                        other, FIELDS,
                                    ))
                                }
                            }
                        }
                        match (0..REQUIRED.len()).find(|i| seen & (1 << i) == 0) {
                            Some(i) => Err(<A::Error as serde::de::Error>::missing_field(REQUIRED[i])),
                            None => Ok(out),
                        }
                    }
                }
                d.deserialize_struct(stringify!($t), FIELDS, Fields)
            }
        }
    };
}

/// The position of the string `d` holds in `names`, or serde's unknown-variant error.
#[cfg(feature = "serde")]
pub(crate) fn index<'de, D: serde::Deserializer<'de>>(
    d: D,
    names: &'static [&'static str],
) -> Result<usize, D::Error> {
    struct Name(&'static [&'static str]);
    impl serde::de::Visitor<'_> for Name {
        type Value = usize;
        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("one of the variant names")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<usize, E> {
            self.0
                .iter()
                .position(|n| *n == s)
                .ok_or_else(|| E::unknown_variant(s, self.0))
        }
    }
    d.deserialize_str(Name(names))
}

#[cfg(test)]
mod tests {
    use crate::estimate::{
        AttentionImpl, Checkpointing, Engine, Logits, Mode, Offload, Optimizer, Precision,
    };
    use crate::model::{Family, Norm};
    use crate::precision::{Dtype, GgufFileType, KvDtype};
    use alloc::string::ToString;

    fn round_trip<T>(all: &[T])
    where
        T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + core::fmt::Debug,
    {
        for v in all {
            let json = serde_json::to_string(v).unwrap();
            assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), v, "{json}");
        }
    }

    #[test]
    fn every_variant_reads_back_what_serialize_writes() {
        round_trip(Mode::ALL_NAMED);
        round_trip(Engine::ALL_NAMED);
        round_trip(Optimizer::ALL_NAMED);
        round_trip(Precision::ALL_NAMED);
        round_trip(Checkpointing::ALL_NAMED);
        round_trip(Offload::ALL_NAMED);
        round_trip(AttentionImpl::ALL_NAMED);
        round_trip(Logits::ALL_NAMED);
        round_trip(Dtype::ALL_NAMED);
        round_trip(KvDtype::ALL_NAMED);
        round_trip(Family::ALL_NAMED);
        round_trip(Norm::ALL_NAMED);
        round_trip(GgufFileType::ALL_NAMED);
        assert_eq!(GgufFileType::ALL_NAMED, &GgufFileType::ALL[..]);
        assert_eq!(Optimizer::ALL_NAMED.len(), 6);
        assert_eq!(KvDtype::ALL_NAMED.len(), 6);
    }

    /// Every preset's architecture (MLA, MoE, encoders, opaque models among them) reads back what
    /// `Serialize` writes: a field added to the struct but not to the reader's list fails here.
    #[test]
    fn every_architecture_reads_back_what_serialize_writes() {
        use crate::model::Architecture;
        let presets = crate::presets::presets();
        assert!(presets.len() > 40);
        for p in presets {
            let json = serde_json::to_string(&p.arch).unwrap();
            let back: Architecture = serde_json::from_str(&json).unwrap();
            assert_eq!(back, p.arch, "{}", p.id);
        }
        // Fields left out take their defaults; an unknown one is serde's error, naming it.
        let a: Architecture = serde_json::from_str(r#"{"hidden_size": 64}"#).unwrap();
        assert_eq!(
            a,
            Architecture {
                hidden_size: 64,
                ..Architecture::default()
            }
        );
        let e = serde_json::from_str::<Architecture>(r#"{"hidden": 64}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("unknown field `hidden`, expected one of `family`"),
            "{e}"
        );
        assert!(serde_json::from_str::<Architecture>("[1]").is_err());
        // An expert or latent-attention block needs every field, as the derive did; the first
        // one absent is named.
        let e = serde_json::from_str::<crate::model::Moe>(
            r#"{"num_experts": 8, "experts_per_token": 2, "expert_intermediate_size": 14336}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("missing field `shared_intermediate_size`"),
            "{e}"
        );
        let e = serde_json::from_str::<crate::model::Mla>(r#"{"q_lora_rank": 0, "v_rank": 1}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("unknown field `v_rank`, expected one of `q_lora_rank`"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_name_gets_serdes_message() {
        let e = serde_json::from_str::<Engine>("\"x\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("unknown variant `x`, expected one of `hf`, `vllm`, `llamacpp`"),
            "{e}"
        );
        // The site reads a form's choice through serde's string deserializer.
        let d = serde::de::value::StrDeserializer::<serde::de::value::Error>::new("adamw-8bit");
        assert_eq!(
            <Optimizer as serde::Deserialize>::deserialize(d).unwrap(),
            Optimizer::Adamw8bit
        );
        assert!(serde_json::from_str::<Mode>("5").is_err());
    }
}
