//! The site's state: a pure [`Reducible`], so native tests cover every transition, and its
//! two-way mapping to the URL (`#/view?key=value&…`).
//!
//! The calculator's inputs are kept as the text the user typed, keyed by the estimator's own
//! field names (those of the CLI flags and the JSON API): the estimator parses them and its
//! error names the field, so an error is shown next to the field it is about.

use std::rc::Rc;

use yew::Reducible;

use crate::i18n::Lang;
use crate::route::{Route, View};

/// What the site shows; everything in it is in the URL.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AppState {
    /// The language.
    pub lang: Lang,
    /// The view.
    pub view: View,
    /// The calculator's inputs that differ from their defaults, by estimator field name.
    pub calc: Inputs,
    /// Each view's own inputs (the diagnosis text, the MIG jobs…), by key.
    pub extra: Inputs,
    /// Parts of the last link that could not be read.
    pub problems: Vec<String>,
}

/// Text inputs by key, in key order: a few dozen entries at most, so a sorted `Vec` with the few
/// operations the state needs. A `BTreeMap<String, String>` here would link its node code into
/// the site's first load (the book's performance chapter has the figure).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Inputs(Vec<(String, String)>);

impl Inputs {
    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&String> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`, in its place in key order.
    pub fn insert(&mut self, key: String, value: String) {
        match self.find(&key) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key, value)),
        }
    }

    /// Removes `key`'s value, if any.
    pub fn remove(&mut self, key: &str) {
        if let Ok(i) = self.find(key) {
            self.0.remove(i);
        }
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Whether there is no value.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The keys and values, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

/// A change of state.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A URL was opened (first load, a link, back/forward): replaces the state.
    /// `fallback_lang` is the browser's language, used when the URL names none.
    Open(Route, Lang),
    /// Switch language.
    SetLang(Lang),
    /// Set one calculator input (an empty value restores its default).
    Set(String, String),
    /// Set several calculator inputs at once (a preset, an imported config).
    SetMany(Vec<(String, String)>),
    /// Set a view's own input.
    SetExtra(String, String),
    /// Restore every calculator input to its default.
    Reset,
    /// Hide the notice about a malformed link.
    DismissProblems,
}

/// The calculator's input keys that the URL may carry, with the accepted values of those that
/// are choices; any other key in a link is reported as unreadable.
pub fn calc_key(key: &str) -> Option<&'static str> {
    crate::fields::FIELDS
        .iter()
        .find(|f| f.key == key)
        .map(|f| f.key)
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            Action::Open(route, fallback) => {
                s = AppState::from_route(&route, fallback);
            }
            Action::SetLang(lang) => s.lang = lang,
            Action::Set(k, v) => {
                let changed = k.clone();
                set(&mut s.calc, k, v);
                agree(&mut s.calc, &changed);
            }
            Action::SetMany(kvs) => {
                for (k, v) in kvs {
                    let changed = k.clone();
                    set(&mut s.calc, k, v);
                    agree(&mut s.calc, &changed);
                }
            }
            Action::SetExtra(k, v) => {
                if v.is_empty() {
                    s.extra.remove(&k);
                } else {
                    s.extra.insert(k, v);
                }
            }
            Action::Reset => s.calc.clear(),
            Action::DismissProblems => s.problems.clear(),
        }
        if s == *self { self } else { Rc::new(s) }
    }
}

fn set(calc: &mut Inputs, k: String, v: String) {
    let default = crate::fields::default_of(&k);
    if v.is_empty() || Some(v.as_str()) == default {
        calc.remove(&k);
    } else {
        calc.insert(k, v);
    }
}

/// The engines that only serve many users at once: choosing one is choosing to serve.
/// Transformers only infers (asked to serve, vramfit runs vLLM); llama.cpp and Ollama do both.
const SERVING_ENGINES: [&str; 3] = ["vllm", "sglang", "trtllm"];

/// Keeps the mode and the engine in agreement after the person changed one of them (`changed`):
/// serving with transformers is serving with vLLM, a serving engine serves, and transformers,
/// or inference asked of a serving engine, infers. A link is opened as written, not changed.
fn agree(calc: &mut Inputs, changed: &str) {
    let value = |calc: &Inputs, k: &str| {
        calc.get(k)
            .cloned()
            .or_else(|| crate::fields::default_of(k).map(str::to_string))
            .unwrap_or_default()
    };
    let (mode, engine) = (value(calc, "mode"), value(calc, "engine"));
    let serving_engine = SERVING_ENGINES.contains(&engine.as_str());
    let fix = match changed {
        "mode" if mode == "serve" && engine == "hf" => Some(("engine", "vllm")),
        "mode" if mode == "inference" && serving_engine => Some(("engine", "hf")),
        "engine" if serving_engine && mode == "inference" => Some(("mode", "serve")),
        "engine" if engine == "hf" && mode == "serve" => Some(("mode", "inference")),
        _ => None,
    };
    if let Some((k, v)) = fix {
        set(calc, k.to_string(), v.to_string());
    }
}

/// Longer pasted texts stay on the page but out of the URL (links must stay usable).
pub const MAX_TEXT_IN_URL: usize = 12_000;

/// Keys of each view's own inputs.
pub const EXTRA_KEYS: &[&str] = &[
    "config",
    "text",
    "jobs",
    "mig_gpu",
    "sort",
    "device_gpu",
    "provider",
    "currency",
    "walk",
    "spot",
    "weights",
    "spot_hours",
    "spot_od",
    "spot_price",
    "spot_mtbi",
    "spot_ckpt",
    "spot_restart",
    "cards",
    "job",
];

impl AppState {
    /// The state a URL describes. Unknown keys and values that are not accepted are
    /// dropped (their defaults apply) and listed in `problems`.
    pub fn from_route(route: &Route, fallback: Lang) -> AppState {
        let mut s = AppState {
            view: route.view,
            problems: route.problems.clone(),
            lang: fallback,
            ..AppState::default()
        };
        for (k, v) in &route.params {
            if k == "lang" {
                match Lang::from_url(v) {
                    Some(l) => s.lang = l,
                    None => s.problems.push(format!("lang \"{v}\"")),
                }
            } else if let Some(field) = crate::fields::FIELDS.iter().find(|f| f.key == k) {
                if field.accepts(v) {
                    // A card named in a hand-written link (`gpu=h200`) is kept by its id, so that
                    // the form's list shows it; words that fit no card or several stay as written,
                    // for the estimate's error to name.
                    let card = (k == "gpu").then(|| vramfit::hardware::match_gpus(v));
                    let v = match card.as_deref() {
                        Some([g]) => g.id.to_string(),
                        _ => v.clone(),
                    };
                    set(&mut s.calc, k.clone(), v);
                } else {
                    s.problems.push(format!("{k} \"{v}\""));
                }
            } else if !cfg!(feature = "full") && crate::fields::TRAINING_KEYS.contains(&k.as_str())
            {
                // A training field in a calculator build: carried unread for the full build.
                s.calc.insert(k.clone(), v.clone());
            } else if EXTRA_KEYS.contains(&k.as_str()) {
                s.extra.insert(k.clone(), v.clone());
            } else {
                s.problems.push(format!("\"{k}\""));
            }
        }
        s
    }

    /// The URL hash of this state in `view`.
    pub fn hash_for(&self, view: View) -> String {
        let mut params = vec![("lang".to_string(), self.lang.url_code().to_string())];
        // A model looked up on a hub (full build): the link carries its repo id, not it.
        let hub = cfg!(feature = "full") && self.calc.get("source").is_some_and(|s| s == "hub");
        params.extend(self.calc.iter().map(|(k, v)| (k.clone(), v.clone())));
        params.extend(
            self.extra
                .iter()
                .filter(|(k, v)| !(k.as_str() == "text" && v.len() > MAX_TEXT_IN_URL))
                .filter(|(k, _)| !(hub && k.as_str() == "config"))
                .map(|(k, v)| (k.clone(), v.clone())),
        );
        Route::hash(view, &params)
    }

    /// The calculator's link for this state with `changes` (field, text) made: what a row of
    /// another view that varies the calculator's run (a model, a card, a layout) opens, so that
    /// the calculator shows that row's run. An empty text restores the field's default; the
    /// view's own inputs are carried as they are.
    pub fn calc_link_with(&self, changes: &[(&str, String)]) -> String {
        let mut s = self.clone();
        for (k, v) in changes {
            set(&mut s.calc, (*k).to_string(), v.clone());
        }
        s.hash_for(View::Calc)
    }

    /// The calculator's link for the estimator's input `d` alone (no state of this page but its
    /// language): each form field whose text differs from its default. What an example run (an
    /// FAQ answer's) opens.
    #[cfg(feature = "full")]
    pub fn calc_link_of(&self, d: &vramfit::estimate::EstimateInput) -> String {
        // The model, which the form's texts leave at the site's: a preset by its id, or a
        // parameter count.
        let model = match (&d.model.model, &d.model.params) {
            (Some(m), _) => Some(("preset", "model", m)),
            (None, Some(p)) => Some(("params", "params", p)),
            (None, None) => None,
        };
        let mut texts = crate::fields::form_texts(d);
        for (k, v) in &mut texts {
            match model {
                Some((source, _, _)) if *k == "source" => *v = source.to_string(),
                Some((_, key, value)) if *k == key => v.clone_from(value),
                _ => {}
            }
        }
        let mut params = vec![("lang".to_string(), self.lang.url_code().to_string())];
        params.extend(
            texts
                .into_iter()
                .filter(|(k, v)| crate::fields::default_of(k) != Some(v.as_str()))
                .map(|(k, v)| (k.to_string(), v)),
        );
        Route::hash(View::Calc, &params)
    }

    /// The smallest of the site's builds that shows this state: `"full"` for any view but the
    /// calculator, for a model read from a config.json or weights file or looked up on a hub,
    /// for a card of the catalog (whose speed the full build's estimate has), for
    /// TensorRT-LLM, mlx-lm, TEI or training (whose run shapes the calculator builds leave out), or
    /// for a setting of [`FULL_BUILD_KEYS`], images (`images` above 0) or more GPUs than one
    /// node holds (vramfit's features `nodes`, `speculative`, `mlx` and `vision`, which the
    /// calculator builds leave out); else
    /// the calculator build of the state's language, `"en"` or `"zh"` (`www/boot.js` makes the
    /// same choice from the address before any build runs).
    pub fn build(&self) -> &'static str {
        if self.view != View::Calc
            || matches!(self.value("source").as_str(), "config" | "hub")
            || !self.value("gpu").is_empty()
            || matches!(self.value("engine").as_str(), "trtllm" | "mlx" | "tei")
            || self.value("mode") == "training"
            || FULL_BUILD_KEYS.iter().any(|k| !self.value(k).is_empty())
            || !matches!(self.value("images").trim(), "" | "0")
            || self.gpu_count() > vramfit::estimate::DEFAULT_GPUS_PER_NODE as f64
        {
            "full"
        } else {
            self.lang.url_code()
        }
    }

    /// The GPUs the calculator's input runs on: the cards listed (each count expanded), else
    /// `gpus`, else `tp × pp` (0 where a number does not read: the estimate names the field).
    fn gpu_count(&self) -> f64 {
        let num = |k: &str| vramfit::units::parse_number(self.value(k).trim()).unwrap_or(0.0);
        let cards = vramfit::estimate::split_card_list(&self.value("cards"));
        if !cards.is_empty() {
            return cards
                .iter()
                .map(|c| vramfit::estimate::card_count(c).0.unwrap_or(1) as f64)
                .sum();
        }
        if self.value("gpus").trim().is_empty() {
            num("tp") * num("pp")
        } else {
            num("gpus")
        }
    }

    /// The URL hash of this state.
    pub fn hash(&self) -> String {
        self.hash_for(self.view)
    }

    /// The calculator's value of `key`: what the user set, or the default.
    pub fn value(&self, key: &str) -> String {
        self.calc
            .get(key)
            .cloned()
            .or_else(|| crate::fields::default_of(key).map(str::to_string))
            .unwrap_or_default()
    }

    /// A view's own input.
    pub fn extra(&self, key: &str) -> &str {
        self.extra.get(key).map(String::as_str).unwrap_or("")
    }
}

/// The settings only the full build reads: a run over several nodes, vLLM's and SGLang's
/// speculative decoding, mlx-lm's KV flags, the Mac's wired limit, the images' size, a P/D side and the host
/// memory of the speed under offload (vramfit's features `nodes`, `speculative`, `mlx`, `vision`,
/// `disaggregation` and `speed`; a calculator build refuses them with an error of kind
/// `unsupported`). A state that sets one is the full build's ([`AppState::build`]), as is
/// one with `images` above 0, the field whose default is `0`.
pub const FULL_BUILD_KEYS: &[&str] = &[
    "gpus_per_node",
    "node_link",
    "speculative_method",
    "draft_model",
    "num_speculative_tokens",
    "acceptance_rate",
    "max_kv_size",
    "kv_bits",
    "kv_group_size",
    "quantized_kv_start",
    "wired_limit_mb",
    "image_width",
    "image_height",
    "disaggregation_mode",
    "disaggregation_transfer_backend",
    "num_reserved_decode_tokens",
    "host_memory",
    "host_bandwidth",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn open(hash: &str) -> Rc<AppState> {
        Rc::new(AppState::default()).reduce(Action::Open(Route::parse(hash), Lang::En))
    }

    #[test]
    fn each_state_names_the_smallest_build_that_shows_it() {
        assert_eq!(open("").build(), "en");
        assert_eq!(open("#/calc?lang=zh&batch=4").build(), "zh");
        assert_eq!(open("#/fit?lang=zh").build(), "full");
        assert_eq!(open("#/faq").build(), "full");
        assert_eq!(open("#/calc?source=config").build(), "full");
        assert_eq!(open("#/calc?source=preset").build(), "en");
        // A catalog card: its speed is the full build's; a memory size alone is not a card.
        assert_eq!(open("#/calc?lang=zh&gpu=h100-sxm5-80gb").build(), "full");
        assert_eq!(open("#/calc?gpu_memory=24GB").build(), "en");
        assert_eq!(open("#/calc?gpu=&gpu_memory=24GB").build(), "en");
        // TensorRT-LLM's run shape is the full build's alone.
        assert_eq!(open("#/calc?lang=zh&engine=trtllm").build(), "full");
        assert_eq!(open("#/calc?lang=en&engine=tei").build(), "full");
        assert_eq!(open("#/calc?lang=en&mode=training").build(), "full");
        assert_eq!(open("#/calc?engine=vllm&mode=serve").build(), "en");
        let zh = Rc::new(AppState::default()).reduce(Action::Open(Route::parse(""), Lang::Zh));
        assert_eq!(
            zh.build(),
            "zh",
            "the browser's language where the link names none"
        );
    }

    /// What vramfit's features `nodes`, `speculative` and `mlx` read is the full build's: a
    /// state that asks for it names the full build, and a calculator build (this crate built
    /// with `--no-default-features --features en`, as `cargo xtask dist` builds it) refuses its
    /// input with an error of kind `unsupported` naming the field, where the full build reads it.
    #[test]
    fn what_the_calculator_builds_leave_out_is_handed_to_the_full_build() {
        use vramfit::error::ErrorKind;
        let cases = [
            (
                "#/calc?mode=serve&engine=vllm&gpus=8&tp=8&gpus_per_node=4",
                "gpus_per_node",
            ),
            (
                "#/calc?mode=serve&engine=vllm&node_link=200Gb/s",
                "node_link",
            ),
            ("#/calc?mode=serve&engine=vllm&gpus=16&tp=8", "gpus"),
            ("#/calc?mode=serve&engine=sglang&tp=4&pp=4", "gpus"),
            (
                "#/calc?mode=serve&engine=vllm&speculative_method=ngram&num_speculative_tokens=3",
                "speculative_method",
            ),
            (
                "#/calc?mode=serve&engine=vllm&acceptance_rate=0.7",
                "acceptance_rate",
            ),
            ("#/calc?engine=mlx", "engine"),
            ("#/calc?lang=zh&engine=mlx&mode=serve", "engine"),
            (
                "#/calc?engine=llamacpp&wired_limit_mb=30000",
                "wired_limit_mb",
            ),
            ("#/calc?engine=llamacpp&kv_bits=4", "kv_bits"),
            // Images: the tower's activations, the encoder cache, the mmproj buffers.
            (
                "#/calc?mode=serve&engine=vllm&model=Qwen%2FQwen3-VL-8B-Instruct&images=2",
                "images",
            ),
            (
                "#/calc?model=google%2Fgemma-3-4b-it&images=1&image_width=896",
                "images",
            ),
            (
                "#/calc?mode=serve&engine=sglang&disaggregation_mode=decode",
                "disaggregation_mode",
            ),
            // The host memory is read for the speed under offload (vramfit's `speed`).
            (
                "#/calc?engine=llamacpp&host_memory=ddr5-6000-2ch",
                "host_memory",
            ),
            (
                "#/calc?lang=zh&engine=ollama&host_bandwidth=80GB/s",
                "host_bandwidth",
            ),
        ];
        for (hash, field) in cases {
            let s = open(hash);
            assert_eq!(s.build(), "full", "{hash}");
            // This build's refusal names the field and vramfit's build (other refusals of kind
            // `unsupported`, such as mlx-lm's settings on another engine, name no build).
            let refused = crate::compute::estimate_of(&s).is_err_and(|e| {
                e.kind == ErrorKind::Unsupported
                    && e.field == field
                    && e.problem.contains("vramfit")
            });
            assert_eq!(refused, !cfg!(feature = "full"), "{hash}");
        }
        // Cards count as their GPUs; a node's worth or fewer stays in the calculator build.
        assert_eq!(open("#/calc?engine=llamacpp&cards=9x4090").build(), "full");
        assert_eq!(
            open("#/calc?engine=llamacpp&cards=4x4090,2x3090").build(),
            "en"
        );
        assert_eq!(
            open("#/calc?mode=serve&engine=vllm&gpus=8&tp=8").build(),
            "en"
        );
        assert_eq!(
            open("#/calc?mode=serve&engine=vllm&speculative_method=").build(),
            "en"
        );
        assert_eq!(open("#/calc?images=0").build(), "en");
        assert_eq!(open("#/calc?lang=zh&images=3").build(), "full");
        // Every key is a field of the form.
        for k in FULL_BUILD_KEYS {
            assert!(crate::fields::default_of(k).is_some(), "{k}");
        }
    }

    #[test]
    #[cfg(feature = "full")]
    fn a_model_looked_up_on_a_hub_is_linked_by_its_repo_id_alone() {
        assert_eq!(
            open("#/calc?source=hub&model=Qwen%2FQwen3-0.6B-FP8").build(),
            "full"
        );
        let s = open("#/calc?lang=zh&source=hub&model=Qwen/Qwen3-0.6B-FP8");
        let s = s.reduce(Action::SetExtra(
            "config".into(),
            "{\"vramfit_hub\":{}}".into(),
        ));
        let hash = s.hash();
        assert!(
            hash.contains("source=hub") && hash.contains("model=Qwen"),
            "{hash}"
        );
        assert!(
            !hash.contains("config"),
            "the model itself stays out of the link: {hash}"
        );
        // A config.json dropped is still carried by the link.
        let c = open("#/calc?source=config").reduce(Action::SetExtra("config".into(), "{}".into()));
        assert!(
            c.hash().contains("config=%7B%7D") || c.hash().contains("config={}"),
            "{}",
            c.hash()
        );
    }

    #[test]
    fn a_link_round_trips() {
        let s = open("#/fit?lang=zh&batch=4&text=hello%20world");
        assert_eq!(s.view, View::Fit);
        assert_eq!(s.lang, Lang::Zh);
        assert_eq!(s.value("batch"), "4");
        assert_eq!(s.extra("text"), "hello world");
        assert!(s.problems.is_empty());
        let again = open(&s.hash());
        assert_eq!(*again, *s);
    }

    #[test]
    fn a_card_named_in_a_link_is_kept_by_its_id() {
        // Words that name one card: the form's list shows that card.
        assert_eq!(open("#/calc?gpu=h200").value("gpu"), "h200-sxm-141gb");
        assert_eq!(open("#/calc?gpu=RTX%204090").value("gpu"), "rtx-4090");
        // Words that fit several cards, or none, stay as written: the estimate names the field.
        let s = open("#/calc?gpu=h100");
        assert_eq!(s.value("gpu"), "h100");
        let err = crate::compute::estimate_of(&s).unwrap_err();
        assert_eq!(err.field, "gpu");
        #[cfg(feature = "en")]
        assert_eq!(err.problem, "`h100` matches 3 GPUs");
    }

    #[test]
    fn malformed_links_fall_back_with_a_notice() {
        let s = open("#/what?lang=xx&mode=flying&bogus=1&batch=2");
        assert_eq!(s.view, View::Calc);
        assert_eq!(s.lang, Lang::En);
        assert_eq!(s.value("mode"), crate::fields::default_of("mode").unwrap());
        assert_eq!(s.value("batch"), "2");
        assert_eq!(s.problems.len(), 4, "{:?}", s.problems);
        let s = s.reduce(Action::DismissProblems);
        assert!(s.problems.is_empty());
    }

    #[test]
    fn defaults_are_not_stored_and_reset_clears() {
        let s = Rc::new(AppState::default());
        let d = crate::fields::default_of("mode").unwrap().to_string();
        let s2 = s.clone().reduce(Action::Set("mode".into(), d));
        assert!(s2.calc.is_empty());
        let s3 = s2.reduce(Action::Set("batch".into(), "8".into()));
        assert_eq!(s3.calc.get("batch").map(String::as_str), Some("8"));
        assert!(s3.hash().contains("batch=8"));
        let s4 = s3.reduce(Action::Reset);
        assert!(s4.calc.is_empty());
    }

    #[test]
    fn inputs_keep_key_order_and_one_value_per_key() {
        let mut m = Inputs::default();
        for (k, v) in [
            ("seq_len", "1"),
            ("batch", "2"),
            ("mode", "3"),
            ("batch", "4"),
        ] {
            m.insert(k.into(), v.into());
        }
        let pairs: Vec<(&str, &str)> = m.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(pairs, [("batch", "4"), ("mode", "3"), ("seq_len", "1")]);
        assert_eq!(m.get("mode").map(String::as_str), Some("3"));
        assert!(m.contains_key("seq_len") && !m.contains_key("gpu"));
        m.remove("mode");
        m.remove("gpu");
        assert_eq!(m.iter().count(), 2);
        assert_eq!(m.get("mode"), None);
        // The same entries set in another order are the same inputs (the memo keys compare them).
        let mut n = Inputs::default();
        n.insert("seq_len".into(), "1".into());
        n.insert("batch".into(), "4".into());
        assert_eq!(m, n);
        m.clear();
        assert!(m.is_empty());
    }

    #[test]
    fn the_mode_and_the_engine_agree() {
        let set = |s: Rc<AppState>, k: &str, v: &str| s.reduce(Action::Set(k.into(), v.into()));
        // Serving with transformers is serving with vLLM; back to inference, transformers.
        let s = set(open(""), "mode", "serve");
        assert_eq!(
            (s.value("mode"), s.value("engine")),
            ("serve".into(), "vllm".into())
        );
        let s = set(s, "mode", "inference");
        assert_eq!(
            (s.value("mode"), s.value("engine")),
            ("inference".into(), "hf".into())
        );
        // A serving engine serves; transformers infers.
        let s = set(s, "engine", "sglang");
        assert_eq!(s.value("mode"), "serve");
        let s = set(s, "engine", "hf");
        assert_eq!(s.value("mode"), "inference");
        // llama.cpp and Ollama do both: the mode stays as chosen.
        let s = set(set(s, "engine", "ollama"), "mode", "serve");
        assert_eq!(
            (s.value("mode"), s.value("engine")),
            ("serve".into(), "ollama".into())
        );
        let s = set(s, "mode", "inference");
        assert_eq!(s.value("engine"), "ollama");
        // A link opens as written.
        let l = open("#/calc?mode=serve&engine=hf");
        assert_eq!(
            (l.value("mode"), l.value("engine")),
            ("serve".into(), "hf".into())
        );
    }

    #[test]
    fn unchanged_state_keeps_its_identity() {
        let s = Rc::new(AppState::default());
        let same = s.clone().reduce(Action::SetLang(Lang::En));
        assert!(Rc::ptr_eq(&s, &same));
    }

    /// The estimator's fields that the URL carries under no key of their own, and why.
    #[cfg(feature = "full")]
    const NOT_IN_URL: &[(&str, &str)] = &[
        // An architecture travels as the config.json it was read from (the extra key `config`),
        // or as the hub model's repo id (`source=hub&model=…`).
        (
            "arch",
            "carried as the config.json text (`config`) or the hub repo id",
        ),
        // Read again with the architecture from the same config.json or hub model.
        (
            "checkpoint_dtype",
            "carried as the config.json text (`config`) or the hub repo id",
        ),
    ];

    /// Every field of `EstimateInput` is a key of the calculator's URL (or excluded, with its
    /// reason): a value other than its default, in a link, opens with that value and writes a
    /// link that reopens it.
    #[test]
    #[cfg(feature = "full")]
    fn every_input_field_travels_in_the_url() {
        use crate::fields::Kind;
        for field in crate::input_fields::input_fields() {
            if let Some((_, why)) = NOT_IN_URL.iter().find(|(f, _)| f == field) {
                assert!(
                    calc_key(field).is_none(),
                    "`{field}` excluded ({why}), yet a key"
                );
                assert!(EXTRA_KEYS.contains(&"config"));
                continue;
            }
            assert_eq!(
                calc_key(field),
                Some(*field),
                "`{field}` is no key of the URL"
            );
            let f = crate::fields::field(field).unwrap();
            let value = match f.kind {
                Kind::Choice(values) => values
                    .iter()
                    .map(|c| c.0)
                    .find(|v| *v != f.default())
                    .unwrap()
                    .to_string(),
                Kind::Bool => (f.default() != "true").to_string(),
                Kind::Number | Kind::OptNumber => "3".to_string(),
                Kind::Text => "h100-sxm5-80gb".to_string(),
            };
            assert_ne!(value, f.default(), "{field}");
            let s = open(&format!("#/calc?{field}={value}"));
            assert!(s.problems.is_empty(), "{field}={value}: {:?}", s.problems);
            assert_eq!(s.value(field), value, "{field}");
            let again = open(&s.hash());
            assert_eq!(again.value(field), value, "{field}: {}", s.hash());
        }
    }
}
