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
