//! The input's fields declared once: `input_sections!` takes one list per section (each
//! field's doc, name, type and default) and writes from it the section structs with their
//! `Default`, and, for reading, the flat wire struct `FlatInput` with its `Default` and its
//! conversion into [`super::EstimateInput`]. The lists themselves are in `input_sections.rs`.
//!
//! Why a flat wire struct: reading the sections through serde's `flatten` buffers every value
//! first, which cost the npm package's main module 7.1 KB gzip (320.7 → 327.7 KB, over its
//! 323 KB budget). `FlatInput` is read with serde's own derive and `deny_unknown_fields` (a key
//! of no section is refused by name, with its position), and costs what the flat input did.
//! Written, the sections are `flatten`ed (`input.rs`): serializing buffers nothing.
//!
//! The wire struct's keys are the sections' fields in the sections' order, so serde's
//! "expected one of" lists them as `EstimateInput::fields` does; `input_wire_tests.rs` checks
//! them against the keys of the flat input before it had sections. The TypeScript generator
//! (`crates/vramfit-wasm/tests/dts.rs`) reads the same invocation.

/// Declares the input's sections and their flat wire form from one list per section:
///
/// ```text
/// input_sections! {
///     /// The section's doc.
///     run => pub struct RunInput {
///         /// The field's doc.
///         pub batch: f64 = 1.0,
///     }
/// }
/// ```
///
/// `run` is the section's field in `EstimateInput`. Each section gets
/// `#[derive(Clone, Debug, PartialEq)]`, serde's derives with `#[serde(default)]` (feature
/// `serde`) and a `Default` of the declared defaults; `FlatInput` gets every field of every
/// section, in order, the same defaults, and `From<FlatInput> for EstimateInput`.
macro_rules! input_sections {
    ($(
        $(#[$section_meta:meta])*
        $section:ident => pub struct $Section:ident {
            $(
                $(#[$field_meta:meta])*
                pub $field:ident : $ty:ty = $default:expr
            ),* $(,)?
        }
    )*) => {
        $(
            $(#[$section_meta])*
            #[derive(Clone, Debug, PartialEq)]
            #[cfg_attr(
                feature = "serde",
                derive(serde::Serialize, serde::Deserialize),
                serde(default)
            )]
            pub struct $Section {
                $(
                    $(#[$field_meta])*
                    pub $field: $ty,
                )*
            }

            impl Default for $Section {
                fn default() -> Self {
                    $Section {
                        $($field: $default,)*
                    }
                }
            }
        )*

        /// Every key of [`super::EstimateInput`], flat, section by section: what the input is
        /// read through (see `input_wire.rs`).
        #[cfg(feature = "serde")]
        #[derive(serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub(super) struct FlatInput {
            $($($field: $ty,)*)*
        }

        #[cfg(feature = "serde")]
        impl Default for FlatInput {
            fn default() -> Self {
                FlatInput {
                    $($($field: $default,)*)*
                }
            }
        }

        #[cfg(feature = "serde")]
        impl From<FlatInput> for super::EstimateInput {
            fn from(flat: FlatInput) -> Self {
                let FlatInput { $($($field,)*)* } = flat;
                super::EstimateInput {
                    $($section: $Section { $($field,)* },)*
                }
            }
        }
    };
}

pub(super) use input_sections;
