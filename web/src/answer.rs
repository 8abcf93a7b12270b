//! The calculator's one answer: whether the run, as the person asked for it (the concurrency,
//! the context, the batch), fits the card, found from the estimate itself and the estimator's
//! solvers, so that the cards beneath never disagree with it. Numbers alone; the words are
//! `components::answer`'s.

use vramfit::Bytes;
use vramfit::estimate::{Context, Estimate, EstimateInput, Fit, Mode, Workload};
use vramfit::hardware::Gpu;

/// What the run is, as the answer names it.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The model as given (`qwen3:32b`, `meta-llama/Llama-3.1-8B`).
    pub model: String,
    /// The format of its weights: `bf16`, `Q4_K_M`, `awq`.
    pub format: String,
    /// What the person asked of it.
    pub target: Target,
    /// The tokens of its context: the engine's own context setting where it has one
    /// (`max_model_len`, `num_ctx`, `-c`), else the prompt (training: the sequence).
    pub context: u64,
    /// Sequences at once (serving: users; training: the micro-batch).
    pub batch: u64,
}

/// The kind of question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Generate: a batch at a context.
    Inference,
    /// Serve `batch` users at once at a context.
    Serving,
    /// Train at `batch` × `context`.
    Training,
}

/// The verdict, target-driven: serving fits when the engine starts and its pool holds every
/// sequence asked for at once, Ollama when every layer is on the GPU.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// No card chosen: what one GPU needs, and the smallest catalog card that holds it.
    Needs {
        /// The card memory the run needs.
        need: Bytes,
        /// The smallest card of the catalog that holds it, proved by the estimator.
        smallest: Option<&'static Gpu>,
    },
    /// It fits as asked.
    Yes {
        /// Memory left on each GPU.
        spare: Bytes,
        /// Tokens per second one sequence generates, where the speed is known.
        speed: Option<f64>,
    },
    /// The engine starts but its KV pool holds fewer sequences than asked; the rest queue.
    Queues {
        /// The engine's name.
        engine: &'static str,
        /// Sequences of the context its pool holds at once.
        held: f64,
        /// The card memory all of them at once need.
        need: Bytes,
        /// The fewest GPUs of this card that hold them, if any up to 64.
        fewest: Option<u64>,
    },
    /// Ollama runs it with layers on the CPU.
    Offloads {
        /// The share of Ollama's estimate on the CPU, in percent.
        cpu_percent: u8,
        /// The free memory every layer on the GPU needs.
        need: Bytes,
        /// The smallest card of the catalog that holds every layer.
        smallest: Option<&'static Gpu>,
    },
    /// The engine refuses to start: less memory free than it asks of the card (vLLM's
    /// `gpu_memory_utilization` × the card, from 0.9.1).
    Refuses {
        /// The engine's name.
        engine: &'static str,
        /// The memory free before the run.
        free: Bytes,
        /// What it asks to find free.
        asked: Bytes,
        /// The largest `gpu_memory_utilization` that starts, to the hundredth.
        largest: f64,
    },
    /// It does not fit.
    No {
        /// The card memory it needs per GPU.
        need: Bytes,
        /// The fewest GPUs of this card that hold it, if any up to 64.
        fewest: Option<u64>,
        /// The smallest card of the catalog that holds it alone.
        smallest: Option<&'static Gpu>,
    },
}

/// The answer: the run, where it runs, and the verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The run.
    pub run: Run,
    /// GPUs the figures are per.
    pub gpus: u64,
    /// The card: a catalog card, or `None` for a memory size given alone.
    pub card: Option<&'static Gpu>,
    /// The card's memory, when there is one.
    pub memory: Option<Bytes>,
    /// Memory already in use on each GPU before the run (`memory_in_use`; 0 when not given):
    /// the verdict is said against the memory less it.
    pub in_use: Bytes,
    /// The verdict.
    pub verdict: Verdict,
    /// The guide's M_rec, shown beside the verdict as its rule, not as a second verdict.
    pub m_rec: Bytes,
}

/// The answer for `input`, whose estimate is `e`; `None` when the input no longer reads (the
/// estimate is then the last one shown).
pub fn answer(input: &EstimateInput, e: &Estimate) -> Option<Answer> {
    let w = input.resolve().ok()?;
    let run = run_of(&w, e);
    let card = e
        .fit
        .as_ref()
        .and_then(|f| vramfit::hardware::find_gpu(&f.gpu));
    let verdict = match &e.fit {
        None => Verdict::Needs {
            need: e.required_bytes,
            smallest: smallest_card(input, e.required_bytes),
        },
        Some(f) if f.fits => Verdict::Yes {
            spare: f.headroom_bytes,
            speed: e
                .throughput
                .as_ref()
                .and_then(|t| t.decode_tokens_per_s_per_sequence),
        },
        Some(f) => verdict_short(input, &w, e, f),
    };
    Some(Answer {
        run,
        gpus: e.gpus,
        card,
        memory: e.fit.as_ref().map(|f| f.memory_bytes),
        in_use: e.fit.as_ref().map_or(Bytes::ZERO, |f| f.in_use_bytes),
        verdict,
        m_rec: e.recommended_bytes,
    })
}

/// The verdict of a run that does not fit as asked on the card of `f`, against what is free
/// of it.
fn verdict_short(input: &EstimateInput, w: &Workload, e: &Estimate, f: &Fit) -> Verdict {
    let memory = f.memory_bytes.minus(f.in_use_bytes);
    // The estimator's start-up refusal (vLLM's check of the free memory): its numbers, as the
    // check reads them.
    if f.reason
        .as_ref()
        .is_some_and(|r| r.key == "vllm_free_memory_short")
    {
        let card = f.memory_bytes.get();
        return Verdict::Refuses {
            engine: w.rules().name,
            free: memory,
            asked: Bytes::from_f64(card as f64 * w.gpu_memory_utilization),
            largest: (memory.get() as f64 / card.max(1) as f64 * 100.0).floor() / 100.0,
        };
    }
    let fits_card = e.total_bytes <= memory;
    let fewest = || fewest_gpus(input, memory).filter(|&n| n > e.gpus);
    if let Some(held) = e
        .max_concurrency_exact
        .filter(|&c| fits_card && c >= 1.0 && c < w.batch as f64)
    {
        return Verdict::Queues {
            engine: w.rules().name,
            held,
            need: e.required_bytes,
            fewest: fewest(),
        };
    }
    if let Some(o) = e
        .ollama
        .as_ref()
        .filter(|o| o.gpu_layers < o.requested_layers)
    {
        return Verdict::Offloads {
            cpu_percent: o.cpu_percent,
            need: e.required_bytes,
            smallest: smallest_card(input, e.required_bytes),
        };
    }
    Verdict::No {
        need: e.required_bytes,
        fewest: fewest(),
        smallest: smallest_card(input, e.required_bytes),
    }
}

/// The run as the answer names it.
fn run_of(w: &Workload, e: &Estimate) -> Run {
    let target = match w.mode {
        Mode::Training => Target::Training,
        Mode::Serve => Target::Serving,
        Mode::Inference => Target::Inference,
    };
    let context = match w.rules().context {
        Context::PerSequence { .. } | Context::Shared { .. } => w.max_model_len,
        Context::Prompt | Context::Sequence => w.seq_len,
    };
    Run {
        model: e.model.clone(),
        format: format_name(w),
        target,
        context,
        batch: w.batch,
    }
}

/// The weights' format as people name it: the dtype when unquantized, a GGUF file type in
/// capitals (`Q4_K_M`), else the quantization's name.
pub fn format_name(w: &Workload) -> String {
    let q = w.quantization.name();
    match q.as_str() {
        "none" => w.dtype.name().to_string(),
        _ => match q.strip_prefix("gguf-") {
            Some(t) => t.to_ascii_uppercase(),
            None => q,
        },
    }
}

/// The fewest GPUs of `memory` that hold the run (the estimator's solver). The full build's: in
/// a calculator build, whose first load has no room for the solver, none is named.
#[cfg(feature = "full")]
fn fewest_gpus(input: &EstimateInput, memory: Bytes) -> Option<u64> {
    vramfit::estimate::fewest_gpus(input, memory)
}

#[cfg(not(feature = "full"))]
fn fewest_gpus(_: &EstimateInput, _: Bytes) -> Option<u64> {
    None
}

#[cfg(feature = "full")]
/// How many cards of the catalog, smallest first, the search for the smallest that holds a run
/// estimates at most.
const SMALLEST_TRIES: usize = 12;

/// The smallest card of the catalog (a discrete card; unified-memory machines aside) that holds
/// `input` alone, as its estimate on that card says: the cards of at least `need` (the memory the
/// run needs without a card, which a card's own defaults only raise), smallest first.
/// The full build's: a calculator build, whose first load has no room for the catalog cards'
/// estimates (a catalog card hands over to the full build), names none.
#[cfg(feature = "full")]
pub fn smallest_card(input: &EstimateInput, need: Bytes) -> Option<&'static Gpu> {
    let single = EstimateInput {
        gpus: None,
        tp: 1.0,
        pp: 1.0,
        gpu_memory: None,
        ..input.clone()
    };
    let holds = |g: &Gpu| {
        let on = EstimateInput {
            gpu: Some(g.id.to_string()),
            ..single.clone()
        };
        on.resolve()
            .ok()
            .and_then(|w| w.figures().fit)
            .is_some_and(|f| f.fits)
    };
    // The next card up from the last tried, by memory then by place in the catalog: no sort of
    // the catalog, whose code the first load would carry.
    let mut last: Option<(Bytes, usize)> = None;
    for _ in 0..SMALLEST_TRIES {
        let (i, g) = vramfit::hardware::gpus()
            .iter()
            .enumerate()
            .filter(|(_, g)| !g.unified_memory && g.memory >= need)
            .filter(|(i, g)| last.is_none_or(|l| (g.memory, *i) > l))
            .min_by_key(|(i, g)| (g.memory, *i))?;
        if holds(g) {
            return Some(g);
        }
        last = Some((g.memory, i));
    }
    None
}

/// A calculator build names no smallest card (see the full build's).
#[cfg(not(feature = "full"))]
pub fn smallest_card(_: &EstimateInput, _: Bytes) -> Option<&'static Gpu> {
    None
}

/// A context in tokens as people say it: `8k` for 8,192, else the digits grouped.
pub fn tokens(n: u64) -> String {
    if n >= 1024 && n.is_multiple_of(1024) {
        format!("{}k", n / 1024)
    } else {
        vramfit::estimate::thousands(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compute::{estimate_of, input_with};
    use crate::i18n::Lang;
    use crate::route::Route;
    use crate::state::{Action, AppState};
    use std::rc::Rc;
    use yew::Reducible;

    fn answer_of(hash: &str) -> Answer {
        let s = Rc::new(AppState::default()).reduce(Action::Open(Route::parse(hash), Lang::En));
        let e = estimate_of(&s).unwrap();
        answer(&input_with(&s, &[]).unwrap(), &e).unwrap()
    }

    /// The contradiction: vLLM 0.19 starts on 2 × H100 but holds 1.26 of the 32
    /// sequences of 8,192 tokens at once; the answer says so, with what all 32 need, never a
    /// plain yes. (vLLM 0.21 and later take the CUDA graphs out of the pool's budget: the
    /// latest release leaves no pool at all there, and the answer is a no.)
    #[test]
    fn a_pool_that_holds_fewer_sequences_than_asked_is_not_a_yes() {
        let a = answer_of(
            "#/calc?model=meta-llama%2FLlama-3.3-70B-Instruct&mode=serve&engine=vllm&batch=32&max_model_len=8192&gpu=h100-sxm5-80gb&tp=2&engine_version=0.19",
        );
        assert_eq!(a.run.target, Target::Serving);
        assert_eq!((a.run.batch, a.run.context, a.gpus), (32, 8192, 2));
        let Verdict::Queues {
            engine,
            held,
            need,
            fewest,
        } = a.verdict
        else {
            panic!("{:?}", a.verdict)
        };
        assert_eq!(engine, "vLLM");
        assert!((held - 1.26).abs() < 1e-9, "{held}");
        // The CLI's required_bytes for the same run: 130,865,425,432 B (the budget's card; its
        // tenth outside the budget holds the context and the graphs, 3.52 GiB).
        assert_eq!(need.get(), 130_865_425_432);
        // And the fewest H100s that hold all 32 at once, proved by the estimator.
        let n = fewest.unwrap();
        assert!(n > 2, "{n}");
    }

    /// Memory in use on the card: vLLM's start-up check (in_use_tests.rs in the estimator has
    /// the hand calculation: 20.52 GiB free of the RTX 4090's 23.52 GiB, 21.17 GiB asked, 0.87
    /// the largest utilisation that starts), and the sentence says what is in use and free.
    #[test]
    fn memory_in_use_is_said_in_the_answer() {
        let a = answer_of(
            "#/calc?model=meta-llama%2FLlama-3.1-8B&mode=serve&engine=vllm&max_model_len=8192&gpu=rtx-4090&memory_in_use=3GiB",
        );
        assert_eq!(a.in_use.get(), 3 << 30);
        let Verdict::Refuses {
            engine,
            free,
            asked,
            largest,
        } = a.verdict
        else {
            panic!("{:?}", a.verdict)
        };
        assert_eq!(engine, "vLLM");
        assert_eq!(free.get(), 25_253_904_384 - (3 << 30));
        // 0.9 × 25,253,904,384 = 22,728,513,945.6 B, to the byte.
        assert_eq!(asked.get(), 22_728_513_946);
        assert!((largest - 0.87).abs() < 1e-9, "{largest}");
        let (name, text) = crate::components::answer::sentence(Lang::En, &a);
        assert_eq!(name, "refuses");
        // The site's GiB to three figures.
        assert!(
            text.contains("20.5 GiB free, it asks 21.2 GiB") && text.contains("is 0.87"),
            "{text}"
        );
        assert!(
            text.contains("3.00 GiB is already in use on each GPU, 20.5 GiB free"),
            "{text}"
        );
        let (_, zh) = crate::components::answer::sentence(Lang::Zh, &a);
        assert!(zh.contains("已占用 3.00 GiB"), "{zh}");
    }

    #[test]
    fn a_run_that_fits_says_yes_with_its_spare_memory() {
        let a = answer_of("#/calc?model=qwen3%3A32b&engine=ollama&max_model_len=8192&gpu=rtx-4090");
        assert_eq!(a.run.model, "qwen3:32b");
        assert_eq!(a.run.format, "Q4_K_M");
        assert_eq!(a.run.context, 8192);
        match a.verdict {
            // The CLI: headroom 2,340,787,200 B, 36.98 tokens/s.
            Verdict::Yes { spare, speed } => {
                assert_eq!(spare.get(), 2_340_787_200);
                assert!((speed.unwrap() - 36.98).abs() < 0.01, "{speed:?}");
            }
            v => panic!("{v:?}"),
        }
        assert_eq!(tokens(8192), "8k");
        assert_eq!(tokens(2000), "2,000");
    }

    #[test]
    fn without_a_card_the_answer_names_the_smallest_that_holds_the_run() {
        let a = answer_of("");
        let Verdict::Needs { need, smallest } = a.verdict else {
            panic!("{:?}", a.verdict)
        };
        let card = smallest.unwrap();
        assert!(card.memory >= need);
        // No smaller discrete card holds it.
        for g in vramfit::hardware::gpus() {
            if !g.unified_memory && g.memory < card.memory {
                let s = Rc::new(AppState::default()).reduce(Action::Open(
                    Route::parse(&format!("#/calc?gpu={}", g.id)),
                    Lang::En,
                ));
                assert!(!estimate_of(&s).unwrap().fit.unwrap().fits, "{}", g.id);
            }
        }
    }

    #[test]
    fn a_run_too_large_names_the_fewest_cards_and_the_smallest_single_one() {
        let a = answer_of("#/calc?model=meta-llama%2FLlama-3.3-70B-Instruct&gpu=rtx-4090");
        let Verdict::No {
            need,
            fewest,
            smallest,
        } = a.verdict
        else {
            panic!("{:?}", a.verdict)
        };
        assert!(need > vramfit::hardware::find_gpu("rtx-4090").unwrap().memory);
        assert!(fewest.is_some_and(|n| n >= 8), "{fewest:?}");
        assert!(smallest.is_some_and(|g| g.memory >= need));
    }
}
