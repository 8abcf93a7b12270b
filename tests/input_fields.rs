//! The fields of `EstimateInput`, as its own `Deserialize` names them: the authoritative list
//! that each face's test (CLI flags, the site's form and URL, the TypeScript types, the fuzz
//! target, the book) checks itself against, so that a field added to the input and forgotten
//! on a face fails a test. Test code only, shared by `#[path]` (each face's crate includes it).
//!
//! The names come from the derive itself: `EstimateInput::fields` takes each section's list
//! from the field list serde's derive hands to `Deserializer::deserialize_struct`. Unlike the
//! keys of a serialized value, it does not miss a field written only when set
//! (`skip_serializing_if`).

use std::sync::OnceLock;

/// Every field of `EstimateInput`, section by section, each in declaration order.
pub fn input_fields() -> &'static [&'static str] {
    static FIELDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    FIELDS.get_or_init(vramfit::estimate::EstimateInput::fields)
}
