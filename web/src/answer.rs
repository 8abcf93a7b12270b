//! The calculator's one answer: whether the run, as the person asked for it (the concurrency,
//! the context, the batch), fits the card, found from the estimate itself and the estimator's
//! solvers, so that the cards beneath never disagree with it. Numbers alone; the words are
//! `components::answer`'s.

use vramfit::Bytes;
use vramfit::estimate::{Context, Estimate, EstimateInput, Fit, Mode, Workload};
#[cfg(feature = "full")]
use vramfit::hardware::{Currency, PlanOption};
use vramfit::hardware::{Gpu, Offer};

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
    /// Ollama loads the run on one of the `gpus` alone, the others idle (its figures are that
    /// GPU's; `gpus` stays the cards given, which the planner and prices count).
    pub one_of: bool,
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
    /// Where a run that does not fit as asked (or has no card) runs, priced: the cheapest
    /// rental that holds it as asked. The full build's; `None` when it fits, in a calculator
    /// build, or when no offer holds it. Absent from the calculator builds, whose first load
    /// carries none of the offers' types.
    #[cfg(feature = "full")]
    pub rent: Option<Rent>,
}

/// The cheapest rental of the offers in use that holds the run as asked (its batch and
/// context), as the planner ranks them for the CLI's `vramfit estimate` line and `vramfit
/// recommend`'s first row and the npm package's `recommend()` (`PlanOptions::default()`: up to
/// 8 GPUs a node and 4 nodes, on-demand, ranked in US dollars at the data set's rate; with a
/// vLLM or SGLang serving run's replicas and expert parallel, `PlanOptions::for_run`).
#[cfg(feature = "full")]
#[derive(Clone, Debug, PartialEq)]
pub struct Rent {
    /// The planner's option: its card, GPUs, layout (tp, pp, nodes), GPUs rented and the memory
    /// per GPU; its price is in US dollars, the ranking's.
    pub option: PlanOption,
    /// What is rented per hour as the offer states it: its price of one unit (a card, a
    /// server) times the units rented (a server per node), in its own currency.
    pub price_per_hour: f64,
    /// The offer's currency.
    pub currency: Currency,
    /// Where the offer's price comes from, as the catalog has it.
    pub source: String,
    /// The date of the offer's price.
    pub date: String,
    /// The platform's name in English and in Chinese; an imported offer's provider that the
    /// catalog does not know, as the person wrote it.
    pub platform: (String, String),
}

/// The answer for `input`, whose estimate is `e`, with the rental `offers` in use (the
/// catalog's, or those the person typed or imported); `None` when the input no longer reads
/// (the estimate is then the last one shown).
pub fn answer(input: &EstimateInput, e: &Estimate, offers: &[Offer]) -> Option<Answer> {
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
    #[cfg(feature = "full")]
    let rent = match verdict {
        Verdict::Yes { .. } => None,
        _ => cheapest_rent(input, offers),
    };
    // A calculator build has no offers (see `Answer::rent`).
    #[cfg(not(feature = "full"))]
    let _ = offers;
    Some(Answer {
        run,
        gpus: e.gpus,
        one_of: e.gpus > 1 && e.ollama.as_ref().is_some_and(|o| o.loaded_on.is_some()),
        card,
        memory: e.fit.as_ref().map(|f| f.memory_bytes),
        in_use: e.fit.as_ref().map_or(Bytes::ZERO, |f| f.in_use_bytes),
        verdict,
        m_rec: e.recommended_bytes,
        #[cfg(feature = "full")]
        rent,
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
            // Every copy of the server holds as many (its pool is one copy's).
            held: held * w.copies as f64,
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
        batch: w.requests,
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
    let single = {
        let mut input = input.clone();
        input.placement.gpus = None;
        input.placement.tp = 1.0;
        input.placement.pp = 1.0;
        input.hardware.gpu_memory = None;
        input
    };
    let holds = |g: &Gpu| {
        let on = {
            let mut input = single.clone();
            input.hardware.gpu = Some(g.id.to_string());
            input
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

/// The cheapest rental of `offers` that holds `input` as asked: the planner's first option
/// with the memory of each layout from the estimator (`layout_required_bytes`), exactly as
/// the CLI's `cheapest_text` and the npm package's `recommend()` call it, and the offer's own
/// price for what that option rents. The full build's: a calculator build has no room for
/// the planner's estimates.
#[cfg(feature = "full")]
pub fn cheapest_rent(input: &EstimateInput, offers: &[Offer]) -> Option<Rent> {
    use vramfit::hardware::{PlanOptions, layout_required_bytes, plan, platforms};
    let option = plan(
        |l, g| layout_required_bytes(input, l, g),
        offers,
        vramfit::hardware::gpus(),
        &PlanOptions::default().for_run(input),
    )
    .into_iter()
    .next()?;
    let offer = offers.iter().find(|o| o.id == option.offer)?;
    // The offer's own price of what the option rents (a server per node), as the CLI's line
    // says it (`PlanOption::offer_price`).
    let own = option.offer_price(offers)?;
    let platform = platforms()
        .iter()
        .find(|p| p.id == offer.provider)
        .map_or_else(
            || (offer.provider.to_string(), offer.provider.to_string()),
            |p| (p.name.to_string(), p.name_zh.to_string()),
        );
    Some(Rent {
        price_per_hour: own.price_per_hour,
        currency: own.currency,
        source: own.source,
        date: own.date,
        platform,
        option,
    })
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
#[cfg(feature = "full")]
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
        answer(
            &input_with(&s, &[]).unwrap(),
            &e,
            vramfit::hardware::offers(),
        )
        .unwrap()
    }

    /// The calculator opened at `hash` with the layout of `o` applied, as "Apply this layout"
    /// does.
    #[cfg(feature = "full")]
    fn with_layout_applied(hash: &str, o: &vramfit::hardware::PlanOption) -> Rc<AppState> {
        let s = Rc::new(AppState::default()).reduce(Action::Open(Route::parse(hash), Lang::En));
        let changes = crate::compute::layout_changes(&s, o)
            .unwrap()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        s.reduce(Action::SetMany(changes))
    }

    /// The contradiction: vLLM 0.19 starts on 2 × H100 but holds 1.06 of the 32
    /// sequences of 8,192 tokens at once (1.26 before the 0.17–0.20 line's stated margin, 1.18
    /// with 0.1 GiB of it, 1.06 with its 0.25 GiB); the answer says so, with what all 32 need, never a plain yes. (vLLM 0.21 and later take the CUDA graphs out of the pool's budget: the
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
        assert!((held - 1.06).abs() < 1e-9, "{held}");
        // The CLI's required_bytes for the same run: 130,984,730,078 B (the budget's card; its
        // tenth outside the budget holds the context and the graphs, 3.52 GiB). The 0.17–0.20
        // line's stated margin, 0.25 GiB (0.1 GiB before the fp32 and granite runs raised it,
        // `estimate/vllm/sampler.rs`), adds 0.25 GiB / 0.9 = 298,261,617.8 B to the card:
        // 298,261,617 B over the 130,865,425,432 B without it (0.1 GiB's 119,304,646 B gave
        // 130,984,730,078 B; the 0.15 GiB more, 178,956,971 B), each figure rounded to the byte.
        assert_eq!(need.get(), 131_163_687_049);
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

    /// #41: Llama-3.1-70B (bf16) served by vLLM to 32 users at 8k on one H100 does not fit, and
    /// the answer names the cheapest rental that holds all 32 at once, priced as its offer
    /// states it. By hand:
    /// - Llama-3.1-70B: 80 layers of 855,654,400 parameters (attention 2 × 8192² + 2 × 8192 ×
    ///   1024, MLP 3 × 8192 × 28,672, two norms of 8192), embeddings and head 128,256 × 8192 =
    ///   1,050,673,152 each: 70,553,706,496 in all (the preset's count), 141.1 GB in bf16. Its
    ///   cache: 80 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 327,680 B a token; 32 × 8,192 =
    ///   262,144 tokens = 85.9 GB. vLLM holds both within 0.9 of the card.
    /// - One card needs at least (141.1 + 85.9) / 0.9 = 252 GB: none of the catalog's (the
    ///   MI300X has 192 GB). Two cards (TP=2 or PP=2): half of each, at least 126 GB a card:
    ///   no 80 GB card, and no offer of 2 or 3 larger cards in one server. So 4 GPUs.
    /// - TP=4 on 4 × A100 80GB: a quarter of the weights, 141,107,412,992 B / 4 =
    ///   35,276,853,248 B (the norms whole on each GPU and the vocabulary's padding add 35.5 MB),
    ///   and of the cache, 2 of the 8 KV heads: 80 layers × 2 × 128 × 2 × 2 B = 81,920 B a token
    ///   × 262,144 tokens = 21,474,836,480 B: 56,751,689,728 B / 0.9 = 63,057,433,031 B at
    ///   least; the planner's 68,532,849,579 B adds the activations, the CUDA graphs, the
    ///   context and tensor parallel's NCCL and custom all-reduce buffers (2.25 GB): 5.1 GiB in
    ///   all, under the A100's 85,167,243,264 B usable.
    /// - PP=4 fits too, with more to spare: the largest stage is 20 layers with the head (and
    ///   the final norm), 18,163,769,344 parameters = 36,327,538,688 B, and a quarter of the
    ///   cache, 21,474,836,480 B: 64,224,861,298 B at least, 65,572,524,963 B by the planner.
    /// - The price: Alibaba Cloud's 8 × A100 80GB server, 64.00 CNY an hour (8 CNY per card-hour,
    ///   its record), 64 / 7.1 = 9.01 USD at the data set's rate: every offer below that is a
    ///   server of fewer than 4 cards (checked below against the catalog), so none holds it; the
    ///   next, Volcano Engine's, is 72 CNY. It rents the whole server of 8 for its 4 GPUs.
    ///
    /// Among the layouts of 4 GPUs on that offer, all at the same price, the planner puts the
    /// faster first (`Layout::speed_rank`: fewer pipeline stages), TP=4 (68.53 GB a GPU) before
    /// TP=2 × PP=2 (67.40 GB) and PP=4 (65.57 GB), whose larger margin no longer decides: every
    /// token's decode passes PP=4's four stages in turn, where TP=4 over NVLink serves it in one
    /// pass.
    #[cfg(feature = "full")]
    #[test]
    fn a_run_that_does_not_fit_names_the_cheapest_layout_that_holds_it_and_its_price() {
        let hash = "#/calc?model=meta-llama%2FLlama-3.1-70B&mode=serve&engine=vllm&batch=32&max_model_len=8192&gpu=h100-sxm5-80gb";
        let a = answer_of(hash);
        assert!(matches!(a.verdict, Verdict::No { .. }), "{:?}", a.verdict);
        let r = a.rent.clone().unwrap();
        let o = &r.option;
        assert_eq!(
            (o.offer.as_str(), o.gpu.as_str(), o.count, o.rented_gpus),
            ("aliyun-a100-80gb-8x", "a100-sxm4-80gb", 4, 8)
        );
        let l = o.parallelism;
        assert_eq!((l.tp, l.pp, l.nodes, l.gpus), (4, 1, 1, 4));
        assert!(
            o.per_gpu_bytes.get() >= 63_057_433_031,
            "{:?}",
            o.per_gpu_bytes
        );
        assert!(
            o.per_gpu_bytes.get() - 63_057_433_031 < 11 << 29,
            "{:?}",
            o.per_gpu_bytes
        );
        assert_eq!(o.usable_bytes.get(), 85_167_243_264);
        assert_eq!((r.price_per_hour, r.currency), (64.0, Currency::Cny));
        assert!(
            (o.price_per_hour - 64.0 / 7.1).abs() < 1e-9,
            "{}",
            o.price_per_hour
        );
        assert_eq!(r.date, "2025-12-31");
        assert!(
            r.source.contains("8 CNY per A100-80GB card-hour"),
            "{}",
            r.source
        );
        // Every cheaper on-demand offer is too small a server to hold it (the hand bounds:
        // 252 GB on one card, 126 GB a card on two).
        let rate = vramfit::hardware::exchange_rate();
        for f in vramfit::hardware::offers() {
            let usd = rate.convert(f.price_per_hour, f.currency, Currency::Usd);
            if f.market == vramfit::hardware::Market::OnDemand && usd < o.price_per_hour {
                let card = vramfit::hardware::find_gpu(&f.gpu).unwrap().memory.get();
                assert!(f.count < 4, "{}", f.id);
                assert!(
                    card < if f.count == 1 { 252e9 } else { 126e9 } as u64,
                    "{}",
                    f.id
                );
            }
        }
        // The words, in both languages: the cards, the layout, the node, the offer's price.
        let en = crate::components::answer::rent_text(Lang::En, &r);
        for part in [
            "4 × A100 SXM4 80GB",
            "TP=4 × PP=1",
            "1 node",
            "Alibaba Cloud",
            "64.00 CNY/h",
            "2025-12-31",
            "8-GPU server",
        ] {
            assert!(en.contains(part), "{part}: {en}");
        }
        let zh = crate::components::answer::rent_text(Lang::Zh, &r);
        for part in [
            "4 张 A100 SXM4 80GB",
            "TP=4 × PP=1",
            "1 个节点",
            "阿里云",
            "64.00 CNY/h",
            "8 卡服务器",
        ] {
            assert!(zh.contains(part), "{part}: {zh}");
        }
        // "Apply" sets the form to that layout, and the answer there is a yes, its memory per
        // GPU the planner's.
        let applied = with_layout_applied(hash, o);
        assert_eq!(
            (
                applied.value("gpu"),
                applied.value("gpus"),
                applied.value("pp"),
                applied.value("tp")
            ),
            (
                "a100-sxm4-80gb".to_string(),
                "4".to_string(),
                "1".to_string(),
                "4".to_string()
            )
        );
        let e = estimate_of(&applied).unwrap();
        assert_eq!(e.required_bytes, o.per_gpu_bytes);
        let b = answer(
            &input_with(&applied, &[]).unwrap(),
            &e,
            vramfit::hardware::offers(),
        )
        .unwrap();
        assert!(matches!(b.verdict, Verdict::Yes { .. }), "{:?}", b.verdict);
        assert_eq!(b.rent, None);
    }

    /// A mixture of experts served by vLLM past one server: the rental line names the
    /// planner's expert-parallel layout in the engines' notation, in both languages, with the
    /// two servers' price as the offer states it (2 × 64 CNY).
    #[cfg(feature = "full")]
    #[test]
    fn an_expert_parallel_rental_is_worded_in_both_languages() {
        let a = answer_of(
            "#/calc?model=deepseek-ai%2FDeepSeek-V3&mode=serve&engine=vllm&batch=64&max_model_len=4096&gpu=h100-sxm5-80gb",
        );
        let r = a.rent.clone().unwrap();
        let l = r.option.parallelism;
        assert_eq!(r.option.offer, "aliyun-a100-80gb-8x");
        assert_eq!(l, vramfit::hardware::Layout::expert(8, 2, 2));
        assert_eq!((r.price_per_hour, r.currency), (128.0, Currency::Cny));
        let en = crate::components::answer::rent_text(Lang::En, &r);
        let zh = crate::components::answer::rent_text(Lang::Zh, &r);
        for (text, nodes) in [(&en, "2 nodes"), (&zh, "2 个节点")] {
            assert!(text.contains("DP=2 × TP=8 + EP=16"), "{text}");
            assert!(text.contains(nodes), "{text}");
            assert!(text.contains("128.00 CNY/h"), "{text}");
        }
        // "Apply" sets the form to that layout (16 GPUs, tp 8, ep 16, 8 a node, each rank's
        // share of the 64 sequences), and the calculator's memory per GPU is the planner's.
        let hash = "#/calc?model=deepseek-ai%2FDeepSeek-V3&mode=serve&engine=vllm&batch=64&max_model_len=4096&gpu=h100-sxm5-80gb";
        let applied = with_layout_applied(hash, &r.option);
        assert_eq!(
            (
                applied.value("gpus"),
                applied.value("tp"),
                applied.value("ep")
            ),
            ("16".to_string(), "8".to_string(), "16".to_string())
        );
        let e = estimate_of(&applied).unwrap();
        assert_eq!(e.required_bytes, r.option.per_gpu_bytes);
        // SGLang's form of the same layout: tp over all 16, two DP-attention groups.
        let hash = "#/calc?model=deepseek-ai%2FDeepSeek-V3&mode=serve&engine=sglang&batch=64&max_model_len=4096&gpu=h100-sxm5-80gb";
        let a = answer_of(hash);
        let r = a.rent.clone().unwrap();
        assert_eq!(
            r.option.parallelism,
            vramfit::hardware::Layout::expert(8, 2, 2)
        );
        let applied = with_layout_applied(hash, &r.option);
        assert_eq!(
            (applied.value("tp"), applied.value("dp_size")),
            ("16".to_string(), "2".to_string())
        );
        let e = estimate_of(&applied).unwrap();
        assert_eq!(e.required_bytes, r.option.per_gpu_bytes);
    }

    /// A run that fits names no rental; one too large for its card does.
    #[cfg(feature = "full")]
    #[test]
    fn a_run_that_fits_names_no_rental() {
        let a = answer_of("#/calc?model=qwen3%3A32b&engine=ollama&max_model_len=8192&gpu=rtx-4090");
        assert_eq!(a.rent, None);
        let b = answer_of("#/calc?model=meta-llama%2FLlama-3.3-70B-Instruct&gpu=rtx-4090");
        assert!(b.rent.is_some());
    }

    #[test]
    fn a_run_that_fits_says_yes_with_its_spare_memory() {
        let a = answer_of("#/calc?model=qwen3%3A32b&engine=ollama&max_model_len=8192&gpu=rtx-4090");
        assert_eq!(a.run.model, "qwen3:32b");
        assert_eq!(a.run.format, "Q4_K_M");
        assert_eq!(a.run.context, 8192);
        match a.verdict {
            // The CLI (`vramfit estimate --model qwen3:32b --engine ollama --max-model-len 8192
            // --gpu rtx-4090`, Ollama 0.32.15's llama-server): headroom 3,265,631,232 B
            // ("fits, 3.04 GiB free"), 36.98 tokens/s (1 token / 27.04 ms).
            Verdict::Yes { spare, speed } => {
                assert_eq!(spare.get(), 3_265_631_232);
                assert!((speed.unwrap() - 36.98).abs() < 0.01, "{speed:?}");
            }
            v => panic!("{v:?}"),
        }
        assert_eq!(tokens(8192), "8k");
        assert_eq!(tokens(2000), "2,000");
    }

    /// Ollama on two RTX 4090s loads llama3.1:8b on one (its prediction, the 4.58 GiB file and
    /// an f16 KV of 4 × 32 × 8 × 128 × 32,768 B = 4 GiB, is within 80 % of one card's 23.52
    /// GiB free: `bestSingleGPUFit`, ollama/ollama fb3076099): the verdict and the header say
    /// one of the 2, the other idle, in both languages; `gpus` stays 2, the cards given.
    #[test]
    fn ollama_on_one_of_two_cards_says_so() {
        let a = answer_of("#/calc?model=llama3.1%3A8b&engine=ollama&gpu=rtx-4090&gpus=2");
        assert!(a.one_of && a.gpus == 2, "{a:?}");
        let (name, text) = crate::components::answer::sentence(Lang::En, &a);
        assert_eq!(name, "yes");
        assert!(
            text.contains(
                "fits on one RTX 4090 of the 2 given (Ollama loads it there alone, the others idle)"
            ),
            "{text}"
        );
        let (_, zh) = crate::components::answer::sentence(Lang::Zh, &a);
        assert!(zh.contains("给定 2 块中的一张 RTX 4090"), "{zh}");
        // llama3.1:70b holds on neither alone: both, as before.
        let b = answer_of("#/calc?model=llama3.1%3A70b&engine=ollama&gpu=rtx-4090&gpus=2");
        assert!(!b.one_of, "{b:?}");
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
