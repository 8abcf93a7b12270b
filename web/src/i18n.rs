//! Every string the site shows, in English and Simplified Chinese: tables of
//! key → (en, zh). Code names a text by its key, found when the site is compiled ([`Key`]):
//! a missing key does not compile, and the module holds the texts without their keys.
//!
//! A build carries the languages of its features: the full build (`full`) both, each
//! calculator build one (`en` or `zh`), whose first load then holds no text of the other. A
//! language a build lacks is never shown: [`Lang::shown`] falls back to the one it carries,
//! and the app hands the page over to the build that carries the language asked for.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// A language of the site.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// 简体中文.
    Zh,
}

#[cfg(not(any(feature = "en", feature = "zh")))]
compile_error!("vramfit-web needs a language: feature `en`, `zh` or both (`full` has both)");

impl Lang {
    /// Whether this build carries the language's text.
    pub const fn carried(self) -> bool {
        match self {
            Lang::En => cfg!(feature = "en"),
            Lang::Zh => cfg!(feature = "zh"),
        }
    }

    /// The language the page is shown in: this one where the build carries it, else the one
    /// the build carries (for the moment it takes to hand the page over to another build).
    pub const fn shown(self) -> Lang {
        if self.carried() {
            self
        } else if cfg!(feature = "en") {
            Lang::En
        } else {
            Lang::Zh
        }
    }

    /// Whether the page is shown in Chinese. In a build of one language a constant, so that
    /// the other language's branches drop out of it.
    pub const fn is_zh(self) -> bool {
        matches!(self.shown(), Lang::Zh)
    }

    /// From a BCP 47 tag such as `navigator.language`: any `zh` is Chinese, the rest English.
    pub fn from_tag(tag: &str) -> Lang {
        if tag.trim().to_ascii_lowercase().starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// The code used in URLs (`lang=zh`) and `<html lang>`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }

    /// The short code of the URL.
    pub fn url_code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// Parses the URL's `lang=` value.
    pub fn from_url(v: &str) -> Option<Lang> {
        match v {
            "en" => Some(Lang::En),
            "zh" | "zh-CN" | "zh-cn" => Some(Lang::Zh),
            _ => None,
        }
    }

    /// The text of `key` in this language.
    pub fn t(self, key: Key) -> &'static str {
        match rows().get(usize::from(key.0)) {
            Some(row) => row[if CELLS == 2 && self.is_zh() { 1 } else { 0 }],
            None => "",
        }
    }

    /// `en` or `zh`, whichever the page is shown in.
    pub fn pick<T>(self, en: T, zh: T) -> T {
        if self.is_zh() { zh } else { en }
    }

    /// `t(key)` with `{0}`, `{1}`, … replaced by `args`, in one pass (an argument's own text is
    /// not read for slots); a slot with no argument stays as written. Written by hand, as are
    /// the `strip_prefix` calls instead of `trim_start_matches`, so that the calculator's build
    /// links none of core's substring search.
    pub fn f(self, key: Key, args: &[&str]) -> String {
        fill(self.t(key), args)
    }
}

/// `text` with each `{N}` replaced by `args[N]`: see [`Lang::f`].
fn fill(text: &str, args: &[&str]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let arg = (digits > 0 && after[digits..].starts_with('}'))
            .then(|| {
                after.as_bytes()[..digits].iter().try_fold(0usize, |n, d| {
                    n.checked_mul(10)?.checked_add(usize::from(d - b'0'))
                })
            })
            .flatten()
            .and_then(|i| args.get(i));
        match arg {
            Some(a) => {
                out.push_str(a);
                rest = &after[digits + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A text of the tables: the place of its row, [`TEXT`]'s rows first, then [`VIEW_TEXT`]'s.
/// Made from the text's key when the site is compiled, by `key!` or
/// [`Key::find`] in a constant: a key no row has is a compile error, and the module holds no
/// key, only the texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key(u16);

impl Key {
    /// The text whose key is `parts` joined, if a row has it: for constants, such as a field's
    /// label (`["f.", field]`) or a choice's (`["v.", field, ".", value]`).
    pub const fn find(parts: &[&str]) -> Option<Key> {
        let mut i = 0;
        while i < TEXT_KEYS.len() {
            if joins(TEXT_KEYS[i], parts) {
                return Some(Key(i as u16));
            }
            i += 1;
        }
        let mut i = 0;
        while i < VIEW_KEYS.len() {
            if joins(VIEW_KEYS[i], parts) {
                return Some(Key((TEXT_KEYS.len() + i) as u16));
            }
            i += 1;
        }
        None
    }

    /// The text whose key is `parts` joined: a compile error, in a constant, where no row has it.
    pub const fn of(parts: &[&str]) -> Key {
        match Key::find(parts) {
            Some(k) => k,
            None => panic!("no row of the text tables has this key"),
        }
    }

    /// The key of the text, for tests: the module's code reads no key.
    #[cfg(test)]
    pub fn name(self) -> &'static str {
        let i = usize::from(self.0);
        TEXT_KEYS
            .get(i)
            .or_else(|| VIEW_KEYS.get(i - TEXT_KEYS.len()))
            .copied()
            .unwrap_or("")
    }
}

// Every row's place fits a `Key`.
const _: () = assert!(TEXT_KEYS.len() + VIEW_KEYS.len() < u16::MAX as usize);

/// Whether `key` is `parts` joined, byte by byte (a `const fn`: `==` on `str` is not one).
const fn joins(key: &str, parts: &[&str]) -> bool {
    let key = key.as_bytes();
    let mut at = 0;
    let mut p = 0;
    while p < parts.len() {
        let part = parts[p].as_bytes();
        let mut i = 0;
        while i < part.len() {
            if at >= key.len() || key[at] != part[i] {
                return false;
            }
            at += 1;
            i += 1;
        }
        p += 1;
    }
    at == key.len()
}

/// How many languages a row holds: both in the full build, the build's one otherwise.
#[cfg(all(feature = "en", feature = "zh"))]
const CELLS: usize = 2;
#[cfg(not(all(feature = "en", feature = "zh")))]
const CELLS: usize = 1;

/// A row of the text tables: English then Chinese, or the build's one language.
pub type Row = [&'static str; CELLS];

/// The rows of [`TEXT`] then of [`VIEW_TEXT`], split from them once, in [`Key`] order.
pub fn rows() -> &'static [Row] {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let mut cells = TEXT.split('\0').chain(VIEW_TEXT.split('\0'));
        let mut out = Vec::with_capacity(TEXT_KEYS.len() + VIEW_KEYS.len());
        while let Some(first) = cells.next() {
            if first.is_empty() {
                // The empty cell after a table's last NUL.
                continue;
            }
            let mut row = [first; CELLS];
            for cell in row.iter_mut().skip(1) {
                *cell = cells.next().unwrap_or_default();
            }
            out.push(row);
        }
        out
    })
}

/// A text table from `(key, English, Chinese)` rows: its texts as one string, each ended by a
/// NUL, that [`rows`] splits once, and its keys as a constant that only [`Key::find`] reads,
/// when the site is compiled. The text of a language the build does not carry is in no data
/// of the module. One string rather than a slice of rows: each cell of a slice is a pointer
/// and a length, some 6 KB for the calculator's 383 rows that compress poorly (the book's
/// performance chapter has the figure).
macro_rules! texts {
    ($(#[$m:meta])* $text:ident, $keys:ident: $(($k:literal, $en:literal, $zh:literal)),* $(,)?) => {
        /// The keys of the table's rows, in order.
        pub const $keys: &[&str] = &[$($k),*];
        $(#[$m])*
        #[cfg(all(feature = "en", feature = "zh"))]
        pub static $text: &str = concat!($($en, "\0", $zh, "\0"),*);
        $(#[$m])*
        #[cfg(all(feature = "en", not(feature = "zh")))]
        pub static $text: &str = concat!($($en, "\0"),*);
        $(#[$m])*
        #[cfg(all(feature = "zh", not(feature = "en")))]
        pub static $text: &str = concat!($($zh, "\0"),*);
    };
}

texts! {
    /// The shell's and the calculator's text, in every build: key, English, Chinese, sorted by
    /// key (a test checks).
    TEXT, TEXT_KEYS:
    ("app.book", "The book: the method and every formula", "说明书：方法与全部公式"),
    ("app.footer", "Runs entirely in your browser: no server, no account, no network request. Works offline.", "完全在浏览器中运行：无服务器、无账号、无网络请求，可离线使用。"),
    ("app.lang", "Language", "语言"),
    ("app.loading", "Loading this view…", "正在加载此页面…"),
    ("app.skip", "Skip to content", "跳到正文"),
    ("app.tagline", "Will it fit, on which GPU, at what cost — and why it ran out of memory.", "能否装下、用哪块 GPU、花多少钱——以及为什么显存不足。"),
    ("app.title", "vramfit — GPU memory calculator", "vramfit — GPU 显存计算器"),
    ("calc.advanced", "Advanced", "高级"),
    ("calc.auto", "automatic", "自动"),
    ("calc.bar_label", "Memory breakdown at the peak", "峰值时的显存构成"),
    ("calc.bytes", "Memory", "显存"),
    ("calc.cannot", "Cannot estimate:", "无法估算："),
    ("calc.component", "Component", "组成部分"),
    ("calc.cpu", "{0} is kept in CPU memory (offloaded).", "{0} 保存在 CPU 内存中（卸载）。"),
    ("calc.custom_gpu", "your GPU", "你的显卡"),
    ("calc.differences", "Why the detailed estimate differs", "详细估算为何不同"),
    ("calc.error", "{0}: {1}. Accepted: {2}.", "{0}：{1}。可接受：{2}。"),
    ("calc.fits", "fits, {0} free", "装得下，剩余 {0}"),
    ("calc.form", "Calculator inputs", "计算器输入"),
    ("calc.formula", "Working", "计算过程"),
    ("calc.hardware", "GPU and parallelism", "显卡与并行"),
    ("calc.last_result", "The last result, for the inputs before this change:", "上一个结果（对应这次修改之前的输入）："),
    ("calc.lead", "How much GPU memory a run needs, part by part, with the working shown — and the guide's quick rule beside it.", "一次运行需要多少显存：逐项列出并给出计算过程，同时附上指南的快速估算。"),
    ("calc.matches", "Matching presets", "匹配的预设"),
    ("calc.mem_derived", "Memory derived ({1}): {0}", "显存为推算值（{1}）：{0}"),
    ("calc.mem_measured", "Memory measured ({1}): {0}", "显存为实测值（{1}）：{0}"),
    ("calc.model", "Model", "模型"),
    ("calc.model_source", "Where the model comes from", "模型来源"),
    ("calc.no_gpu", "none (or give the memory below)", "不指定（或在下方填写显存）"),
    ("calc.nofit", "does not fit: {0} short", "装不下：缺 {0}"),
    ("calc.notes", "Assumptions", "假设"),
    ("calc.nvme", "{0} is kept on the NVMe drive (offloaded).", "{0} 保存在 NVMe 硬盘上（卸载）。"),
    ("calc.off_peak", "not alive at the peak", "峰值时不存在"),
    ("calc.ollama_one_gpu", " — on one GPU ({0}) of the {1} given: Ollama loads it there alone, the others idle", "——只用给定 {1} 块 GPU 中的一块（{0}）：Ollama 只把它加载到这块卡上，其余空闲"),
    ("calc.ollama_tag", "Ollama runs {0} as {1}, its default tag ({2}); type another tag, such as {1}-q8_0, for another file.", "Ollama 以默认标签 {1}（{2}）运行 {0}；输入其他标签（如 {1}-q8_0）可换用其他文件。"),
    ("calc.on_gpu", "On {0}", "在 {0} 上"),
    ("calc.peak", "Peak allocated", "峰值已分配"),
    ("calc.peak_sub", "torch.cuda.max_memory_allocated()", "torch.cuda.max_memory_allocated()"),
    ("calc.peak_sub_llamacpp", "llama.cpp's buffers on the GPU (no PyTorch)", "llama.cpp 在 GPU 上的缓冲区（不经 PyTorch）"),
    ("calc.per_gpu", " — per GPU, {0} GPUs", "——每卡，共 {0} 卡"),
    ("calc.preset_count", "Type any part of a name: {0} presets.", "输入名称的任意部分：共 {0} 个预设。"),
    ("calc.preset_info", "{0}: {1} parameters, checkpoint in {2}.", "{0}：{1} 参数，权重格式 {2}。"),
    ("calc.q_as_shipped", "as the model ships: {0}", "模型自带格式：{0}"),
    ("calc.quick", "The guide's quick estimate", "指南的快速估算"),
    ("calc.quick_rec", "Quick M_rec", "快速估算 M_rec"),
    ("calc.quick_theory", "Quick M_theory", "快速估算 M_theory"),
    ("calc.recommended", "Recommended (M_rec)", "建议显存 (M_rec)"),
    ("calc.recommended_sub", "1.2 × (peak + 2 GB) = {0}", "1.2 × (峰值 + 2 GB) = {0}"),
    ("calc.recommended_sub_ollama", "1.2 × (the card memory that holds every layer on the GPU + 2 GB) = {0}", "1.2 × (全部层都放在 GPU 上所需的显存 + 2 GB) = {0}"),
    ("calc.recommended_sub_total", "1.2 × (total + 2 GB) = {0}", "1.2 × (总量 + 2 GB) = {0}"),
    ("calc.recommended_sub_vllm", "1.2 × (the card memory the KV pool needs + 2 GB) = {0}", "1.2 × (KV 池所需的显卡显存 + 2 GB) = {0}"),
    ("calc.reset", "Reset to defaults", "恢复默认值"),
    ("calc.result_for", "{0} · {1} parameters", "{0} · {1} 参数"),
    ("calc.results", "Estimate", "估算结果"),
    ("calc.run", "The run", "运行设置"),
    ("calc.serving_result", "The KV pool holds {0} tokens: {1} sequences of {2} at once.", "KV 缓存池可容纳 {0} 个 token：可同时容纳 {1} 条 {2} 长度的序列。"),
    ("calc.total", "Total (nvidia-smi)", "总计（nvidia-smi）"),
    ("calc.total_sub", "{0}, as nvidia-smi shows it", "{0}，即 nvidia-smi 显示值"),
    ("calc.typing", "Still typing? The result below is for the last complete inputs.", "还在输入？下面是上一组完整输入的结果。"),
    ("calc.users", "Users at once (your target)", "同时服务的用户数（你的目标）"),
    ("calc.working", "Show the working", "计算过程"),
    ("cards.limits", ", limits the run", "，限制了这次运行"),
    ("cards.output", " + output layer", " + 输出层"),
    ("cards.row", "CUDA{0} {1}: {2} of {3}, {4} blocks{5}; {6}{7}", "CUDA{0} {1}：{2} / {3}，{4} 块{5}；{6}{7}"),
    ("cards.short", "{0} short", "缺 {0}"),
    ("cards.spare", "{0} to spare", "剩余 {0}"),
    ("cards.title", "Each card (llama.cpp splits the layers by card; the fit is per card):", "各卡（llama.cpp 按卡切分层；是否放得下按卡判断）："),
    ("comp.activations", "Activations", "激活值"),
    ("comp.allocator_reserve", "Allocator reserve", "分配器预留"),
    ("comp.autocast_copies", "Autocast weight copies", "自动混合精度权重副本"),
    ("comp.compute_buffer", "Compute buffer", "计算缓冲区"),
    ("comp.cuda_context", "CUDA context", "CUDA 上下文"),
    ("comp.cuda_graphs", "CUDA graphs", "CUDA Graphs"),
    ("comp.ddp_buckets", "DDP gradient buckets", "DDP 梯度桶"),
    ("comp.dequant_buffer", "Dequantization buffer", "反量化缓冲区"),
    ("comp.drafter", "Speculative drafter", "投机解码草稿器"),
    ("comp.embedding_grad_buffer", "Embedding gradient buffer", "词嵌入梯度缓冲"),
    ("comp.encoder_activations", "Vision encoder activations", "视觉编码器激活"),
    ("comp.encoder_cache", "Encoder cache (vLLM profile)", "编码器缓存（vLLM 剖析）"),
    ("comp.gradients", "Gradients", "梯度"),
    ("comp.kv_cache", "KV cache", "KV 缓存"),
    ("comp.logits", "Logits", "Logits"),
    ("comp.lora_adapters", "LoRA adapter slots", "LoRA 适配器槽位"),
    ("comp.nccl", "NCCL buffers", "NCCL 缓冲区"),
    ("comp.non_torch", "Non-torch memory (NCCL…)", "非 PyTorch 显存（NCCL 等）"),
    ("comp.optimizer", "Optimizer states", "优化器状态"),
    ("comp.reference_model", "Reference model (frozen)", "参考模型（冻结）"),
    ("comp.req_to_token_pool", "Request-to-token table", "请求到 token 的映射表"),
    ("comp.reward_model", "Reward model (frozen)", "奖励模型（冻结）"),
    ("comp.rollout_buffers", "Rollout engine's buffers", "rollout 引擎的缓冲"),
    ("comp.rollout_kv_cache", "Rollout KV cache", "rollout 的 KV 缓存"),
    ("comp.rollout_weights", "Rollout engine's weights", "rollout 引擎的权重"),
    ("comp.state_cache", "Linear-attention / SSM state", "线性注意力 / SSM 状态"),
    ("comp.step_temporaries", "Optimizer-step temporaries", "优化器步骤临时张量"),
    ("comp.value_model", "Value model: weights and optimizer", "价值模型：权重与优化器"),
    ("comp.value_model_step", "Value model: gradients and activations", "价值模型：梯度与激活"),
    ("comp.vision_weights", "Vision tower weights (mmproj)", "视觉编码器权重（mmproj）"),
    ("comp.weights", "Weights", "权重"),
    ("comp.workspace", "cuBLAS workspace", "cuBLAS 工作区"),
    ("comp.zero_buffers", "ZeRO buffers", "ZeRO 缓冲区"),
    ("e.acceptance_rate", "chance the target accepts one drafted token, 0 to 0.99, as vLLM logs it: the speed with drafting (empty: none)", "目标模型接受一个草拟 token 的概率，0 到 0.99，即 vLLM 日志中的接受率：用于计算投机解码的速度（留空即不算）"),
    ("e.ctx", "context per sequence", "每条序列的上下文"),
    ("e.ctx_shared", "context, shared by every sequence", "上下文，所有序列共用"),
    ("e.default", "default: {0}", "默认：{0}"),
    ("e.disaggregation_mode", "P/D disaggregation: this server's side, prefill or decode (empty: one server does both); the other side's pool is in a note and the launch writes both with SGLang's router", "预填充与解码分离：本服务所在的一端，prefill 或 decode（留空即一个服务同时做两者）；另一端的池在附注中给出，启动命令写出两端与 SGLang 的 router"),
    ("e.disaggregation_mode_vllm", "P/D disaggregation: prefill (kv_producer) or decode (kv_consumer); the connector registers the existing pool, so both sides hold this server's memory", "预填充与解码分离：prefill（kv_producer）或 decode（kv_consumer）；连接器只注册已有的池，因此两端显存与本服务相同"),
    ("e.dp_attention", "attention in data parallel over dp_size groups of the tp GPUs, each group's token pool its own (MLA models)", "注意力按 dp_size 组在 tp 个 GPU 内做数据并行，每组有自己的 token 池（MLA 模型）"),
    ("e.dp_size", "attention groups (--attn-dp-size; before SGLang 0.5.23 --dp-size with --enable-dp-attention), dividing tp", "注意力组数（--attn-dp-size；SGLang 0.5.23 之前为 --dp-size 加 --enable-dp-attention），须整除 tp"),
    ("e.draft_model", "draft_model: the draft's preset, same vocabulary; eagle/eagle3: the head's repository, for the command", "draft_model：草稿模型的预设，词表须相同；eagle/eagle3：草稿头的仓库，写入启动命令"),
    ("e.draft_model_sglang", "eagle/eagle3: the head's repository; draft_model (STANDALONE): the draft's preset, same vocabulary; mtp (NEXTN): none, the model's own checkpoint; loaded before the pool is sized", "eagle/eagle3：草稿头的仓库；draft_model（STANDALONE）：草稿模型的预设，词表须相同；mtp（NEXTN）：不填，即模型自身的检查点；在确定池大小之前加载"),
    ("e.enable_lora", "serve LoRA adapters: their GPU slots are allocated at start-up, out of the KV pool (vLLM 0.12 or later, dense models)", "提供 LoRA 适配器：其 GPU 槽位在启动时分配，从 KV 池中扣除（vLLM 0.12 及以后，稠密模型）"),
    ("e.enable_lora_sglang", "serve LoRA adapters: SGLang allocates its LoRA pool after the weights, out of the static fraction (SGLang 0.5, dense models)", "提供 LoRA 适配器：SGLang 在权重之后分配 LoRA 池，从静态比例中扣除（SGLang 0.5，稠密模型）"),
    ("e.flash_ollama", "from 0.30 --flash-attn auto, on unless eager is chosen (0); up to 0.24 FlashAttention: 1 and the other kernels leave it off (a quantized KV cache needs it)", "从 0.30 起为 --flash-attn auto，除非选 eager（0）否则开启；0.24 及之前选 FlashAttention 即为 1，其他选项为关闭（量化 KV 缓存需要开启）"),
    ("e.fraction_static", "share of the card for the weights and the KV pool", "权重与 KV 池占显卡显存的比例"),
    ("e.free_fraction", "share of the free memory that becomes the KV cache", "空闲显存中用作 KV 缓存的比例"),
    ("e.graph_bs", "largest batch captured in CUDA graphs", "CUDA Graphs 捕获的最大批大小"),
    ("e.graphs_sglang", "on unless --disable-cuda-graph", "除非加 --disable-cuda-graph，否则开启"),
    ("e.graphs_vllm", "on unless --enforce-eager", "除非加 --enforce-eager，否则开启"),
    ("e.host_bandwidth", "the host memory's peak, e.g. 80GB/s (instead of host_memory)", "主机内存峰值带宽，如 80GB/s（代替 host_memory）"),
    ("e.host_memory", "the CPU memory that layers or experts left off the GPU are read from (empty: DDR5-5600 dual channel, said in a note)", "未放上 GPU 的层或专家所在的 CPU 内存（留空即 DDR5-5600 双通道，并在说明中注明）"),
    ("e.kv", "KV-cache type", "KV 缓存类型"),
    ("e.kv_bits", "KV cache quantized to 2, 3, 4, 5, 6 or 8 bits (empty: the model's dtype)", "KV 缓存量化为 2、3、4、5、6 或 8 位（留空即模型的数据类型）"),
    ("e.kv_group_size", "values per scale and bias of the quantized KV cache: 32, 64 or 128 (empty: 64)", "量化 KV 缓存每组缩放与偏置对应的值数：32、64 或 128（留空即 64）"),
    ("e.kv_offloading_backend", "native: vLLM's own pinned CPU memory; lmcache: LMCache's server sizes its own (empty: native)", "native：vLLM 自己的锁页 CPU 内存；lmcache：由 LMCache 的服务自行决定大小（留空即 native）"),
    ("e.kv_offloading_size", "GiB of CPU memory for evicted KV blocks, loaded back on a prefix hit; the GPU pool is unchanged (vLLM 0.14 or later)", "为被逐出的 KV 块保留的 CPU 内存（GiB），前缀命中时读回；GPU 上的池不变（vLLM 0.14 起）"),
    ("e.kv_ollama", "KV-cache type (q8_0 and q4_0 need FlashAttention)", "KV 缓存类型（q8_0 与 q4_0 需开启 FlashAttention）"),
    ("e.kv_unified", "one KV cache for all sequences, or a stream per sequence with its own share and window (empty: split with -np from b5913)", "各序列共用一个 KV 缓存，或每条序列一个流、各有自己的份额与窗口（留空：b5913 起给出 -np 即拆分）"),
    ("e.kv_unified_per_slot", "each slot's context cap in tokens, b10662 on; without a context the shared pool is the slots × this (empty: none)", "每个槽位的上下文上限（token），b10662 起；不给上下文时共享池为槽位数 × 此值（留空即无）"),
    ("e.language_model_only", "no vision or audio tower: vLLM loads and profiles none with every --limit-mm-per-prompt modality a tower serves at 0 (from 0.10.1; a modality not named is 999), and their weights are left out; a multimodal model, without images. Off, vLLM profiles the encoder on dummy images even when none is asked", "不加载视觉或音频编码器：编码器所服务的每个 --limit-mm-per-prompt 模态为 0 时（0.10.1 起；未指定的模态为 999）vLLM 既不加载也不剖析编码器，其权重不计入；仅多模态模型，且不与图像同用。关闭时，即使不要求图像，vLLM 也会以虚拟图像剖析编码器"),
    ("e.llamacpp_build", "llama.cpp build, such as b4500 (empty: the latest, b10615); before b7438 -ngl N keeps the output layer on the CPU; before b9509 the compute buffer holds a ubatch of logits, from it one output per sequence", "llama.cpp 构建号，如 b4500（留空即最新的 b10615）；b7438 之前 -ngl N 把输出层留在 CPU；b9509 之前计算缓冲区容纳一个微批的 logits，自 b9509 起每个序列一个输出"),
    ("e.lora_targets_sglang", "modules with a slot, comma-separated: q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, embed_tokens, lm_head (empty: all)", "占槽位的模块，逗号分隔：q_proj、k_proj、v_proj、o_proj、gate_proj、up_proj、down_proj、embed_tokens、lm_head（留空即 all）"),
    ("e.main_gpu", "the GPU that holds the whole model with -sm none, from 0", "-sm none 时容纳整个模型的 GPU，从 0 起"),
    ("e.max_batch_tokens", "--max-batch-tokens: the tokens of the largest batch, which TEI runs once at start (its warmup) whatever the requests' lengths (empty: 16384)", "--max-batch-tokens：最大批的 token 数，TEI 启动时（预热）按它运行一次，与请求长度无关（留空即 16384）"),
    ("e.max_cpu_loras", "adapters cached in CPU memory, at least --max-loras; no GPU memory (empty: --max-loras)", "缓存在 CPU 内存中的适配器数，不少于 --max-loras；不占显存（留空即 --max-loras）"),
    ("e.max_kv_size", "rotating KV cache of at most this many tokens (mlx_lm.generate; empty: the whole context)", "最多保存这么多 token 的旋转 KV 缓存（mlx_lm.generate；留空即整个上下文）"),
    ("e.max_loaded_loras", "adapters cached in CPU memory, at least --max-loras-per-batch; no GPU memory (empty: --max-loras-per-batch)", "缓存在 CPU 内存中的适配器数，不少于 --max-loras-per-batch；不占显存（留空即 --max-loras-per-batch）"),
    ("e.max_lora_rank", "rank every slot is allocated at: 1, 8, 16, 32, 64, 128, 256, 320 or 512 (empty: 16)", "每个槽位按此秩分配：1、8、16、32、64、128、256、320 或 512（留空即 16）"),
    ("e.max_lora_rank_sglang", "the largest rank of your adapters, 1 to 1024 (needed: SGLang reads it from --lora-paths)", "你的适配器中最大的秩，1 到 1024（必填：SGLang 从 --lora-paths 读取）"),
    ("e.max_loras", "adapters in one batch, each a GPU slot (empty: 1)", "一个批次中的适配器数，每个占一个 GPU 槽位（留空即 1）"),
    ("e.max_loras_sglang", "adapters in one batch, each a GPU slot (empty: 8)", "一个批次中的适配器数，每个占一个 GPU 槽位（留空即 8）"),
    ("e.max_seqs", "most sequences at once", "同时运行的最多序列数"),
    ("e.n_cpu_moe", "blocks whose MoE experts stay in CPU memory (empty: none)", "混合专家权重留在 CPU 内存的块数（留空即无）"),
    ("e.ngl", "layers on the GPU (empty: all)", "放在 GPU 上的层数（留空即全部）"),
    ("e.num_gpu", "layers on the GPU (empty: Ollama decides)", "放在 GPU 上的层数（留空由 Ollama 决定）"),
    ("e.num_speculative_tokens", "tokens drafted per step, 1 to 16 (needed with a method)", "每步草拟的 token 数，1 到 16（选了方法时必填）"),
    ("e.num_speculative_tokens_sglang", "draft steps of one token (top-k 1), 1 to 16 (needed with a method)", "每步草拟一个 token 的步数（top-k 1），1 到 16（选了方法时必填）"),
    ("e.ollama_version", "Ollama release, such as 0.30.5 or 0.24.0 (empty: the latest, 0.32.15); from 0.30 it runs llama-server (its pinned llama.cpp build, flash attention auto, its automatic batch, llama-server's fit of the layers), before it its Go runner and its own layer plan", "Ollama 版本，如 0.30.5 或 0.24.0（留空即最新的 0.32.15）；从 0.30 起运行 llama-server（其固定的 llama.cpp 构建、flash attention 为 auto、其自动批大小、由 llama-server 的 fit 放置各层），之前为其 Go 运行器与自己的分层计划"),
    ("e.parallel", "sequences at once", "同时处理的序列数"),
    ("e.prefill_step", "prompt tokens one forward takes (empty: 2048)", "一次前向处理的提示词 token 数（留空即 2048）"),
    ("e.quantized_kv_start", "cached tokens at which the KV cache is quantized (empty: 5000)", "缓存到多少个 token 时开始量化 KV 缓存（留空即 5000）"),
    ("e.reserved_decode_tokens", "decode side: tokens kept free for each running request before another is admitted (empty: 512)", "解码端：接纳新请求前为每个运行中请求保留的空闲 token 数（留空即 512）"),
    ("e.runner", "pooling: an embedding or reranking model, one forward and a pooler, no tokens generated and no sampler (empty: pooling for an encoder and, with vLLM, for a preset that ships a pooling config such as Qwen3-Embedding; else generate)", "pooling：嵌入或重排序模型，一次前向加池化器，不生成 token，没有采样器（留空：编码器为 pooling，vLLM 下带池化配置的预设如 Qwen3-Embedding 也为 pooling；其余为 generate）"),
    ("e.runner_llamacpp", "pooling (--embedding): an embedding or reranking model, one forward and a pooler, no tokens generated; llama.cpp keeps no KV cache for an encoder and takes each input in one ubatch (-ub) (empty: pooling for an encoder; else generate)", "pooling（--embedding）：嵌入或重排序模型，一次前向加池化器，不生成 token；llama.cpp 对编码器不分配 KV 缓存，且每条输入须放进一个 ubatch（-ub）（留空：编码器为 pooling；其余为 generate）"),
    ("e.runner_ollama", "pooling (/api/embed): an embedding model, one forward and a pooler, no tokens generated; Ollama runs it with one sequence and a batch of min(2048, num_ctx) (empty: pooling for an encoder or a preset that ships a pooling config such as Qwen3-Embedding; else generate)", "pooling（/api/embed）：嵌入模型，一次前向加池化器，不生成 token；Ollama 以单序列、min(2048, num_ctx) 的批运行（留空：编码器或带池化配置的预设如 Qwen3-Embedding 为 pooling；其余为 generate）"),
    ("e.settings", "{0} settings", "{0} 设置"),
    ("e.sglang_version", "SGLang release, such as 0.4.3.post3 or 0.5.2rc1 (empty: the latest, 0.5.23); it picks that release's default mem_fraction_static, chunk and CUDA graphs, and the launch's flags", "SGLang 版本，如 0.4.3.post3 或 0.5.2rc1（留空即最新的 0.5.23）；决定该版本默认的 mem_fraction_static、分块与 CUDA Graph，以及启动命令的参数"),
    ("e.speculative_method", "speculative decoding: the drafter's weights come out of the KV pool, its attention layers share it", "投机解码：草稿器的权重从 KV 池中扣除，其注意力层共用该池"),
    ("e.speculative_method_sglang", "speculative decoding (eagle EAGLE, eagle3 EAGLE3, draft_model STANDALONE, mtp NEXTN: the model's own multi-token-prediction layers, DeepSeek-V3/R1; not ngram): the draft's weights come out of mem_fraction_static, its KV shares every token's cell", "投机解码（eagle 即 EAGLE、eagle3 即 EAGLE3、draft_model 即 STANDALONE、mtp 即 NEXTN：模型自带的多 token 预测层，如 DeepSeek-V3/R1；不含 ngram）：草稿模型的权重从 mem_fraction_static 中扣除，其 KV 与目标模型共用每个 token 的单元"),
    ("e.split_mode", "layer: whole blocks to each card; none: the main GPU alone; row is not modelled", "layer：整块分给各卡；none：只用主 GPU；row 未建模"),
    ("e.step_tokens", "tokens per engine step", "每个引擎步骤的 token 数"),
    ("e.tensor_split", "each card's share of the layers, e.g. 3,1 (empty: by each card's free memory)", "各卡分得的层的比例，如 3,1（留空即按各卡空闲显存）"),
    ("e.transfer_backend", "how the KV cache crosses: mooncake (default) or nixl; both register the existing pool, no memory of their own", "KV 缓存的传输方式：mooncake（默认）或 nixl；两者都只注册已有的池，自身不占显存"),
    ("e.transfer_backend_vllm", "kv_connector: NixlConnector (default) or MooncakeConnector; both register the existing pool", "kv_connector：NixlConnector（默认）或 MooncakeConnector；两者都只注册已有的池"),
    ("e.transformers_version", "transformers release, such as 4.57 or 5.24 (empty: the latest, 5.25); from 5.15 an MLA model (DeepSeek) caches its compressed latent", "transformers 版本，如 4.57 或 5.24（留空即最新的 5.25）；从 5.15 起 MLA 模型（DeepSeek）缓存压缩的潜向量"),
    ("e.ubatch", "physical batch", "物理批大小"),
    ("e.utilization", "share of the card vLLM may use", "vLLM 可使用的显卡显存比例"),
    ("e.vllm_version", "vLLM release, such as 0.19 or 0.8.5 (empty: the latest, 0.33)", "vLLM 版本，如 0.19 或 0.8.5（留空即最新的 0.33）"),
    ("e.wired_limit", "unified memory the GPU may wire, in MiB, up to the Mac's RAM less 4 GiB (empty: Metal's recommendedMaxWorkingSetSize)", "GPU 可锁定的统一内存，单位 MiB，最多为 Mac 内存减去 4 GiB（留空即 Metal 的 recommendedMaxWorkingSetSize）"),
    ("f.acceptance_rate", "Acceptance rate", "接受率"),
    ("f.attention", "Attention kernel", "注意力实现"),
    ("f.batch", "Batch size", "批大小"),
    ("f.cards", "Cards not alike (llama.cpp)", "不同型号的卡（llama.cpp）"),
    ("f.cuda_graph_max_bs", "cuda_graph_max_bs (SGLang)", "cuda_graph_max_bs（SGLang）"),
    ("f.cuda_graphs", "CUDA graphs", "CUDA Graphs"),
    ("f.disaggregation_mode", "P/D disaggregation side (--disaggregation-mode)", "预填充/解码分离的一端（--disaggregation-mode）"),
    ("f.disaggregation_transfer_backend", "KV transfer backend (--disaggregation-transfer-backend)", "KV 传输后端（--disaggregation-transfer-backend）"),
    ("f.dp_size", "dp_size (SGLang)", "dp_size（SGLang）"),
    ("f.draft_model", "Draft model or head", "草稿模型或草稿头"),
    ("f.dtype", "Dtype", "数据类型"),
    ("f.enable_dp_attention", "DP attention (--attn-dp-size)", "DP attention（--attn-dp-size）"),
    ("f.enable_lora", "LoRA adapters (--enable-lora)", "LoRA 适配器（--enable-lora）"),
    ("f.engine", "Engine", "推理引擎"),
    ("f.engine_version", "Engine version", "引擎版本"),
    ("f.ep", "Expert parallel", "专家并行"),
    ("f.free_gpu_memory_fraction", "free_gpu_memory_fraction (TensorRT-LLM)", "free_gpu_memory_fraction（TensorRT-LLM）"),
    ("f.gpu", "GPU from the catalog", "目录中的显卡"),
    ("f.gpu_layers", "GPU layers (-ngl)", "GPU 层数（-ngl）"),
    ("f.gpu_memory", "GPU memory", "显存容量"),
    ("f.gpu_memory_utilization", "gpu_memory_utilization", "gpu_memory_utilization"),
    ("f.gpus", "GPUs", "GPU 数量"),
    ("f.gpus_per_node", "GPUs per node", "每节点 GPU 数"),
    ("f.host_bandwidth", "Host memory bandwidth", "主机内存带宽"),
    ("f.host_memory", "Host memory (speed under offload)", "主机内存（卸载时的速度）"),
    ("f.image_height", "Image height (pixels)", "图像高度（像素）"),
    ("f.image_width", "Image width (pixels)", "图像宽度（像素）"),
    ("f.images", "Images per request", "每个请求的图像数"),
    ("f.kv_bits", "KV-cache bits (--kv-bits, mlx-lm)", "KV 缓存位数（--kv-bits，mlx-lm）"),
    ("f.kv_dtype", "KV-cache dtype", "KV 缓存类型"),
    ("f.kv_group_size", "KV-cache group size (--kv-group-size, mlx-lm)", "KV 缓存分组大小（--kv-group-size，mlx-lm）"),
    ("f.kv_offloading_backend", "KV offloading backend (--kv-offloading-backend)", "KV 卸载后端（--kv-offloading-backend）"),
    ("f.kv_offloading_size", "KV offloading to CPU, GiB (--kv-offloading-size)", "KV 卸载到 CPU，GiB（--kv-offloading-size）"),
    ("f.kv_unified", "unified KV cache (--kv-unified)", "统一 KV 缓存（--kv-unified）"),
    ("f.kv_unified_per_slot", "context per slot (--kv-unified-per-slot)", "每个槽位的上下文（--kv-unified-per-slot）"),
    ("f.language_model_only", "Language model only", "仅语言模型"),
    ("f.logits", "Logits kept", "保留的 logits"),
    ("f.main_gpu", "Main GPU (-mg)", "主 GPU（-mg）"),
    ("f.max_cpu_loras", "max_cpu_loras", "max_cpu_loras"),
    ("f.max_kv_size", "Largest KV cache (--max-kv-size, mlx-lm)", "KV 缓存上限（--max-kv-size，mlx-lm）"),
    ("f.max_lora_rank", "max_lora_rank", "max_lora_rank"),
    ("f.max_loras", "max_loras", "max_loras"),
    ("f.max_model_len", "max_model_len", "max_model_len"),
    ("f.max_num_batched_tokens", "max_num_batched_tokens", "max_num_batched_tokens"),
    ("f.max_num_seqs", "max_num_seqs", "max_num_seqs"),
    ("f.mem_fraction_static", "mem_fraction_static (SGLang)", "mem_fraction_static（SGLang）"),
    ("f.memory_in_use", "Memory already in use (desktop, display, other programs)", "已占用显存（桌面、显示器、其他程序）"),
    ("f.mode", "Mode", "模式"),
    ("f.model", "Preset", "预设模型"),
    ("f.n_cpu_moe", "MoE experts in CPU memory (--n-cpu-moe)", "留在 CPU 内存的专家块数（--n-cpu-moe）"),
    ("f.new_tokens", "New tokens", "生成 token 数"),
    ("f.node_link", "Network between nodes", "节点间网络"),
    ("f.num_reserved_decode_tokens", "num_reserved_decode_tokens (SGLang decode side)", "num_reserved_decode_tokens（SGLang 解码端）"),
    ("f.num_speculative_tokens", "num_speculative_tokens", "num_speculative_tokens"),
    ("f.params", "Parameters", "参数量"),
    ("f.pp", "Pipeline parallel", "流水线并行"),
    ("f.quantization", "Quantization", "量化"),
    ("f.quantized_kv_start", "Quantized KV from token (--quantized-kv-start, mlx-lm)", "从第几个 token 起量化 KV（--quantized-kv-start，mlx-lm）"),
    ("f.runner", "Runner (--runner, SGLang --is-embedding)", "运行方式（--runner，SGLang --is-embedding）"),
    ("f.seq_len", "Sequence length (tokens)", "序列长度（token）"),
    ("f.source", "Model source", "模型来源"),
    ("f.speculative_method", "Speculative decoding", "投机解码"),
    ("f.split_mode", "Split mode (-sm)", "切分方式（-sm）"),
    ("f.tensor_split", "Tensor split (-ts)", "Tensor split（-ts）"),
    ("f.tp", "Tensor parallel", "张量并行"),
    ("f.ubatch", "Physical batch (-ub)", "物理批大小（-ub）"),
    ("f.wired_limit_mb", "GPU wired limit (iogpu.wired_limit_mb, macOS)", "GPU 锁定上限（iogpu.wired_limit_mb，macOS）"),
    ("h.batch", "Sequences per step (training: micro-batch per GPU)", "每步的序列数（训练时为每卡微批）"),
    ("h.cards", "In device order, separated by commas: rtx-3090,rtx-3060-12gb or 2x4090 (instead of the GPU and GPUs)", "按设备顺序以逗号分隔：rtx-3090,rtx-3060-12gb 或 2x4090（代替显卡与 GPU 数量）"),
    ("h.dtype", "Automatic: the checkpoint's dtype", "自动：使用权重文件的数据类型"),
    ("h.ep", "MoE experts over this many GPUs: vLLM tp × data parallel, SGLang a divisor of it; 1 for none", "把 MoE 专家分到这么多 GPU 上：vLLM 为 tp × 数据并行，SGLang 为其约数；1 即不用"),
    ("h.free_gpu_memory_fraction", "0.01 to 1: the share of the memory left after its start-up profile that becomes the KV cache; empty: 0.9", "0.01 到 1：启动剖析后剩余显存中用作 KV 缓存的比例；留空即 0.9"),
    ("h.gpu_memory", "With its unit: 80GB, 79.19GiB, 24GB", "带单位：80GB、79.19GiB、24GB"),
    ("h.gpus", "In total: data × tensor × pipeline parallel; empty is tp × pp, one model copy", "总数：数据 × 张量 × 流水线并行；留空即 tp × pp（一份模型副本）"),
    ("h.gpus_per_node", "GPUs in one server; more GPUs fill whole nodes of this many (tp inside a node, pp across); empty is 8", "一台服务器中的 GPU 数；更多的 GPU 须填满整数个这样的节点（tp 在节点内，pp 跨节点）；留空即 8"),
    ("h.host_bandwidth", "With its unit: 80GB/s, 1.2TB/s; channels × 8 B × MT/s for DDR; read at the lowest host class's share (a host memory names its own)", "带单位：80GB/s、1.2TB/s；DDR 为通道数 × 8 B × MT/s；按各主机类别中最低的比例计（选择主机内存可得其自身比例）"),
    ("h.host_memory", "A catalog id or its words: ddr4-3200-2ch, ddr5-6000-2ch, threadripper-pro-7000-8ch, epyc-genoa-12ch, apple-m4-max, strix-halo, dgx-spark", "目录 id 或其中的词：ddr4-3200-2ch、ddr5-6000-2ch、threadripper-pro-7000-8ch、epyc-genoa-12ch、apple-m4-max、strix-halo、dgx-spark"),
    ("h.image_height", "1 to 32768; empty: 1024; with images only", "1 到 32768；留空即 1024；仅在有图像时读取"),
    ("h.image_width", "1 to 32768; empty: 1024; with images only", "1 到 32768；留空即 1024；仅在有图像时读取"),
    ("h.images", "0 to 1024 (vLLM --limit-mm-per-prompt); each adds its tokens to the prompt by the model's own rule (Gemma 3, Gemma 4, Qwen-VL, InternVL, Pixtral); with 0, vLLM still profiles the encoder on dummy images unless language model only", "0 到 1024（vLLM --limit-mm-per-prompt）；每张按模型自己的规则把 token 加入提示词（Gemma 3、Gemma 4、Qwen-VL、InternVL、Pixtral）；为 0 时，除非仅语言模型，vLLM 仍以虚拟图像剖析编码器"),
    ("h.kv_bits", "2, 3, 4, 5, 6 or 8; empty: the model's dtype", "2、3、4、5、6 或 8；留空即模型的数据类型"),
    ("h.kv_group_size", "32, 64 or 128; empty: 64", "32、64 或 128；留空即 64"),
    ("h.max_kv_size", "1 to 16,777,216 tokens; empty: the whole context", "1 到 16,777,216 个 token；留空即整个上下文"),
    ("h.mem_fraction_static", "0.01 to 0.99; empty: as SGLang picks it from the card", "0.01 到 0.99；留空即按 SGLang 依显卡选定的值"),
    ("h.memory_in_use", "On each GPU before the run, with its unit: 1.2GiB, 900MiB (nvidia-smi's used with nothing loaded); a card driving a display often holds 0.3–1.5 GB; the fit is said against what is free; or one per GPU in order, comma-separated: 1.2GiB,0GiB; empty: 0", "运行前每块 GPU 已占用的量，带单位：1.2GiB、900MiB（未加载时 nvidia-smi 显示的已用量）；接显示器的显卡常占 0.3–1.5 GB；能否放下按空闲显存判断；也可按顺序每块 GPU 一个，以逗号分隔：1.2GiB,0GiB；留空即 0"),
    ("h.node_link", "Per GPU, with its unit: 400Gb/s (InfiniBand NDR, the default), 200Gbps, 50GB/s", "每 GPU，带单位：400Gb/s（InfiniBand NDR，默认）、200Gbps、50GB/s"),
    ("h.params", "e.g. 7B, 70B, 340M, 7e9", "例如 7B、70B、340M、7e9"),
    ("h.quantized_kv_start", "0 to 16,777,216 tokens; empty: 5000", "0 到 16,777,216 个 token；留空即 5000"),
    ("h.seq_len", "Prompt tokens (training: sequence length)", "提示词 token 数（训练时为序列长度）"),
    ("h.wired_limit_mb", "MiB, 256 to the Mac's RAM less 4 GiB; an Apple card only; empty: Metal's working set", "MiB，256 到 Mac 内存减去 4 GiB；仅限 Apple 芯片；留空即 Metal 的工作集"),
    ("notice.bad_link", "Part of this link could not be read, so defaults were used for: {0}.", "链接中有部分内容无法识别，以下项已使用默认值：{0}。"),
    ("notice.dismiss", "Dismiss", "关闭"),
    ("v.attention.eager", "eager (S × S scores)", "eager（S × S 分数矩阵）"),
    ("v.attention.flash", "FlashAttention", "FlashAttention"),
    ("v.attention.sdpa", "SDPA (PyTorch)", "SDPA（PyTorch）"),
    ("v.disaggregation_mode.", "none: one server does both", "无：一个服务同时做两者"),
    ("v.disaggregation_mode.decode", "decode side (decode)", "解码端（decode）"),
    ("v.disaggregation_mode.prefill", "prefill side (prefill)", "预填充端（prefill）"),
    ("v.disaggregation_transfer_backend.", "default (SGLang mooncake, vLLM nixl)", "默认（SGLang mooncake，vLLM nixl）"),
    ("v.disaggregation_transfer_backend.mooncake", "Mooncake (mooncake)", "Mooncake（mooncake）"),
    ("v.disaggregation_transfer_backend.nixl", "NIXL (nixl)", "NIXL（nixl）"),
    ("v.dtype.", "automatic", "自动"),
    ("v.engine.hf", "Hugging Face transformers", "Hugging Face transformers"),
    ("v.engine.llamacpp", "llama.cpp", "llama.cpp"),
    ("v.engine.mlx", "mlx-lm (Apple silicon)", "mlx-lm（Apple 芯片）"),
    ("v.engine.ollama", "Ollama", "Ollama"),
    ("v.engine.sglang", "SGLang", "SGLang"),
    ("v.engine.tei", "Text Embeddings Inference (embedding and reranker models)", "Text Embeddings Inference（嵌入与重排序模型）"),
    ("v.engine.trtllm", "TensorRT-LLM", "TensorRT-LLM"),
    ("v.engine.vllm", "vLLM", "vLLM"),
    ("v.kv_dtype.auto", "same as the model", "与模型相同"),
    ("v.kv_dtype.nvfp4", "nvfp4 (TensorRT-LLM, Blackwell)", "nvfp4（TensorRT-LLM，Blackwell）"),
    ("v.kv_offloading_backend.", "default (native)", "默认（native）"),
    ("v.kv_offloading_backend.lmcache", "LMCache (lmcache)", "LMCache（lmcache）"),
    ("v.kv_offloading_backend.native", "vLLM's own (native)", "vLLM 自带（native）"),
    ("v.kv_unified.", "llama-server's (split with -np)", "按 llama-server（给出 -np 即拆分）"),
    ("v.kv_unified.false", "a stream per sequence", "每条序列一个流"),
    ("v.kv_unified.true", "one cache shared by the sequences", "各序列共用一个缓存"),
    ("v.logits.all", "all positions", "所有位置"),
    ("v.logits.last", "last position", "仅最后位置"),
    ("v.mode.inference", "Inference (generate)", "推理（生成）"),
    ("v.mode.serve", "Serving (many users at once)", "服务（多用户并发）"),
    ("v.mode.training", "Training / fine-tuning", "训练 / 微调"),
    ("v.quantization.bnb-int8", "bnb-int8 (LLM.int8)", "bnb-int8（LLM.int8）"),
    ("v.quantization.bnb-nf4", "bnb-nf4 (4-bit)", "bnb-nf4（4 位）"),
    ("v.quantization.bnb-nf4-dq", "bnb-nf4 + double quantization", "bnb-nf4 + 双重量化"),
    ("v.quantization.hqq", "hqq (4-bit, groups of 64)", "hqq（4 位，每组 64）"),
    ("v.quantization.none", "none", "不量化"),
    ("v.quantization.torchao-nf4", "torchao-nf4 (torchtune's QLoRA)", "torchao-nf4（torchtune 的 QLoRA）"),
    ("v.runner.", "default (pooling for an encoder or a pooling preset)", "默认（编码器或池化预设为 pooling）"),
    ("v.runner.generate", "text generation (generate)", "文本生成（generate）"),
    ("v.runner.pooling", "embedding, reranking (pooling)", "嵌入、重排序（pooling）"),
    ("v.source.config", "config.json", "config.json"),
    ("v.source.hub", "A hub repo", "模型仓库中的仓库"),
    ("v.source.params", "Parameter count", "参数量"),
    ("v.source.preset", "Preset", "预设"),
    ("v.speculative_method.", "none", "不用"),
    ("v.speculative_method.draft_model", "draft model (draft_model)", "草稿模型（draft_model）"),
    ("v.speculative_method.eagle", "EAGLE head (eagle)", "EAGLE 草稿头（eagle）"),
    ("v.speculative_method.eagle3", "EAGLE-3 head (eagle3)", "EAGLE-3 草稿头（eagle3）"),
    ("v.speculative_method.mtp", "the model's own MTP layers (mtp, SGLang NEXTN)", "模型自带的 MTP 层（mtp，SGLang NEXTN）"),
    ("v.speculative_method.ngram", "n-grams of the context (ngram)", "上下文 n-gram（ngram）"),
    ("v.split_mode.layer", "layer", "layer（按层）"),
    ("v.split_mode.none", "none (main GPU)", "none（主 GPU）"),
    ("v.split_mode.row", "row", "row（按行）"),
    ("verdict.cards", "{0} × {1}", "{0} 张 {1}"),
    ("verdict.choose", " Choose a card to see whether it holds it.", "选择一张显卡即可看它能否装下。"),
    ("verdict.fewest", " {0} hold it as asked.", "{0} 可满足要求。"),
    ("verdict.fewest_yours", " {0} such cards hold it as asked.", "{0} 张这样的显卡可满足要求。"),
    ("verdict.in_use", " Said against what is free: {0} is already in use on each GPU, {1} free.", "按空闲显存判断：每块 GPU 已占用 {0}，空闲 {1}。"),
    ("verdict.model", "{0} ({1})", "{0}（{1}）"),
    ("verdict.needs", "{0} needs {1} on one GPU.", "{0}单卡需要 {1}。"),
    ("verdict.no", "No: {0} needs {1} per GPU; {2} has {3}.", "不行：{0}每卡需要 {1}，而 {2} 只有 {3}。"),
    ("verdict.none_single", " No single card in the catalog holds it.", "目录中没有能单独装下它的显卡。"),
    ("verdict.offloads", "Only in part: Ollama runs {0} on {1} with {2} % of it on the CPU, much slower; every layer on the GPU needs {3}.", "只能部分放下：Ollama 在 {1} 上运行{0}，其中 {2}% 在 CPU 上，速度慢得多；全部层都放在 GPU 上需要 {3}。"),
    ("verdict.one_card", "one {0}", "一张 {0}"),
    ("verdict.one_of", "{0} of the {1} given (Ollama loads it there alone, the others idle)", "给定 {1} 块中的{0}（Ollama 只把它加载到这块卡上，其余空闲）"),
    ("verdict.queues", "Not as asked: {0} starts on {1}, but its KV pool holds {2} of your {3} sequences at {4} at once; the rest wait in its queue. All {3} at once need {5} per GPU.", "未达要求：{0} 能在 {1} 上启动，但其 KV 池同时只能容纳你要求的 {3} 条 {4} 序列中的 {2} 条，其余排队等待。要同时容纳全部 {3} 条，每卡需要 {5}。"),
    ("verdict.refuses", "No: {0} would refuse to start on {1}: {2} free, it asks {3} (gpu_memory_utilization of the card). The largest gpu_memory_utilization that starts is {4}; or free the memory other programs hold.", "不行：{0} 在 {1} 上将拒绝启动：空闲 {2}，它要求 {3}（显卡的 gpu_memory_utilization）。能启动的最大 gpu_memory_utilization 为 {4}；或释放其他程序占用的显存。"),
    ("verdict.rule", "The guide's rule beside it: M_rec = 1.2 × (M_theory + 2 GB) = {0}, a margin for peaks, not a second verdict.", "指南的经验规则：M_rec = 1.2 × (M_theory + 2 GB) = {0}，这是应对峰值的余量，不是另一个结论。"),
    ("verdict.run", "{0} at {1} context", "上下文 {1} 的 {0}"),
    ("verdict.run_batch", "{0}, {2} sequences at {1} context", "{2} 条序列、上下文 {1} 的 {0}"),
    ("verdict.run_serve", "{0} for {2} users at once at {1} context", "同时服务 {2} 个用户、上下文 {1} 的 {0}"),
    ("verdict.run_train", "{0} training at batch {2} × {1} tokens", "批大小 {2} × {1} token 训练的 {0}"),
    ("verdict.smallest", " The smallest single card that holds it: {0} ({1}).", "能单独装下它的最小显卡：{0}（{1}）。"),
    ("verdict.speed", ", {0} tokens/s per sequence", "，单序列每秒 {0} 个 token"),
    ("verdict.yes", "Yes: {0} fits on {1}{2}, {3} to spare.", "可以：{0}在 {1} 上装得下{2}，剩余 {3}。"),
    ("verdict.your_card", "your card of {0}", "你的显卡（{0}）"),
    ("view.calc", "Calculator", "计算器"),
    ("view.device", "This device", "本机"),
    ("view.diagnose", "Diagnose OOM", "OOM 诊断"),
    ("view.faq", "FAQ", "常见问题"),
    ("view.fit", "Fit & rent", "选卡与租用"),
    ("view.mig", "MIG planner", "MIG 规划"),
    ("view.models", "Which models fit", "哪些模型放得下"),
    ("view.nav", "Views", "视图"),
}

/// The text of the views beyond the calculator: none in the calculator's build, which has
/// none of these views.
#[cfg(not(feature = "full"))]
pub static VIEW_TEXT: &str = "";
/// The keys of [`VIEW_TEXT`]: none in the calculator's build.
#[cfg(not(feature = "full"))]
pub const VIEW_KEYS: &[&str] = &[];

#[cfg(feature = "full")]
texts! {
    /// The text of the views beyond the calculator (Fit & rent, MIG, Diagnose, FAQ, This
    /// device), sorted by key like [`TEXT`]. Only the full build carries it.
    VIEW_TEXT, VIEW_KEYS:
    ("app.footer_full", "Runs entirely in your browser: no server, no account; the network only for a hub lookup you ask for. Works offline.", "完全在浏览器中运行：无服务器、无账号；仅在你查询模型仓库时联网。可离线使用。"),
    ("calc.apply", "Apply", "应用"),
    ("calc.chart", "Memory against context length", "显存随上下文长度的变化"),
    ("calc.chart_hint", "Solid line: total memory; thin line: its KV cache; dashed lines: GPU memory (what CUDA reports). The dot is the current sequence length.", "粗线：总显存；细线：其中的 KV 缓存；虚线：显卡可用显存（CUDA 报告值）。圆点为当前序列长度。"),
    ("calc.chart_label", "Chart of total memory and KV cache against context length, with GPU memory lines", "总显存与 KV 缓存随上下文长度变化的图表，含显卡显存参考线"),
    ("calc.chart_x", "context length (tokens)", "上下文长度（token）"),
    ("calc.concurrency", "concurrency {0} → {1} sequences", "并发 {0} → {1} 条序列"),
    ("calc.config_info", "Read locally: model_type {0}, {1} parameters.", "已在本地读取：model_type {0}，{1} 参数。"),
    ("calc.costs", "costs {0} more", "多用 {0}"),
    ("calc.drop", "Drop a config.json, .safetensors or .gguf file here, or choose one", "将 config.json、.safetensors 或 .gguf 文件拖放到此处，或选择文件"),
    ("calc.drop_hint", "The file is read in your browser and never uploaded; of a weights file, only its header.", "文件只在浏览器中读取，不会上传；权重文件只读取其文件头。"),
    ("calc.header_info", "Read the {0} header only ({1} of {2}): {3} tensors, {4} parameters.", "只读取了 {0} 文件头（{2} 中的 {1}）：{3} 个张量，{4} 个参数。"),
    ("calc.header_no_layout", "The tensor names are not a layout vramfit knows: estimated from the parameter count.", "张量名称不是 vramfit 认识的结构：按参数量估算。"),
    ("calc.saves", "saves {0} ({1})", "节省 {0}（{1}）"),
    ("calc.step_label", "Memory at each moment of a training step", "训练一步中各时刻的显存"),
    ("calc.step_label_infer", "Memory at each moment of the run", "一次运行中各时刻的显存"),
    ("calc.step_label_serve", "Memory at each moment of the engine's start-up", "引擎启动过程中各时刻的显存"),
    ("calc.step_peak", " · the peak", " · 峰值"),
    ("calc.step_title", "Through one training step: what is alive at each moment", "一个训练步中：各时刻占用的显存"),
    ("calc.step_title_infer", "Through one run, from loading to the last token: what is alive at each moment", "一次运行中，从加载到最后一个 token：各时刻占用的显存"),
    ("calc.step_title_serve", "Through the engine's start-up, from loading to serving: what is alive at each moment", "引擎启动过程中，从加载到服务：各时刻占用的显存"),
    ("calc.training", "Training", "训练"),
    ("calc.whatif", "What if…", "如果……"),
    ("device.adapter", "WebGPU adapter", "WebGPU 适配器"),
    ("device.architecture", "Architecture", "架构"),
    ("device.card_memory", "{0}: {1} usable as its runtime (CUDA, ROCm, Metal) reports it ({2} on the box), from the catalog, not from the browser.", "{0}：运行时（CUDA、ROCm、Metal）报告可用 {1}（标称 {2}），数据来自目录而非浏览器。"),
    ("device.description", "Description", "描述"),
    ("device.fallback", "Software (fallback) adapter", "软件（回退）适配器"),
    ("device.intro", "What your browser says about this device's GPU, through WebGPU. Browsers do not report GPU memory size; vramfit never guesses it.", "浏览器通过 WebGPU 报告的本机 GPU 信息。浏览器不会报告显存容量，vramfit 也不会猜测。"),
    ("device.limits", "Limits", "限制"),
    ("device.match", "Matching card in the catalog", "目录中的匹配显卡"),
    ("device.matched", "The adapter's name matches {0} in the catalog.", "适配器名称与目录中的 {0} 匹配。"),
    ("device.no", "no", "否"),
    ("device.no_adapter", "WebGPU is present but the browser gave no adapter (requestAdapter() returned null): GPU access may be disabled or blocked.", "浏览器支持 WebGPU，但未提供适配器（requestAdapter() 返回 null）：GPU 访问可能被禁用或屏蔽。"),
    ("device.no_gpu_api", "This browser has no WebGPU (navigator.gpu is absent), so it tells nothing about the GPU.", "此浏览器不支持 WebGPU（没有 navigator.gpu），无法获知 GPU 信息。"),
    ("device.no_match", "No catalog card matches this adapter's name.", "目录中没有与此适配器名称匹配的显卡。"),
    ("device.no_memory", "Memory size: not reported by the browser.", "显存容量：浏览器未报告。"),
    ("device.pick", "Pick your card", "选择你的显卡"),
    ("device.pick_hint", "Choose the card you have to see its memory and use it in the calculator.", "选择你的显卡，查看其显存并在计算器中使用。"),
    ("device.pick_none", "— choose —", "— 请选择 —"),
    ("device.querying", "Asking the browser for a WebGPU adapter…", "正在向浏览器请求 WebGPU 适配器…"),
    ("device.use", "Use this card in the calculator", "在计算器中使用此卡"),
    ("device.vendor", "Vendor", "厂商"),
    ("device.yes", "yes", "是"),
    ("diag.change", "change", "修改"),
    ("diag.checks", "Check it", "验证方法"),
    ("diag.clear", "Clear", "清空"),
    ("diag.conf_high", "high", "高"),
    ("diag.conf_low", "low", "低"),
    ("diag.conf_medium", "medium", "中"),
    ("diag.effort", " · effort {0}/5", " · 难度 {0}/5"),
    ("diag.evidence", "The numbers read", "读取到的数字"),
    ("diag.ex_oom", "Example: PyTorch OOM", "示例：PyTorch OOM"),
    ("diag.ex_smi", "Example: nvidia-smi log", "示例：nvidia-smi 日志"),
    ("diag.ex_summary", "Example: memory_summary()", "示例：memory_summary()"),
    ("diag.fixes", "Fixes, cheapest first", "解决办法（由易到难）"),
    ("diag.hint", "PyTorch, TensorFlow, JAX, vLLM and llama.cpp messages; nvidia-smi tables or --format=csv logs.", "支持 PyTorch、TensorFlow、JAX、vLLM 和 llama.cpp 的报错；nvidia-smi 表格或 --format=csv 日志。"),
    ("diag.kind", "Diagnosis: {0}", "诊断：{0}"),
    ("diag.lands_on", "Your paste lands on: {0}.", "你粘贴的内容对应：{0}。"),
    ("diag.lead", "Paste what the failure printed; vramfit reads it here, in your browser, and says which of the guide's three kinds it is — capacity, fragmentation or leak — with the numbers that decide it and the fixes, cheapest first.", "粘贴报错输出；vramfit 在浏览器本地读取，判断它属于指南中的哪一类——容量型、碎片型或泄漏型——并给出判断依据的数字和由易到难的解决办法。"),
    ("diag.meta", "Read as {0} · confidence: {1}", "识别为 {0} · 置信度：{1}"),
    ("diag.not_in_link", "This text is too long to keep in the page's link; the diagnosis is shown but the link does not carry the text.", "文本过长，无法保存在链接中；诊断照常显示，但链接不包含该文本。"),
    ("diag.open_calc", "Size a run for this card's {0} in the calculator", "在计算器中按这张卡的 {0} 估算一次运行"),
    ("diag.paste", "CUDA out of memory message, memory_summary() report or nvidia-smi log", "CUDA out of memory 报错、memory_summary() 报告或 nvidia-smi 日志"),
    ("diag.plot_label", "nvidia-smi memory used over time, with the fitted trend and memory.total", "nvidia-smi 显存占用随时间变化，含拟合趋势与 memory.total"),
    ("diag.restart", "Start again", "重新开始"),
    ("diag.samples", "sample", "采样序号"),
    ("diag.seconds", "seconds", "秒"),
    ("diag.series", "GPU {0}{1}: peak {2}, growth {3}", "GPU {0}{1}：峰值 {2}，增长 {3}"),
    ("diag.walk", "Walk the decision tree", "按决策树逐步排查"),
    ("f.activation_offload", "Offload activations to CPU", "激活卸载到 CPU"),
    ("f.allgather_bucket_size", "allgather_bucket_size (DeepSpeed)", "allgather_bucket_size（DeepSpeed）"),
    ("f.compile", "torch.compile (the loss keeps no fp32 logits)", "torch.compile（损失不保留 fp32 logits）"),
    ("f.cp", "Context parallel (Megatron)", "上下文并行（Megatron）"),
    ("f.distributed_optimizer", "Distributed optimizer (Megatron)", "分布式优化器（Megatron）"),
    ("f.foreach", "foreach optimizer step", "foreach 优化器步骤"),
    ("f.fsdp_version", "FSDP", "FSDP"),
    ("f.fused_optimizer", "Fused optimizer step", "融合优化器步骤"),
    ("f.galore_rank", "GaLore rank", "GaLore 秩"),
    ("f.grad_accum", "Gradient accumulation steps", "梯度累积步数"),
    ("f.grad_checkpointing", "Gradient checkpointing", "梯度检查点"),
    ("f.kbit_upcast", "fp32 upcast of a quantized base", "量化基座升为 fp32"),
    ("f.lora_dropout", "LoRA dropout", "LoRA dropout 概率"),
    ("f.lora_rank", "LoRA rank (0 = full fine-tuning)", "LoRA 秩（0 为全参微调）"),
    ("f.lora_targets", "LoRA target modules", "LoRA 目标模块"),
    ("f.loss", "Loss", "损失函数"),
    ("f.loss_chunks", "Loss chunks", "损失分块数"),
    ("f.max_completion_length", "Completion length (tokens)", "补全长度（token）"),
    ("f.num_generations", "Completions per prompt", "每个提示的补全数"),
    ("f.offload", "Offload", "卸载"),
    ("f.optimizer", "Optimizer", "优化器"),
    ("f.optimizer_in_backward", "Optimizer step in backward", "在反向中执行优化器步骤"),
    ("f.overlap_comm", "overlap_comm (DeepSpeed)", "overlap_comm（DeepSpeed）"),
    ("f.packing", "Sequence packing", "序列打包"),
    ("f.precision", "Precision", "训练精度"),
    ("f.qlora", "QLoRA (4-bit NF4 base)", "QLoRA（4 位 NF4 底座）"),
    ("f.recompute_method", "Recompute method (Megatron, full recompute)", "重算方法（Megatron，完整重算）"),
    ("f.recompute_num_layers", "Recompute layers (Megatron, full recompute)", "重算层数（Megatron，完整重算）"),
    ("f.reduce_bucket_size", "reduce_bucket_size (DeepSpeed)", "reduce_bucket_size（DeepSpeed）"),
    ("f.reduce_dtype", "reduce_dtype (FSDP mixed precision)", "reduce_dtype（FSDP 混合精度）"),
    ("f.ref_model", "Reference model on the card", "卡上的参考模型"),
    ("f.reshard_after_forward", "reshard_after_forward (FSDP2)", "reshard_after_forward（FSDP2）"),
    ("f.rl", "RL post-training", "RL 后训练"),
    ("f.rl_beta", "KL coefficient (beta)", "KL 系数（beta）"),
    ("f.rollout", "Rollout", "Rollout 生成"),
    ("f.rollout_memory_utilization", "vLLM gpu_memory_utilization (rollout)", "vLLM gpu_memory_utilization（rollout）"),
    ("f.sequence_parallel", "Sequence parallel (Megatron)", "序列并行（Megatron）"),
    ("f.sleep_mode", "vLLM sleep mode while training", "训练时 vLLM 睡眠模式"),
    ("f.stack", "Fine-tuning stack", "微调框架"),
    ("f.stage3_max_live_parameters", "stage3_max_live_parameters (DeepSpeed)", "stage3_max_live_parameters（DeepSpeed）"),
    ("f.stage3_param_persistence_threshold", "stage3_param_persistence_threshold (DeepSpeed)", "stage3_param_persistence_threshold（DeepSpeed）"),
    ("f.stage3_prefetch_bucket_size", "stage3_prefetch_bucket_size (DeepSpeed)", "stage3_prefetch_bucket_size（DeepSpeed）"),
    ("f.vp", "Virtual pipeline stages (Megatron)", "虚拟流水线阶段（Megatron）"),
    ("f.zero", "ZeRO stage", "ZeRO 阶段"),
    ("faq.lead", "The guide's four questions, and others users ask. The numbers in the answers are computed now, by the same estimator as the calculator.", "指南中的四个问题以及用户常问的问题。答案中的数字由与计算器相同的估算器实时计算。"),
    ("faq.open", "Open in the calculator:", "在计算器中打开："),
    ("faq.run_dp8", "data parallel on 8 GPUs", "8 卡数据并行"),
    ("faq.run_full", "full fine-tuning", "全参数微调"),
    ("faq.run_llama3_8b", "Llama 3 8B inference", "Llama 3 8B 推理"),
    ("faq.run_lora", "LoRA", "LoRA"),
    ("faq.run_qlora", "QLoRA", "QLoRA"),
    ("faq.run_tp4", "tensor parallel 4", "4 路张量并行"),
    ("faq.run_zero3", "ZeRO-3 on 8 GPUs", "8 卡 ZeRO-3"),
    ("faq.source_guide", "From the guide, {0}", "出自指南 {0}"),
    ("faq.source_users", "A question users often ask", "用户常问的问题"),
    ("fit.bound_shared", " llama.cpp's context holds no more sequences of prompt and output; the memory holds more.", "llama.cpp 的上下文放不下更多的提示与输出序列；显存还装得下更多。"),
    ("fit.bound_trained", " That is the model's trained context; the memory holds more.", "这是模型训练时的上下文长度；显存还装得下更多。"),
    ("fit.cards", "Every card in the catalog", "目录中的所有显卡"),
    ("fit.cards_hint", "On one card, the run needs {0}. Memory is what the runtime (CUDA, ROCm) reports; the vendor's label is below it.", "单卡运行需要 {0}。显存为运行时（CUDA、ROCm）报告值，下方为厂商标称值。"),
    ("fit.currency", "Currency", "币种"),
    ("fit.fits", "Fits?", "能否装下"),
    ("fit.fix_in_calc", "Fix it in the calculator.", "请在计算器中修改。"),
    ("fit.footnote", "{0} options in all, cheapest first; at one price the faster layout first (fewer nodes, then fewer pipeline stages). ~ marks a reference price. Data parallel does not cut per-GPU memory: it is listed only for vLLM and SGLang serving, as replicas that share the concurrency (DP), with expert parallel (EP) for a mixture of experts.", "共 {0} 个方案，按价格排序；同价时更快的布局在前（节点更少，其次流水线阶段更少）。~ 表示参考价格。数据并行不降低每卡显存：仅在 vLLM 与 SGLang 推理服务中列出，作为分担并发的副本（DP），混合专家模型另有专家并行（EP）。"),
    ("fit.gpu", "GPU", "显卡"),
    ("fit.layout", "Layout", "并行方式"),
    ("fit.lead", "{0} needs {1} on one GPU (recommended with the guide's margin: {2}). Every option below is re-estimated for its own layout.", "{0} 单卡需要 {1}（按指南加余量的建议值：{2}）。下面每个方案都按其并行方式重新估算。"),
    ("fit.margin", "Margin", "余量"),
    ("fit.max_batch", "Largest batch that fits: {0} (needs {1}).", "可容纳的最大批大小：{0}（需要 {1}）。"),
    ("fit.max_ctx", "Longest context (max_model_len) that fits: {0} tokens (needs {1}).", "可容纳的最长上下文（max_model_len）：{0} 个 token（需要 {1}）。"),
    ("fit.max_seq", "Longest sequence that fits: {0} tokens (needs {1}).", "可容纳的最长序列：{0} 个 token（需要 {1}）。"),
    ("fit.memory", "Memory", "显存"),
    ("fit.no_bound", "A bare parameter count in training has no KV cache or per-token activations: nothing bounds the batch or the sequence. Choose a preset or a config.json for them.", "训练时只给参数量则没有 KV 缓存与逐 token 的激活值：批大小与序列长度都不受限制。请选择预设模型或 config.json 以得到它们。"),
    ("fit.no_seq", "An image network's memory does not depend on a sequence length: only the batch is bounded.", "图像网络的显存与序列长度无关：只有批大小受限。"),
    ("fit.nodes", "{0} nodes × {1} GPUs: {2}", "{0} 个节点 × 每节点 {1} 卡：{2}"),
    ("fit.none", "No offer fits on up to 8 GPUs per node and 4 nodes. Reduce memory (quantization, LoRA, ZeRO offload) in the calculator.", "单节点 8 卡、至多 4 个节点以内没有能装下的方案。请在计算器中降低显存（量化、LoRA、ZeRO 卸载）。"),
    ("fit.nothing_fits", "Even the smallest value does not fit this card.", "即使取最小值也装不下这张卡。"),
    ("fit.offer", "Offer", "方案"),
    ("fit.offers", "Cheapest ways to rent it", "最便宜的租用方案"),
    ("fit.on_card", "On {0} ({1})", "在 {0}（{1}）上"),
    ("fit.one_gpu", "1 GPU", "单卡"),
    ("fit.per_gpu", "Needs per GPU", "每卡需要"),
    ("fit.price", "Price", "价格"),
    ("fit.rents", " (rents {0})", "（需租 {0} 卡）"),
    ("fit.spot", "Include spot (interruptible) offers", "包含竞价（可中断）实例"),
    ("fit.spot_short", "spot", "竞价"),
    ("fit.tier", "Guide tier: {0}", "指南分档：{0}"),
    ("fit.tier_inference", "Inference", "推理"),
    ("fit.tier_note", "Note", "说明"),
    ("fit.tier_training", "Training", "训练"),
    ("fit.typed_price", "your price", "自填价格"),
    ("fit.usable", "Usable", "可用"),
    ("h.allgather_bucket_size", "Elements; empty: 5e8. DeepSpeed gathers in place: it takes no memory", "元素个数；留空即 5e8。DeepSpeed 原地收集：不占显存"),
    ("h.cp", "--context-parallel-size: the sequence split over cp GPUs; GPUs = tp × pp × cp × data parallel; empty: 1", "--context-parallel-size：序列分到 cp 个 GPU；GPU 数 = tp × pp × cp × 数据并行；留空即 1"),
    ("h.fsdp_version", "PyTorch FSDP 1 or 2; empty: DeepSpeed ZeRO (the torchtune stack on several GPUs with ZeRO 0: FSDP2, as its distributed recipes shard). ZeRO stage 3 is FULL_SHARD, 2 SHARD_GRAD_OP, offload to CPU its CPU offload", "PyTorch FSDP 1 或 2；留空即 DeepSpeed ZeRO（框架为 torchtune、多卡且 ZeRO 为 0 时即 FSDP2，与其分布式配方的分片相同）。ZeRO 阶段 3 即 FULL_SHARD，2 即 SHARD_GRAD_OP，卸载到 CPU 即其 CPU 卸载"),
    ("h.galore_rank", "optim_args rank= of the galore-adamw optimizers; empty: 128, transformers' default", "galore-adamw 优化器的 optim_args rank=；留空即 128（transformers 默认值）"),
    ("h.grad_accum", "Micro-batches per optimizer step (gradient_accumulation_steps; Megatron: global batch / (micro-batch × dp)); the speed only; empty: 1", "每次优化器步的微批次数（gradient_accumulation_steps；Megatron：全局批 / (微批 × dp)）；只影响速度；留空即 1"),
    ("h.lora_dropout", "lora_dropout, 0 to under 1; above 0 each adapted module keeps a mask and its own input copy; empty: the stack's (TRL 0.05, others 0)", "lora_dropout，0 到 1 之间（不含 1）；大于 0 时每个适配模块保存掩码与自己的输入副本；留空即训练栈的默认值（TRL 为 0.05，其余为 0）"),
    ("h.lora_targets", "Comma-separated: q_proj,v_proj (default), all-linear", "逗号分隔：q_proj,v_proj（默认）、all-linear"),
    ("h.max_completion_length", "Generated tokens per completion; each sequence is the sequence length plus this; empty: the stack's (TRL GRPO 512, PPO 53; verl 512)", "每条补全生成的 token 数；每条序列为序列长度加上它；留空即按框架（TRL GRPO 512、PPO 53；verl 512）"),
    ("h.num_generations", "The group size (TRL num_generations, verl rollout.n); the batch is then prompts; empty: the stack's (TRL GRPO 8, else 1)", "组大小（TRL num_generations，verl rollout.n）；此时批大小为提示数；留空即按框架（TRL GRPO 8，其余 1）"),
    ("h.offload", "DeepSpeed ZeRO's offload_optimizer (optimizer-*) and offload_param; FSDP's CPU offload (cpu); with ZeRO 0 and the torchtune stack on one GPU, torchao's CPUOffloadOptimizer (optimizer-cpu; cpu with offload_gradients)", "DeepSpeed ZeRO 的 offload_optimizer（optimizer-*）与 offload_param；FSDP 的 CPU 卸载（cpu）；ZeRO 为 0、框架为 torchtune 且单卡时，即 torchao 的 CPUOffloadOptimizer（optimizer-cpu；开启 offload_gradients 时为 cpu）"),
    ("h.recompute_num_layers", "--recompute-num-layers with checkpointing full: 1 to the layers per pipeline stage; empty: 1", "--recompute-num-layers，配完整检查点：1 到每个流水线阶段的层数；留空即 1"),
    ("h.reduce_bucket_size", "Elements; empty: 5e8; transformers' \"auto\" is hidden_size²", "元素个数；留空即 5e8；transformers 的 \"auto\" 为 hidden_size²"),
    ("h.reduce_dtype", "FSDP's MixedPrecision reduce_dtype: each unit's gradient is reduce-scattered in it (fp32 doubles that buffer under bf16); DeepSpeed has none", "FSDP MixedPrecision 的 reduce_dtype：每个单元的梯度以它做 reduce-scatter（bf16 下设 fp32 会使该缓冲翻倍）；DeepSpeed 没有此项"),
    ("h.rl_beta", "GRPO and PPO load a reference model only above 0; empty: the stack's (TRL GRPO 0.0, PPO 0.05; OpenRLHF 0.01)", "GRPO 与 PPO 仅在大于 0 时加载参考模型；留空即按框架（TRL GRPO 0.0、PPO 0.05；OpenRLHF 0.01）"),
    ("h.rollout_memory_utilization", "0.01 to 1: the colocated vLLM's share of the card; empty: the stack's (TRL 0.3, verl 0.5, OpenRLHF 0.95)", "0.01 到 1：同卡 vLLM 占显卡的比例；留空即按框架（TRL 0.3、verl 0.5、OpenRLHF 0.95）"),
    ("h.stage3_max_live_parameters", "Elements; empty: 1e9", "元素个数；留空即 1e9"),
    ("h.stage3_param_persistence_threshold", "Elements; empty: 1e5; \"auto\" is 10 × hidden_size", "元素个数；留空即 1e5；\"auto\" 为 10 × hidden_size"),
    ("h.stage3_prefetch_bucket_size", "Elements; empty: 5e7; \"auto\" is 0.9 × hidden_size²", "元素个数；留空即 5e7；\"auto\" 为 0.9 × hidden_size²"),
    ("h.vp", "--virtual-pipeline-model-parallel-size: the interleaved schedule; empty: none", "--virtual-pipeline-model-parallel-size：交错调度；留空即不用"),
    ("hub.cached", "From this browser's cache: looked up on {0} before.", "来自本浏览器的缓存：之前已在 {0} 查询过。"),
    ("hub.checkpoint", "Checkpoint ({0}): {1} tensors, {2} parameters, {3}: {4}.", "检查点（{0}）：{1} 个张量，{2} 个参数，{3}：{4}。"),
    ("hub.endpoint", "Hub", "模型仓库地址"),
    ("hub.endpoint_hint", "Hugging Face, its mirror hf-mirror.com or ModelScope (where huggingface.co is out of reach), or another address; kept in this browser.", "Hugging Face、其镜像 hf-mirror.com 或 ModelScope（无法访问 huggingface.co 时），或其他地址；保存在本浏览器中。"),
    ("hub.looking", "Reading the file list, config.json and the weights' headers from {0}…", "正在从 {0} 读取文件列表、config.json 与权重文件头…"),
    ("hub.lookup", "Look up", "查询"),
    ("hub.not_cached", "Not looked up in this browser yet: nothing is fetched until you press Look up.", "本浏览器尚未查询过：按下“查询”之前不会发出任何请求。"),
    ("hub.other", "Another hub's address", "其他仓库地址"),
    ("hub.privacy", "Looking up sends {0} the repo's name and asks for its file list, its config.json and its weights' headers (kilobytes to megabytes, by HTTP Range; never the weights); nothing else leaves the page. The result is kept in this browser.", "查询时会把仓库名发送给 {0}，并请求其文件列表、config.json 与权重文件头（几 KB 到几 MB，通过 HTTP Range 读取，从不下载权重）；页面不发送其他任何内容。结果保存在本浏览器中。"),
    ("hub.read", "Read from {0}: {1}; {2} in all.", "已从 {0} 读取：{1}；共 {2}。"),
    ("hub.refresh", "Look up again", "重新查询"),
    ("hub.repo", "Repo on the hub (OWNER/NAME)", "模型仓库中的仓库（OWNER/NAME）"),
    ("hub.unreachable", "This page could not reach {0}: the network, or the hub refusing another site's page (hf-mirror.com sends no cross-origin headers). The command line reads it:", "本页无法访问 {0}：可能是网络问题，或该仓库拒绝其他网站页面的请求（hf-mirror.com 不发送跨域响应头）。命令行可以读取："),
    ("hub.weights_differ", "The estimate's weights ({0}) differ from the checkpoint's by {1}: the format as vramfit models it.", "估算的权重（{0}）与检查点相差 {1}：这是 vramfit 对该格式的建模方式。"),
    ("hub.weights_exact", "The estimate's weights are the checkpoint's bytes exactly.", "估算的权重正好等于检查点的字节数。"),
    ("jobs.batch", "Batch", "批大小"),
    ("jobs.cost", "The job", "整个任务"),
    ("jobs.epoch", "An epoch to train on", "训练一个 epoch 的 token 数"),
    ("jobs.hint", "Type a job to rank the options by what it costs: tokens to generate (1M tokens) or, for training, an epoch (epoch:50M tokens).", "输入任务量即可按整个任务的费用排序：要生成的 token 数（1M tokens），训练时为一个 epoch（epoch:50M tokens）。"),
    ("jobs.hours", "Hours", "小时"),
    ("jobs.none", "No option's speed is known (MIG and vGPU slices are not timed).", "没有方案能给出速度（MIG 与 vGPU 切片不计时）。"),
    ("jobs.per_million", "Per 1M tokens", "每百万 token"),
    ("jobs.speed", "Speed", "速度"),
    ("jobs.spot", "spot, with the expected interruptions", "竞价，含预期中断"),
    ("jobs.spot_long", "spot over 24 h: the guide advises on-demand", "竞价且超过 24 小时：指南建议按需实例"),
    ("jobs.title", "Cheapest per job", "按整个任务最便宜"),
    ("jobs.tokens", "Tokens to generate", "要生成的 token 数"),
    ("launch.copy", "Copy", "复制"),
    ("launch.hint", "The command that starts this run, with every number the estimate assumed set explicitly, so that the engine runs what was counted.", "启动这次运行的命令，估算所假设的每个数字都显式写出，使引擎按所计算的样子运行。"),
    ("launch.title", "Run it", "启动命令"),
    ("matrix.c.billing", "Billing granularity", "计费粒度"),
    ("matrix.c.frameworks", "Preinstalled frameworks", "框架预装"),
    ("matrix.c.interconnect", "Interconnect", "网络互联带宽"),
    ("matrix.c.memory", "Memory range", "显存容量选项"),
    ("matrix.c.slicing", "MIG / slicing", "MIG / 切片支持"),
    ("matrix.c.support", "Support response", "技术支持响应速度"),
    ("matrix.caption", "Scores 0–5; total = Σ weight × score / Σ weight, best first.", "得分 0–5；总分 = Σ 权重 × 得分 / Σ 权重，从高到低排序。"),
    ("matrix.d.billing", "Per second 5, per minute 4, per hour 2.", "按秒计费 5 分，按分钟 4 分，按小时 2 分。"),
    ("matrix.d.frameworks", "One point per preinstalled framework among PyTorch, TensorFlow, DeepSpeed, Megatron-LM, vLLM, JAX, MindSpore (at most 5).", "PyTorch、TensorFlow、DeepSpeed、Megatron-LM、vLLM、JAX、MindSpore 中每预装一个得 1 分（最多 5 分）。"),
    ("matrix.d.interconnect", "Inter-node network: ≥ 3200 Gbit/s 5, ≥ 800 4, ≥ 200 3, ≥ 100 2, slower 1, none 0.", "节点间网络：≥ 3200 Gbit/s 5 分，≥ 800 4 分，≥ 200 3 分，≥ 100 2 分，更慢 1 分，无 0 分。"),
    ("matrix.d.memory", "One point per memory band its offers cover: ≤ 16, 16–24, 24–32, 32–48, 48–80 GiB (the guide's 16–80 GB range).", "其报价覆盖的显存区间每个得 1 分：≤ 16、16–24、24–32、32–48、48–80 GiB（指南的 16–80 GB 全区间）。"),
    ("matrix.d.slicing", "Hardware MIG 5, vGPU time-slicing 3, whole cards only 0.", "硬件 MIG 5 分，vGPU 分时复用 3 分，仅整卡 0 分。"),
    ("matrix.d.support", "Response to a severe issue: ≤ 15 min 5, ≤ 1 h 4, ≤ 4 h 3, ≤ 24 h 2, longer 1.", "严重问题响应时间：≤ 15 分钟 5 分，≤ 1 小时 4 分，≤ 4 小时 3 分，≤ 24 小时 2 分，更长 1 分。"),
    ("matrix.equal", "Equal weights", "等权重"),
    ("matrix.lead", "The guide's six criteria (§4.2), each scored 0 to 5 from the platform and offer data by a stated rule; the total is the weighted mean. Weigh them for your task: the link keeps the weights.", "指南的六个维度（§4.2），每项按明确的规则根据平台与报价数据打 0–5 分；总分为加权平均。按你的任务分配权重：链接会保存权重。"),
    ("matrix.platform", "Platform", "平台"),
    ("matrix.s.billing", "Billing", "计费"),
    ("matrix.s.frameworks", "Frameworks", "框架"),
    ("matrix.s.interconnect", "Network", "网络"),
    ("matrix.s.memory", "Memory", "显存"),
    ("matrix.s.slicing", "Slicing", "切片"),
    ("matrix.s.support", "Support", "支持"),
    ("matrix.title", "Platform decision matrix", "平台选型决策矩阵"),
    ("matrix.total", "Total", "总分"),
    ("matrix.weight_value", "weight {0}", "权重 {0}"),
    ("matrix.weights", "Weights (0 = ignore)", "权重（0 表示不考虑）"),
    ("mig.add_calc", "Add the calculator's run ({0})", "加入计算器中的任务（{0}）"),
    ("mig.card", "Card {0}", "第 {0} 张卡"),
    ("mig.cost", "MIG plan", "MIG 方案"),
    ("mig.gpu", "GPU with MIG", "支持 MIG 的显卡"),
    ("mig.job", "Job", "任务"),
    ("mig.jobs", "Jobs: name=memory, one per line", "任务：名称=显存，每行一个"),
    ("mig.jobs_hint", "Memory with its unit, e.g. 13b-inference=30GiB. Sizes from the calculator: add its run below.", "显存需带单位，例如 13b-inference=30GiB。可将计算器中的任务加入。"),
    ("mig.lead", "Pack several small jobs onto MIG slices of one GPU model, in layouts the card accepts, and compare the cost with a whole card per job.", "将多个小任务装入同一型号 GPU 的 MIG 切片（仅使用显卡支持的布局），并与每个任务单独占用整卡的成本比较。"),
    ("mig.not_exhaustive", "The search stopped at its budget: this is the best plan found, not proven the best.", "搜索达到上限：这是找到的最佳方案，未证明为最优。"),
    ("mig.per_slice", "priced per slice", "按切片计价"),
    ("mig.profile", "Profile:start", "配置:起始位置"),
    ("mig.result", "{0} cards of {1}", "共 {0} 张 {1}"),
    ("mig.result_one", "{0} card of {1}", "共 {0} 张 {1}"),
    ("mig.unpriced", "no offer prices this GPU", "目录中没有此卡的报价"),
    ("mig.whole_card", "priced per whole card used", "按整卡计价"),
    ("mig.whole_cost", "A whole card per job", "每个任务一整卡"),
    ("mig.whole_sub", "{0} jobs on their own cards", "{0} 个任务各占一张卡"),
    ("mig.whole_sub_one", "{0} job on its own card", "{0} 个任务独占一张卡"),
    ("models.also", "Also fits in", "也放得下的格式"),
    ("models.as_released", "as released", "原始格式"),
    ("models.context", "Longest context", "最长上下文"),
    ("models.count", "{0} models fit {1} ({2}), each in its most precise format that fits:", "{0} 个模型放得下 {1}（{2}），各取放得下的最高精度格式："),
    ("models.format", "Best format", "最佳格式"),
    ("models.grid_hint", "Each cell is the most precise format of the model that fits the card with the calculator's run; an empty cell, none fits.", "每格是该模型在这张卡上、按计算器中的运行设置放得下的最高精度格式；空格表示没有格式放得下。"),
    ("models.lead", "Every preset tried in every weight format its engine loads, with the run set in the calculator (mode, engine, batch, sequence).", "按计算器中的运行设置（模式、引擎、批大小、序列长度），尝试每个预设模型在该引擎能加载的每种权重格式。"),
    ("models.model", "Model", "模型"),
    ("models.needs", "Needs", "所需显存"),
    ("models.no_card", "Choose a card above to see which models fit it, or look at every card.", "请在上方选择一张显卡以查看哪些模型放得下，或查看所有显卡。"),
    ("models.on_every_card", "On every card", "所有显卡"),
    ("models.on_my_card", "On the calculator's card", "计算器中选择的显卡"),
    ("models.open", "Open this run in the calculator", "在计算器中打开这次运行"),
    ("models.params", "Parameters", "参数量"),
    ("models.pick_card", "choose a card", "选择一张显卡"),
    ("models.speed", "Generation", "生成速度"),
    ("models.trained", "{0} (trained)", "{0}（训练长度）"),
    ("prices.builtin", "Use the built-in catalog", "使用内置目录"),
    ("prices.catalog_price", "Catalog price", "目录价格"),
    ("prices.edit", "Edit prices ({0} offers)", "修改价格（{0} 个方案）"),
    ("prices.edited", "Prices edited: {0}.", "已修改价格：{0} 个。"),
    ("prices.export", "Export offers (JSON)", "导出方案（JSON）"),
    ("prices.import", "Import a catalog (JSON)", "导入目录（JSON）"),
    ("prices.import_failed", "Import failed; the catalog is unchanged.", "导入失败，目录未改变。"),
    ("prices.import_hint", "A JSON array of offers as the export writes them (id, provider, gpu, count, price_per_hour, currency; billing, market, mig_profile and the rest optional). It replaces the catalog; the file is read here, never uploaded.", "JSON 方案数组，格式与导出相同（id、provider、gpu、count、price_per_hour、currency；billing、market、mig_profile 等可选）。导入后替换当前目录；文件只在本地读取，不会上传。"),
    ("prices.imported", "Imported {0} offers.", "已导入 {0} 个方案。"),
    ("prices.lead", "Type the prices you actually pay: they are kept in this browser (localStorage) and never sent anywhere. The offers table, the spot calculator, the matrix and the MIG planner use them. Export the offers as JSON to keep or share them; import a JSON catalog to plan with your own offers.", "输入你实际支付的价格：价格保存在本浏览器（localStorage）中，不会发送到任何地方。租用方案表、竞价计算器、决策矩阵和 MIG 规划都会使用它们。可将方案导出为 JSON 保存或分享；导入 JSON 目录即可按你自己的方案规划。"),
    ("prices.on_demand", "on demand", "按量"),
    ("prices.price", "Price per hour", "每小时价格"),
    ("prices.price_of", "Price per hour of {0} in {1}", "{0} 的每小时价格（{1}）"),
    ("prices.reset", "Reset prices", "恢复目录价格"),
    ("prices.storage_problem", "Saved prices could not be read back and were dropped:", "已保存的价格无法读取，已丢弃："),
    ("prices.title", "Prices and catalog", "价格与目录"),
    ("prices.undo", "Use the catalog price of {0}", "恢复 {0} 的目录价格"),
    ("prices.unit", "Rents", "租用单位"),
    ("prices.using_builtin", "Using the built-in catalog of {0} offers.", "正在使用内置目录（{0} 个方案）。"),
    ("prices.using_imported", "Using an imported catalog of {0} offers.", "正在使用导入的目录（{0} 个方案）。"),
    ("speed.decode_batch", "Generation, the batch", "生成速度（整批）"),
    ("speed.decode_seq", "Generation, one sequence", "生成速度（单条序列）"),
    ("speed.generation", "Time to generate the output", "生成全部输出的时间"),
    ("speed.hint", "A roofline with efficiency factors fitted to published measurements of each engine; the book's Speed chapter gives the formulas and their error.", "按屋顶线模型估算，各引擎的效率系数拟合自公开的实测数据；公式与误差见手册的“速度”一章。"),
    ("speed.prefill", "Prompt processing", "提示词处理速度"),
    ("speed.speculative", "Generation with drafting, the batch", "投机解码生成速度（整批）"),
    ("speed.step", "Training step", "每个训练步"),
    ("speed.title", "Speed on this card", "在这张卡上的速度"),
    ("speed.training", "Training throughput", "训练吞吐"),
    ("speed.ttft", "Time to first token", "首个 token 的时间"),
    ("spot.break_even_mtbi", "{0} (more frequent interruptions make spot dearer)", "{0}（中断更频繁时竞价实例更贵）"),
    ("spot.break_even_price", "Break-even spot price", "盈亏平衡竞价价格"),
    ("spot.cannot", "Cannot compare:", "无法比较："),
    ("spot.defaults", "Back to the defaults", "恢复默认值"),
    ("spot.from_offer", "Default: the cheapest offer that fits, {0}.", "默认：能装下的最便宜方案 {0}。"),
    ("spot.guide_24h", "The job runs longer than 24 hours: the guide advises on-demand or reserved instances for stable runs of that length (§6 Q2).", "任务运行超过 24 小时：指南建议此类需要稳定运行的任务使用按量付费或预留实例（§6 Q2）。"),
    ("spot.guide_fraction", "Default: 25 % of on-demand (the guide's 20–30 %); no spot offer fits.", "默认：按量价格的 25 %（指南：20–30 %）；没有能装下的竞价方案。"),
    ("spot.interruptions", "Expected interruptions", "预期中断次数"),
    ("spot.lead", "The guide: spot costs 20–30 % of on-demand but is reclaimed every 6–48 hours on average. This compares the expected cost of the job on each, counting the work lost since the last checkpoint at each interruption and the time to restart.", "指南：竞价实例价格通常为按量付费的 20–30 %，但平均每 6–48 小时会被回收一次。这里比较任务在两者上的预期费用，计入每次中断时自上个检查点以来损失的计算和重启耗时。"),
    ("spot.lost", "Work lost per interruption", "每次中断损失的计算时长"),
    ("spot.model", "Model: interruptions arrive at random (Poisson) while the job runs; each loses the work since the last checkpoint plus the restart time, and restarts are billed.", "模型：任务运行期间中断随机发生（泊松过程）；每次中断损失自上个检查点以来的计算与重启时间，重启期间照常计费。"),
    ("spot.mtbi_hint", "The guide: 6 to 48 hours, by platform.", "指南：约 6–48 小时，因平台而异。"),
    ("spot.mtbi_row", "Break-even mean time between interruptions", "盈亏平衡平均中断间隔"),
    ("spot.never", "— (at this price spot is never cheaper)", "—（此价格下竞价实例不会更便宜）"),
    ("spot.no_offer", "No offer fits this run: type a price.", "没有能装下此任务的方案：请输入价格。"),
    ("spot.od_cost", "Cost on demand", "按量付费费用"),
    ("spot.od_wins", "On-demand is cheaper.", "按量付费更便宜。"),
    ("spot.spot_ckpt", "Hours between checkpoints", "检查点间隔（小时）"),
    ("spot.spot_cost", "Expected cost on spot", "竞价实例预期费用"),
    ("spot.spot_hours", "Hours of work the job needs", "任务所需计算时长（小时）"),
    ("spot.spot_mtbi", "Mean hours between interruptions", "平均中断间隔（小时）"),
    ("spot.spot_od", "On-demand price per hour ({0})", "按量付费每小时价格（{0}）"),
    ("spot.spot_price", "Spot price per hour ({0})", "竞价实例每小时价格（{0}）"),
    ("spot.spot_restart", "Hours lost per restart", "每次重启耗时（小时）"),
    ("spot.spot_wins", "Spot is cheaper.", "竞价实例更便宜。"),
    ("spot.title", "Spot or on-demand?", "竞价实例还是按量付费？"),
    ("spot.verdict_od", "By {0}: the {1} expected interruptions stretch the job to {2}, and at the spot price that costs more than running it on demand. Spot pays off only below {3} per hour.", "相差 {0}：预期 {1} 次中断使任务总用时延长到 {2}，按竞价价格计算比按量付费更贵。竞价价格低于每小时 {3} 才划算。"),
    ("spot.verdict_spot", "It saves {0}: the {1} expected interruptions add {2} of lost work and restarts, and that costs less at the spot price than the on-demand premium. Spot stays cheaper while its price is below {3} per hour.", "可节省 {0}：预期 {1} 次中断共增加 {2} 的损失计算与重启时间，按竞价价格计算仍低于按量付费的溢价。只要竞价价格低于每小时 {3}，竞价实例就更便宜。"),
    ("spot.wall", "over {0}", "用时 {0}"),
    ("spot.wall_hours", "Expected wall time on spot", "竞价实例预期总用时"),
    ("tc.assumed", "Assumed: {0}", "假设：{0}"),
    ("tc.file", "Choose a config file", "选择配置文件"),
    ("tc.format.accelerate", "an accelerate config", "accelerate 配置"),
    ("tc.format.axolotl", "an axolotl config", "axolotl 配置"),
    ("tc.format.deepspeed", "a DeepSpeed config", "DeepSpeed 配置"),
    ("tc.format.llamafactory", "a LLaMA-Factory config", "LLaMA-Factory 配置"),
    ("tc.format.torchtune", "a torchtune recipe", "torchtune 配方"),
    ("tc.format.trainer", "Hugging Face TrainingArguments", "Hugging Face TrainingArguments"),
    ("tc.format.trl", "a TRL config", "TRL 配置"),
    ("tc.format.verl", "a verl config", "verl 配置"),
    ("tc.hint", "Paste, drop or choose the file your stack reads (TRL, Trainer, DeepSpeed, torchtune, LLaMA-Factory, axolotl, accelerate or verl; JSON or YAML): its settings, and the stack's own defaults where it is silent, fill the form. Read here, never uploaded.", "粘贴、拖入或选择训练栈读取的文件（TRL、Trainer、DeepSpeed、torchtune、LLaMA-Factory、axolotl、accelerate 或 verl；JSON 或 YAML）：文件中的设置，以及文件未写处该训练栈自己的默认值，会填入表单。只在本机读取，从不上传。"),
    ("tc.names", "It names {0} ({1}): paste or choose that file too.", "它指向 {0}（{1}）：请再粘贴或选择该文件。"),
    ("tc.none", "none", "无"),
    ("tc.not_read", "Not read (no effect on the memory counted): {0}", "未读取（不影响所计算的显存）：{0}"),
    ("tc.read", "Read", "读取"),
    ("tc.read_as", "Read as {0}.", "按{0}读取。"),
    ("tc.text", "The config's text", "配置文本"),
    ("tc.title", "Your training config", "你的训练配置"),
    ("v.activation_offload.", "the stack's", "按框架默认"),
    ("v.activation_offload.false", "no", "否"),
    ("v.activation_offload.true", "yes", "是"),
    ("v.grad_checkpointing.full", "full", "完全"),
    ("v.grad_checkpointing.none", "off", "关闭"),
    ("v.grad_checkpointing.selective", "selective (attention)", "选择性（注意力）"),
    ("v.kbit_upcast.", "the stack's", "按框架默认"),
    ("v.kbit_upcast.false", "no", "否"),
    ("v.kbit_upcast.true", "yes (PEFT)", "是（PEFT）"),
    ("v.loss.", "the stack's", "按框架默认"),
    ("v.loss.chunked", "chunked (torchtune)", "分块（torchtune）"),
    ("v.loss.full", "full logits", "完整 logits"),
    ("v.loss.fused", "fused linear CE (Liger)", "融合线性交叉熵（Liger）"),
    ("v.offload.cpu", "CPU memory", "CPU 内存"),
    ("v.offload.none", "none", "不卸载"),
    ("v.offload.nvme", "NVMe", "NVMe"),
    ("v.offload.optimizer-cpu", "optimizer states alone, CPU memory", "仅优化器状态，CPU 内存"),
    ("v.offload.optimizer-nvme", "optimizer states alone, NVMe", "仅优化器状态，NVMe"),
    ("v.optimizer.adafactor", "Adafactor", "Adafactor"),
    ("v.optimizer.adamw", "AdamW", "AdamW"),
    ("v.optimizer.adamw-4bit", "AdamW 4-bit (torchao)", "AdamW 4 位（torchao）"),
    ("v.optimizer.adamw-8bit", "AdamW 8-bit", "AdamW 8 位"),
    ("v.optimizer.ademamix", "AdEMAMix", "AdEMAMix"),
    ("v.optimizer.ademamix-8bit", "AdEMAMix 8-bit", "AdEMAMix 8 位"),
    ("v.optimizer.galore-adamw", "GaLore AdamW", "GaLore AdamW"),
    ("v.optimizer.galore-adamw-8bit", "GaLore AdamW 8-bit", "GaLore AdamW 8 位"),
    ("v.optimizer.lion", "Lion", "Lion"),
    ("v.optimizer.muon", "Muon (AdamW for embeddings, head, norms)", "Muon（词嵌入、输出头、归一化用 AdamW）"),
    ("v.optimizer.paged-adamw", "Paged AdamW 32-bit (bitsandbytes)", "分页 AdamW 32 位（bitsandbytes）"),
    ("v.optimizer.paged-adamw-8bit", "Paged AdamW 8-bit (bitsandbytes)", "分页 AdamW 8 位（bitsandbytes）"),
    ("v.optimizer.schedule-free-adamw", "Schedule-free AdamW", "无调度 AdamW（schedule-free）"),
    ("v.optimizer.sgd", "SGD", "SGD"),
    ("v.optimizer.sgd-momentum", "SGD + momentum", "SGD + 动量"),
    ("v.overlap_comm.", "automatic (on under ZeRO-3)", "自动（ZeRO-3 时开启）"),
    ("v.precision.amp-bf16", "mixed bf16 (fp32 master)", "混合 bf16（fp32 主权重）"),
    ("v.precision.amp-fp16", "mixed fp16 (fp32 master)", "混合 fp16（fp32 主权重）"),
    ("v.precision.bf16", "pure bf16", "纯 bf16"),
    ("v.precision.fp16", "pure fp16", "纯 fp16"),
    ("v.precision.fp32", "fp32", "fp32"),
    ("v.recompute_method.", "uniform (Megatron's --recompute-method)", "uniform（Megatron 的 --recompute-method）"),
    ("v.recompute_method.block", "block: the first N layers of each chunk, the rest kept", "block：每块前 N 层重算，其余保留"),
    ("v.recompute_method.uniform", "uniform: every N layers one checkpoint", "uniform：每 N 层一个检查点"),
    ("v.reduce_dtype.", "the stack's (verl fp32; others the compute dtype)", "按框架默认（verl 为 fp32；其他为计算所用的 dtype）"),
    ("v.reduce_dtype.bf16", "bf16", "bf16"),
    ("v.reduce_dtype.fp16", "fp16", "fp16"),
    ("v.reduce_dtype.fp32", "fp32", "fp32"),
    ("v.ref_model.", "by the algorithm and beta (none beside LoRA)", "按算法与 beta（LoRA 时无）"),
    ("v.ref_model.false", "no (precomputed log-probs)", "无（预先计算的对数概率）"),
    ("v.ref_model.true", "yes, a frozen copy", "有，一份冻结副本"),
    ("v.reshard_after_forward.", "automatic (true with ZeRO 3)", "自动（ZeRO 3 时为 true）"),
    ("v.rl.", "none", "无"),
    ("v.rl.dpo", "DPO (policy + reference, chosen and rejected)", "DPO（策略 + 参考，chosen 与 rejected）"),
    ("v.rl.grpo", "GRPO (policy, reference with beta > 0)", "GRPO（策略，beta > 0 时加参考）"),
    ("v.rl.ppo", "PPO (policy, reference, reward, value)", "PPO（策略、参考、奖励、价值）"),
    ("v.rollout.", "the stack's (TRL: generate; verl: colocate)", "按框架（TRL：generate；verl：colocate）"),
    ("v.rollout.colocate", "vLLM on this GPU (colocate)", "vLLM 在本 GPU 上（colocate）"),
    ("v.rollout.hf", "the policy's generate", "策略自身的 generate"),
    ("v.rollout.server", "vLLM server on other GPUs", "其他 GPU 上的 vLLM 服务"),
    ("v.sleep_mode.", "the stack's (TRL off, verl on)", "按框架（TRL 关闭，verl 开启）"),
    ("v.sleep_mode.false", "off", "关闭"),
    ("v.sleep_mode.true", "on: weights and KV pool freed", "开启：释放权重与 KV 池"),
    ("v.stack.", "transformers Trainer", "transformers Trainer"),
    ("v.stack.axolotl", "axolotl", "axolotl"),
    ("v.stack.deepspeed", "DeepSpeed", "DeepSpeed"),
    ("v.stack.fsdp", "FSDP", "FSDP"),
    ("v.stack.llamafactory", "LLaMA-Factory", "LLaMA-Factory"),
    ("v.stack.megatron", "Megatron", "Megatron"),
    ("v.stack.openrlhf", "OpenRLHF", "OpenRLHF"),
    ("v.stack.torchtune", "torchtune", "torchtune"),
    ("v.stack.trl", "TRL", "TRL"),
    ("v.stack.unsloth", "Unsloth", "Unsloth"),
    ("v.stack.verl", "verl", "verl"),
    ("verdict.rent", "Cheapest rental that holds it as asked: {0} ({1}, {2}) on {3} at {4} (its price on {5}){6}.", "能按要求装下它的最便宜租用方案：{3}的 {0}（{1}，{2}），{4}（{5} 的标价）{6}。"),
    ("verdict.rent_apply", "Apply this layout", "应用此布局"),
    ("verdict.rent_node", "1 node", "1 个节点"),
    ("verdict.rent_nodes", "{0} nodes", "{0} 个节点"),
    ("verdict.rent_reference", " (a reference estimate, see its source)", "（参考估价，见其来源）"),
    ("verdict.rent_server", "; it rents the whole {0}-GPU server", "；需整台租用 {0} 卡服务器"),
    ("verdict.rent_source", "Source of the price: {0}", "价格来源：{0}"),
    ("whatif.adam8bit", "8-bit AdamW", "8 位 AdamW"),
    ("whatif.checkpointing", "Gradient checkpointing", "梯度检查点"),
    ("whatif.half_batch", "Half the batch", "批大小减半"),
    ("whatif.half_seq", "Half the sequence", "序列长度减半"),
    ("whatif.int4", "4-bit weights (AWQ)", "4 位权重（AWQ）"),
    ("whatif.int8", "8-bit weights (LLM.int8)", "8 位权重（LLM.int8）"),
    ("whatif.kv_fp8", "fp8 KV cache", "fp8 KV 缓存"),
    ("whatif.kv_q8", "q8_0 KV cache", "q8_0 KV 缓存"),
    ("whatif.lora", "LoRA, rank 16", "LoRA，秩 16"),
    ("whatif.offload", "ZeRO offload to CPU", "ZeRO 卸载到 CPU"),
    ("whatif.q4", "GGUF Q4_K_M", "GGUF Q4_K_M"),
    ("whatif.q8", "GGUF Q8_0", "GGUF Q8_0"),
    ("whatif.qlora", "QLoRA, rank 16", "QLoRA，秩 16"),
    ("whatif.zero3", "ZeRO-3 across the GPUs", "跨卡 ZeRO-3"),
    ("whatif_speed.adam8bit", "Speed: about that of 32-bit AdamW (bitsandbytes' blockwise 8-bit states).", "速度：与 32 位 AdamW 相当（bitsandbytes 的分块 8 位状态）。"),
    ("whatif_speed.checkpointing", "Speed: about 30 % more time per step: the forward pass is recomputed in backward (guide §5.1).", "速度：每步约多 30% 时间：反向传播时重算前向（指南 §5.1）。"),
    ("whatif_speed.half_batch", "Speed: half the samples per step, so the same data takes about twice the steps.", "速度：每步样本减半，同样的数据约需两倍步数。"),
    ("whatif_speed.half_seq", "Speed: each step is faster, but each sample sees half the context (truncate or slide a window, guide §5.1).", "速度：每步更快，但每个样本只看到一半上下文（截断或滑动窗口，指南 §5.1）。"),
    ("whatif_speed.int4", "Speed: decoding as fast or faster (fewer bytes to read per token); accuracy loss usually within 1 % (guide §5.1).", "速度：解码同样快或更快（每个 token 读取的字节更少）；精度损失通常在 1% 以内（指南 §5.1）。"),
    ("whatif_speed.int8", "Speed: slower than 16-bit, most at small batches (LLM.int8 splits out outlier features).", "速度：比 16 位慢，小批量时最明显（LLM.int8 需拆分离群特征）。"),
    ("whatif_speed.kv_fp8", "Speed: about the same (half the cache's memory traffic); a small accuracy cost.", "速度：基本不变（缓存的访存减半）；精度略有损失。"),
    ("whatif_speed.kv_q8", "Speed: about the same with flash attention (-fa), which llama.cpp needs for a quantized V cache; a small accuracy cost.", "速度：开启 flash attention（-fa，llama.cpp 量化 V 缓存需要它）时基本不变；精度略有损失。"),
    ("whatif_speed.lora", "Speed: faster steps (no gradients or optimizer states for the frozen weights); quality may trail full fine-tuning.", "速度：每步更快（冻结的权重没有梯度和优化器状态）；效果可能不及全参数微调。"),
    ("whatif_speed.offload", "Speed: much slower: the optimizer step runs on the CPU and states cross PCIe every step (guide §5.1).", "速度：慢得多：优化器步在 CPU 上执行，状态每步经 PCIe 传输（指南 §5.1）。"),
    ("whatif_speed.q4", "Speed: faster decoding where memory bandwidth limits it; more quality loss than Q8_0.", "速度：受显存带宽限制时解码更快；质量损失大于 Q8_0。"),
    ("whatif_speed.q8", "Speed: faster decoding where memory bandwidth limits it; quality close to 16-bit.", "速度：受显存带宽限制时解码更快；质量接近 16 位。"),
    ("whatif_speed.qlora", "Speed: slower than LoRA: the 4-bit weights are dequantized in every forward and backward pass.", "速度：比 LoRA 慢：4 位权重在每次前向和反向时都要反量化。"),
    ("whatif_speed.zero3", "Speed: more communication: parameters are gathered for every layer, about 1.5 × the traffic of plain data parallelism (ZeRO paper).", "速度：通信更多：每层都要收集参数，约为普通数据并行的 1.5 倍通信量（ZeRO 论文）。"),
}

// The tables of both languages and every view: the full build's.
#[cfg(test)]
#[cfg(feature = "full")]
mod tests {
    use super::*;

    /// Every row with its key: (key, English, Chinese).
    fn keyed() -> Vec<(&'static str, &'static str, &'static str)> {
        let keys = TEXT_KEYS.iter().chain(VIEW_KEYS);
        keys.zip(rows()).map(|(k, r)| (*k, r[0], r[1])).collect()
    }

    #[test]
    fn keys_are_sorted_unique_and_translated() {
        for table in [TEXT_KEYS, VIEW_KEYS] {
            for w in table.windows(2) {
                assert!(
                    w[0] < w[1],
                    "keys out of order or repeated: {} then {}",
                    w[0],
                    w[1]
                );
            }
        }
        for k in VIEW_KEYS {
            assert!(!TEXT_KEYS.contains(k), "{k} is in both tables");
        }
        for (k, en, zh) in keyed() {
            assert!(
                !en.trim().is_empty() && !zh.trim().is_empty(),
                "{k} lacks a translation"
            );
            assert_eq!(
                en.matches('{').count(),
                zh.matches('{').count(),
                "{k}: placeholders differ"
            );
        }
    }

    #[test]
    fn the_calculators_table_holds_only_what_a_calculator_build_shows() {
        // TEXT is in every build, the first load's too; a row that only the other views show
        // belongs in VIEW_TEXT (a key of it in the calculator's code does not compile in the
        // calculator's build). Keys joined when the site is compiled (a field's label, hint and
        // choices, a what-if and its speed) are named by their prefix; a part's name is written
        // whole (`chart::label_key`).
        let source = crate::components::tests::calculator_source();
        let built = ["f.", "h.", "v."];
        let unused: Vec<&str> = TEXT_KEYS
            .iter()
            .copied()
            .filter(|k| !built.iter().any(|b| k.starts_with(b)))
            .filter(|k| !source.contains(&format!("\"{k}\"")))
            .collect();
        assert!(
            unused.is_empty(),
            "rows of TEXT no calculator build uses: {unused:?}"
        );
        for b in built {
            assert!(
                source.contains(&format!("\"{b}\"")),
                "no key joined from `{b}`"
            );
        }
    }

    /// Every row written in the tables' source comes back from the strings they are stored
    /// as, in order, each with its key: a NUL written inside a text would shift every row after
    /// it, and fail here.
    #[test]
    fn the_tables_split_into_the_rows_written() {
        let source = include_str!("i18n.rs");
        let written: Vec<&str> = source
            .lines()
            .filter_map(|l| l.strip_prefix("    (\""))
            .filter_map(|l| l.split_once('"').map(|(k, _)| k))
            .collect();
        let keys: Vec<&str> = TEXT_KEYS.iter().chain(VIEW_KEYS).copied().collect();
        assert_eq!(keys, written);
        assert!(written.len() > 380, "{}", written.len());
        assert_eq!(rows().len(), written.len());
        let last = keyed().pop().unwrap();
        assert!(source.contains(&format!("(\"{}\", \"{}\", \"{}\")", last.0, last.1, last.2)));
        assert_eq!(
            keyed()[0],
            (
                "app.book",
                "The book: the method and every formula",
                "说明书：方法与全部公式"
            )
        );
    }

    #[test]
    fn keys_are_found_when_compiled_and_name_their_row() {
        // The first row of each table, and a key joined from parts.
        const BOOK: Key = Key::of(&["app.book"]);
        assert_eq!(BOOK, Key(0));
        assert_eq!(BOOK.name(), "app.book");
        const FIRST_VIEW: Key = Key::of(&[VIEW_KEYS[0]]);
        assert_eq!(usize::from(FIRST_VIEW.0), TEXT_KEYS.len());
        assert_eq!(FIRST_VIEW, key!("app.footer_full"));
        let adapter = key!("device.adapter");
        assert_eq!(Lang::En.t(adapter), "WebGPU adapter");
        assert_eq!(Lang::Zh.t(adapter), "WebGPU 适配器");
        assert_eq!(Key::find(&["calc.", "apply"]), Some(key!("calc.apply")));
        assert_eq!(Lang::Zh.t(key!("calc.apply")), "应用");
        assert!(
            VIEW_KEYS.contains(&"calc.apply"),
            "the what-ifs are the full build's"
        );
        // A key must be whole: neither a prefix of one nor one with more after it.
        assert_eq!(Key::find(&["calc.appl"]), None);
        assert_eq!(Key::find(&["calc.apply", "x"]), None);
        assert_eq!(Key::find(&["", "calc.apply", ""]), Some(key!("calc.apply")));
        assert_eq!(Key::find(&[]), None);
        // Every row is found from its own key, at its own place.
        for (i, k) in TEXT_KEYS.iter().chain(VIEW_KEYS).enumerate() {
            assert_eq!(Key::find(&[k]), Some(Key(i as u16)), "{k}");
        }
        // A place past the rows (a view's text in a build without the views) shows nothing.
        assert_eq!(Lang::En.t(Key(u16::MAX)), "");
    }

    #[test]
    fn every_what_if_says_what_it_costs_in_speed() {
        for k in VIEW_KEYS.iter().filter_map(|k| k.strip_prefix("whatif.")) {
            assert!(
                Key::find(&["whatif_speed.", k]).is_some(),
                "whatif.{k} has no whatif_speed.{k}"
            );
        }
    }

    #[test]
    fn languages_from_tags() {
        assert_eq!(Lang::from_tag("zh-CN"), Lang::Zh);
        assert_eq!(Lang::from_tag("zh-Hant-TW"), Lang::Zh);
        assert_eq!(Lang::from_tag("en-US"), Lang::En);
        assert_eq!(Lang::from_tag("fr"), Lang::En);
    }

    #[test]
    fn formats_arguments() {
        assert_eq!(
            Lang::En.f(key!("notice.bad_link"), &["batch"]),
            "Part of this link could not be read, so defaults were used for: batch."
        );
        assert!(Lang::Zh.t(key!("view.calc")).contains("计算器"));
    }

    #[test]
    fn fills_each_slot_once_and_leaves_the_rest() {
        assert_eq!(
            fill("{0} of {1}, {0} again", &["a", "b"]),
            "a of b, a again"
        );
        // An argument's own text is not read for slots.
        assert_eq!(fill("{0} then {1}", &["{1}", "b"]), "{1} then b");
        // A slot with no argument, a brace that opens no slot, a slot past `usize`: as written.
        assert_eq!(fill("{2} {x} {} {", &["a"]), "{2} {x} {} {");
        assert_eq!(
            fill("{99999999999999999999999}", &["a"]),
            "{99999999999999999999999}"
        );
        assert_eq!(
            fill(
                "x{10}y",
                &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "ten"]
            ),
            "xteny"
        );
        assert_eq!(fill("", &["a"]), "");
    }
}
