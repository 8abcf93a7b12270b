//! The fields of `EstimateInput`, as its own `Deserialize` names them: the authoritative list
//! that each face's test (CLI flags, the site's form and URL, the TypeScript types, the fuzz
//! target, the book) checks itself against, so that a field added to the input and forgotten
//! on a face fails a test. Test code only, shared by `#[path]` (each face's crate includes it).
//!
//! The names come from the derive itself: serde hands the field list to
//! `Deserializer::deserialize_struct` (the list `deny_unknown_fields` checks keys against),
//! which a one-method deserializer captures. Unlike the keys of a serialized value, it does not
//! miss a field written only when set (`skip_serializing_if`).

use serde::de::{self, Deserializer, Visitor};

/// Every field of `EstimateInput`, in declaration order.
pub fn input_fields() -> &'static [&'static str] {
    /// A deserializer that answers nothing, but keeps the field list a struct asks it for.
    struct Capture(Option<&'static [&'static str]>);

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
            self.0 = Some(fields);
            Err(de::Error::custom("fields captured"))
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }

    let mut capture = Capture(None);
    let _ = <vramfit::estimate::EstimateInput as serde::Deserialize>::deserialize(&mut capture);
    capture
        .0
        .expect("EstimateInput deserializes as a struct with named fields")
}
