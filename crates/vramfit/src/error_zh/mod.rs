//! Input errors in Chinese, for the site's Chinese page.
//!
//! The estimator's input errors are written in both languages where they are found
//! (`input_error!`: all the calculator shows). The file readers, catalogs and planners build
//! theirs in English with the values in them (the JSON API and the CLI speak English); their
//! words are few and fixed, so a phrase table, [`FILES`], gives the Chinese. The field name,
//! every number, and whatever the person typed (always written between backticks) are left as
//! they are.

#[cfg(test)]
mod tests;

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
    (" matches ", " 对应 "),
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
