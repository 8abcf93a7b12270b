//! Hugging Face `config.json` import. (Being built: see the presets work.)

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{InputError, Result};
use crate::model::Architecture;
use crate::precision::{Dtype, Quantization};

/// What a config.json says.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedConfig {
    /// The architecture.
    pub arch: Architecture,
    /// `torch_dtype`.
    pub dtype: Option<Dtype>,
    /// `model_type`.
    pub model_type: String,
    /// `quantization_config`.
    pub quantization: Option<Quantization>,
    /// Remarks.
    pub notes: Vec<String>,
}

/// Parses a config.json.
pub fn parse_config(_json: &str) -> Result<ParsedConfig> {
    Err(InputError::new(
        "config.json",
        "config.json import is not available in this build",
        "a preset id or --params",
    ))
}
