//! The estimator's input: [`EstimateInput`], plain data with defaults, as the CLI, the npm
//! package and the site give it, in sections (`input_sections.rs`); the choices it names are in
//! `input_choices.rs`. On the wire the sections' fields are the input's own flat keys
//! (`{"model": …, "batch": 8, "tp": 2}`): written through `flatten`, read through the flat
//! struct of `input_wire.rs`, which refuses a key of none of them by name.

pub use super::input_choices::{
    AttentionImpl, Checkpointing, Engine, KvOffloadingBackend, Logits, Mode, Offload, Optimizer,
    Precision, RecomputeMethod, RlAlgorithm, Rollout, RunnerType, SpecMethod, SplitMode,
};
pub use super::input_regimes::{Loss, Stack};
pub use super::input_sections::{
    HardwareInput, ModelInput, PlacementInput, RunInput, ServingInput, TrainingInput,
};

/// The estimator's input: plain data with defaults, as the CLI, the npm package and the site
/// give it. Numbers are `f64` (JSON's and JavaScript's number) and are checked to be finite
/// integers in range by [`EstimateInput::resolve`].
// Six sections, each about one thing; serialized, their fields are one flat object (the
// sections are `flatten`ed), so the JSON, the npm types and the site's links name `batch`, not
// `run.batch`. It is read through its flat wire form (`input_wire.rs`, `deny_unknown_fields`),
// which refuses a key of no section by name and costs no buffering. (A comment, not a doc:
// the npm types carry the type's doc, unchanged.)
#[derive(Clone, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(default))]
pub struct EstimateInput {
    /// What is run: the model and its weights' format.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub model: ModelInput,
    /// How it is run: mode, engine, the work's shape, dtypes and kernels.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub run: RunInput,
    /// Training's own choices: optimizer, precision, LoRA, stack, RL, DeepSpeed, Megatron.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub training: TrainingInput,
    /// The serving engines' knobs.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub serving: ServingInput,
    /// The cards, their memory, the host's memory, the network.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub hardware: HardwareInput,
    /// The layout over the GPUs: parallel sizes, sharding, offload, llama.cpp's split.
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub placement: PlacementInput,
}

/// Read through its flat wire form (`input_wire.rs`): the same keys as the sections write,
/// each refused by name when it is none of them.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for EstimateInput {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        super::input_sections::FlatInput::deserialize(deserializer).map(Into::into)
    }
}

#[cfg(feature = "serde")]
impl EstimateInput {
    /// Every key of the input on the wire, section by section, each section's in its
    /// declaration order: the names serde's derive of each section asks for.
    pub fn fields() -> alloc::vec::Vec<&'static str> {
        let mut out = alloc::vec::Vec::new();
        out.extend_from_slice(section_fields::<ModelInput>());
        out.extend_from_slice(section_fields::<RunInput>());
        out.extend_from_slice(section_fields::<TrainingInput>());
        out.extend_from_slice(section_fields::<ServingInput>());
        out.extend_from_slice(section_fields::<HardwareInput>());
        out.extend_from_slice(section_fields::<PlacementInput>());
        out
    }
}

/// The field names a struct's derived `Deserialize` hands to `deserialize_struct`, taken by a
/// deserializer that answers nothing else.
#[cfg(feature = "serde")]
pub(super) fn section_fields<'de, T: serde::Deserialize<'de>>() -> &'static [&'static str] {
    use serde::de::{self, Deserializer, Visitor};

    struct Capture(&'static [&'static str]);

    impl<'de> Deserializer<'de> for &mut Capture {
        type Error = de::value::Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0 = fields;
            Err(de::Error::custom("fields captured"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }

    let mut capture = Capture(&[]);
    let _ = T::deserialize(&mut capture);
    capture.0
}
