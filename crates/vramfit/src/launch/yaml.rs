//! The few shapes of YAML and JSON the training launches write: flat keys with scalars, a
//! list, or one level of nesting. Written by hand rather than through a serializer: the
//! crate's YAML reader (`saphyr`) writes no text, and the files are short enough to read as
//! they are emitted.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// A value as the files write it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    /// A word or a path: bare where YAML reads it back as the same string, else quoted.
    Str(String),
    /// An integer.
    Int(u64),
    /// A number as written (`0.0002`, `0.04`).
    Number(String),
    /// `true` or `false`.
    Bool(bool),
    /// A list of words (`[q_proj, v_proj]`).
    List(Vec<String>),
    /// A nested mapping.
    Map(Vec<(&'static str, Value)>),
    /// A list of mappings (axolotl's `datasets`), as a block sequence.
    Records(Vec<Vec<(&'static str, Value)>>),
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}
impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Int(n)
    }
}
impl From<f64> for Value {
    fn from(x: f64) -> Value {
        Value::Number(crate::units::short(x))
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

/// A file's keys in the order they are written.
#[derive(Default)]
pub(super) struct Keys(pub(super) Vec<(&'static str, Value)>);

impl Keys {
    /// Sets `key` to `v`.
    pub(super) fn set(&mut self, key: &'static str, v: impl Into<Value>) {
        self.0.push((key, v.into()));
    }

    /// The keys as YAML, one per line, nested mappings indented by two spaces.
    pub(super) fn yaml(&self) -> String {
        let mut s = String::new();
        write_yaml(&mut s, &self.0, 0);
        s
    }

    /// The keys as JSON, indented by two spaces, a newline at the end.
    pub(super) fn json(&self) -> String {
        let mut s = String::new();
        write_json(&mut s, &self.0, 0);
        s.push('\n');
        s
    }
}

fn write_yaml(s: &mut String, keys: &[(&'static str, Value)], depth: usize) {
    let pad = "  ".repeat(depth);
    for (k, v) in keys {
        match v {
            Value::Map(inner) => {
                *s += &format!("{pad}{k}:\n");
                write_yaml(s, inner, depth + 1);
            }
            Value::List(words) => {
                let words: Vec<String> = words.iter().map(|w| yaml_word(w)).collect();
                *s += &format!("{pad}{k}: [{}]\n", words.join(", "));
            }
            Value::Records(records) => {
                *s += &format!("{pad}{k}:\n");
                for r in records {
                    // The first key after the dash, the others under it.
                    let mut inner = String::new();
                    write_yaml(&mut inner, r, depth + 2);
                    let item = inner.replacen(&"  ".repeat(depth + 2), &format!("{pad}  - "), 1);
                    *s += &item;
                }
            }
            Value::Str(w) => *s += &format!("{pad}{k}: {}\n", yaml_word(w)),
            Value::Int(n) => *s += &format!("{pad}{k}: {n}\n"),
            Value::Number(n) => *s += &format!("{pad}{k}: {n}\n"),
            Value::Bool(b) => *s += &format!("{pad}{k}: {b}\n"),
        }
    }
}

/// `w` as a YAML scalar that reads back as the string `w`: bare when it is made of letters,
/// digits and `_-./` and does not read as a number, a boolean or null; else double-quoted.
fn yaml_word(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && w.starts_with(|c: char| c.is_ascii_alphabetic())
        && !matches!(
            w.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        );
    if plain { w.to_string() } else { json_string(w) }
}

fn write_json(s: &mut String, keys: &[(&'static str, Value)], depth: usize) {
    let pad = "  ".repeat(depth + 1);
    s.push('{');
    for (i, (k, v)) in keys.iter().enumerate() {
        *s += if i == 0 { "\n" } else { ",\n" };
        *s += &format!("{pad}{}: ", json_string(k));
        match v {
            Value::Map(inner) => write_json(s, inner, depth + 1),
            Value::List(words) => {
                let words: Vec<String> = words.iter().map(|w| json_string(w)).collect();
                *s += &format!("[{}]", words.join(", "));
            }
            Value::Records(records) => {
                *s += "[";
                for (i, r) in records.iter().enumerate() {
                    if i > 0 {
                        *s += ", ";
                    }
                    write_json(s, r, depth + 1);
                }
                *s += "]";
            }
            Value::Str(w) => *s += &json_string(w),
            Value::Int(n) => *s += &n.to_string(),
            Value::Number(n) => *s += n.as_str(),
            Value::Bool(b) => *s += &b.to_string(),
        }
    }
    *s += &format!("\n{}}}", "  ".repeat(depth));
}

/// `w` as a JSON string (also a YAML double-quoted scalar).
fn json_string(w: &str) -> String {
    let mut s = String::from("\"");
    for c in w.chars() {
        match c {
            '"' => s += "\\\"",
            '\\' => s += "\\\\",
            '\n' => s += "\\n",
            c if (c as u32) < 0x20 => s += &format!("\\u{:04x}", c as u32),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words that YAML would read as something else are quoted; JSON nests as written.
    #[test]
    fn yaml_and_json_as_written() {
        let mut k = Keys::default();
        k.set("model_name_or_path", "meta-llama/Llama-3.1-8B");
        k.set("bf16", true);
        k.set("lora_r", 16u64);
        k.set("word", "no");
        k.set("number", "1e5");
        k.set(
            "lora_target_modules",
            Value::List(alloc::vec!["q_proj".into(), "v_proj".into()]),
        );
        k.set("zero", Value::Map(alloc::vec![("stage", Value::Int(3))]));
        assert_eq!(
            k.yaml(),
            "model_name_or_path: meta-llama/Llama-3.1-8B\nbf16: true\nlora_r: 16\nword: \"no\"\nnumber: \"1e5\"\nlora_target_modules: [q_proj, v_proj]\nzero:\n  stage: 3\n"
        );
        let mut j = Keys::default();
        j.set(
            "zero_optimization",
            Value::Map(alloc::vec![
                ("stage", Value::Int(2)),
                ("overlap_comm", Value::Bool(false))
            ]),
        );
        j.set(
            "bf16",
            Value::Map(alloc::vec![("enabled", Value::from("auto"))]),
        );
        assert_eq!(
            j.json(),
            "{\n  \"zero_optimization\": {\n    \"stage\": 2,\n    \"overlap_comm\": false\n  },\n  \"bf16\": {\n    \"enabled\": \"auto\"\n  }\n}\n"
        );
    }
}
