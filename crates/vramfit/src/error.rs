//! The one error type of the crate: bad input, named by field, with the accepted range.

use alloc::string::String;
use core::fmt;

/// Input that the estimator cannot accept.
///
/// Every error names the input field (snake_case, as in the JSON API; the CLI shows it as a
/// `--kebab-case` flag) and says what would be accepted, so that a person can fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct InputError {
    /// The input field, in snake_case: `batch`, `seq_len`, `gpu_memory`, `config.json: hidden_size`.
    pub field: String,
    /// What is wrong with the value given.
    pub problem: String,
    /// What the field accepts, e.g. `an integer from 1 to 65536`.
    pub accepted: String,
}

impl InputError {
    /// A new error for `field`.
    pub fn new(
        field: impl Into<String>,
        problem: impl Into<String>,
        accepted: impl Into<String>,
    ) -> Self {
        Self::of(field.into(), problem.into(), accepted.into())
    }

    /// One body for every argument type of [`Self::new`] (smaller WebAssembly).
    #[inline(never)]
    fn of(field: String, problem: String, accepted: String) -> Self {
        InputError {
            field,
            problem,
            accepted,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}; accepted: {}",
            self.field, self.problem, self.accepted
        )
    }
}

impl core::error::Error for InputError {}

/// Shorthand for results of input validation.
pub type Result<T, E = InputError> = core::result::Result<T, E>;
