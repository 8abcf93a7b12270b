//! Which models fit a card (the reverse question): every preset in every weight format its engine
//! loads, estimated on the card with numbers only, with the largest context of each that fits and
//! the most precise format that fits per model; and the grid of presets × cards.
//!
//! A run's requirement depends on the card only through its class (`Class`), and only through
//! what the run's engine reads of it: nothing for llama.cpp, the cuBLAS workspace of its
//! generation for PyTorch, and for vLLM whether it computes in bf16 and its default batch sizes
//! (A100, or 70 GiB and more). The grid estimates each preset and format once per class present
//! among the cards and compares that requirement with each card's memory; a test holds every
//! cell equal to the estimate on the card itself.

use alloc::string::String;
use alloc::vec::Vec;

use super::Gpu;
use crate::catalog::device_of;
use crate::estimate::{
    Bound, Engine, EstimateInput, Formats, Mode, Runner, largest_context_fit, need, within_reach,
};
use crate::precision::{GgufFileType, Quantization};
use crate::units::{Bytes, GIB};

/// The weight formats tried for a run's engine, most precise first: the checkpoint as released
/// (and llama.cpp's F16 GGUF), then the quantized formats people serve it in.
pub fn formats(mode: Mode, engine: Engine) -> Vec<Quantization> {
    use GgufFileType as F;
    match Runner::of(mode, engine).rules().formats {
        Formats::Checkpoint => alloc::vec![Quantization::None],
        Formats::Gguf => [F::F16, F::Q8_0, F::Q6_K, F::Q5_K_M, F::Q4_K_M, F::Q3_K_M]
            .into_iter()
            .map(|file_type| Quantization::Gguf { file_type })
            .collect(),
        Formats::Bitsandbytes => alloc::vec![
            Quantization::None,
            Quantization::BnbInt8,
            Quantization::BnbNf4 { double_quant: true },
        ],
        Formats::Mlx => [8, 4]
            .into_iter()
            .map(|bits| Quantization::Mlx {
                mode: crate::precision::MlxMode::Affine,
                bits,
                group_size: 64,
            })
            .fold(alloc::vec![Quantization::None], |mut v, q| {
                v.push(q);
                v
            }),
        Formats::Serving => alloc::vec![
            Quantization::None,
            Quantization::Fp8,
            Quantization::Awq { group_size: 128 },
        ],
    }
}

/// One preset in one format on one card.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ModelFit {
    /// The preset's id.
    pub model: String,
    /// Its total parameters.
    pub params: u64,
    /// The weight format tried; `none` is the checkpoint as released.
    pub format: Quantization,
    /// The format the weights are counted in: `format`, or for `none` the format the checkpoint
    /// ships in (gpt-oss: MXFP4), else its dtype (`bf16`…), by name.
    pub weights: String,
    /// What one card needs for the run (`required_bytes`).
    pub required_bytes: Bytes,
    /// `required_bytes` is at most the card's memory.
    pub fits: bool,
    /// The largest context that fits (see `Solutions::max_context`), when the run fits.
    pub max_context: Option<u64>,
    /// What bounds `max_context`.
    pub context_bound: Option<Bound>,
    /// The most precise of the model's formats that fits the card.
    pub best: bool,
    /// How fast it goes when it fits: tokens generated per second by the batch (inference,
    /// serving) or trained per second (training), from the estimate's `throughput`.
    pub tokens_per_s: Option<f64>,
}

/// The run of `template` with `model` in `format` on `gpu`.
fn run_of(template: &EstimateInput, model: &str, format: Quantization, gpu: &Gpu) -> EstimateInput {
    {
        let mut input = template.clone();
        input.model.model = Some(model.into());
        input.model.params = None;
        input.model.arch = None;
        input.model.quantization = format;
        input.hardware.gpu = Some(gpu.id.into());
        input.hardware.gpu_memory = None;
        input
    }
}

/// Every preset in every format of [`formats`] on `gpu`, with the run of `template` (its mode,
/// engine, batch, sequence…; its model is replaced): the runs that fit first, larger models
/// first, and each model's formats most precise first. A format the engine refuses for a model
/// is left out. `with_context` finds the largest context of each run that fits (about twenty
/// estimates each).
pub fn models_on(template: &EstimateInput, gpu: &Gpu, with_context: bool) -> Vec<ModelFit> {
    let mut rows = Vec::new();
    for p in crate::presets::presets() {
        let mut best_found = false;
        // An encoder or an image model generates nothing and is run as released: no quantized
        // rows (bitsandbytes, FP8, AWQ and GGUF are formats of decoder LLMs), no tokens/s.
        let generative = p.arch.is_generative();
        for format in formats(template.run.mode, template.run.engine) {
            if !generative && format != Quantization::None {
                continue;
            }
            let input = run_of(template, p.id, format, gpu);
            let Ok(w) = input.resolve() else { continue };
            let e = within_reach(w.figures());
            let required = e
                .as_ref()
                .map_or(crate::units::MAX_SIZE, |e| e.required_bytes);
            let fits = required <= gpu.memory;
            let tokens_per_s = e
                .ok()
                .filter(|_| fits && (generative || template.run.mode == Mode::Training))
                .and_then(|e| e.throughput)
                .and_then(|t| t.decode_tokens_per_s.or(t.tokens_per_s));
            let context = if fits && with_context {
                largest_context_fit(&input, gpu.memory)
            } else {
                None
            };
            let weights = match (format, p.quantization) {
                (Quantization::None, Quantization::None) => String::from(p.dtype.name()),
                (Quantization::None, shipped) => shipped.name(),
                (q, _) => q.name(),
            };
            rows.push(ModelFit {
                model: p.id.into(),
                params: p.params,
                format,
                weights,
                required_bytes: required,
                fits,
                max_context: context.map(|(fit, _)| fit.value),
                context_bound: context.map(|(_, bound)| bound),
                best: fits && !best_found,
                tokens_per_s,
            });
            best_found |= fits;
        }
    }
    // Stable: each model's formats keep their order.
    rows.sort_by_key(|r| (!r.fits, core::cmp::Reverse(r.params)));
    rows
}

/// What of a card a run's requirement depends on besides its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Class {
    hopper: bool,
    bf16: bool,
    a100: bool,
    /// 70 GiB or more: vLLM's larger default batch sizes (not on an A100).
    big: bool,
    /// The card's generation where vLLM reads it: its MXFP4 experts' backend (Triton on
    /// Hopper, FlashInfer on Blackwell, Marlin before) holds them in layouts of other sizes.
    generation: Option<crate::gpu::Generation>,
    /// SGLang and Ollama read the memory itself (SGLang's default fraction and batch sizes,
    /// Ollama's default context and its offload decision): each card is a class of its own.
    memory: u64,
}

impl Class {
    /// What the run of `template` reads of `gpu` besides its memory.
    fn of(gpu: &'static Gpu, template: &EstimateInput) -> Class {
        let d = device_of(gpu);
        let reads = template.runner().rules().reads;
        Class {
            hopper: d.hopper_or_newer && reads.workspace,
            bf16: d.bf16 && reads.vllm_defaults,
            a100: d.a100 && reads.vllm_defaults,
            big: d.memory.get() >= 70 * GIB && reads.vllm_defaults,
            generation: reads.vllm_defaults.then(|| gpu.generation()),
            memory: if reads.memory { d.memory.get() } else { 0 },
        }
    }
}

/// Presets × cards: in each cell the most precise format of [`formats`] that fits.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Grid {
    /// The rows: preset ids.
    pub models: Vec<String>,
    /// The columns: card ids.
    pub gpus: Vec<String>,
    /// The formats tried, most precise first.
    pub formats: Vec<Quantization>,
    /// Row by row, for each card: the index in `formats` of the most precise that fits, or
    /// `None` when none does.
    pub cells: Vec<Option<u8>>,
}

impl Grid {
    /// The cell of `model` (row) on `gpu` (column).
    pub fn cell(&self, model: usize, gpu: usize) -> Option<Quantization> {
        let i = self
            .cells
            .get(model * self.gpus.len() + gpu)
            .copied()
            .flatten()?;
        self.formats.get(usize::from(i)).copied()
    }
}

/// The grid of every preset on every card of `gpus` for the run of `template`.
pub fn grid(template: &EstimateInput, gpus: &[&'static Gpu]) -> Grid {
    let formats = formats(template.run.mode, template.run.engine);
    // One card of each class present, and each card's class.
    let mut classes: Vec<(Class, &Gpu)> = Vec::new();
    let class_of: Vec<usize> = gpus
        .iter()
        .map(|g| {
            let c = Class::of(g, template);
            classes
                .iter()
                .position(|(k, _)| *k == c)
                .unwrap_or_else(|| {
                    classes.push((c, g));
                    classes.len() - 1
                })
        })
        .collect();
    let presets = crate::presets::presets();
    let mut cells = Vec::with_capacity(presets.len() * gpus.len());
    let mut need_by_class = Vec::with_capacity(classes.len() * formats.len());
    for p in presets {
        need_by_class.clear();
        // As in `models_on`: a model that generates nothing runs as released only.
        let generative = p.arch.is_generative();
        for (_, rep) in &classes {
            for &format in &formats {
                need_by_class.push(if generative || format == Quantization::None {
                    need(&run_of(template, p.id, format, rep))
                } else {
                    crate::units::MAX_SIZE
                });
            }
        }
        for (g, &c) in gpus.iter().zip(&class_of) {
            let needs = &need_by_class[c * formats.len()..(c + 1) * formats.len()];
            let best = needs.iter().position(|&n| n <= g.memory);
            cells.push(best.and_then(|i| u8::try_from(i).ok()));
        }
    }
    Grid {
        models: presets.iter().map(|p| String::from(p.id)).collect(),
        gpus: gpus.iter().map(|g| String::from(g.id)).collect(),
        formats,
        cells,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::RunInput;
    use crate::estimate::ServingInput;
    use crate::hardware::{find_gpu, gpus};

    /// An encoder (BERT) or an image model (ResNet, ViT) is listed as released, with no
    /// generation speed: no bitsandbytes rows, no tokens/s (#43). A decoder keeps its formats.
    #[test]
    fn models_that_generate_nothing_have_one_row_and_no_speed() {
        let gpu = find_gpu("rtx-4090").unwrap();
        let rows = models_on(&template(Mode::Inference, Engine::Hf), gpu, false);
        for id in [
            "google-bert/bert-base-uncased",
            "microsoft/resnet-50",
            "google/vit-large-patch16-224",
        ] {
            let mine: Vec<&ModelFit> = rows.iter().filter(|r| r.model == id).collect();
            assert_eq!(mine.len(), 1, "{id}");
            assert_eq!(mine[0].format, Quantization::None, "{id}");
            assert!(mine[0].fits && mine[0].tokens_per_s.is_none(), "{id}");
        }
        let llama = rows
            .iter()
            .filter(|r| r.model == "meta-llama/Llama-3.1-8B")
            .count();
        assert_eq!(llama, 3);
    }

    fn template(mode: Mode, engine: Engine) -> EstimateInput {
        EstimateInput {
            run: RunInput {
                mode,
                engine,
                seq_len: 4096.0,
                ..Default::default()
            },
            serving: ServingInput {
                max_model_len: (mode == Mode::Serve).then_some(8192.0),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// Every cell of the grid, over every card of the catalog, is what the estimate on that card
    /// itself says: the most precise format whose requirement is at most the card's memory (a
    /// model that generates nothing only as released, as `models_on` lists it).
    #[test]
    fn every_cell_is_the_estimate_on_its_own_card() {
        let all: Vec<&Gpu> = gpus().iter().collect();
        for (mode, engine) in [
            (Mode::Inference, Engine::Hf),
            (Mode::Serve, Engine::Vllm),
            (Mode::Inference, Engine::Llamacpp),
            (Mode::Training, Engine::Hf),
            (Mode::Serve, Engine::Sglang),
            (Mode::Inference, Engine::Ollama),
        ] {
            let t = template(mode, engine);
            let g = grid(&t, &all);
            assert_eq!(g.models.len(), crate::presets::presets().len());
            for (m, p) in crate::presets::presets().iter().enumerate().step_by(7) {
                // A model that generates nothing is tried as released only.
                let generative = p.arch.is_generative();
                for (c, gpu) in all.iter().enumerate() {
                    let direct = g
                        .formats
                        .iter()
                        .copied()
                        .filter(|&q| generative || q == Quantization::None)
                        .find(|&q| need(&run_of(&t, p.id, q, gpu)) <= gpu.memory);
                    assert_eq!(g.cell(m, c), direct, "{} on {} ({mode:?})", p.id, gpu.id);
                }
            }
        }
    }

    /// Llama-3.1-8B for inference on a 24 GB RTX 4090 (23.52 GiB as CUDA reports it) fits in
    /// bf16: 8,030,261,248 × 2 B = 14.96 GiB of weights, well under; Llama-3.1-70B fits in no
    /// format transformers loads (4-bit NF4 alone is about 35 GiB of weights).
    #[test]
    fn the_4090_holds_an_8b_in_bf16_and_no_70b() {
        let gpu = find_gpu("rtx-4090").unwrap();
        let rows = models_on(&template(Mode::Inference, Engine::Hf), gpu, false);
        let row = |m: &str, q: Quantization| {
            rows.iter()
                .find(|r| r.model == m && r.format == q)
                .unwrap_or_else(|| panic!("{m} {q:?}"))
        };
        let l8 = row("meta-llama/Llama-3.1-8B", Quantization::None);
        assert!(l8.fits && l8.best);
        assert!(l8.required_bytes.get() > 8_030_261_248 * 2);
        let nf4 = Quantization::BnbNf4 { double_quant: true };
        assert!(!row("meta-llama/Llama-3.1-70B", nf4).fits);
        assert!(
            rows.iter()
                .filter(|r| r.model == "meta-llama/Llama-3.1-70B")
                .all(|r| !r.fits)
        );
        // Fitting runs come first, larger models first.
        let first_miss = rows.iter().position(|r| !r.fits).unwrap_or(rows.len());
        assert!(rows[first_miss..].iter().all(|r| !r.fits));
        assert!(
            rows[..first_miss]
                .windows(2)
                .all(|w| w[0].params >= w[1].params)
        );
    }

    /// A model's best format is its most precise one that fits: Qwen3-32B under llama.cpp on a
    /// 4090 does not fit in F16 (64 GB of weights), Q8_0 (about 33 GiB) or Q6_K (about 25 GiB), and
    /// fits in Q4_K_M (about 18 GiB), with a context the card holds.
    #[test]
    fn the_best_format_is_the_most_precise_that_fits() {
        let gpu = find_gpu("rtx-4090").unwrap();
        let rows = models_on(&template(Mode::Inference, Engine::Llamacpp), gpu, true);
        let qwen: Vec<&ModelFit> = rows
            .iter()
            .filter(|r| r.model == "Qwen/Qwen3-32B")
            .collect();
        let best: Vec<&&ModelFit> = qwen.iter().filter(|r| r.best).collect();
        assert_eq!(best.len(), 1);
        let q = |t| Quantization::Gguf { file_type: t };
        assert!(
            qwen.iter()
                .any(|r| r.format == q(GgufFileType::Q8_0) && !r.fits)
        );
        assert!(matches!(
            best[0].format,
            Quantization::Gguf {
                file_type: GgufFileType::Q5_K_M | GgufFileType::Q4_K_M
            }
        ));
        assert!(best[0].max_context.is_some_and(|c| c >= 4096 + 256));
    }
}
