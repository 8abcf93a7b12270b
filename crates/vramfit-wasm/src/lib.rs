//! JavaScript bindings of the vramfit estimator: the npm package `vramfit`. The only crate that
//! knows about JavaScript.
//!
//! Naming: functions are camelCase (`planMig`, `parseConfig`); data keeps the serde names of the
//! Rust types, which are snake_case (`seq_len`, `peak_allocated_bytes`), exactly as the CLI's
//! `--json` output and the error messages spell them. Input objects are checked strictly: an
//! unknown key is an error, so a camelCase key (`seqLen`) is refused with its name rather than
//! ignored.
//!
//! Errors are thrown as JavaScript `Error`s whose message is
//! `field: problem; accepted: what the field accepts` (the core's [`InputError`] display).
//! Byte counts are JavaScript numbers (every size is below 2^53).
//!
//! Data crosses the boundary as JSON text (`JSON.stringify` in, `JSON.parse` out) through the
//! core's serde_json, not serde-wasm-bindgen: the core already links serde_json, and a second
//! (de)serializer for every type, plus serde_path_to_error to name the key at fault, added
//! 150 KiB to the module. The output is then byte for byte what the CLI's `--json` prints.
//!
//! Two modules ship. Without the Cargo feature `full`: `estimate`, `solve`, `version` and every
//! catalog (`gpus`, `models`, `offers`, `platforms`): the package's main module
//! (`import … from "vramfit"`, and the widget's), under the 160 KB gzip budget. With `full` (on by
//! default): every function, also `recommend`, `planMig`, `diagnose`, `parseConfig`, the
//! weights-file header readers and `searchModels` (`vramfit/full`). The offers and platforms,
//! which the estimator does not use, are compiled in as the JSON text `build.rs` writes, not as
//! tables plus the code that serializes them.
//!
//! The TypeScript types of the data (`EstimateInput`, `Estimate`, …) are generated from the
//! serde types by `tests/dts.rs` into `ts/types.d.ts` and included here, so the package's
//! `.d.ts` describes exactly what the functions take and return.
#![deny(missing_docs)]
// A panic in WebAssembly kills the page: library code handles every `None` and `Err`.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

use serde::Serialize;
use serde::de::DeserializeOwned;
use vramfit::estimate::{self as est, EstimateInput};
use vramfit::hardware as hw;
#[cfg(feature = "full")]
use vramfit::hardware::{Currency, ExchangeRate, Layout, PlanOption, PlanOptions};
#[cfg(feature = "full")]
use vramfit::units::parse_size;
use vramfit::{ErrorKind, InputError, presets};
use wasm_bindgen::prelude::*;

#[cfg(feature = "full")]
mod hub;
mod types;
#[cfg(feature = "full")]
pub use types::{MigJob, MigJobSize, MigOptionsInput, MigResult, RecommendOptions, Recommendation};

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("../ts/types.d.ts");

#[wasm_bindgen]
extern "C" {
    /// `EstimateInput` in TypeScript.
    #[wasm_bindgen(typescript_type = "EstimateInput")]
    pub type JsEstimateInput;
    /// `Estimate` in TypeScript.
    #[wasm_bindgen(typescript_type = "Estimate")]
    pub type JsEstimate;
    /// `Solutions` in TypeScript.
    #[wasm_bindgen(typescript_type = "Solutions")]
    pub type JsSolutions;
    /// `RecommendOptions` in TypeScript.
    #[wasm_bindgen(typescript_type = "RecommendOptions")]
    pub type JsRecommendOptions;
    /// `Recommendation` in TypeScript.
    #[wasm_bindgen(typescript_type = "Recommendation")]
    pub type JsRecommendation;
    /// `MigJob[]` in TypeScript.
    #[wasm_bindgen(typescript_type = "MigJob[]")]
    pub type JsMigJobs;
    /// `MigOptionsInput` in TypeScript.
    #[wasm_bindgen(typescript_type = "MigOptionsInput")]
    pub type JsMigOptions;
    /// `MigResult` in TypeScript.
    #[wasm_bindgen(typescript_type = "MigResult")]
    pub type JsMigResult;
    /// `Diagnosis` in TypeScript.
    #[wasm_bindgen(typescript_type = "Diagnosis")]
    pub type JsDiagnosis;
    /// `Launch` in TypeScript.
    #[wasm_bindgen(typescript_type = "Launch")]
    pub type JsLaunch;
    /// `ReadCommand` in TypeScript.
    #[wasm_bindgen(typescript_type = "ReadCommand")]
    pub type JsReadCommand;
    /// `ReadConfig` in TypeScript.
    #[wasm_bindgen(typescript_type = "ReadConfig")]
    pub type JsReadConfig;
    /// `ParsedConfig` in TypeScript.
    #[wasm_bindgen(typescript_type = "ParsedConfig")]
    pub type JsParsedConfig;
    /// `SafetensorsHeader` in TypeScript.
    #[wasm_bindgen(typescript_type = "SafetensorsHeader")]
    pub type JsSafetensorsHeader;
    /// `GgufHeader` in TypeScript.
    #[wasm_bindgen(typescript_type = "GgufHeader")]
    pub type JsGgufHeader;
    /// `Gpu[]` in TypeScript.
    #[wasm_bindgen(typescript_type = "Gpu[]")]
    pub type JsGpus;
    /// `Preset[]` in TypeScript.
    #[wasm_bindgen(typescript_type = "Preset[]")]
    pub type JsPresets;
    /// `Offer[]` in TypeScript.
    #[wasm_bindgen(typescript_type = "Offer[]")]
    pub type JsOffers;
    /// `Platform[]` in TypeScript.
    #[wasm_bindgen(typescript_type = "Platform[]")]
    pub type JsPlatforms;
    /// `ModelFit[]` in TypeScript.
    #[wasm_bindgen(typescript_type = "ModelFit[]")]
    pub type JsModelFits;
    /// `Grid` in TypeScript.
    #[wasm_bindgen(typescript_type = "Grid")]
    pub type JsGrid;
    /// `string[]` in TypeScript.
    #[wasm_bindgen(typescript_type = "string[]")]
    pub type JsStrings;
}

/// What the functions throw on bad input (the TypeScript beside the generated types).
#[wasm_bindgen(typescript_custom_section)]
const ERROR_TYPE: &str = r#"
/**
 * What a function throws on bad input: an `Error` whose `message` is
 * `field: problem; accepted: …` (as the CLI prints it), with the error's `kind` (see
 * `ErrorKind`; for a program to act on, not the text) and `field`; `message_zh` where the
 * error was written in Chinese too (every error of the estimator's input).
 */
export interface VramfitError extends Error {
  kind: ErrorKind;
  field: string;
  problem: string;
  accepted: string;
  message_zh?: string;
}
"#;

/// An input error as a JavaScript `Error`: its `message` in English (`field: problem; accepted:
/// …`), its `kind` (`out_of_range`, as JSON writes an [`ErrorKind`]), `field`, `problem` and
/// `accepted` (the parts of the message, as the native JSON has them), and, where the
/// code that found the error wrote it in Chinese too (every error of the estimator's input),
/// `message_zh` in Chinese (`字段：问题。可接受：…。`, as the site writes it).
pub(crate) fn js_err(e: InputError) -> JsValue {
    let error = js_sys::Error::new(&e.to_string());
    // Setting a property on a fresh `Error` cannot fail.
    let _ = js_sys::Reflect::set(&error, &"kind".into(), &e.kind.name().into());
    let _ = js_sys::Reflect::set(&error, &"field".into(), &e.field.as_str().into());
    let _ = js_sys::Reflect::set(&error, &"problem".into(), &e.problem.as_str().into());
    let _ = js_sys::Reflect::set(&error, &"accepted".into(), &e.accepted.as_str().into());
    if let Some((problem, accepted)) = e.chinese() {
        let zh = format!("{}：{problem}。可接受：{accepted}。", e.field);
        let _ = js_sys::Reflect::set(&error, &"message_zh".into(), &zh.into());
    }
    error.into()
}

/// serde_json's message without its `at line 1 column 9` (the text is ours, not the user's).
fn problem(e: &serde_json::Error) -> String {
    let m = e.to_string();
    match m.rfind(" at line ") {
        Some(i) => m[..i].to_string(),
        None => m,
    }
}

/// `JSON.stringify(value)`; `None` for what has no JSON text (`undefined`, a function).
fn stringify(value: &JsValue) -> Option<String> {
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
}

/// The first number in `value` (its keys, its arrays' items, at any depth up to 64) that is NaN
/// or infinite, with the key it is under (`what` for the value itself or an array's item of it).
/// `JSON.stringify` writes those as `null`, which an optional field would read as absent.
fn non_finite(what: &str, value: &JsValue, depth: u32) -> Option<(String, f64)> {
    if let Some(x) = value.as_f64() {
        return (!x.is_finite()).then(|| (what.to_string(), x));
    }
    if depth >= 64 || !value.is_object() {
        return None;
    }
    if js_sys::Array::is_array(value) {
        let items: js_sys::Array = value.clone().unchecked_into();
        return items.iter().find_map(|v| non_finite(what, &v, depth + 1));
    }
    js_sys::Object::entries(value.unchecked_ref::<js_sys::Object>())
        .iter()
        .find_map(|pair| {
            let pair: js_sys::Array = pair.unchecked_into();
            let key = pair.get(0).as_string().unwrap_or_default();
            non_finite(&key, &pair.get(1), depth + 1)
        })
}

/// Reads a JavaScript value as `T` through its JSON text (`undefined` keys are absent, as in
/// JSON). A wrong or unknown key is an error naming it: `batch: invalid type: string "x",
/// expected f64; accepted: see the `EstimateInput` type`; so is a NaN or an infinity, which the
/// JSON text would carry as `null`: `batch: NaN is not a finite number; accepted: a finite
/// number`.
fn from_js<T: DeserializeOwned>(what: &str, value: &JsValue) -> Result<T, InputError> {
    if let Some((key, x)) = non_finite(what, value, 0) {
        let x = if x.is_nan() {
            "NaN"
        } else if x > 0.0 {
            "Infinity"
        } else {
            "-Infinity"
        };
        return Err(InputError::new(
            ErrorKind::NotANumber,
            key,
            format!("{x} is not a finite number"),
            "a finite number",
        ));
    }
    let text = stringify(value).ok_or_else(|| {
        InputError::new(
            ErrorKind::Missing,
            what,
            "missing",
            format!("an object of the `{what}` type"),
        )
    })?;
    serde_json::from_str(&text).map_err(|e| {
        // Find the key at fault: the first one that fails on its own.
        let keys: Vec<JsValue> = if value.is_object() {
            js_sys::Object::keys(value.unchecked_ref::<js_sys::Object>())
                .iter()
                .collect()
        } else {
            Vec::new()
        };
        let field = keys.into_iter().find_map(|k| {
            let key = k.as_string()?;
            let v = js_sys::Reflect::get(value, &k).ok()?;
            let one = format!(
                "{{{}:{}}}",
                serde_json::to_string(&key).ok()?,
                stringify(&v)?
            );
            serde_json::from_str::<T>(&one)
                .err()
                .map(|e| (key, problem(&e)))
        });
        let (field, p) = field.unwrap_or_else(|| (what.to_string(), problem(&e)));
        // A value read by the core's own parser (a quantization's CLI spelling) says what it
        // accepts after "; accepted: "; the rest point to the type.
        match p.split_once("; accepted: ") {
            Some((p, accepted)) => InputError::new(ErrorKind::Malformed, field, p, accepted),
            None => InputError::new(
                ErrorKind::Malformed,
                field,
                p,
                format!("see the `{what}` type"),
            ),
        }
    })
}

/// Writes `value` as plain JavaScript data through its JSON text, exactly as the CLI's
/// `--json` writes it: objects, arrays, numbers (sizes are below 2^53, so exact), `null`.
pub(crate) fn to_js<T: Serialize + ?Sized, J: JsCast>(value: &T) -> Result<J, JsValue> {
    let text = serde_json::to_string(value)
        .map_err(|e| JsValue::from(JsError::new(&format!("output: {e}"))))?;
    js_sys::JSON::parse(&text)
        .map(JsCast::unchecked_into)
        .map_err(|_| JsError::new("output: not JSON").into())
}

fn input(value: JsEstimateInput) -> Result<EstimateInput, JsValue> {
    from_js("EstimateInput", &value.into()).map_err(js_err)
}

/// The estimator's version (the package's version).
#[wasm_bindgen]
pub fn version() -> String {
    vramfit::VERSION.to_string()
}

/// Estimates the GPU memory of one run, per GPU, in bytes.
#[wasm_bindgen]
pub fn estimate(input: JsEstimateInput) -> Result<JsEstimate, JsValue> {
    let e = est::estimate(&self::input(input)?).map_err(js_err)?;
    to_js(&e)
}

/// On the GPU the input names (`gpu` or `gpu_memory`): the largest batch, the largest context
/// and the fewest such GPUs that fit.
#[wasm_bindgen]
pub fn solve(input: JsEstimateInput) -> Result<JsSolutions, JsValue> {
    let input = self::input(input)?;
    let workload = input.resolve().map_err(js_err)?;
    let device = workload.device.ok_or_else(|| {
        js_err(InputError::new(
            ErrorKind::Missing,
            "gpu",
            "no GPU given",
            "`gpu` (a catalog id such as `h100-sxm5-80gb`, or words that name one alone, such as `h200`) or `gpu_memory` (such as `80GB`)",
        ))
    })?;
    to_js(&est::solve(&input, &device))
}

/// The run of `input` without its model: every preset is tried with it. A model given is
/// refused (one model is `estimate`'s job), and so is a run invalid with any model.
#[cfg(feature = "full")]
fn run_for_every_model(input: JsEstimateInput) -> Result<EstimateInput, JsValue> {
    let run = self::input(input)?;
    if run.model.model.is_some() || run.model.params.is_some() || run.model.arch.is_some() {
        return Err(js_err(InputError::new(
            ErrorKind::Conflict,
            "model",
            "every preset is tried",
            "a run without `model`, `params` or `arch` (use `estimate` for one model)",
        )));
    }
    {
        let mut input = run.clone();
        input.model.params = Some("1B".into());
        input
    }
    .resolve()
    .map_err(js_err)?;
    Ok(run)
}

#[cfg(feature = "full")]
/// Which models fit the card `gpuId` (a catalog id, or words that name one card alone): every
/// preset in every weight format the run's engine loads, with the run of `input` (its mode,
/// engine, batch, sequence…; no model), the ones that fit first, larger models first, each with
/// its largest context and the most precise format that fits marked `best`.
#[wasm_bindgen(js_name = modelsOn)]
pub fn models_on(
    input: JsEstimateInput,
    #[wasm_bindgen(js_name = "gpuId")] gpu_id: &str,
) -> Result<JsModelFits, JsValue> {
    let run = run_for_every_model(input)?;
    let gpu = hw::lookup_gpu("gpu", gpu_id).map_err(js_err)?;
    to_js(&hw::grid::models_on(&run, gpu, true))
}

#[cfg(feature = "full")]
/// Every preset × every card of `gpuIds` (catalog ids; every card of the catalog when absent):
/// in each cell the most precise weight format that fits the run of `input` (no model).
#[wasm_bindgen]
pub fn grid(
    input: JsEstimateInput,
    #[wasm_bindgen(js_name = "gpuIds")] gpu_ids: Option<JsStrings>,
) -> Result<JsGrid, JsValue> {
    let run = run_for_every_model(input)?;
    let cards: Vec<&hw::Gpu> = match gpu_ids {
        None => hw::gpus().iter().collect(),
        Some(ids) => {
            let ids: Vec<String> = from_js("gpuIds", &ids.into()).map_err(js_err)?;
            ids.iter()
                .map(|id| hw::lookup_gpu("gpuIds", id))
                .collect::<Result<_, _>>()
                .map_err(js_err)?
        }
    };
    to_js(&hw::grid::grid(&run, &cards))
}

#[cfg(feature = "full")]
/// The cheapest offers that run `input`, each layout (tensor, pipeline, ZeRO-3, MIG) estimated
/// on its own; with the one-GPU estimate and the guide's model-size tier.
#[wasm_bindgen]
pub fn recommend(
    input: JsEstimateInput,
    options: Option<JsRecommendOptions>,
) -> Result<JsRecommendation, JsValue> {
    let input = self::input(input)?;
    let o: RecommendOptions = match options {
        Some(o) => from_js("RecommendOptions", &o.into()).map_err(js_err)?,
        None => RecommendOptions::default(),
    };
    let opts = PlanOptions::from_request(
        &o.currency,
        o.cny_per_usd,
        o.spot,
        o.max_gpus,
        &o.provider,
        o.limit,
    )
    .and_then(|p| p.with_max_nodes(o.max_nodes))
    .map_err(js_err)?
    // A vLLM or SGLang serving run also tries data-parallel replicas and expert parallel.
    .for_run(&input);
    let base = est::estimate(&input).map_err(js_err)?;
    let options: Vec<PlanOption> = hw::plan(
        |l: Layout, g: &hw::Gpu| hw::layout_required_bytes(&input, l, g),
        hw::offers(),
        hw::gpus(),
        &opts,
    );
    let tier = hw::tiers::tier_for(base.params);
    let jobs = match &o.per_job {
        Some(job) => {
            let job = hw::job::parse_job("per_job", job).map_err(js_err)?;
            let all = hw::plan(
                |l: Layout, g: &hw::Gpu| hw::layout_required_bytes(&input, l, g),
                hw::offers(),
                hw::gpus(),
                &PlanOptions {
                    limit: 0,
                    ..opts.clone()
                },
            );
            let mut jobs = hw::job::cost_per_job(&input, &all, job).map_err(js_err)?;
            if opts.limit > 0 {
                jobs.truncate(opts.limit);
            }
            Some(jobs)
        }
        None => None,
    };
    to_js(&Recommendation {
        estimate: base,
        tier,
        options,
        jobs,
    })
}

#[cfg(feature = "full")]
/// Packs jobs onto MIG slices of as few cards of `gpuId` (a catalog id, or words that name one
/// card alone, such as `h200`) as possible, then as cheaply as
/// possible (guide §4.1, §5.3).
#[wasm_bindgen(js_name = planMig)]
pub fn plan_mig(
    #[wasm_bindgen(js_name = "gpuId")] gpu_id: &str,
    jobs: JsMigJobs,
    options: Option<JsMigOptions>,
) -> Result<JsMigResult, JsValue> {
    let gpu = hw::lookup_gpu("gpu", gpu_id).map_err(js_err)?;
    let jobs: JsValue = jobs.into();
    if !js_sys::Array::is_array(&jobs) {
        return Err(js_err(InputError::new(
            ErrorKind::Malformed,
            "jobs",
            "not an array",
            "an array of `MigJob` objects",
        )));
    }
    let jobs: Vec<MigJob> = js_sys::Array::from(&jobs)
        .iter()
        .enumerate()
        .map(|(i, j)| {
            from_js::<MigJob>("MigJob", &j).map_err(|mut e| {
                e.field = format!("jobs[{i}].{}", e.field);
                js_err(e)
            })
        })
        .collect::<Result<_, _>>()?;
    let mut sizes = Vec::with_capacity(jobs.len());
    let mut out = Vec::with_capacity(jobs.len());
    for (i, j) in jobs.iter().enumerate() {
        let bytes = match (&j.memory, &j.model) {
            (Some(m), None) => parse_size("job", m).map_err(js_err)?,
            (None, Some(m)) => hw::mig::model_job_bytes(m).map_err(js_err)?,
            _ => {
                return Err(js_err(InputError::new(
                    ErrorKind::Conflict,
                    "job",
                    format!(
                        "{} needs exactly one of `memory` and `model`",
                        j.name.clone().unwrap_or_else(|| hw::mig::job_name(i))
                    ),
                    "`{ memory: \"36GiB\" }` or `{ model: \"Qwen/Qwen2.5-7B\" }`, optionally with a `name`",
                )));
            }
        };
        sizes.push(bytes);
        out.push(MigJobSize {
            name: j.name.clone().unwrap_or_else(|| hw::mig::job_name(i)),
            bytes,
        });
    }
    let o: MigOptionsInput = match options {
        Some(o) => from_js("MigOptionsInput", &o.into()).map_err(js_err)?,
        None => MigOptionsInput::default(),
    };
    let rate = match o.cny_per_usd {
        None => hw::exchange_rate(),
        Some(r) => ExchangeRate::from_request("cny_per_usd", r).map_err(js_err)?,
    };
    if !(o.max_cards.is_finite() && o.max_cards.fract() == 0.0 && o.max_cards >= 0.0) {
        return Err(js_err(InputError::new(
            ErrorKind::OutOfRange,
            "max_cards",
            format!("{}", o.max_cards),
            "1 to 64 cards",
        )));
    }
    let options = hw::mig::MigOptions {
        currency: Currency::parse("currency", &o.currency).map_err(js_err)?,
        cny_per_usd: rate.cny_per_usd,
        provider: o.provider,
        max_cards: o.max_cards.min(f64::from(u32::MAX)) as u32,
        job_names: out.iter().map(|j| j.name.clone()).collect(),
    };
    let plan = hw::mig::plan_mig(gpu, &sizes, hw::offers(), &options).map_err(js_err)?;
    to_js(&MigResult { plan, jobs: out })
}

#[cfg(feature = "full")]
/// Classifies an out-of-memory failure from a pasted message, `memory_summary()` report or
/// `nvidia-smi` log, with the checks and fixes of the guide's decision tree.
#[wasm_bindgen]
pub fn diagnose(text: &str) -> Result<JsDiagnosis, JsValue> {
    to_js(&vramfit::diagnose::diagnose(text))
}

#[cfg(feature = "full")]
/// The command that starts the run of `input` on its engine (`vllm serve …`, `python -m
/// sglang.launch_server …`, `trtllm-serve …`, `llama-server …`, Ollama's environment and
/// Modelfile), with every number the estimate assumed: files, environment, commands, and the
/// whole as a shell script.
#[wasm_bindgen]
pub fn launch(input: JsEstimateInput) -> Result<JsLaunch, JsValue> {
    to_js(&vramfit::launch::launch_input(&self::input(input)?).map_err(js_err)?)
}

#[cfg(feature = "full")]
/// Reads a pasted command line (`vllm serve Qwen/Qwen3-32B --tensor-parallel-size 2 …`) into an
/// estimate's input, listing the words it did not read.
#[wasm_bindgen(js_name = readCommand)]
pub fn read_command(line: &str) -> Result<JsReadCommand, JsValue> {
    to_js(&vramfit::launch::read_command(line).map_err(js_err)?)
}

#[cfg(feature = "full")]
/// Reads a fine-tuning stack's config file (its text: a Hugging Face TrainingArguments or TRL
/// config as JSON or YAML, a DeepSpeed JSON, a torchtune recipe, a LLaMA-Factory or axolotl
/// YAML, an accelerate or a verl config) onto `input` (the defaults when absent): the training input it
/// gives, its stack, the keys not read with their lines, what it assumed, and the files it
/// names (a DeepSpeed JSON) to read onto the result too.
/// The config may also be given as the object a JSON file parses to (a TRL or DeepSpeed config
/// built in code): it is read as its JSON text.
#[wasm_bindgen(js_name = readTrainingConfig)]
pub fn read_training_config(
    #[wasm_bindgen(unchecked_param_type = "string | Record<string, unknown>")] config: JsValue,
    input: Option<JsEstimateInput>,
) -> Result<JsReadConfig, JsValue> {
    let text = match config.as_string() {
        Some(t) => t,
        None => js_sys::JSON::stringify(&config)
            .ok()
            .and_then(|s| s.as_string())
            .ok_or_else(|| {
                js_err(InputError::new(
                    ErrorKind::Malformed,
                    "config",
                    "neither text nor an object JSON can write",
                    "a config file's text, or the object its JSON parses to",
                ))
            })?,
    };
    let base = match input {
        Some(i) => self::input(i)?,
        None => EstimateInput::default(),
    };
    to_js(&vramfit::stack_config::read_training_config(&text, base).map_err(js_err)?)
}

#[cfg(feature = "full")]
/// Reads a Hugging Face `config.json` (its text).
#[wasm_bindgen(js_name = parseConfig)]
pub fn parse_config(json: &str) -> Result<JsParsedConfig, JsValue> {
    to_js(&vramfit::config::parse_config(json).map_err(js_err)?)
}

#[cfg(feature = "full")]
/// The length of a safetensors file's JSON header from its first 8 bytes: read `8 + n` bytes
/// and pass them to [`parse_safetensors_header`].
#[wasm_bindgen(js_name = safetensorsHeaderLength)]
pub fn safetensors_header_length(first8: &[u8]) -> Result<f64, JsValue> {
    let n = vramfit::headers::safetensors_header_len(first8).map_err(js_err)?;
    Ok(n as f64)
}

#[cfg(feature = "full")]
/// Reads a safetensors header (the file's first `8 + n` bytes; the tensors are not needed).
#[wasm_bindgen(js_name = parseSafetensorsHeader)]
pub fn parse_safetensors_header(bytes: &[u8]) -> Result<JsSafetensorsHeader, JsValue> {
    to_js(&vramfit::headers::parse_safetensors_header(bytes).map_err(js_err)?)
}

#[cfg(feature = "full")]
/// Reads a GGUF header from a prefix of the file; when the prefix is too short the error says
/// how many bytes are needed.
#[wasm_bindgen(js_name = parseGgufHeader)]
pub fn parse_gguf_header(bytes: &[u8]) -> Result<JsGgufHeader, JsValue> {
    to_js(&vramfit::headers::parse_gguf_header(bytes).map_err(js_err)?)
}

/// The catalogs that the estimator does not use, as JSON text written by `build.rs` with the
/// core's serde code (the GPUs and models are compiled in as tables for the estimator, so
/// they are written from those).
const OFFERS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/offers.json"));
const PLATFORMS_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/platforms.json"));

/// `JSON.parse(text)`, typed.
fn parsed<J: JsCast>(text: &str) -> Result<J, JsValue> {
    js_sys::JSON::parse(text)
        .map(JsCast::unchecked_into)
        .map_err(|_| JsError::new("catalog: not JSON").into())
}

/// Every GPU of the catalog, sorted by id.
#[wasm_bindgen]
pub fn gpus() -> Result<JsGpus, JsValue> {
    to_js(hw::gpus())
}

/// Every built-in model, sorted by id.
#[wasm_bindgen]
pub fn models() -> Result<JsPresets, JsValue> {
    to_js(presets::presets())
}

#[cfg(feature = "full")]
/// The built-in models matching a search (id, alias or name, case-insensitive), best first.
#[wasm_bindgen(js_name = searchModels)]
pub fn search_models(query: &str) -> Result<JsPresets, JsValue> {
    let found: Vec<&presets::Preset> = presets::search(query).collect();
    to_js(&found)
}

/// Every rental offer, with its price and source.
#[wasm_bindgen]
pub fn offers() -> Result<JsOffers, JsValue> {
    parsed(OFFERS_JSON)
}

/// Every platform of the decision matrix.
#[wasm_bindgen]
pub fn platforms() -> Result<JsPlatforms, JsValue> {
    parsed(PLATFORMS_JSON)
}

#[cfg(test)]
mod tests {
    /// The catalogs shipped as text are exactly what the core's serde code writes from the
    /// tables (the CLI's `--json` and the full module give the same), and hold one record per
    /// data file (`crates/vramfit/data/offers/<id>.toml`, `…/platforms/<id>.toml`).
    #[test]
    fn catalogs_as_json_are_what_serde_writes() {
        let offers = serde_json::to_string(vramfit::hardware::offers()).unwrap();
        let platforms = serde_json::to_string(vramfit::hardware::platforms()).unwrap();
        assert_eq!(super::OFFERS_JSON, offers);
        assert_eq!(super::PLATFORMS_JSON, platforms);
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../vramfit/data");
        for (json, dir) in [
            (super::OFFERS_JSON, "offers"),
            (super::PLATFORMS_JSON, "platforms"),
        ] {
            let mut files: Vec<String> = std::fs::read_dir(format!("{data}/{dir}"))
                .unwrap()
                .flatten()
                .filter_map(|e| {
                    e.file_name()
                        .to_str()?
                        .strip_suffix(".toml")
                        .map(String::from)
                })
                .collect();
            files.sort();
            let listed: serde_json::Value = serde_json::from_str(json).unwrap();
            let mut ids: Vec<String> = listed
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].as_str().unwrap().to_string())
                .collect();
            ids.sort();
            assert_eq!(ids, files, "{dir}");
        }
    }
}
