//! Every string the site shows, in English and Simplified Chinese: one table of
//! key → (en, zh). A missing key is a test failure, not a blank on screen.

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

impl Lang {
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

    /// The translation of `key`. An unknown key shows the key itself (and fails the tests).
    pub fn t(self, key: &str) -> &'static str {
        match lookup(key) {
            Some((en, zh)) => match self {
                Lang::En => en,
                Lang::Zh => zh,
            },
            None => "⟨missing text⟩",
        }
    }

    /// `t(key)` with `{0}`, `{1}`, … replaced by `args`.
    pub fn f(self, key: &str, args: &[&str]) -> String {
        let mut s = self.t(key).to_string();
        for (i, a) in args.iter().enumerate() {
            s = s.replace(&format!("{{{i}}}"), a);
        }
        s
    }
}

fn lookup(key: &str) -> Option<(&'static str, &'static str)> {
    TEXT.binary_search_by(|(k, _, _)| (*k).cmp(key))
        .ok()
        .map(|i| (TEXT[i].1, TEXT[i].2))
}

/// key, English, Chinese — sorted by key (a test checks), so lookup is a binary search.
pub static TEXT: &[(&str, &str, &str)] = &[
    (
        "app.footer",
        "Runs entirely in your browser: no server, no account, no network request. Works offline.",
        "完全在浏览器中运行：无服务器、无账号、无网络请求，可离线使用。",
    ),
    ("app.lang", "Language", "语言"),
    ("app.skip", "Skip to content", "跳到正文"),
    (
        "app.tagline",
        "Will it fit, on which GPU, at what cost — and why it ran out of memory.",
        "能否装下、用哪块 GPU、花多少钱——以及为什么显存不足。",
    ),
    (
        "app.title",
        "vramfit — GPU memory calculator",
        "vramfit — GPU 显存计算器",
    ),
    ("device.adapter", "WebGPU adapter", "WebGPU 适配器"),
    ("device.architecture", "Architecture", "架构"),
    ("device.description", "Description", "描述"),
    (
        "device.fallback",
        "Software (fallback) adapter",
        "软件（回退）适配器",
    ),
    (
        "device.intro",
        "What your browser says about this device's GPU, through WebGPU. Browsers do not report GPU memory size; vramfit never guesses it.",
        "浏览器通过 WebGPU 报告的本机 GPU 信息。浏览器不会报告显存容量，vramfit 也不会猜测。",
    ),
    ("device.limits", "Limits", "限制"),
    (
        "device.match",
        "Matching card in the catalog",
        "目录中的匹配显卡",
    ),
    ("device.no", "no", "否"),
    (
        "device.no_adapter",
        "WebGPU is present but the browser gave no adapter (requestAdapter() returned null): GPU access may be disabled or blocked.",
        "浏览器支持 WebGPU，但未提供适配器（requestAdapter() 返回 null）：GPU 访问可能被禁用或屏蔽。",
    ),
    (
        "device.no_gpu_api",
        "This browser has no WebGPU (navigator.gpu is absent), so it tells nothing about the GPU.",
        "此浏览器不支持 WebGPU（没有 navigator.gpu），无法获知 GPU 信息。",
    ),
    (
        "device.no_match",
        "No catalog card matches this adapter's name.",
        "目录中没有与此适配器名称匹配的显卡。",
    ),
    (
        "device.no_memory",
        "Memory size: not reported by the browser.",
        "显存容量：浏览器未报告。",
    ),
    ("device.pick", "Pick your card", "选择你的显卡"),
    (
        "device.pick_hint",
        "Choose the card you have to see its memory and use it in the calculator.",
        "选择你的显卡，查看其显存并在计算器中使用。",
    ),
    (
        "device.querying",
        "Asking the browser for a WebGPU adapter…",
        "正在向浏览器请求 WebGPU 适配器…",
    ),
    (
        "device.use",
        "Use this card in the calculator",
        "在计算器中使用此卡",
    ),
    ("device.vendor", "Vendor", "厂商"),
    ("device.yes", "yes", "是"),
    (
        "notice.bad_link",
        "Part of this link could not be read, so defaults were used for: {0}.",
        "链接中有部分内容无法识别，以下项已使用默认值：{0}。",
    ),
    ("notice.dismiss", "Dismiss", "关闭"),
    ("view.calc", "Calculator", "计算器"),
    ("view.device", "This device", "本机"),
    ("view.diagnose", "Diagnose OOM", "OOM 诊断"),
    ("view.faq", "FAQ", "常见问题"),
    ("view.fit", "Fit & rent", "选卡与租用"),
    ("view.mig", "MIG planner", "MIG 规划"),
    ("view.nav", "Views", "视图"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_sorted_unique_and_translated() {
        for w in TEXT.windows(2) {
            assert!(
                w[0].0 < w[1].0,
                "keys out of order or repeated: {} then {}",
                w[0].0,
                w[1].0
            );
        }
        for (k, en, zh) in TEXT {
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
    fn languages_from_tags() {
        assert_eq!(Lang::from_tag("zh-CN"), Lang::Zh);
        assert_eq!(Lang::from_tag("zh-Hant-TW"), Lang::Zh);
        assert_eq!(Lang::from_tag("en-US"), Lang::En);
        assert_eq!(Lang::from_tag("fr"), Lang::En);
    }

    #[test]
    fn formats_arguments() {
        assert_eq!(
            Lang::En.f("notice.bad_link", &["batch"]),
            "Part of this link could not be read, so defaults were used for: batch."
        );
        assert!(Lang::Zh.t("view.calc").contains("计算器"));
    }
}
