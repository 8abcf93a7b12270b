//! Issue 42, "no config that transformers loads is refused without a reason naming the field":
//! every decoder config class transformers 5.25.0 ships (each `model_type` with a causal-LM
//! class), at its defaults as `save_pretrained` writes them
//! (`tests/reference/transformers_defaults.py` wrote `corpus/transformers-defaults.json`), is
//! either estimated or refused with an error that names a `config.json` key, says what is wrong
//! and what is accepted. The outcome of each is held in `snapshots/transformers-defaults.txt`
//! (`UPDATE_EXPECT=1` writes it again), so a type that starts or stops estimating shows in review.

use expect_test::expect_file;
use serde_json::{Map, Value};
use vramfit::config::{SUPPORTED_MODEL_TYPES, parse_config};

const CORPUS: &str = include_str!("corpus/transformers-defaults.json");

/// Named types whose transformers defaults are themselves incomplete, each refused for the
/// key that is: DeepSeek-V2's class leaves `num_experts_per_tok` None (every published V2 file
/// sets it); GLM-4.5's class names no `head_dim`, and its 4,096 width over 96 heads is no whole
/// head (every published GLM-4.5 file says `head_dim` 128).
const INCOMPLETE_DEFAULTS: &[(&str, &str)] = &[
    ("deepseek_v2", "config.json: num_experts_per_tok"),
    ("glm4_moe", "config.json: head_dim"),
];

fn corpus() -> (String, Map<String, Value>) {
    let v: Value = serde_json::from_str(CORPUS).expect("the corpus is JSON");
    let version = v["transformers"].as_str().expect("its version").to_string();
    let configs = v["configs"].as_object().expect("its configs").clone();
    (version, configs)
}

/// The key an error names, under its `config.json: ` prefix and any nesting (`text_config.x`).
fn named_key(field: &str) -> Option<&str> {
    let key = field.strip_prefix("config.json: ")?;
    let last = key.rsplit('.').next()?;
    (!last.is_empty()).then_some(last)
}

/// Whether vramfit reads this `model_type` by name (its list, and the `_text` configs of those).
fn named(model_type: &str) -> bool {
    let base = model_type.strip_suffix("_text").unwrap_or(model_type);
    SUPPORTED_MODEL_TYPES
        .split(", ")
        .map(|t| t.split(' ').next().unwrap_or(t))
        .any(|t| t == model_type || t == base)
}

#[test]
fn every_transformers_decoder_default_estimates_or_names_its_field() {
    let (version, configs) = corpus();
    assert_eq!(version, "5.25.0");
    assert!(configs.len() >= 190, "{} configs", configs.len());
    let mut lines = vec![format!(
        "transformers {version}: {} decoder config classes",
        configs.len()
    )];
    let (mut ok, mut refused) = (0, 0);
    for (model_type, config) in &configs {
        let text = serde_json::to_string(config).unwrap();
        match parse_config(&text) {
            Ok(p) => {
                assert!(p.arch.params() > 0, "{model_type}: no parameters");
                ok += 1;
                lines.push(format!("{model_type}: {} parameters", p.arch.params()));
            }
            Err(e) => {
                refused += 1;
                let key = named_key(&e.field)
                    .unwrap_or_else(|| panic!("{model_type}: {} names no config key", e.field));
                assert!(
                    !e.problem.is_empty() && !e.accepted.is_empty(),
                    "{model_type}: {e}"
                );
                // A key the error calls missing is absent (or null); any other is in the file.
                let present = |c: &Value| c.get(key).is_some_and(|v| !v.is_null());
                let anywhere = present(config) || config.get("text_config").is_some_and(present);
                assert!(
                    e.problem.starts_with("missing") || anywhere,
                    "{model_type}: {} names {key}, which the file does not hold",
                    e.field
                );
                if named(model_type) {
                    assert!(
                        INCOMPLETE_DEFAULTS.contains(&(model_type.as_str(), e.field.as_str())),
                        "{model_type} is read by name, yet its transformers defaults are refused: {e}"
                    );
                }
                lines.push(format!("{model_type}: refused, {}: {}", e.field, e.problem));
            }
        }
    }
    lines.push(format!("{ok} estimated, {refused} refused"));
    expect_file!["snapshots/transformers-defaults.txt"].assert_eq(&(lines.join("\n") + "\n"));
}
