//! Shared output helpers: errors with exit codes, JSON printing, flag names.

use vramfit::{ErrorKind, InputError};

/// A failure to report: the message and the process exit code.
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl Failure {
    /// An I/O failure (exit code 1).
    pub fn io(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 1,
        }
    }
}

impl From<InputError> for Failure {
    /// Bad input (exit code 2, whatever its kind), with the field shown as the CLI flag that
    /// sets it, and where the CLI lists what the field accepts ([`hint`]).
    fn from(e: InputError) -> Failure {
        Failure {
            message: format!(
                "{}: {}; accepted: {}{}",
                flag_name(&e.field),
                e.problem,
                e.accepted,
                hint(&e)
            ),
            code: 2,
        }
    }
}

/// Where the CLI lists what an error's field accepts, chosen by the error's kind (never by its
/// text): a model that names no preset gets `vramfit models`, with the words typed where that
/// search lists some presets.
fn hint(e: &InputError) -> String {
    match e.kind {
        ErrorKind::UnknownModel => match e.quoted() {
            Some(typed) if vramfit::presets::search(typed).next().is_some() => {
                format!(" (`vramfit models {typed}` lists them all)")
            }
            _ => String::from(" (`vramfit models` lists them)"),
        },
        _ => String::new(),
    }
}

/// `seq_len` → `--seq-len`, `batch × seq_len` → `--batch × --seq-len`; a field path such as
/// `config.json: hidden_size` is kept as it is.
pub fn flag_name(field: &str) -> String {
    if let Some((a, b)) = field.split_once(" × ") {
        format!("{} × {}", flag_name(a), flag_name(b))
    } else if field.contains([' ', ':', '.']) {
        field.to_string()
    } else {
        format!("--{}", field.replace('_', "-"))
    }
}

/// What a subcommand returns: text for stdout, or a failure.
pub type Outcome = Result<String, Failure>;

/// Pretty JSON with a trailing newline.
pub fn json<T: serde::Serialize>(value: &T) -> Outcome {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| Failure::io(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::Failure;
    use vramfit::{ErrorKind, InputError};

    /// The `vramfit models` hint follows the kind: the same words of another kind get none.
    #[test]
    fn the_hint_is_chosen_by_kind() {
        let message = |kind| {
            let e = InputError::new(kind, "model", "no preset named `llama`", "a preset id");
            Failure::from(e).message
        };
        assert_eq!(
            message(ErrorKind::UnknownModel),
            "--model: no preset named `llama`; accepted: a preset id (`vramfit models llama` lists them all)"
        );
        assert_eq!(
            message(ErrorKind::Unsupported),
            "--model: no preset named `llama`; accepted: a preset id"
        );
        // Words that `vramfit models` finds nothing for: the whole list.
        let e = InputError::new(
            ErrorKind::UnknownModel,
            "model",
            "no preset named `zzz`",
            "x",
        );
        assert_eq!(
            Failure::from(e).message,
            "--model: no preset named `zzz`; accepted: x (`vramfit models` lists them)"
        );
        // Every kind is bad input.
        for kind in ErrorKind::ALL {
            assert_eq!(
                Failure::from(InputError::new(kind, "batch", "p", "a")).code,
                2
            );
        }
    }
}
