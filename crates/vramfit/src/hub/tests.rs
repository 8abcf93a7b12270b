use alloc::string::ToString;
use alloc::vec::Vec;
use alloc::{format, vec};

use super::*;
use crate::config::ParsedConfig;
use crate::headers::SafetensorsHeader;

fn hf() -> Hub {
    Hub::new(HubKind::HuggingFace, "https://huggingface.co/").unwrap()
}

fn ms() -> Hub {
    Hub::new(HubKind::ModelScope, "https://www.modelscope.cn").unwrap()
}

fn listing(files: &[&str]) -> Listing {
    Listing {
        files: files
            .iter()
            .map(|p| RepoFile {
                path: p.to_string(),
                size: None,
            })
            .collect(),
        ..Listing::default()
    }
}

#[test]
fn repo_ids_as_the_hubs_write_them_and_their_pages() {
    for (text, id) in [
        ("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct"),
        ("  meta-llama/Llama-3.1-8B ", "meta-llama/Llama-3.1-8B"),
        (
            "https://huggingface.co/Qwen/Qwen3-0.6B-FP8",
            "Qwen/Qwen3-0.6B-FP8",
        ),
        (
            "https://huggingface.co/Qwen/Qwen3-0.6B-FP8/tree/main",
            "Qwen/Qwen3-0.6B-FP8",
        ),
        (
            "https://www.modelscope.cn/models/Qwen/Qwen3-0.6B",
            "Qwen/Qwen3-0.6B",
        ),
        (
            "unsloth/Qwen2.5-0.5B-Instruct-bnb-4bit",
            "unsloth/Qwen2.5-0.5B-Instruct-bnb-4bit",
        ),
    ] {
        assert_eq!(repo_id(text).unwrap(), id, "{text}");
    }
    for bad in [
        "",
        "gpt2",
        "a/b/c",
        "a//b",
        "-a/b",
        "a/b.",
        "a--b/c",
        "a/b..c",
        "a b/c",
        "../etc/passwd",
        "a/b?x=1",
    ] {
        let e = repo_id(bad).unwrap_err();
        assert_eq!(e.field, "hub");
        assert!(e.problem.contains("is not a repo id"), "{bad}: {e}");
    }
    assert!(repo_id(&format!("a/{}", "b".repeat(96))).is_ok());
    assert!(repo_id(&format!("a/{}", "b".repeat(97))).is_err());
}

#[test]
fn each_hub_has_its_addresses() {
    let h = hf();
    assert_eq!(h.endpoint, "https://huggingface.co");
    assert_eq!(
        h.list_url("Qwen/Q"),
        "https://huggingface.co/api/models/Qwen/Q"
    );
    assert_eq!(
        h.file_url("Qwen/Q", "sub dir/model #1.gguf"),
        "https://huggingface.co/Qwen/Q/resolve/main/sub%20dir/model%20%231.gguf"
    );
    assert_eq!(h.page_url("Qwen/Q"), "https://huggingface.co/Qwen/Q");
    let m = ms();
    assert_eq!(
        m.list_url("Qwen/Q"),
        "https://www.modelscope.cn/api/v1/models/Qwen/Q/repo/files?Revision=master&Recursive=true"
    );
    assert_eq!(
        m.file_url("Qwen/Q", "sub/config.json"),
        "https://www.modelscope.cn/api/v1/models/Qwen/Q/repo?Revision=master&FilePath=sub%2Fconfig.json"
    );
    assert_eq!(
        m.page_url("Qwen/Q"),
        "https://www.modelscope.cn/models/Qwen/Q"
    );
    assert_eq!(
        Hub::at("https://hf-mirror.com").unwrap().kind,
        HubKind::HuggingFace
    );
    assert_eq!(
        Hub::at("https://modelscope.cn").unwrap().kind,
        HubKind::ModelScope
    );
    assert_eq!(
        Hub::at("http://127.0.0.1:8080/hub").unwrap().endpoint,
        "http://127.0.0.1:8080/hub"
    );
    for bad in [
        "huggingface.co",
        "ftp://x",
        "https://",
        "https://a b",
        "https://x/?q",
        "https://u@x",
    ] {
        assert!(Hub::at(bad).is_err(), "{bad}");
    }
    assert_eq!(HubKind::parse("HF").unwrap(), HubKind::HuggingFace);
    assert_eq!(HubKind::parse("ms").unwrap(), HubKind::ModelScope);
    assert!(HubKind::parse("github").is_err());
}

#[test]
fn file_lists_of_both_shapes() {
    let body = r#"{"id":"x/y","gated":"manual","siblings":[{"rfilename":"config.json"},{"rfilename":"model.safetensors"}],"safetensors":{"parameters":{"BF16":7},"total":7}}"#;
    let l = read_listing(&hf(), "x/y", body).unwrap();
    assert_eq!(l.files.len(), 2);
    assert!(l.gated && l.has("config.json") && !l.has("model.gguf"));
    assert_eq!(l.params, Some(7));
    let public = read_listing(&hf(), "x/y", r#"{"gated":false,"siblings":[]}"#).unwrap();
    assert!(!public.gated && public.params.is_none());
    let body = r#"{"Code":200,"Data":{"Files":[{"Name":"q4","Path":"q4","Size":0,"Type":"tree"},{"Name":"a.gguf","Path":"q4/a.gguf","Size":1234,"Type":"blob"}]},"Success":true}"#;
    let l = read_listing(&ms(), "x/y", body).unwrap();
    assert_eq!(
        l.files,
        [RepoFile {
            path: "q4/a.gguf".into(),
            size: Some(1234)
        }]
    );
    let e = read_listing(&hf(), "x/y", "<html>").unwrap_err();
    assert!(
        e.problem.contains("`x/y`") && e.problem.contains("cannot read"),
        "{e}"
    );
    assert!(read_listing(&ms(), "x/y", r#"{"siblings":[]}"#).is_err());
}

#[test]
fn the_files_to_read() {
    let h = hf();
    let p = plan(
        &h,
        "x/y",
        &listing(&[
            "config.json",
            "model.safetensors.index.json",
            "model-00001-of-00002.safetensors",
            "model.gguf",
        ]),
        None,
    )
    .unwrap();
    assert!(p.config);
    assert_eq!(
        p.weights,
        Weights::Index("model.safetensors.index.json".into())
    );
    let p = plan(&h, "x/y", &listing(&["model.safetensors"]), None).unwrap();
    assert!(!p.config);
    assert_eq!(
        p.weights,
        Weights::Safetensors(vec!["model.safetensors".into()])
    );
    let p = plan(&h, "x/y", &listing(&["README.md", "config.json"]), None).unwrap();
    assert_eq!(p.weights, Weights::None);
    // GGUF: Q4_K_M by default, the projector of a vision model never, a split model whole.
    let files = [
        "m-Q2_K.gguf",
        "m-Q4_K_M.gguf",
        "mmproj-m-f16.gguf",
        "big/m-Q8_0-00002-of-00002.gguf",
        "big/m-Q8_0-00001-of-00002.gguf",
    ];
    let p = plan(&h, "x/y", &listing(&files), None).unwrap();
    assert_eq!(p.weights, Weights::Gguf(vec!["m-Q4_K_M.gguf".into()]));
    assert_eq!(
        p.gguf_choices,
        [
            "big/m-Q8_0-00001-of-00002.gguf",
            "m-Q2_K.gguf",
            "m-Q4_K_M.gguf"
        ]
    );
    let p = plan(&h, "x/y", &listing(&files), Some("q8_0")).unwrap();
    assert_eq!(
        p.weights,
        Weights::Gguf(vec![
            "big/m-Q8_0-00001-of-00002.gguf".into(),
            "big/m-Q8_0-00002-of-00002.gguf".into()
        ])
    );
    let p = plan(&h, "x/y", &listing(&files), Some("m-Q2_K.gguf")).unwrap();
    assert_eq!(p.weights, Weights::Gguf(vec!["m-Q2_K.gguf".into()]));
    let e = plan(&h, "x/y", &listing(&files), Some("IQ1_S")).unwrap_err();
    assert!(
        e.problem
            .contains("`x/y` has no GGUF file matching `IQ1_S`"),
        "{e}"
    );
    assert!(
        e.accepted
            .contains("big/m-Q8_0-00001-of-00002.gguf, m-Q2_K.gguf, m-Q4_K_M.gguf"),
        "{e}"
    );
    assert_eq!(
        split_part("a/m-Q8_0-00002-of-00010.gguf"),
        Some(("a/m-Q8_0", 2))
    );
    assert_eq!(split_part("m-Q8_0.gguf"), None);
}

#[test]
fn an_index_names_each_shard_once() {
    let text = r#"{"metadata":{"total_size":10},"weight_map":{"a":"model-00002-of-00002.safetensors","b":"model-00001-of-00002.safetensors","c":"model-00001-of-00002.safetensors"}}"#;
    assert_eq!(
        index_shards(&hf(), "x/y", text).unwrap(),
        [
            "model-00001-of-00002.safetensors",
            "model-00002-of-00002.safetensors"
        ]
    );
    for bad in [
        r#"{"weight_map":{"a":"../secret.safetensors"}}"#,
        r#"{"weight_map":{"a":"/etc/x.safetensors"}}"#,
        r#"{"weight_map":{"a":"pytorch_model.bin"}}"#,
        r#"{"weight_map":{}}"#,
        r#"{"metadata":{}}"#,
        "nope",
    ] {
        let e = index_shards(&hf(), "x/y", bad).unwrap_err();
        assert!(
            e.problem.contains("model.safetensors.index.json of `x/y`"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn a_header_over_64_mib_is_refused_before_it_is_read() {
    let h = hf();
    assert_eq!(
        header_len(&h, "x/y", "m.safetensors", &(64u64 << 20).to_le_bytes()).unwrap(),
        64 << 20
    );
    let e = header_len(
        &h,
        "x/y",
        "m.safetensors",
        &((64u64 << 20) + 1).to_le_bytes(),
    )
    .unwrap_err();
    assert_eq!(e.field, "hub");
    assert_eq!(
        e.problem,
        "m.safetensors of `x/y` announces a header of 67108865 bytes, over the 64 MiB vramfit reads"
    );
    let e = header_len(&h, "x/y", "m.safetensors", &[1, 0]).unwrap_err();
    assert!(
        e.problem.contains("`x/y`") && e.problem.contains("m.safetensors"),
        "{e}"
    );
}

/// A GGUF prefix: the magic, version 3, `tensors` tensors and one metadata pair `key` holding an
/// array of `count` items of type `item` (their bytes not given).
fn gguf_prefix(tensors: u64, item: u32, count: u64) -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(&tensors.to_le_bytes());
    b.extend_from_slice(&1u64.to_le_bytes());
    b.extend_from_slice(&3u64.to_le_bytes());
    b.extend_from_slice(b"key");
    b.extend_from_slice(&9u32.to_le_bytes());
    b.extend_from_slice(&item.to_le_bytes());
    b.extend_from_slice(&count.to_le_bytes());
    b
}

#[test]
fn a_gguf_prefix_grows_by_half_again_and_never_past_64_mib() {
    let h = hf();
    // An array of 1,000 f32 (4,000 bytes) then 10 tensor infos of at least 24 bytes: the reader
    // asks for the array and 240 bytes at least; 1.5 × the prefix is more.
    let p = gguf_prefix(10, 6, 1000);
    let have = p.len() as u64;
    match gguf_step(&h, "x/y", "m.gguf", &p, None).unwrap() {
        GgufStep::Read(n) => assert_eq!(n, have + 4000 + 240),
        GgufStep::Done(_) => panic!("the header is not whole"),
    }
    // A file smaller than what the header asks: its own error, naming the repo.
    let e = gguf_step(&h, "x/y", "m.gguf", &p, Some(have)).unwrap_err();
    assert!(
        e.problem.contains("`x/y`") && e.problem.contains("m.gguf"),
        "{e}"
    );
    // The growth is bounded by the file.
    match gguf_step(&h, "x/y", "m.gguf", &p, Some(have + 100)).unwrap() {
        GgufStep::Read(n) => assert_eq!(n, have + 100),
        GgufStep::Done(_) => panic!(),
    }
    // 2^25 f32 (128 MiB) of metadata: over the bound, refused without reading it.
    let e = gguf_step(&h, "x/y", "m.gguf", &gguf_prefix(1, 6, 1 << 25), None).unwrap_err();
    assert!(e.problem.contains("over the 64 MiB vramfit reads"), "{e}");
    // A file that is no GGUF at all.
    let e = gguf_step(&h, "x/y", "m.gguf", b"PK\x03\x04 not a gguf", None).unwrap_err();
    assert!(e.problem.contains("GGUF magic"), "{e}");
    // By half again when the reader asks for little more than it has.
    let mut big = gguf_prefix(0, 8, 3);
    for i in 0..2u64 {
        big.extend_from_slice(&3u64.to_le_bytes());
        big.extend_from_slice(format!("t{i:02}").as_bytes());
    }
    big.extend_from_slice(&(1u64 << 20).to_le_bytes()); // the third string: 1 MiB
    let have = big.len() as u64;
    match gguf_step(&h, "x/y", "m.gguf", &big, None).unwrap() {
        GgufStep::Read(n) => assert_eq!(n, have + (1 << 20)),
        GgufStep::Done(_) => panic!(),
    }
    let mut small = gguf_prefix(0, 8, 3);
    small.extend_from_slice(&3u64.to_le_bytes());
    let have = small.len() as u64;
    match gguf_step(&h, "x/y", "m.gguf", &small, None).unwrap() {
        GgufStep::Read(n) => assert_eq!(n, have + have / 2),
        GgufStep::Done(_) => panic!(),
    }
}

#[test]
fn each_failure_names_the_repo_and_says_what_to_do_in_both_languages() {
    let h = hf();
    let status = |status: u16, code: Option<&str>| Failure::Status {
        status,
        code: code.map(str::to_string),
        retry_after: None,
    };
    let cases: Vec<(Failure, &str, &str, &str)> = vec![
        (
            status(401, Some("GatedRepo")),
            "config.json",
            "is gated: HTTP 401 for config.json",
            "accept its licence at https://huggingface.co/x/y",
        ),
        (
            status(403, None),
            "config.json",
            "is gated, private or missing: HTTP 403",
            "vramfit sends no token",
        ),
        (
            status(401, Some("RepoNotFound")),
            "",
            "`x/y` is not on https://huggingface.co (HTTP 401): it does not exist, or it is private",
            "OWNER/NAME of a public repo",
        ),
        (
            status(404, None),
            "",
            "`x/y` is not on https://huggingface.co (HTTP 404)",
            "OWNER/NAME",
        ),
        (
            status(404, Some("EntryNotFound")),
            "config.json",
            "`x/y` on https://huggingface.co has no config.json (HTTP 404)",
            "a repo with a config.json",
        ),
        (
            Failure::Status {
                status: 429,
                code: None,
                retry_after: Some(30),
            },
            "",
            "limiting requests (HTTP 429) while reading its file list of `x/y`",
            "wait 30 s and ask again",
        ),
        (
            status(503, None),
            "m.gguf",
            "answered HTTP 503 for m.gguf of `x/y`",
            "try again later",
        ),
        (
            Failure::Timeout(30),
            "",
            "did not answer within 30 s for its file list of `x/y`",
            "HF_ENDPOINT=https://hf-mirror.com",
        ),
        (
            Failure::Network("dns error".into()),
            "",
            "could not be reached for its file list of `x/y`: dns error",
            "check the network",
        ),
        (
            Failure::TooLarge(1 << 30),
            "m.safetensors",
            "m.safetensors of `x/y` announces a header of 1073741824 bytes",
            "at most 64 MiB",
        ),
        (
            Failure::Unreadable("not JSON".into()),
            "",
            "sent for its file list of `x/y` what vramfit cannot read: not JSON",
            "Hugging Face or ModelScope",
        ),
    ];
    for (f, file, problem, accepted) in cases {
        let e = failure(&h, "x/y", file, f);
        assert_eq!(e.field, "hub");
        assert!(e.problem.contains(problem), "{problem:?} in {e}");
        assert!(e.accepted.contains(accepted), "{accepted:?} in {e}");
        let zh = e.zh();
        assert!(
            zh.problem.contains("x/y") && zh.problem != e.problem,
            "{zh}"
        );
        assert!(
            zh.problem
                .chars()
                .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
            "{zh}"
        );
    }
    // ModelScope's advice points the other way.
    let e = failure(&ms(), "x/y", "", Failure::Timeout(5));
    assert!(e.accepted.contains("Hugging Face or a mirror of it"), "{e}");
}

#[test]
fn a_readers_error_names_the_repo_and_offers_the_parameter_count() {
    let e = crate::config::parse_config(r#"{"model_type":"mamba","hidden_size":768}"#).unwrap_err();
    let e = in_file(
        &hf(),
        "state-spaces/mamba-130m-hf",
        "config.json",
        &e,
        Some(129_135_360),
    );
    assert_eq!(e.field, "hub");
    assert_eq!(
        e.problem,
        "`state-spaces/mamba-130m-hf` (https://huggingface.co), config.json: num_attention_heads: missing: `mamba` is not a model_type vramfit names, and read as a Llama-layout decoder it needs this key"
    );
    assert!(
        e.accepted
            .ends_with("; or its parameter count alone: --params 129135360"),
        "{e}"
    );
    let zh = e.zh();
    assert!(
        zh.problem.starts_with(
            "`state-spaces/mamba-130m-hf`（https://huggingface.co），config.json: num_attention_heads："
        ),
        "{zh}"
    );
    assert!(
        zh.accepted.ends_with("；或只用参数量：--params 129135360"),
        "{zh}"
    );
}

fn config(json: &str) -> ParsedConfig {
    crate::config::parse_config(json).unwrap()
}

const LLAMA_TINY: &str = r#"{"model_type":"llama","vocab_size":1000,"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,"torch_dtype":"bfloat16"}"#;

#[test]
fn the_model_comes_from_the_config_and_a_checkpoint_that_differs_is_noted() {
    let c = config(LLAMA_TINY);
    let params = c.arch.params();
    let header = |n: u64| SafetensorsHeader {
        header_len: 100,
        tensor_count: 3,
        total_params: n,
        total_bytes: 2 * n,
        by_dtype: vec![crate::headers::TypeCount {
            dtype: "BF16".into(),
            tensors: 3,
            params: n,
            bytes: Some(2 * n),
        }],
        metadata: Vec::new(),
        arch: None,
        notes: Vec::new(),
    };
    let read = |n: u64| Read {
        config: Some(c.clone()),
        safetensors: Some((vec!["model.safetensors".into()], header(n))),
        files_read: vec!["config.json".into(), "model.safetensors".into()],
        bytes_read: 1234,
        ..Read::default()
    };
    let m = assemble(&hf(), "x/y", read(params), None).unwrap();
    assert_eq!(m.model, c);
    assert_eq!(m.checkpoint.as_ref().unwrap().bytes, 2 * params);
    assert_eq!((m.revision.as_str(), m.bytes_read), ("main", 1234));
    assert!(m.model.notes.is_empty());
    let m = assemble(&hf(), "x/y", read(params + 10), None).unwrap();
    assert_eq!(
        m.model.notes,
        [format!(
            "config.json describes {params} parameters; the checkpoint holds {}: the estimate follows config.json.",
            params + 10
        )]
    );
    assert_eq!(m.notes(true).len(), 1);
    assert!(m.notes(true)[0].contains("检查点实有"));
    m.validate().unwrap();
}

/// A looked-up model gives its config's dtype as the checkpoint's own (`checkpoint_dtype`), not
/// as the run's `dtype`: vLLM then serves bge-m3's float32 in fp16, 567,754,752 × 2 B, as from
/// its preset; a dtype the person chose stays theirs.
#[test]
fn fill_gives_the_configs_dtype_as_the_checkpoints_not_the_runs() {
    use crate::estimate::{
        ComponentKind, Engine, EstimateInput, HardwareInput, Mode, RunInput, estimate,
    };
    use crate::precision::Dtype;
    let read = Read {
        config: Some(config(crate::config::encoder_tests::BGE_M3)),
        ..Read::default()
    };
    let m = assemble(&hf(), "BAAI/bge-m3", read, None).unwrap();
    let mut input = EstimateInput {
        run: RunInput {
            engine: Engine::Vllm,
            mode: Mode::Serve,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    m.fill(&mut input, true);
    assert_eq!(
        (input.run.dtype, input.model.checkpoint_dtype),
        (None, Some(Dtype::Fp32))
    );
    let e = estimate(&input).unwrap();
    assert_eq!(e.component_bytes(ComponentKind::Weights), 567_754_752 * 2);
    let mut chosen = {
        let mut input = input.clone();
        input.run.dtype = Some(Dtype::Fp32);
        input
    };
    m.fill(&mut chosen, true);
    assert_eq!(chosen.run.dtype, Some(Dtype::Fp32));
    let kept = estimate(&chosen).unwrap();
    assert_eq!(
        kept.component_bytes(ComponentKind::Weights),
        567_754_752 * 4
    );
}

#[test]
fn without_a_config_the_header_gives_the_model_or_the_error_offers_the_count() {
    let e = assemble(&hf(), "x/y", Read::default(), Some(42)).unwrap_err();
    assert!(
        e.problem
            .contains("`x/y` (https://huggingface.co): it has no config.json"),
        "{e}"
    );
    assert!(e.accepted.contains("--params 42"), "{e}");
    let e = assemble(&hf(), "x/y", Read::default(), None).unwrap_err();
    assert!(e.accepted.contains("--params N"), "{e}");
}

#[cfg(feature = "serde")]
#[test]
fn a_model_reads_back_from_json_with_its_chinese_notes() {
    let mut c = config(LLAMA_TINY);
    c.notes = vec!["a".into()];
    c.notes_zh = vec!["甲".into()];
    let m = assemble(
        &ms(),
        "x/y",
        Read {
            config: Some(c),
            ..Read::default()
        },
        None,
    )
    .unwrap();
    let json = serde_json::to_string(&m).unwrap();
    assert!(json.contains("\"kind\":\"modelscope\""), "{json}");
    let back: HubModel = serde_json::from_str(&json).unwrap();
    assert_eq!(back.notes(true), ["甲"]);
    assert_eq!(back.revision, "master");
    back.validate().unwrap();
    // A damaged copy (an architecture out of range) is refused.
    let bad = json.replace("\"hidden_size\":64", "\"hidden_size\":0");
    let bad: HubModel = serde_json::from_str(&bad).unwrap();
    assert!(bad.validate().is_err());
}

/// A reply of status 200 or 206 with `body`.
fn ok(status: u16, body: &[u8], total: Option<u64>) -> Reply {
    Reply::Http {
        status,
        code: None,
        retry_after: None,
        total,
        body: body.to_vec(),
    }
}

/// A safetensors file of one BF16 tensor per name, its header and length.
fn safetensors_file(names: &[(&str, &[u64])]) -> Vec<u8> {
    let mut offset = 0u64;
    let entries: Vec<String> = names
        .iter()
        .map(|(n, shape)| {
            let size = shape.iter().product::<u64>() * 2;
            let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
            let e = format!(
                "\"{n}\":{{\"dtype\":\"BF16\",\"shape\":[{}],\"data_offsets\":[{offset},{}]}}",
                dims.join(","),
                offset + size
            );
            offset += size;
            e
        })
        .collect();
    let json = format!("{{{}}}", entries.join(","));
    let mut f = (json.len() as u64).to_le_bytes().to_vec();
    f.extend_from_slice(json.as_bytes());
    f
}

#[test]
fn a_lookup_asks_for_the_list_the_config_then_each_header_by_range() {
    let h = hf();
    let mut l = Lookup::new(&h, "https://huggingface.co/x/y", None).unwrap();
    assert_eq!(l.repo(), "x/y");
    let r = l.request().unwrap().clone();
    assert_eq!(
        (r.url.as_str(), r.file.as_str(), r.range),
        ("https://huggingface.co/api/models/x/y", "", None)
    );
    l.answer(ok(
        200,
        br#"{"siblings":[{"rfilename":"config.json"},{"rfilename":"model.safetensors"}]}"#,
        None,
    ))
    .unwrap();
    let r = l.request().unwrap().clone();
    assert_eq!(r.url, "https://huggingface.co/x/y/resolve/main/config.json");
    l.answer(ok(200, LLAMA_TINY.as_bytes(), None)).unwrap();
    let file = safetensors_file(&[("a", &[3, 4]), ("b", &[5])]);
    let r = l.request().unwrap().clone();
    assert_eq!(
        (r.file.as_str(), r.range, r.limit),
        ("model.safetensors", Some((0, 7)), 8)
    );
    let total = file.len() as u64 + 34;
    l.answer(ok(206, &file[..8], Some(total))).unwrap();
    let n = file.len() as u64 - 8;
    let r = l.request().unwrap().clone();
    assert_eq!(
        r.range,
        Some((8, 8 + n - 1)),
        "the header the 8 bytes announce, and no more"
    );
    l.answer(ok(206, &file[8..], Some(total))).unwrap();
    assert!(l.request().is_none());
    let m = l.finish().unwrap();
    let c = m.checkpoint.unwrap();
    assert_eq!((c.tensors, c.params, c.bytes), (2, 17, 34));
    assert_eq!(m.files_read, ["config.json", "model.safetensors"]);
    let list = br#"{"siblings":[{"rfilename":"config.json"},{"rfilename":"model.safetensors"}]}"#;
    assert_eq!(
        m.bytes_read,
        (list.len() + LLAMA_TINY.len() + file.len()) as u64
    );
}

#[test]
fn a_lookup_refuses_what_a_hub_should_not_answer() {
    let h = hf();
    let list = br#"{"siblings":[{"rfilename":"model.safetensors"}]}"#;
    let start = || {
        let mut l = Lookup::new(&h, "x/y", None).unwrap();
        l.answer(ok(200, list, None)).unwrap();
        l
    };
    // 8 bytes asked, 3 given (the file is longer).
    let e = start().answer(ok(206, b"abc", Some(100))).unwrap_err();
    assert!(e.problem.contains("3 bytes where 8 were asked for"), "{e}");
    // The whole file where a range past its start was asked.
    let mut l = start();
    l.answer(ok(206, &64u64.to_le_bytes(), Some(1000))).unwrap();
    let e = l.answer(ok(200, &[0; 72], None)).unwrap_err();
    assert!(e.problem.contains("ignored the byte range"), "{e}");
    // A status, with Hugging Face's code, names what failed.
    let e = start()
        .answer(Reply::Http {
            status: 401,
            code: Some("GatedRepo".into()),
            retry_after: None,
            total: None,
            body: Vec::new(),
        })
        .unwrap_err();
    assert!(
        e.problem
            .contains("is gated: HTTP 401 for model.safetensors"),
        "{e}"
    );
    // A transport failure.
    let e = start()
        .answer(Reply::Failed(Failure::Timeout(7)))
        .unwrap_err();
    assert!(
        e.problem
            .contains("did not answer within 7 s for model.safetensors"),
        "{e}"
    );
    // A file list over 16 MiB is not read.
    let mut l = Lookup::new(&h, "x/y", None).unwrap();
    let e = l
        .answer(ok(200, &vec![b' '; (MAX_TEXT_BYTES + 1) as usize], None))
        .unwrap_err();
    assert_eq!(
        e.problem,
        "its file list of `x/y` has 16777217 bytes, over the 16 MiB vramfit reads of such a file"
    );
    // Finishing early is an error, not a half model.
    let e = Lookup::new(&h, "x/y", None).unwrap().finish().unwrap_err();
    assert!(e.problem.contains("not finished"), "{e}");
}

#[test]
fn run_drives_a_lookup_with_a_blocking_get() {
    let files = [
        (
            "https://www.modelscope.cn/api/v1/models/x/y/repo/files?Revision=master&Recursive=true",
            br#"{"Data":{"Files":[{"Path":"config.json","Type":"blob"}]}}"#.to_vec(),
        ),
        (
            "https://www.modelscope.cn/api/v1/models/x/y/repo?Revision=master&FilePath=config.json",
            LLAMA_TINY.as_bytes().to_vec(),
        ),
    ];
    let mut asked = Vec::new();
    let m = run(&ms(), "x/y", None, |r| {
        asked.push(r.url.clone());
        let body = files
            .iter()
            .find(|(u, _)| *u == r.url)
            .map(|(_, b)| b.clone())
            .unwrap_or_default();
        ok(200, &body, None)
    })
    .unwrap();
    assert_eq!(asked.len(), 2);
    assert_eq!(m.model.arch, config(LLAMA_TINY).arch);
    assert!(m.checkpoint.is_none());
    assert_eq!(m.revision, "master");
}
