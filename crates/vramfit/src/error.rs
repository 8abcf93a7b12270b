//! The one error type of the crate: bad input, named by field, with the accepted range, and
//! of a kind ([`ErrorKind`]) that a program can act on without reading the text.

use alloc::string::String;
use core::fmt;

/// What sort of input an [`InputError`] refuses: for a program to act on (the CLI's hints and
/// exit codes, a page's own words) without reading the English text, which may change.
///
/// The kinds partition the errors by what is wrong, not by where: a `config.json` value out of
/// range is `OutOfRange`, like a `--batch` out of range. More kinds may
/// come (the enum is `non_exhaustive`); JSON writes a kind in snake_case (`"out_of_range"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum ErrorKind {
    /// `model` names no preset of the catalog (`vramfit models` lists them).
    UnknownModel,
    /// `gpu` names no card of the GPU catalog, or more than one (`vramfit gpus` lists them).
    UnknownGpu,
    /// A word from another fixed list that is not on it: a dtype, a quantization format, a
    /// unit, a currency, a provider, a criterion, an Ollama library name or tag, a GGUF file
    /// of a repo, a key of an input object.
    UnknownName,
    /// A number outside what the field accepts (its range, or its few allowed values), a count
    /// of items over a limit, or a size beyond 1 PiB.
    OutOfRange,
    /// Text or a value that is not a number where one is asked: `x`, NaN, an infinity, or a
    /// fraction where a whole number is asked.
    NotANumber,
    /// A size written without its unit (`80`: GB or GiB?).
    UnitMissing,
    /// Text or a value not written as the field takes it: not a repo id, not a hub address,
    /// not a job, not JSON, a value of the wrong type.
    Malformed,
    /// Something the run needs is not given: no model, no GPU, no LoRA rank for QLoRA, an
    /// empty field.
    Missing,
    /// A value valid in itself that the engine, mode, model, card or file format does not
    /// support (or vramfit does not model): an Ollama name for vLLM, `tp` with llama.cpp, a
    /// `model_type` vramfit does not read, MIG on a card without it.
    Unsupported,
    /// Two inputs that contradict each other: a model and a parameter count both given, `gpus`
    /// fewer than `tp × pp`, a context shorter than the sequence, `tp` that does not divide the
    /// attention heads.
    Conflict,
    /// A valid run that nothing can hold: 8 PiB of GPU memory or more, or a job larger than
    /// the largest MIG slice or the cards allowed.
    TooLarge,
    /// A `config.json` that cannot be read as a model's: not JSON, too large or deep, a key
    /// missing or of the wrong JSON type.
    ConfigJson,
    /// A safetensors or GGUF header that cannot be read: truncated, not the format, or past the
    /// reader's limits.
    Header,
    /// A hub lookup that failed: the hub refused, did not answer, limited requests or sent what
    /// vramfit cannot read.
    Hub,
}

impl ErrorKind {
    /// Every kind, in the order declared.
    pub const ALL: [ErrorKind; 14] = [
        ErrorKind::UnknownModel,
        ErrorKind::UnknownGpu,
        ErrorKind::UnknownName,
        ErrorKind::OutOfRange,
        ErrorKind::NotANumber,
        ErrorKind::UnitMissing,
        ErrorKind::Malformed,
        ErrorKind::Missing,
        ErrorKind::Unsupported,
        ErrorKind::Conflict,
        ErrorKind::TooLarge,
        ErrorKind::ConfigJson,
        ErrorKind::Header,
        ErrorKind::Hub,
    ];

    /// The kind's name as JSON writes it: `out_of_range`.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::UnknownModel => "unknown_model",
            ErrorKind::UnknownGpu => "unknown_gpu",
            ErrorKind::UnknownName => "unknown_name",
            ErrorKind::OutOfRange => "out_of_range",
            ErrorKind::NotANumber => "not_a_number",
            ErrorKind::UnitMissing => "unit_missing",
            ErrorKind::Malformed => "malformed",
            ErrorKind::Missing => "missing",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Conflict => "conflict",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::ConfigJson => "config_json",
            ErrorKind::Header => "header",
            ErrorKind::Hub => "hub",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Input that the estimator cannot accept.
///
/// Every error names the input field (snake_case, as in the JSON API; the CLI shows it as a
/// `--kebab-case` flag) and says what would be accepted, so that a person can fix it.
///
/// Its text is English, except in a build with the feature `zh` and not `en` (the site's
/// Chinese calculator), where the estimator's input errors (those written with
/// [`input_error!`](crate::input_error)) are in Chinese. A build of both languages keeps their
/// Chinese too, for [`InputError::zh`]. Errors are equal when their kind, field and English
/// (or only) text are: the kind is part of what an error says.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct InputError {
    /// What sort of input is refused, for a program to act on; JSON writes it first,
    /// `"kind": "out_of_range"`.
    pub kind: ErrorKind,
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
        (self.kind, &self.field, &self.problem, &self.accepted)
            == (other.kind, &other.field, &other.problem, &other.accepted)
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
/// `input_error!(Kind, field, problem, 问题, accepted, 可接受)`, `Kind` a variant of
/// [`ErrorKind`] (`OutOfRange`), or `[= expr]` for a kind computed, and each text one of
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
    ([= $kind:expr], $field:expr, $pe:tt, $pz:tt, $ae:tt, $az:tt $(,)?) => {
        $crate::error::InputError::said(
            $kind,
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
    ($kind:ident, $field:expr, $pe:tt, $pz:tt, $ae:tt, $az:tt $(,)?) => {
        $crate::input_error!(
            [= $crate::error::ErrorKind::$kind],
            $field,
            $pe,
            $pz,
            $ae,
            $az,
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
    /// A new error of `kind` for `field`.
    pub fn new(
        kind: ErrorKind,
        field: impl Into<String>,
        problem: impl Into<String>,
        accepted: impl Into<String>,
    ) -> Self {
        Self::of(kind, field.into(), problem.into(), accepted.into())
    }

    /// One body for every argument type of [`Self::new`] (smaller WebAssembly).
    fn of(kind: ErrorKind, field: String, problem: String, accepted: String) -> Self {
        InputError {
            kind,
            field,
            problem,
            accepted,
            #[cfg(all(feature = "en", feature = "zh"))]
            zh: None,
        }
    }

    /// What a person typed, where the problem quotes it: the text between its first two
    /// backticks (`` no preset named `llama` `` → `llama`). The errors write a value typed
    /// between backticks, in both languages, so that it reads as typed.
    pub fn quoted(&self) -> Option<&str> {
        let (_, rest) = self.problem.split_once('`')?;
        rest.split_once('`').map(|(typed, _)| typed)
    }

    /// The error [`input_error!`](crate::input_error) writes: `said`'s text in the build's
    /// language (see [`Said`]).
    #[doc(hidden)]
    pub fn said(kind: ErrorKind, field: impl Into<String>, said: Said) -> Self {
        Self::of_said(kind, field.into(), said)
    }

    fn of_said(kind: ErrorKind, field: String, said: Said) -> Self {
        #[cfg(any(feature = "en", not(feature = "zh")))]
        #[allow(unused_mut)]
        let mut e = Self::of(kind, field, said.problem, said.accepted);
        #[cfg(not(any(feature = "en", not(feature = "zh"))))]
        let e = Self::of(kind, field, said.problem_zh, said.accepted_zh);
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
    use super::{__has_brace, ErrorKind, InputError};
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
        let said = input_error!(
            Missing,
            "batch",
            "no batch",
            "没有批量",
            "an integer",
            "整数"
        );
        let new = |kind| InputError::new(kind, "batch", "no batch", "an integer");
        assert_eq!(said, new(ErrorKind::Missing));
        // The kind is part of what an error says.
        assert_ne!(said, new(ErrorKind::OutOfRange));
        assert_eq!(said.chinese(), Some(("没有批量", "整数")));
        assert_eq!(new(ErrorKind::Missing).chinese(), None);
        assert_eq!(said.to_string(), "batch: no batch; accepted: an integer");
    }

    /// An estimate's error for the JSON of an `EstimateInput`.
    #[cfg(feature = "serde")]
    fn estimated(json: &str) -> InputError {
        let input: crate::estimate::EstimateInput =
            serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
        crate::estimate::estimate(&input).expect_err(json)
    }

    /// Every kind is produced by real input: a table of inputs and the kind each gets.
    #[test]
    #[cfg(feature = "serde")]
    fn every_kind_comes_from_real_input() {
        use crate::hardware::mig::{MigOptions, plan_mig};
        use crate::units::{Bytes, parse_params, parse_size};
        use alloc::vec::Vec;
        use alloc::{format, vec};
        let m = r#""model":"meta-llama/Llama-3.1-8B""#;
        let with = |rest: &str| estimated(&format!("{{{m},{rest}}}"));
        let a100 = crate::hardware::find_gpu("a100-sxm4-80gb").unwrap();
        let config = |json: &str| crate::config::parse_config(json).err().unwrap();
        let mut table: Vec<(&str, InputError, ErrorKind)> = vec![
            (
                "model zzz",
                estimated(r#"{"model":"zzz"}"#),
                ErrorKind::UnknownModel,
            ),
            (
                "model llama",
                estimated(r#"{"model":"llama"}"#),
                ErrorKind::UnknownModel,
            ),
            (
                "gpu no-such-gpu",
                with(r#""gpu":"no-such-gpu""#),
                ErrorKind::UnknownGpu,
            ),
            (
                "gpu a100 (several)",
                with(r#""gpu":"a100""#),
                ErrorKind::UnknownGpu,
            ),
            (
                "gpu_memory 80XB",
                with(r#""gpu_memory":"80XB""#),
                ErrorKind::UnknownName,
            ),
            (
                "lora_targets qq",
                with(r#""mode":"training","lora_targets":["qq"]"#),
                ErrorKind::UnknownName,
            ),
            (
                "quantization foo",
                crate::precision::Quantization::parse("quantization", "foo").unwrap_err(),
                ErrorKind::UnknownName,
            ),
            ("batch 0", with(r#""batch":0"#), ErrorKind::OutOfRange),
            (
                "gpu_memory 2000TB",
                with(r#""gpu_memory":"2000TB""#),
                ErrorKind::OutOfRange,
            ),
            (
                "params 1e20",
                estimated(r#"{"params":"1e20"}"#),
                ErrorKind::OutOfRange,
            ),
            ("batch 1.5", with(r#""batch":1.5"#), ErrorKind::NotANumber),
            (
                "gpu_memory abcGB",
                parse_size("gpu_memory", "abcGB").unwrap_err(),
                ErrorKind::NotANumber,
            ),
            (
                "params abc",
                parse_params("params", "abc").unwrap_err(),
                ErrorKind::NotANumber,
            ),
            (
                "gpu_memory 80",
                with(r#""gpu_memory":"80""#),
                ErrorKind::UnitMissing,
            ),
            (
                "offers nope",
                crate::hardware::import::offers_from_json("nope", crate::hardware::gpus())
                    .unwrap_err(),
                ErrorKind::Malformed,
            ),
            ("no model", estimated("{}"), ErrorKind::Missing),
            (
                "qlora without a rank",
                with(r#""mode":"training","qlora":true"#),
                ErrorKind::Missing,
            ),
            (
                "dtype int8",
                with(r#""dtype":"int8""#),
                ErrorKind::Unsupported,
            ),
            (
                "tp 2 with llama.cpp",
                with(r#""engine":"llamacpp","tp":2,"gpus":2"#),
                ErrorKind::Unsupported,
            ),
            (
                "model and params",
                with(r#""params":"7B""#),
                ErrorKind::Conflict,
            ),
            (
                "tp 2 on 1 GPU",
                with(r#""tp":2,"gpus":1"#),
                ErrorKind::Conflict,
            ),
            (
                "8 PiB",
                estimated(
                    r#"{"model":"meta-llama/Llama-3.1-405B","batch":1048576,"seq_len":16777216,"mode":"training","attention":"eager"}"#,
                ),
                ErrorKind::TooLarge,
            ),
            (
                "a 100 GiB MIG job",
                plan_mig(a100, &[Bytes::new(100 << 30)], &[], &MigOptions::default()).unwrap_err(),
                ErrorKind::TooLarge,
            ),
            ("config not json", config("not json"), ErrorKind::ConfigJson),
            (
                "config without model_type",
                config("{}"),
                ErrorKind::ConfigJson,
            ),
            (
                "config model_type foo",
                config(r#"{"model_type":"foo"}"#),
                ErrorKind::Unsupported,
            ),
            (
                "safetensors abc",
                crate::headers::safetensors_header_len(b"abc").unwrap_err(),
                ErrorKind::Header,
            ),
            (
                "gguf NOPE",
                crate::headers::parse_gguf_header(b"NOPE").unwrap_err(),
                ErrorKind::Header,
            ),
        ];
        #[cfg(feature = "hub")]
        {
            use crate::hub::{Failure, Hub, failure, in_file, repo_id};
            let hub = Hub::at("https://huggingface.co").unwrap();
            table.push((
                "repo not/a/repo",
                repo_id("not/a/repo").unwrap_err(),
                ErrorKind::Malformed,
            ));
            let timeout = failure(&hub, "a/b", "", Failure::Timeout(10));
            table.push(("a hub timeout", timeout, ErrorKind::Hub));
            // A reader's error seen through the hub keeps its kind.
            let read = in_file(&hub, "a/b", "config.json", &config("{}"), None);
            table.push(("a hub's config.json", read, ErrorKind::ConfigJson));
        }
        for (what, e, kind) in &table {
            assert_eq!(e.kind, *kind, "{what}: {e}");
        }
        for kind in ErrorKind::ALL {
            assert!(
                table.iter().any(|(_, e, _)| e.kind == kind),
                "no input in the table gives {kind}"
            );
        }
    }

    /// An error's JSON, as the CLI's and the npm package's JSON carry it: its kind first, in
    /// snake_case, then the field and the text; read back, the same error.
    #[test]
    #[cfg(feature = "serde")]
    fn an_errors_json_has_its_kind() {
        let e = estimated(r#"{"params":"7B","batch":0}"#);
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(
            json,
            r#"{"kind":"out_of_range","field":"batch","problem":"0 is out of range","accepted":"an integer from 1 to 1048576"}"#
        );
        assert_eq!(serde_json::from_str::<InputError>(&json).unwrap(), e);
        for kind in ErrorKind::ALL {
            let named = alloc::format!("\"{}\"", kind.name());
            assert_eq!(serde_json::to_string(&kind).unwrap(), named);
            assert_eq!(serde_json::from_str::<ErrorKind>(&named).unwrap(), kind);
        }
    }

    #[test]
    fn the_typed_value_is_quoted() {
        let e = InputError::new(
            ErrorKind::UnknownModel,
            "model",
            "no preset named `llama`",
            "x",
        );
        assert_eq!(e.quoted(), Some("llama"));
        assert_eq!(
            InputError::new(ErrorKind::Missing, "model", "no model given", "x").quoted(),
            None
        );
    }
}
