//! Input errors in Chinese, for the site's Chinese page.
//!
//! The estimator's input errors are written in both languages where they are found
//! (`input_error!`: all the calculator shows). The file readers, catalogs and planners build
//! theirs in English with the values in them (the JSON API and the CLI speak English); their
//! words are few and fixed, so a phrase table, [`FILES`], gives the Chinese. The field name,
//! every number, and whatever the person typed (always written between backticks) are left as
//! they are.

use alloc::string::String;

use crate::InputError;

/// The phrases of what config.json, the weights-file headers, offer catalogs, the MIG, rental
/// and spot planners and the decision matrix write in English alone. Longest first (a test
/// keeps the order), so that a phrase is replaced before any shorter one inside it.
const FILES: &[(&str, &str)] = &[
    (
        "criterion=weight pairs separated by commas, criteria memory, billing, slicing, interconnect, frameworks, support, weights whole numbers 0 to 100, not all 0",
        "用逗号分隔的 criterion=weight 对；criterion 为 memory、billing、slicing、interconnect、frameworks、support；权重为 0 到 100 的整数，不能全为 0",
    ),
    (
        "family \"opaque\" with opaque_params (and a convolutional network's image_* counts), or a detailed family with its fields",
        "family \"opaque\" 且只给 opaque_params（卷积网络还可给 image_* 计数），或一个详细的 family 及其各字段",
    ),
    (
        "a config group with 8-bit float weights (FP8), 8-bit int weights (W8A8) or 4-bit int weights (W4A16)",
        "一个配置组，权重为 8 位浮点（FP8）、8 位整数（W8A8）或 4 位整数（W4A16）",
    ),
    (
        "a model known by its parameter count alone (family \"opaque\") takes no other architecture field",
        "只按参数量描述的模型（family \"opaque\"）不接受其他架构字段",
    ),
    (
        "mean hours between interruptions, more than 0 and at most 10000000 (the guide: 6 to 48)",
        "平均中断间隔（小时），大于 0 且至多 10000000（指南：6 到 48）",
    ),
    (
        "a Hugging Face config.json (a JSON object with model_type, hidden_size, …)",
        "Hugging Face 的 config.json（含 model_type、hidden_size 等字段的 JSON 对象）",
    ),
    (
        "a complete .safetensors file (8 bytes of length, then that much JSON)",
        "完整的 .safetensors 文件（8 字节的长度，随后是这么长的 JSON）",
    ),
    (
        "a price per hour above 0 and at most 1000000, in the offer's currency",
        "每小时价格，大于 0 且至多 1000000，以报价的货币计",
    ),
    (
        "a link written by vramfit after reading a .safetensors or .gguf file",
        "vramfit 读取 .safetensors 或 .gguf 文件后写下的链接",
    ),
    (
        "a safetensors file (its first 8 bytes give the JSON header's length)",
        "safetensors 文件（前 8 字节给出 JSON 头部的长度）",
    ),
    (
        "a checkpoint interval well below the mean time between interruptions",
        "远小于平均中断间隔的检查点间隔",
    ),
    (
        "an object with id, provider, gpu, count, price_per_hour, currency",
        "含 id、provider、gpu、count、price_per_hour、currency 的对象",
    ),
    (
        " h between interruptions: the job would almost never finish",
        " 小时一次中断：作业几乎永远完不成",
    ),
    (
        "head_dim, or a hidden_size divisible by num_attention_heads",
        "head_dim，或能被 num_attention_heads 整除的 hidden_size",
    ),
    (
        "a safetensors header: {name: {dtype, shape, data_offsets}}",
        "safetensors 头部：{name: {dtype, shape, data_offsets}}",
    ),
    (
        "hours between checkpoints, more than 0 and at most 100000",
        "检查点间隔（小时），大于 0 且至多 100000",
    ),
    (
        "a config.json of at most 4 MiB (real ones are a few KiB)",
        "至多 4 MiB 的 config.json（真实的只有几 KiB）",
    ),
    (
        "; for another model, enter its parameter count instead",
        "；其他模型请改为输入参数量",
    ),
    (
        "an array of at most 50 texts of at most 100 characters",
        "至多 50 项的数组，每项是至多 100 个字符的文本",
    ),
    (
        "a GGUF file (metadata arrays hold scalars or strings)",
        "GGUF 文件（元数据数组只含标量或字符串）",
    ),
    (
        "a size from 1 MiB to 1 PiB with its unit, e.g. 16GiB",
        "1 MiB 到 1 PiB 的带单位大小，如 16GiB",
    ),
    (
        "one depth per entry of hidden_sizes, 1 to 16 stages",
        "hidden_sizes 的每一项一个深度，1 到 16 个阶段",
    ),
    (
        "a safetensors file with a header of at most 100 MiB",
        "头部至多 100 MiB 的 safetensors 文件",
    ),
    (
        "a price per hour, more than 0 and at most 10000000",
        "每小时价格，大于 0 且至多 10000000",
    ),
    (
        "an integer from 8 to 4096 (usually 32, 64 or 128)",
        "8 到 4096 的整数（通常为 32、64 或 128）",
    ),
    (
        "a whole number of options from 0 (all) to 1000000",
        "选项个数，0（全部）到 1000000 的整数",
    ),
    (
        "GGUF version 2 or 3 (llama.cpp since August 2023)",
        "GGUF 版本 2 或 3（llama.cpp 自 2023 年 8 月起）",
    ),
    (
        "a Hugging Face config.json (nested 3 or 4 levels)",
        "Hugging Face 的 config.json（嵌套 3 到 4 层）",
    ),
    (
        "yuan per US dollar, a positive number, e.g. 7.1",
        "每美元兑换的人民币元数，正数，如 7.1",
    ),
    (
        "at most 4 dimensions per tensor (GGML_MAX_DIMS)",
        "每个张量至多 4 个维度（GGML_MAX_DIMS）",
    ),
    (
        "a Hugging Face config.json, dropped or chosen",
        "拖入或选择的 Hugging Face config.json",
    ),
    (
        "a JSON array of offers, or an object with an ",
        "报价的 JSON 数组，或含有 ",
    ),
    (
        "neither load_in_4bit nor load_in_8bit is true",
        "load_in_4bit 与 load_in_8bit 都不是 true",
    ),
    (
        "hours of work, more than 0 and at most 100000",
        "工作小时数，大于 0 且至多 100000",
    ),
    (
        ", more than the largest MIG slice offered on ",
        "，超过这张卡提供的最大 MIG 切片：",
    ),
    (
        " metadata entries (real files have under 100)",
        " 个元数据项（真实文件少于 100 个）",
    ),
    (
        "a Hugging Face config.json (one JSON object)",
        "Hugging Face 的 config.json（一个 JSON 对象）",
    ),
    (
        "the file does not start with the GGUF magic",
        "文件不是以 GGUF 魔数开头",
    ),
    (
        " is not a multiple of num_attention_heads ",
        " 不能被 num_attention_heads 整除：",
    ),
    (
        " bytes of the file or more (read at least ",
        " 字节或更多（至少再读 ",
    ),
    (
        " tensors (real models have a few thousand)",
        " 个张量（真实模型有几千个）",
    ),
    (
        "yuan per US dollar, 0.01 to 1000, e.g. 7.1",
        "每美元兑换的人民币元数，0.01 到 1000，如 7.1",
    ),
    (
        "the language model's config, as an object",
        "语言模型的配置，一个对象",
    ),
    (
        "load_in_4bit or load_in_8bit set to true",
        "load_in_4bit 或 load_in_8bit 设为 true",
    ),
    (
        "an object of offer id → price per hour",
        "报价 id → 每小时价格 的对象",
    ),
    (
        "objects and arrays are nested more than ",
        "对象与数组嵌套超过 ",
    ),
    (
        "a size above 0 with its unit, e.g. 16GiB",
        "大于 0 的带单位大小，如 16GiB",
    ),
    (
        "a .gguf file (it starts with the bytes ",
        ".gguf 文件 (开头的字节为 ",
    ),
    (
        " bytes, or a .safetensors or .gguf file",
        " 字节的 config.json，或一个 .safetensors 或 .gguf 文件",
    ),
    (
        "an id no other offer of the catalog has",
        "目录中其他报价都没有用过的 id",
    ),
    (
        "the model in the link cannot be read: ",
        "链接中的模型无法读取：",
    ),
    (
        "the browser could not slice the file",
        "浏览器无法切分这个文件",
    ),
    (
        " bytes, more than the format's limit",
        " 字节，超过格式的上限",
    ),
    (
        "the browser could not read the file",
        "浏览器无法读取这个文件",
    ),
    (
        "a GGUF file with real tensor shapes",
        "张量形状真实的 GGUF 文件",
    ),
    ("-bit float weights are not modelled", " 位浮点权重尚未建模"),
    ("the top level is not a JSON object", "顶层不是 JSON 对象"),
    ("arrays are nested more than 2 deep", "数组嵌套超过 2 层"),
    (" has a shape whose size overflows", " 的形状大小溢出"),
    ("an array of non-negative integers", "非负整数的数组"),
    ("-bit int weights are not modelled", " 位整数权重尚未建模"),
    ("the expected wall time overflows", "预期的总时长溢出"),
    (
        "value types 0 to 12 (GGUF v2/v3)",
        "值类型 0 到 12（GGUF v2/v3）",
    ),
    ("the header is not a JSON object", "头部不是 JSON 对象"),
    (
        "a price per hour, 0 to 10000000",
        "每小时价格，0 到 10000000",
    ),
    ("the headers of 1 to 4096 shards", "1 到 4096 个分片的头部"),
    (
        " h between checkpoints against ",
        " 小时一次检查点，而平均每 ",
    ),
    (" is not a non-negative integer", " 不是非负整数"),
    ("the header continues past the ", "头部超出了给出的 "),
    ("the header is not UTF-8 text: ", "头部不是 UTF-8 文本："),
    (" does not divide num_heads = ", " 不能整除 num_heads = "),
    ("the first 8 bytes of the file", "文件的前 8 字节"),
    (
        "hours per restart, 0 to 1000",
        "每次重启的小时数，0 到 1000",
    ),
    ("at least one weight above 0", "至少一个大于 0 的权重"),
    (" is not a ResNet layer type", " 不是 ResNet 的层类型"),
    ("a positive number, e.g. 7.1", "正数，如 7.1"),
    (
        " is also the id of record ",
        " 与另一条记录的 id 相同，那条记录的序号是 ",
    ),
    ("the header is longer than ", "头部长于 "),
    ("not a positive finite rate", "不是有限的正汇率"),
    ("missing, and hidden_size ", "缺失，且 hidden_size "),
    ("a config.json of at most ", "至多 "),
    ("a GGUF header of at most ", "GGUF 头部，至多 "),
    ("a file the page may read", "页面可以读取的文件"),
    (" bytes but the file has ", " 字节，但文件只有 "),
    ("-bit AWQ is not modelled", " 位 AWQ 尚未建模"),
    ("decoder attention heads", "解码器注意力头数"),
    ("a divisor of num_heads", "num_heads 的约数"),
    ("a non-negative integer", "非负整数"),
    (" needs less than 1 MiB", " 需要的显存不到 1 MiB"),
    ("no config.json loaded", "尚未加载 config.json"),
    ("an object without an ", "没有 "),
    ("1 to 64 GPUs per node", "每节点 1 到 64 个 GPU"),
    ("a complete .gguf file", "完整的 .gguf 文件"),
    (" does not support MIG", " 不支持 MIG"),
    (" is not such an array", " 不是这样的数组"),
    (" is not true or false", " 不是 true 或 false"),
    ("the header length is ", "头部长度为 "),
    (" is not a GPTQ width", " 不是 GPTQ 的位宽"),
    ("metadata value type ", "元数据值类型 "),
    (" jobs do not fit on ", " 个作业放不进 "),
    (" characters, or null", " 个字符的文本，或 null"),
    ("a positive integer: ", "正整数："),
    ("non-rotary key width", "非旋转位置编码的键宽度"),
    ("a MIG-capable GPU: ", "支持 MIG 的 GPU："),
    (" of them were given", " 字节"),
    (" is not a GGUF type", " 不是 GGUF 类型"),
    ("strings of at most ", "字符串，至多 "),
    ("bottleneck or basic", "bottleneck 或 basic"),
    ("cached latent width", "缓存的潜在向量宽度"),
    (" slices per card, ", " 个切片/卡，"),
    ("the header claims ", "头部声称 "),
    (" bytes of the file", " 字节"),
    ("arrays of at most ", "数组，至多 "),
    ("a text of at most ", "长度至多 "),
    ("unknown criterion ", "未知的准则 "),
    (" stage depths for ", " 个阶段深度，而 hidden_sizes 有 "),
    ("the context length", "上下文长度"),
    ("transformer blocks", "Transformer 块数"),
    ("unknown currency ", "未知的货币 "),
    (" (and RefinedWeb)", "（及 RefinedWeb）"),
    (" is not supported", " 不受支持"),
    ("the header needs ", "头部需要 "),
    ("the file is empty", "文件是空的"),
    (" metadata entries", " 个元数据项"),
    ("every weight is 0", "所有权重都是 0"),
    ("unknown provider ", "未知的平台 "),
    ("experts per token", "每 token 的专家数"),
    ("decoder FFN width", "解码器 FFN 宽度"),
    (" bytes but only ", " 字节，但只给出了 "),
    (" is not an offer", " 不是报价"),
    (" is not a weight", " 不是权重"),
    (" is not a string", " 不是字符串"),
    (" is not an array", " 不是数组"),
    ("is not an object", "不是对象"),
    ("a string claims ", "一个字符串声称有 "),
    ("an array claims ", "一个数组声称有 "),
    ("not valid JSON: ", "不是有效的 JSON："),
    (" needs no memory", " 不需要显存"),
    ("expert FFN width", "专家 FFN 宽度"),
    ("rotary key width", "旋转位置编码的键宽度"),
    ("value head width", "值头宽度"),
    (" is out of range", " 超出范围"),
    (" is not a number", " 不是数字"),
    ("an integer from ", "整数，从 "),
    ("the model width", "模型宽度"),
    ("attention heads", "注意力头数"),
    ("vocabulary size", "词表大小"),
    (" is not a text", " 不是文本"),
    (" is not a rate", " 不是汇率"),
    ("the header is ", "头部有 "),
    ("not readable (", "无法读取 ("),
    ("routed experts", "路由专家数"),
    ("decoder blocks", "解码器块数"),
    ("encoder blocks", "编码器块数"),
    ("unknown field", "未知字段"),
    ("the file has ", "文件有 "),
    ("true or false", "true 或 false"),
    ("a JSON object", "JSON 对象"),
    ("GGUF version ", "GGUF 版本 "),
    (" shards given", " 个分片"),
    (" hidden sizes", " 项"),
    ("no GPU named ", "没有这个 GPU："),
    ("2, 3, 4 or 8", "2、3、4 或 8"),
    ("sizes up to ", "每个作业至多 "),
    (" per job on ", "，显卡 "),
    (" more bytes)", " 字节）"),
    ("the file is ", "文件有 "),
    ("not an array", "不是数组"),
    ("a JSON array", "JSON 数组"),
    ("has no group", "一个组也没有"),
    (" bytes given", " 字节"),
    ("out of range", "超出范围"),
    (" characters", " 个字符的文本"),
    ("an item is ", "其中一项是 "),
    (" dimensions", " 个维度"),
    (" jobs given", " 个作业"),
    ("CNY or USD", "CNY 或 USD"),
    ("the first ", "文件的前 "),
    ("a text of ", "长度为 "),
    ("not JSON (", "不是 JSON ("),
    ("a boolean", "布尔值"),
    ("an object", "对象"),
    (" has no ", " 没有 "),
    ("a string", "字符串"),
    ("an array", "数组"),
    (" entries", " 项"),
    (" tensors", " 个张量"),
    ("at most ", "至多 "),
    ("a number", "数字"),
    ("record ", "记录 "),
    ("tensor ", "张量 "),
    (" needs ", " 需要 "),
    (" offers", " 条报价"),
    ("missing", "缺失"),
    (" layers", " 层"),
    (" groups", " 组"),
    ("one of ", "以下之一："),
    (" array", " 数组的对象"),
    ("a text", "文本"),
    (" cards", " 张卡"),
    (" bytes", " 字节"),
    (" deep$", " 层"),
    (" fits ", " 对应 "),
    (", and ", "，以及另外 "),
    ("only ", "只给出了 "),
    (" jobs", " 个作业"),
    (" has ", " 有 "),
    ("empty", "为空"),
    (" more", " 个"),
    (" GPUs", " 个 GPU"),
    (" to ", " 到 "),
];

/// `text` with the phrases of `table` (longest first) replaced, outside the backticks that
/// quote what a person typed. A phrase ending in `$` is replaced only at the end of the text.
fn translate(text: &str, table: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(part);
            continue;
        }
        let mut s = String::from(part);
        for &(en, zh) in table {
            if let Some(tail) = en.strip_suffix('$') {
                // Only at the end: " deep" must not turn "deepseek" into Chinese.
                if let Some(head) = s.strip_suffix(tail) {
                    s = [head, zh].concat();
                }
            } else if s.contains(en) {
                s = s.replace(en, zh);
            }
        }
        out.push_str(&s);
    }
    out
}

impl InputError {
    /// The problem and what is accepted in Chinese, where the code that found the error wrote
    /// them ([`input_error!`](crate::input_error): every error of the estimator's input); `None`
    /// for the file readers', catalogs' and planners', which [`Self::zh`] translates. Without the
    /// phrase table, so that the npm package's main module can give both languages.
    #[cfg(feature = "en")]
    pub fn chinese(&self) -> Option<(&str, &str)> {
        self.zh.as_deref().map(|(p, a)| (p.as_str(), a.as_str()))
    }

    /// This error in Chinese: the Chinese its code wrote ([`input_error!`](crate::input_error):
    /// the estimator's input), or else its English with the phrases of a phrase table (`FILES`)
    /// put into Chinese (the file readers, catalogs and planners). In a build of Chinese alone,
    /// the first kind is Chinese already, and the table leaves Chinese as it is.
    #[cfg(feature = "zh")]
    pub fn zh(&self) -> InputError {
        #[cfg(feature = "en")]
        let written = self.chinese();
        #[cfg(not(feature = "en"))]
        let written: Option<(&str, &str)> = None;
        let (problem, accepted) = match written {
            Some((p, a)) => (p.into(), a.into()),
            None => (
                translate(&self.problem, FILES),
                translate(&self.accepted, FILES),
            ),
        };
        InputError {
            problem,
            accepted,
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{FILES, translate};
    use crate::InputError;
    use crate::estimate::{EstimateInput, estimate};
    use crate::units::Bytes;
    use alloc::string::{String, ToString};
    use alloc::vec::Vec;
    use alloc::{format, vec};

    /// An estimate input from JSON over a base of Llama-3.1-8B (`{}`: no model at all).
    fn input(json: &str) -> EstimateInput {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"))
    }

    /// Every kind of error the estimator's input can produce (what the calculator shows).
    fn form_errors() -> Vec<InputError> {
        let m = r#""model":"meta-llama/Llama-3.1-8B""#;
        let jsons = [
            "{}".to_string(),
            format!(r#"{{{m},"params":"7B"}}"#),
            r#"{"model":"no-such-model"}"#.to_string(),
            r#"{"model":"llama"}"#.to_string(),
            r#"{"model":"qwen"}"#.to_string(),
            r#"{"params":"abc"}"#.to_string(),
            r#"{"params":"-5"}"#.to_string(),
            r#"{"params":"1e20"}"#.to_string(),
            format!(r#"{{{m},"batch":0}}"#),
            format!(r#"{{{m},"batch":1.5}}"#),
            format!(r#"{{{m},"dtype":"int8"}}"#),
            format!(r#"{{{m},"kv_dtype":"fp8"}}"#),
            format!(r#"{{{m},"kv_dtype":"q8_0","mode":"serve","engine":"vllm"}}"#),
            format!(r#"{{{m},"kv_dtype":"fp8","engine":"llamacpp"}}"#),
            format!(r#"{{{m},"quantization":{{"format":"gptq","bits":4,"group_size":128}},"engine":"llamacpp"}}"#),
            format!(r#"{{{m},"tp":3,"gpus":3}}"#),
            format!(r#"{{{m},"tp":2}}"#),
            r#"{"model":"mistralai/Mistral-7B-v0.1","tp":3,"gpus":3}"#.to_string(),
            r#"{"model":"openai-community/gpt2","tp":5,"gpus":5}"#.to_string(),
            format!(r#"{{{m},"mode":"training","lora_targets":["qq"]}}"#),
            format!(r#"{{{m},"mode":"training","qlora":true}}"#),
            format!(r#"{{{m},"mode":"training","offload":"cpu"}}"#),
            format!(r#"{{{m},"gpus":3,"tp":2}}"#),
            format!(r#"{{{m},"pp":40,"gpus":40}}"#),
            format!(r#"{{{m},"gpu":"h100-sxm5-80gb","gpu_memory":"80GB"}}"#),
            format!(r#"{{{m},"gpu":"no-such-gpu"}}"#),
            format!(r#"{{{m},"gpu":"a100"}}"#),
            format!(r#"{{{m},"gpu_memory":"80"}}"#),
            format!(r#"{{{m},"gpu_memory":"abcGB"}}"#),
            format!(r#"{{{m},"gpu_memory":"-5GB"}}"#),
            format!(r#"{{{m},"gpu_memory":"2000TB"}}"#),
            format!(r#"{{{m},"gpu_memory":"80XB"}}"#),
            format!(r#"{{{m},"gpu_memory":"100MiB"}}"#),
            format!(r#"{{{m},"gpu_memory_utilization":1.5}}"#),
            format!(r#"{{{m},"gpu_memory_utilization":0.001}}"#),
            format!(r#"{{{m},"engine":"llamacpp","tp":2,"gpus":2}}"#),
            format!(r#"{{{m},"mode":"training","qlora":true,"lora_rank":8,"quantization":{{"format":"gptq","bits":4,"group_size":128}}}}"#),
            format!(r#"{{{m},"mode":"training","zero":2,"offload":"nvme"}}"#),
            r#"{"model":"meta-llama/Llama-3.1-405B","batch":1048576,"seq_len":16777216,"mode":"training","attention":"eager"}"#.to_string(),
        ];
        let mut out: Vec<InputError> = Vec::new();
        for j in &jsons {
            let e = estimate(&input(j)).err();
            assert!(e.is_some(), "{j} is estimated");
            out.extend(e);
        }
        let mut nan = input(&format!("{{{m}}}"));
        nan.seq_len = f64::NAN;
        out.extend(estimate(&nan).err());
        use crate::precision::{Dtype, KvDtype, Quantization};
        out.extend(Dtype::parse("dtype", "fp64").err());
        out.extend(KvDtype::parse("kv_dtype", "fp4").err());
        for q in ["foo", "gguf-q9_k"] {
            out.extend(Quantization::parse("quantization", q).err());
        }
        out.extend(crate::units::parse_params("params", "1.5").err());
        out.extend(crate::units::parse_size("gpu_memory", "GB").err());
        out.extend(crate::hardware::lookup_gpu("gpu", "no-such-card").err());
        out.extend(
            EstimateInput {
                gpu: Some("mine".into()),
                ..input(r#"{"model":"meta-llama/Llama-3.1-8B"}"#)
            }
            .resolve_with(&crate::catalog::find_model, &|_| None)
            .err(),
        );
        out.extend(crate::estimate::lora_mask("lora_targets", &["qq".into()]).err());
        out
    }

    /// Every kind of error the file readers, catalogs and planners produce.
    fn file_errors() -> Vec<InputError> {
        let mut out = Vec::new();
        // A custom architecture: KV heads that do not divide the heads; an opaque family with more.
        let mut arch = crate::presets::find("meta-llama/Llama-3.1-8B")
            .unwrap()
            .arch;
        arch.num_kv_heads = 5;
        out.extend(arch.validate("arch").err());
        let mut opaque = crate::model::Architecture::opaque(7_000_000_000);
        opaque.hidden_size = 4096;
        out.extend(opaque.validate("arch").err());
        use crate::precision::Quantization;
        for q in [
            Quantization::Gptq {
                bits: 5,
                group_size: 128,
            },
            Quantization::Gptq {
                bits: 4,
                group_size: 7,
            },
        ] {
            out.extend(q.validate("quantization").err());
        }
        out.extend(crate::hardware::Currency::parse("currency", "EUR").err());
        out.push(InputError::new(
            "config.json",
            "no config.json loaded",
            "a Hugging Face config.json, dropped or chosen",
        ));
        let configs: Vec<String> = vec![
            " ".repeat(5 << 20),
            "not json".into(),
            "[]".into(),
            "{}".into(),
            r#"{"model_type":"foo"}"#.into(),
            r#"{"model_type":"llava"}"#.into(),
            format!("{}1{}", "[".repeat(200), "]".repeat(200)),
            format!(r#"{{"model_type":"llama","a":{}1{}}}"#, r#"{"b":"#.repeat(40), "}".repeat(40)),
            r#"{"model_type":"llama"}"#.into(),
            r#"{"model_type":"llama","hidden_size":"x"}"#.into(),
            r#"{"model_type":"llama","hidden_size":-4}"#.into(),
            r#"{"model_type":"llama","hidden_size":4001,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10}"#.into(),
            r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"tie_word_embeddings":"yes"}"#.into(),
            r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"bitsandbytes"}}"#.into(),
            r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"foo"}}"#.into(),
            r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"awq","bits":8}}"#.into(),
            r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"gptq","bits":4,"group_size":3}}"#.into(),
            r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"compressed-tensors"}}"#.into(),
            r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"compressed-tensors","config_groups":{}}}"#.into(),
            r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"compressed-tensors","config_groups":{"group_0":{}}}}"#.into(),
            r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10,"quantization_config":{"quant_method":"compressed-tensors","config_groups":{"group_0":{"weights":{"num_bits":2,"type":"int"}}}}}"#.into(),
            r#"{"model_type":"mixtral","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10}"#.into(),
            r#"{"model_type":"deepseek_v3","hidden_size":4096,"num_attention_heads":32,"num_hidden_layers":2,"intermediate_size":100,"vocab_size":10}"#.into(),
            r#"{"model_type":"gpt2"}"#.into(),
            r#"{"model_type":"whisper"}"#.into(),
            r#"{"model_type":"resnet","hidden_sizes":[64,128],"depths":[1],"layer_type":"x"}"#.into(),
            r#"{"model_type":"resnet","hidden_sizes":[64,128],"depths":[1,1],"layer_type":"x"}"#.into(),
            r#"{"model_type":"resnet","hidden_sizes":"x"}"#.into(),
            r#"{"model_type":"resnet","hidden_sizes":[-1]}"#.into(),
            format!(r#"{{"model_type":"resnet","hidden_sizes":[{}1]}}"#, "1,".repeat(2000)),
        ];
        for c in &configs {
            let e = crate::config::parse_config(c).err();
            assert!(e.is_some(), "{} is read", &c[..c.len().min(200)]);
            out.extend(e);
        }
        use crate::headers::{
            parse_gguf_header, parse_safetensors_header, parse_safetensors_shards,
            safetensors_header_len,
        };
        out.extend(safetensors_header_len(b"abc").err());
        out.extend(safetensors_header_len(&[0; 8]).err());
        out.extend(safetensors_header_len(&u64::MAX.to_le_bytes()).err());
        out.extend(parse_safetensors_shards(&[]).err());
        let mut st = 100u64.to_le_bytes().to_vec();
        st.extend(b"{}");
        out.extend(parse_safetensors_header(&st).err());
        let mut st = 4u64.to_le_bytes().to_vec();
        st.extend(b"[1] ");
        out.extend(parse_safetensors_header(&st).err());
        let mut st = 2u64.to_le_bytes().to_vec();
        st.extend([0xff, 0xfe]);
        out.extend(parse_safetensors_header(&st).err());
        out.extend(parse_gguf_header(b"NOPE").err());
        let gguf = |version: u32, tensors: u64, kvs: u64, rest: &[u8]| {
            let mut b = b"GGUF".to_vec();
            b.extend(version.to_le_bytes());
            b.extend(tensors.to_le_bytes());
            b.extend(kvs.to_le_bytes());
            b.extend(rest);
            parse_gguf_header(&b).err()
        };
        out.extend(gguf(1, 0, 0, &[]));
        out.extend(gguf(3, 1 << 60, 0, &[]));
        out.extend(gguf(3, 0, 1 << 60, &[]));
        out.extend(gguf(3, 0, 1, &[]));
        // One key of a huge length, one of an unknown type, a nested array, a huge array.
        let key = |name: &str, ty: u32, value: &[u8]| {
            let mut b = (name.len() as u64).to_le_bytes().to_vec();
            b.extend(name.as_bytes());
            b.extend(ty.to_le_bytes());
            b.extend(value);
            b
        };
        out.extend(gguf(3, 0, 1, &(u64::MAX / 2).to_le_bytes()));
        out.extend(gguf(3, 0, 1, &key("a", 99, &[])));
        let mut nested = 9u32.to_le_bytes().to_vec();
        nested.extend(1u64.to_le_bytes());
        nested.extend(9u32.to_le_bytes());
        nested.extend(1u64.to_le_bytes());
        nested.extend(9u32.to_le_bytes());
        nested.extend(1u64.to_le_bytes());
        out.extend(gguf(3, 0, 1, &key("a", 9, &nested)));
        let mut huge = 0u32.to_le_bytes().to_vec();
        huge.extend((1u64 << 60).to_le_bytes());
        out.extend(gguf(3, 0, 1, &key("a", 9, &huge)));
        let mut tensor = (1u64).to_le_bytes().to_vec();
        tensor.extend(b"t");
        tensor.extend(9u32.to_le_bytes());
        out.extend(gguf(3, 1, 0, &tensor));
        let mut tensor = (1u64).to_le_bytes().to_vec();
        tensor.extend(b"t");
        tensor.extend(2u32.to_le_bytes());
        tensor.extend(u64::MAX.to_le_bytes());
        tensor.extend(u64::MAX.to_le_bytes());
        tensor.extend(0u32.to_le_bytes());
        tensor.extend(0u64.to_le_bytes());
        out.extend(gguf(3, 1, 0, &tensor));

        use crate::hardware::import::{offers_from_json, parse_price};
        let gpus = crate::hardware::gpus();
        let offer = r#"{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"USD"}"#;
        for text in [
            "x".repeat(3 << 20),
            "nope".into(),
            "{}".into(),
            "5".into(),
            "[]".into(),
            format!("[{offer},{offer}]"),
            "[5]".into(),
            r#"[{"id":"a"}]"#.into(),
            r#"[{"id":5}]"#.into(),
            r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"EUR"}]"#.into(),
            r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":-2,"currency":"USD"}]"#.into(),
            r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"USD","notes":[5]}]"#.into(),
            r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"USD","notes":5}]"#.into(),
            r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"USD","market":5}]"#.into(),
            r#"[{"id":"a","provider":"aws","gpu":"h100-sxm5-80gb","count":1,"price_per_hour":2,"currency":"USD","market":"x"}]"#.into(),
            format!(r#"[{{"id":"{}"}}]"#, "a".repeat(200)),
        ] {
            out.extend(offers_from_json(&text, gpus).err());
        }
        out.extend(parse_price("price", "").err());
        out.extend(parse_price("price", "x").err());
        out.extend(parse_price("price", "-1").err());

        use crate::hardware::mig::{MigOptions, parse_job, plan_mig};
        let a100 = crate::hardware::find_gpu("a100-sxm4-80gb").unwrap();
        let h = crate::hardware::find_gpu("rtx-4090").unwrap();
        let gib = |n: u64| Bytes::new(n << 30);
        let o = MigOptions::default();
        out.extend(parse_job("job", 0, "0GiB").err());
        out.extend(parse_job("job", 0, "x=0GiB").err());
        out.extend(plan_mig(h, &[gib(1)], &[], &o).err());
        out.extend(plan_mig(a100, &[], &[], &o).err());
        out.extend(plan_mig(a100, &[Bytes::new(0)], &[], &o).err());
        out.extend(plan_mig(a100, &[gib(100)], &[], &o).err());
        out.extend(plan_mig(a100, &[gib(70); 9], &[], &o).err());
        let p = MigOptions {
            provider: Some("nope".into()),
            ..MigOptions::default()
        };
        out.extend(plan_mig(a100, &[gib(1)], &[], &p).err());
        let p = MigOptions {
            max_cards: 0,
            ..MigOptions::default()
        };
        out.extend(plan_mig(a100, &[gib(1)], &[], &p).err());
        let p = MigOptions {
            cny_per_usd: f64::NAN,
            ..MigOptions::default()
        };
        out.extend(plan_mig(a100, &[gib(1)], &[], &p).err());

        use crate::hardware::PlanOptions;
        out.extend(PlanOptions::from_request("CNY", None, false, 0.0, &[], 0.0).err());
        out.extend(PlanOptions::from_request("CNY", None, false, 8.0, &[], -1.0).err());
        out.extend(PlanOptions::from_request("CNY", None, false, 8.0, &["x".into()], 0.0).err());
        out.extend(PlanOptions::from_request("CNY", Some(-1.0), false, 8.0, &[], 0.0).err());

        use crate::hardware::spot::{SpotInput, compare};
        let ok = SpotInput {
            hours: 10.0,
            on_demand_price: 2.0,
            spot_price: 1.0,
            mtbi_hours: 10.0,
            checkpoint_every_hours: 1.0,
            restart_hours: 0.1,
        };
        for bad in [
            SpotInput { hours: 0.0, ..ok },
            SpotInput {
                on_demand_price: 0.0,
                ..ok
            },
            SpotInput {
                spot_price: -1.0,
                ..ok
            },
            SpotInput {
                mtbi_hours: 0.0,
                ..ok
            },
            SpotInput {
                checkpoint_every_hours: 0.0,
                ..ok
            },
            SpotInput {
                restart_hours: -1.0,
                ..ok
            },
            SpotInput {
                checkpoint_every_hours: 1000.0,
                mtbi_hours: 1.0,
                ..ok
            },
            SpotInput {
                hours: 100000.0,
                checkpoint_every_hours: 60.0,
                mtbi_hours: 6.0,
                ..ok
            },
        ] {
            out.extend(compare(&bad).err());
        }
        use crate::hardware::matrix::Weights;
        for w in ["memory", "memory=x", "speed=3", "memory=0"] {
            out.extend(Weights::parse("weights", w).err());
        }
        // The site's own (web/src).
        for (p, a) in [
            (
                "not readable (expected value)",
                "an object of offer id → price per hour",
            ),
            ("every weight is 0", "at least one weight above 0"),
            ("empty", "a number"),
            (
                "the model in the link cannot be read: missing",
                "a link written by vramfit after reading a .safetensors or .gguf file",
            ),
            (
                "the header needs 9 bytes but the file has 4",
                "a complete .gguf file",
            ),
            (
                "the header is longer than 67108864 bytes (67108865)",
                "a GGUF header of at most 67108864 bytes",
            ),
            (
                "the header claims 9 bytes but the file has 4",
                "a complete .safetensors file (8 bytes of length, then that much JSON)",
            ),
            (
                "the browser could not read the file",
                "a file the page may read",
            ),
            (
                "the browser could not slice the file",
                "a file the page may read",
            ),
            (
                "the file has 5000000 bytes",
                "a config.json of at most 4194304 bytes, or a .safetensors or .gguf file",
            ),
            (
                "the file is empty",
                "a Hugging Face config.json (a JSON object with model_type, hidden_size, …)",
            ),
        ] {
            out.push(InputError::new("file", p, a));
        }
        out
    }

    /// Whitespace-separated words of Latin letters only (prose), outside backticks; names,
    /// identifiers and numbers (with a digit, `_`, `-`, `.`, `/`, `=` or `<`) are not prose.
    fn english(zh: &str) -> Vec<String> {
        const KEEP: &[&str] = &[
            "GPU",
            "GPUs",
            "KV",
            "GGUF",
            "JSON",
            "MIG",
            "LoRA",
            "QLoRA",
            "ZeRO",
            "DeepSpeed",
            "vLLM",
            "Hugging",
            "Face",
            "transformers",
            "CNY",
            "USD",
            "PiB",
            "TiB",
            "GiB",
            "MiB",
            "KiB",
            "B",
            "KB",
            "MB",
            "GB",
            "TB",
            "GPTQ",
            "AWQ",
            "FP8",
            "W8A8",
            "W4A16",
            "F16",
            "BF16",
            "UTF",
            "ResNet",
            "Transformer",
            "FFN",
            "tp",
            "pp",
            "eager",
            "sdpa",
            "flash",
            "attention",
            "none",
            "true",
            "false",
            "null",
            "job",
            "config",
            "json",
            "family",
            "opaque",
            "type",
            "criterion",
            "weight",
            "bottleneck",
            "basic",
            "model",
            "params",
            "arch",
            "gpus",
            "NVMe",
            "cpu",
            "nvme",
            "RMB",
            "bitsandbytes",
            "safetensors",
            "vramfit",
            "spot",
            "provider",
            "count",
            "currency",
            "market",
            "vgpu",
            "regions",
            "source",
            "date",
            "auto",
            "gptq",
            "awq",
            "logits",
            "activations",
            "weights",
            "gpu",
            "qlora",
            "zero",
            "id",
            "name",
            "dtype",
            "shape",
            "h",
            "x",
            "e",
            // serde_json's own messages (after "不是有效的 JSON：" and in parentheses).
            "expected",
            "value",
            "at",
            "line",
            "column",
            "EOF",
            "while",
            "parsing",
            "a",
            "an",
            "ident",
            "trailing",
            "characters",
            "invalid",
            "number",
            "string",
            "object",
            "key",
            "must",
            "be",
            "missing",
            "field",
        ];
        // What serde_json and the standard library say comes after these, in English.
        let zh = [
            "JSON：",
            "文本：",
            "无法读取 (",
            "不是 JSON (",
            "无法读取：",
        ]
        .iter()
        .filter_map(|p| zh.find(p).map(|i| &zh[..i + p.len()]))
        .next()
        .unwrap_or(zh);
        let names: Vec<&str> = crate::hardware::platforms()
            .iter()
            .map(|p| p.id)
            .chain(crate::config::SUPPORTED_MODEL_TYPES.split([',', ' ', '(', ')']))
            .chain(crate::hardware::matrix::CRITERIA)
            .collect();
        let mut out = Vec::new();
        for (i, part) in zh.split('`').enumerate() {
            if i % 2 == 1 {
                continue;
            }
            for w in part.split(|c: char| c.is_whitespace() || !c.is_ascii()) {
                let w = w.trim_matches(|c: char| ",;:()[]{}\"'".contains(c));
                if w.is_empty()
                    || !w.chars().all(|c| c.is_ascii_alphabetic())
                    || KEEP.contains(&w)
                    || names.contains(&w)
                {
                    continue;
                }
                out.push(w.to_string());
            }
        }
        out
    }

    /// The runs of digits, in order.
    fn numbers(s: &str) -> Vec<String> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect()
    }

    fn check(errors: &[InputError], zh: impl Fn(&InputError) -> InputError) {
        let mut left = Vec::new();
        for e in errors {
            let z = zh(e);
            assert_eq!(z.field, e.field);
            for (en, zh) in [(&e.problem, &z.problem), (&e.accepted, &z.accepted)] {
                // Every number, in the same order (a phrase may add one: "2023 年 8 月"), and the
                // same quoted text.
                let mut zh_numbers = numbers(zh).into_iter();
                for n in numbers(en) {
                    assert!(zh_numbers.any(|z| z == n), "{n} lost:\n{en}\n{zh}");
                }
                let quoted = |s: &str| {
                    s.split('`')
                        .skip(1)
                        .step_by(2)
                        .map(String::from)
                        .collect::<Vec<_>>()
                };
                assert_eq!(quoted(en), quoted(zh), "{en}\n{zh}");
                let words = english(zh);
                if !words.is_empty() {
                    left.push(format!("{words:?} left in\n  {en}\n  {zh}"));
                }
            }
        }
        left.sort();
        left.dedup();
        assert!(left.is_empty(), "{}", left.join("\n"));
    }

    #[test]
    fn every_error_of_the_form_is_written_in_chinese() {
        let errors = form_errors();
        assert!(errors.len() > 40, "{} errors", errors.len());
        for e in &errors {
            let zh =
                e.zh.as_ref()
                    .unwrap_or_else(|| panic!("not written in Chinese: {e}"));
            // A build of Chinese alone holds this text in `problem` and `accepted`, and its
            // `zh()` runs them through the table: which must leave them as they are.
            assert_eq!(translate(&zh.0, FILES), zh.0);
            assert_eq!(translate(&zh.1, FILES), zh.1);
        }
        check(&errors, InputError::zh);
    }

    #[test]
    fn every_error_of_the_readers_and_planners_reads_in_chinese() {
        let errors = file_errors();
        assert!(errors.len() > 70, "{} errors", errors.len());
        check(&errors, InputError::zh);
        check(&form_errors(), InputError::zh);
    }

    #[test]
    fn chinese_errors_by_hand() {
        let e = estimate(&input(r#"{"model":"meta-llama/Llama-3.1-8B","batch":0}"#)).unwrap_err();
        assert_eq!(e.zh().problem, "0 超出范围");
        assert_eq!(e.zh().accepted, "整数，从 1 到 1048576");
        assert_eq!(e.problem, "0 is out of range");
        let e = crate::units::parse_size("gpu_memory", "80").unwrap_err();
        assert_eq!(e.zh().problem, "`80` 没有单位");
        // What a person typed stays as typed, even where it spells a phrase of the table.
        let e = InputError::new("offers", "`a has b` has 2 cards", "x");
        assert_eq!(e.zh().problem, "`a has b` 有 2 张卡");
        let tp = estimate(&input(
            r#"{"model":"meta-llama/Llama-3.1-8B","tp":3,"gpus":3}"#,
        ))
        .unwrap_err();
        assert_eq!(
            tp.zh().problem,
            "tp = 3 不能均分模型的 32 个注意力头与 8 个 KV 头"
        );
        assert_eq!(tp.zh().accepted, "以下之一：1, 2, 4, 8, 16, 32");
        let kv = estimate(&input(
            r#"{"model":"meta-llama/Llama-3.1-8B","kv_dtype":"fp8"}"#,
        ))
        .unwrap_err();
        assert_eq!(
            kv.zh().problem,
            "fp8 不是这个引擎的 KV 缓存类型：Hugging Face transformers"
        );
        assert_eq!(
            kv.zh().accepted,
            "以下之一：auto, fp16, bf16（Hugging Face transformers）"
        );
        let gguf = crate::headers::parse_gguf_header(b"GGUF\x01\0\0\0").unwrap_err();
        assert_eq!(gguf.zh().problem, "GGUF 版本 1");
    }

    #[test]
    fn phrases_are_longest_first_and_distinct() {
        for w in FILES.windows(2) {
            assert!(
                w[0].0.len() >= w[1].0.len(),
                "{:?} before {:?}",
                w[0].0,
                w[1].0
            );
        }
        for (i, (en, _)) in FILES.iter().enumerate() {
            assert!(FILES[..i].iter().all(|(e, _)| e != en), "{en} twice");
        }
        assert_eq!(translate("a`b`c", FILES), "a`b`c");
    }
}
