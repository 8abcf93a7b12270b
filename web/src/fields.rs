//! The calculator's inputs: one row per estimator field, named as the estimator, the CLI and
//! the JSON API name it. The form, the URL and the conversion to the estimator's input are all
//! driven by this table.

/// How a field is entered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A number (the estimator checks its range).
    Number,
    /// Free text, such as `7B` or `80GB` (the estimator parses it).
    Text,
    /// One of a list of values.
    Choice(&'static [&'static str]),
    /// On or off.
    Bool,
}

/// Which group of the form a field belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Always shown.
    Basic,
    /// Training only.
    Training,
    /// Serving and inference engines.
    Serving,
    /// Parallelism and the card.
    Hardware,
}

/// One input field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Field {
    /// The estimator's field name.
    pub key: &'static str,
    /// How it is entered.
    pub kind: Kind,
    /// The default, as text ("" for none).
    pub default: &'static str,
    /// Its group.
    pub group: Group,
}

impl Field {
    /// Whether a URL may carry `v` for this field. Range checks are the estimator's: a link
    /// with `batch=0` opens and shows the estimator's error next to the field.
    pub fn accepts(&self, v: &str) -> bool {
        match self.kind {
            Kind::Number => v.trim().parse::<f64>().is_ok_and(f64::is_finite),
            Kind::Text => v.len() <= 200,
            Kind::Choice(values) => values.contains(&v),
            Kind::Bool => v == "true" || v == "false",
        }
    }
}

/// Every field, in form order.
pub static FIELDS: &[Field] = &[
    Field {
        key: "model",
        kind: Kind::Text,
        default: "",
        group: Group::Basic,
    },
    Field {
        key: "params",
        kind: Kind::Text,
        default: "",
        group: Group::Basic,
    },
    Field {
        key: "mode",
        kind: Kind::Choice(&["inference", "serve", "training"]),
        default: "inference",
        group: Group::Basic,
    },
    Field {
        key: "batch",
        kind: Kind::Number,
        default: "1",
        group: Group::Basic,
    },
    Field {
        key: "seq_len",
        kind: Kind::Number,
        default: "4096",
        group: Group::Basic,
    },
    Field {
        key: "gpu",
        kind: Kind::Text,
        default: "",
        group: Group::Hardware,
    },
    Field {
        key: "gpu_memory",
        kind: Kind::Text,
        default: "",
        group: Group::Hardware,
    },
];

/// The field named `key`.
pub fn field(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.key == key)
}

/// The default of `key`, if it is a field.
pub fn default_of(key: &str) -> Option<&'static str> {
    field(key).map(|f| f.default)
}
