//! A training config's text (JSON or YAML: JSON is read as the YAML it is) as a tree of keys
//! with their lines, read by `saphyr`, and the record of which keys a reader used: every other
//! key is listed as not read.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cell::RefCell;

use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};

use crate::error::{InputError, Result};

/// A value of the file, with the line it starts on (1-based).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Node {
    pub(super) line: usize,
    pub(super) value: Value,
}

/// A value as YAML resolves it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    List(Vec<Node>),
    Map(Vec<(String, Node)>),
}

/// The largest file read: training configs are a few KiB.
const MAX_BYTES: usize = 1 << 20;
/// The deepest block nesting read (indentation columns, and `- ` entries opened on one line):
/// the tree is walked recursively, and a WebAssembly stack is small.
const MAX_INDENT: usize = 160;
const MAX_INLINE_ENTRIES: usize = 16;

/// Refuses a file too large, or nested deeper than a config is (flow nesting `saphyr` limits
/// to 255 itself).
fn check_shape(text: &str) -> Result<()> {
    let deep = text.lines().position(|line| {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        let mut rest = line.trim_start();
        let mut entries = 0;
        while let Some(r) = rest.strip_prefix("- ") {
            entries += 1;
            rest = r.trim_start();
        }
        indent > MAX_INDENT || entries > MAX_INLINE_ENTRIES
    });
    if text.len() > MAX_BYTES {
        return Err(crate::input_error!(
            TooLarge,
            "config",
            "the file is over 1 MiB",
            "文件超过 1 MiB",
            "a training config of up to 1 MiB",
            "不超过 1 MiB 的训练配置",
        ));
    }
    if let Some(i) = deep {
        let line = i + 1;
        return Err(crate::input_error!(
            OutOfRange,
            "config",
            ["line {line}: nested deeper than a training config"],
            ["第 {line} 行：嵌套比训练配置更深"],
            ["at most {MAX_INDENT} columns of indentation"],
            ["缩进不超过 {MAX_INDENT} 列"],
        ));
    }
    Ok(())
}

/// Reads `text` into its tree: the first document, which must be a mapping.
pub(super) fn parse(text: &str) -> Result<Node> {
    check_shape(text)?;
    let docs = MarkedYaml::load_from_str(text).map_err(|e| {
        let line = e.marker().line();
        crate::input_error!(
            Malformed,
            "config",
            ["line {line}: {}", e.info()],
            ["第 {line} 行：{}", e.info()],
            "a JSON or YAML file",
            "JSON 或 YAML 文件",
        )
    })?;
    let root = docs.first().map_or(
        Node {
            line: 1,
            value: Value::Null,
        },
        node,
    );
    if !matches!(root.value, Value::Map(_)) {
        return Err(crate::input_error!(
            Malformed,
            "config",
            "the file is not a mapping of keys to values",
            "文件不是键到值的映射",
            "a JSON object or a YAML mapping at the top",
            "顶层为 JSON 对象或 YAML 映射",
        ));
    }
    Ok(root)
}

/// `saphyr`'s node as ours.
fn node(y: &MarkedYaml<'_>) -> Node {
    let line = y.span.start.line();
    let value = match &y.data {
        YamlData::Value(s) => scalar(s),
        YamlData::Representation(raw, ..) => Value::Str(raw.to_string()),
        YamlData::Tagged(_, inner) => node(inner).value,
        YamlData::Sequence(items) => Value::List(items.iter().map(node).collect()),
        YamlData::Mapping(map) => {
            Value::Map(map.iter().map(|(k, v)| (key_text(k), node(v))).collect())
        }
        YamlData::Alias(_) | YamlData::BadValue => Value::Null,
    };
    Node { line, value }
}

fn scalar(s: &Scalar<'_>) -> Value {
    match s {
        Scalar::Null => Value::Null,
        Scalar::Boolean(b) => Value::Bool(*b),
        // Integers in a config are counts and sizes, far below 2^53.
        #[allow(clippy::cast_precision_loss)]
        Scalar::Integer(i) => Value::Num(*i as f64),
        Scalar::FloatingPoint(f) => Value::Num(f.into_inner()),
        Scalar::String(t) => Value::Str(t.to_string()),
    }
}

fn key_text(k: &MarkedYaml<'_>) -> String {
    match node(k).value {
        Value::Str(s) => s,
        Value::Num(n) => crate::units::short(n),
        Value::Bool(b) => b.to_string(),
        _ => "?".to_owned(),
    }
}

/// A mapping of the file being read: its keys by name, the path that leads to it, and the keys
/// a reader took (shared with the mappings inside it).
pub(super) struct Map<'a> {
    path: String,
    entries: &'a [(String, Node)],
    used: &'a Used,
}

/// The dotted paths of the keys read.
#[derive(Default)]
pub(super) struct Used(RefCell<Vec<String>>);

impl Used {
    fn mark(&self, path: String) {
        self.0.borrow_mut().push(path);
    }
    fn has(&self, path: &str) -> bool {
        self.0.borrow().iter().any(|p| p == path)
    }
}

impl<'a> Map<'a> {
    /// The top mapping of `root` (a [`Value::Map`], as [`parse`] returns).
    pub(super) fn root(root: &'a Node, used: &'a Used) -> Map<'a> {
        let entries = match &root.value {
            Value::Map(m) => m.as_slice(),
            _ => &[],
        };
        Map {
            path: String::new(),
            entries,
            used,
        }
    }

    fn child_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// Whether the mapping has `key` (not marking it read).
    pub(super) fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, _)| k == key)
    }

    /// The node under `key`, marked read; `None` when absent or null.
    pub(super) fn get(&self, key: &str) -> Option<(String, &'a Node)> {
        let (_, n) = self.entries.iter().find(|(k, _)| k == key)?;
        let path = self.child_path(key);
        self.used.mark(path.clone());
        (n.value != Value::Null).then_some((path, n))
    }

    /// The mapping under `key`, marked read with everything it holds left to its own readers.
    pub(super) fn map(&self, key: &str) -> Result<Option<Map<'a>>> {
        let Some((path, n)) = self.get(key) else {
            return Ok(None);
        };
        match &n.value {
            Value::Map(entries) => Ok(Some(Map {
                path,
                entries,
                used: self.used,
            })),
            _ => Err(wrong(&path, n.line, "a mapping", "映射")),
        }
    }

    /// A boolean under `key` (`true`/`false`, and the strings `"true"`/`"false"` that argparse
    /// configs write).
    pub(super) fn bool(&self, key: &str) -> Result<Option<bool>> {
        let Some((path, n)) = self.get(key) else {
            return Ok(None);
        };
        match &n.value {
            Value::Bool(b) => Ok(Some(*b)),
            Value::Str(s) if s.eq_ignore_ascii_case("true") => Ok(Some(true)),
            Value::Str(s) if s.eq_ignore_ascii_case("false") => Ok(Some(false)),
            _ => Err(wrong(&path, n.line, "true or false", "true 或 false")),
        }
    }

    /// A number under `key` (also written as a string: `"1e9"`). `"auto"` is `Ok(None)`, the
    /// key marked read: the stack decides it.
    pub(super) fn num(&self, key: &str) -> Result<Option<f64>> {
        let Some((path, n)) = self.get(key) else {
            return Ok(None);
        };
        match &n.value {
            Value::Num(x) => Ok(Some(*x)),
            Value::Str(s) if s == "auto" => Ok(None),
            Value::Str(s) => s
                .trim()
                .parse::<f64>()
                .map(Some)
                .map_err(|_| wrong(&path, n.line, "a number", "数字")),
            _ => Err(wrong(&path, n.line, "a number", "数字")),
        }
    }

    /// Whether `key` holds `"auto"` (not marking it read).
    pub(super) fn is_auto(&self, key: &str) -> bool {
        self.entries
            .iter()
            .any(|(k, n)| k == key && n.value == Value::Str("auto".into()))
    }

    /// A string under `key` (numbers and booleans as written).
    pub(super) fn str(&self, key: &str) -> Result<Option<String>> {
        let Some((path, n)) = self.get(key) else {
            return Ok(None);
        };
        match &n.value {
            Value::Str(s) => Ok(Some(s.clone())),
            Value::Num(x) => Ok(Some(crate::units::short(*x))),
            Value::Bool(b) => Ok(Some(b.to_string())),
            _ => Err(wrong(&path, n.line, "a string", "字符串")),
        }
    }

    /// Strings under `key`: a list, or one string of comma-separated names.
    pub(super) fn strs(&self, key: &str) -> Result<Option<Vec<String>>> {
        let Some((path, n)) = self.get(key) else {
            return Ok(None);
        };
        let words = match &n.value {
            Value::Str(s) => s.split(',').map(|w| w.trim().to_owned()).collect(),
            Value::List(items) => items
                .iter()
                .map(|i| match &i.value {
                    Value::Str(s) => Ok(s.clone()),
                    _ => Err(wrong(&path, i.line, "a list of names", "名称列表")),
                })
                .collect::<Result<Vec<_>>>()?,
            _ => return Err(wrong(&path, n.line, "a list of names", "名称列表")),
        };
        Ok(Some(words.into_iter().filter(|w| !w.is_empty()).collect()))
    }

    /// A mapping or a string under `key` (DeepSpeed's config inline, or its path).
    pub(super) fn map_or_str(
        &self,
        key: &str,
    ) -> Result<Option<core::result::Result<Map<'a>, String>>> {
        let Some((path, n)) = self.get(key) else {
            return Ok(None);
        };
        match &n.value {
            Value::Map(entries) => Ok(Some(Ok(Map {
                path,
                entries,
                used: self.used,
            }))),
            Value::Str(s) => Ok(Some(Err(s.clone()))),
            _ => Err(wrong(&path, n.line, "a mapping or a path", "映射或路径")),
        }
    }

    /// Words under `key`: a list, or one string of words apart by spaces or commas
    /// (transformers' `fsdp: "full_shard auto_wrap"`).
    pub(super) fn strs_spaced(&self, key: &str) -> Result<Option<Vec<String>>> {
        Ok(self.strs(key)?.map(|words| {
            words
                .iter()
                .flat_map(|w| w.split_whitespace())
                .map(ToOwned::to_owned)
                .collect()
        }))
    }

    /// The line of `key` (0 when absent), for messages about its value.
    pub(super) fn line(&self, key: &str) -> usize {
        self.entries
            .iter()
            .find(|(k, _)| k == key)
            .map_or(0, |(_, n)| n.line)
    }

    /// The path of `key` under this mapping, as messages name it.
    pub(super) fn path_of(&self, key: &str) -> String {
        self.child_path(key)
    }
}

/// Every key of `root` no reader took, as `path (line N)`: a mapping read as a whole counts
/// for its keys; one not read at all is listed once, not key by key.
pub(super) fn not_read(root: &Node, used: &Used) -> Vec<String> {
    let mut out = Vec::new();
    if let Value::Map(m) = &root.value {
        walk(m, "", used, &mut out);
    }
    out
}

fn walk(entries: &[(String, Node)], prefix: &str, used: &Used, out: &mut Vec<String>) {
    for (k, n) in entries {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        if !used.has(&path) {
            out.push(format!("{path} (line {})", n.line));
        } else if let Value::Map(inner) = &n.value {
            walk(inner, &path, used, out);
        }
    }
}

/// A value of the wrong kind at `path`.
pub(super) fn wrong(
    path: &str,
    line: usize,
    accepted: &'static str,
    accepted_zh: &'static str,
) -> InputError {
    crate::input_error!(
        Malformed,
        path,
        ["line {line}: not {accepted}"],
        ["第 {line} 行：不是{accepted_zh}"],
        [= accepted],
        [= accepted_zh],
    )
}
