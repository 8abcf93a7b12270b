//! The one error type of the crate: bad input, named by field, with the accepted range.

use alloc::string::String;
use core::fmt;

/// Input that the estimator cannot accept.
///
/// Every error names the input field (snake_case, as in the JSON API; the CLI shows it as a
/// `--kebab-case` flag) and says what would be accepted, so that a person can fix it.
///
/// Its text is English, except in a build with the feature `zh` and not `en` (the site's
/// Chinese calculator), where the estimator's input errors (those written with
/// [`input_error!`](crate::input_error)) are in Chinese. A build of both languages keeps their
/// Chinese too, for [`InputError::zh`]. Errors are equal when their field and English (or only)
/// text are.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct InputError {
    /// The input field, in snake_case: `batch`, `seq_len`, `gpu_memory`, `config.json: hidden_size`.
    pub field: String,
    /// What is wrong with the value given.
    pub problem: String,
    /// What the field accepts, e.g. `an integer from 1 to 65536`.
    pub accepted: String,
    /// The problem and what is accepted in Chinese, where the code that found the error wrote
    /// them ([`input_error!`](crate::input_error)); in a build of both languages only.
    #[cfg(all(feature = "en", feature = "zh"))]
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) zh: Option<alloc::boxed::Box<(String, String)>>,
}

impl PartialEq for InputError {
    fn eq(&self, other: &Self) -> bool {
        (&self.field, &self.problem, &self.accepted)
            == (&other.field, &other.problem, &other.accepted)
    }
}

impl Eq for InputError {}

/// An error's problem and accepted range in the languages of the build, for [`InputError::said`]:
/// English where the build has `en` or no language, Chinese where it has `zh`.
#[doc(hidden)]
pub struct Said {
    #[cfg(any(feature = "en", not(feature = "zh")))]
    pub problem: String,
    #[cfg(any(feature = "en", not(feature = "zh")))]
    pub accepted: String,
    #[cfg(feature = "zh")]
    pub problem_zh: String,
    #[cfg(feature = "zh")]
    pub accepted_zh: String,
}

#[doc(hidden)]
pub use alloc::format as __format;

/// An [`InputError`] written in English and in Chinese:
/// `input_error!(field, problem, 问题, accepted, 可接受)`, each text one of
/// - a literal without braces, `"no model given"`, copied as it is;
/// - `[…]`, the arguments of one `format!`: ``["no preset named `{id}`"]``;
/// - `[= expr]`, a `String` or `&str` computed for that language alone.
///
/// Each language's text, its arguments included, is compiled only where the build shows it
/// (see [`Said`]), so that the Chinese calculator's module holds neither English error text nor
/// a table to translate it. A literal is copied as it is, not formatted.
///
/// The features `en` and `zh` it tests are those of the crate that calls it: a crate that
/// calls it (the site's) has both, each turning on `vramfit`'s of the same name.
#[macro_export]
macro_rules! input_error {
    ($field:expr, $pe:tt, $pz:tt, $ae:tt, $az:tt $(,)?) => {
        $crate::error::InputError::said(
            $field,
            $crate::error::Said {
                #[cfg(any(feature = "en", not(feature = "zh")))]
                problem: $crate::__said_text!($pe),
                #[cfg(any(feature = "en", not(feature = "zh")))]
                accepted: $crate::__said_text!($ae),
                #[cfg(feature = "zh")]
                problem_zh: $crate::__said_text!($pz),
                #[cfg(feature = "zh")]
                accepted_zh: $crate::__said_text!($az),
            },
        )
    };
}

/// One text of [`input_error!`](crate::input_error).
#[doc(hidden)]
#[macro_export]
macro_rules! __said_text {
    ([= $e:expr]) => {
        $crate::error::__String::from($e)
    };
    ([$($t:tt)*]) => {
        $crate::error::__format!($($t)*)
    };
    ($text:literal) => {{
        // A brace in a bare literal is a `format!` argument that would be shown as written.
        const _: () = ::core::assert!(
            !$crate::error::__has_brace($text),
            "a brace in a bare literal: write the text as [\"…\", args]"
        );
        $crate::error::__String::from($text)
    }};
}

#[doc(hidden)]
pub use alloc::string::String as __String;

/// Whether `s` has a `{` (for [`input_error!`](crate::input_error)'s check of its literals, at
/// compile time).
#[doc(hidden)]
pub const fn __has_brace(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'{' {
            return true;
        }
        i += 1;
    }
    false
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
    fn of(field: String, problem: String, accepted: String) -> Self {
        InputError {
            field,
            problem,
            accepted,
            #[cfg(all(feature = "en", feature = "zh"))]
            zh: None,
        }
    }

    /// The error [`input_error!`](crate::input_error) writes: `said`'s text in the build's
    /// language (see [`Said`]).
    #[doc(hidden)]
    pub fn said(field: impl Into<String>, said: Said) -> Self {
        Self::of_said(field.into(), said)
    }

    fn of_said(field: String, said: Said) -> Self {
        #[cfg(any(feature = "en", not(feature = "zh")))]
        #[allow(unused_mut)]
        let mut e = Self::of(field, said.problem, said.accepted);
        #[cfg(not(any(feature = "en", not(feature = "zh"))))]
        let e = Self::of(field, said.problem_zh, said.accepted_zh);
        #[cfg(all(feature = "en", feature = "zh"))]
        {
            e.zh = Some(alloc::boxed::Box::new((said.problem_zh, said.accepted_zh)));
        }
        #[allow(clippy::let_and_return)]
        e
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

#[cfg(test)]
mod tests {
    use super::{__has_brace, InputError};
    use alloc::string::ToString;

    #[test]
    fn a_literal_with_a_brace_is_caught() {
        assert!(__has_brace("no preset named `{id}`"));
        assert!(!__has_brace("no model given"));
        assert!(!__has_brace(""));
    }

    /// Equality is the field and the text a build shows: the Chinese kept beside it does not
    /// enter, so that an error written in both languages equals the same error built by `new`.
    #[test]
    #[cfg(all(feature = "en", feature = "zh"))]
    fn errors_written_in_both_languages_equal_their_english() {
        let said = input_error!("batch", "no batch", "没有批量", "an integer", "整数");
        assert_eq!(said, InputError::new("batch", "no batch", "an integer"));
        assert_eq!(said.chinese(), Some(("没有批量", "整数")));
        assert_eq!(
            InputError::new("batch", "no batch", "an integer").chinese(),
            None
        );
        assert_eq!(said.to_string(), "batch: no batch; accepted: an integer");
    }
}
