//! Shared output helpers: errors with exit codes, JSON printing, flag names.

use vramfit::InputError;

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
    /// Bad input (exit code 2), with the field shown as the CLI flag that sets it.
    fn from(e: InputError) -> Failure {
        // An unknown model: where the CLI lists the presets with those words.
        let hint = match e.problem.strip_prefix("no preset named `") {
            Some(rest) if e.field == "model" && e.accepted.contains("have its words") => format!(
                " (`vramfit models {}` lists them all)",
                rest.trim_end_matches('`')
            ),
            Some(_) if e.field == "model" => String::from(" (`vramfit models` lists them)"),
            _ => String::new(),
        };
        Failure {
            message: format!(
                "{}: {}; accepted: {}{hint}",
                flag_name(&e.field),
                e.problem,
                e.accepted
            ),
            code: 2,
        }
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
