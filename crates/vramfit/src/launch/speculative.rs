//! vLLM's `--speculative-config` JSON (`{"method": …, "model": …, "num_speculative_tokens": …}`,
//! its keys as vLLM's `SpeculativeConfig` spells them): written from the run's speculative
//! decoding and read back into the estimate's input.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::Result;
use crate::estimate::{EstimateInput, SpecMethod, Speculative};

/// The JSON value of `--speculative-config` for `s`; an EAGLE head or a draft model needs its
/// repository (`draft_model`), which the command names.
pub(super) fn config_json(s: &Speculative) -> Result<String> {
    let mut json = String::from("{\"method\": ");
    json += &string(s.method.name());
    match (&s.model, s.method) {
        (Some(m), _) => {
            json += ", \"model\": ";
            json += &string(m);
        }
        (None, SpecMethod::Ngram) => {}
        (None, _) => {
            let method = s.method.name();
            return Err(crate::input_error!(
                Missing,
                "draft_model",
                ["vLLM's {method} needs the head's repository in --speculative-config"],
                ["vLLM 的 {method} 需要在 --speculative-config 中给出草稿头的仓库"],
                "the head's repository, e.g. yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
                "草稿头的仓库，如 yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
            ));
        }
    }
    json += &alloc::format!(", \"num_speculative_tokens\": {}}}", s.tokens);
    Ok(json)
}

/// `text` as a JSON string.
fn string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// `--speculative-config`'s `value` onto `i`; keys the estimate does not read go to `not_read`.
pub(super) fn read(
    flag: &str,
    value: &str,
    i: &mut EstimateInput,
    not_read: &mut Vec<String>,
) -> Result<()> {
    let bad = || {
        crate::input_error!(
            Malformed,
            "command",
            ["{flag} is not a JSON object"],
            ["{flag} 不是 JSON 对象"],
            [
                "a JSON object such as {{\"method\": \"eagle\", \"model\": \"…\", \"num_speculative_tokens\": 3}}"
            ],
            [
                "JSON 对象，如 {{\"method\": \"eagle\", \"model\": \"…\", \"num_speculative_tokens\": 3}}"
            ],
        )
    };
    let map = super::json_object(value, bad)?;
    for (key, v) in &map {
        match (key.as_str(), v) {
            ("method", serde_json::Value::String(m)) => {
                match SpecMethod::ALL.into_iter().find(|x| x.name() == m) {
                    Some(x) => i.serving.speculative_method = Some(x),
                    None => {
                        return Err(crate::input_error!(
                            Unsupported,
                            "speculative_method",
                            ["vLLM's method {m} is not modelled"],
                            ["未建模 vLLM 的 {m} 方法"],
                            "ngram, draft_model, eagle or eagle3",
                            "ngram、draft_model、eagle 或 eagle3",
                        ));
                    }
                }
            }
            ("model", serde_json::Value::String(m)) => i.serving.draft_model = Some(m.clone()),
            ("num_speculative_tokens", serde_json::Value::Number(n)) => {
                i.serving.num_speculative_tokens = n.as_f64();
            }
            _ => not_read.push(alloc::format!("{flag} {key}={v}")),
        }
    }
    if i.serving.speculative_method.is_none() {
        return Err(crate::input_error!(
            Missing,
            "speculative_method",
            ["{flag} without its method"],
            ["{flag} 缺少 method"],
            "\"method\": one of ngram, draft_model, eagle, eagle3",
            "\"method\"：ngram、draft_model、eagle、eagle3 之一",
        ));
    }
    Ok(())
}

/// vLLM's `--speculative-config` JSON `value` read onto `input` (`method`, `model`,
/// `num_speculative_tokens`): the keys it does not read, as `key=value`.
pub fn read_speculative_config(value: &str, input: &mut EstimateInput) -> Result<Vec<String>> {
    let mut not_read = Vec::new();
    read("--speculative-config", value, input, &mut not_read)?;
    Ok(not_read)
}
