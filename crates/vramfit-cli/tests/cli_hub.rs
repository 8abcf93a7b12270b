//! `vramfit estimate --model OWNER/NAME --hub` against the mock hub (`tests/hub`): the exact
//! weights of an fp16, an AWQ, an FP8, a bnb-4bit and a GGUF repo, each against a hand
//! calculation from its tensor shapes; ModelScope's shape; the cache; every failure.

use std::path::PathBuf;
use std::process::Command;

use vramfit_mock_hub::MockHub;

/// A fresh cache folder for one test.
fn cache(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vramfit-hub-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs vramfit with `args` and the cache in `cache`, no mirror from the environment.
fn run(cache: &PathBuf, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vramfit"));
    c.args(args)
        .env("VRAMFIT_CACHE_DIR", cache)
        .env_remove("HF_ENDPOINT")
        .env_remove("MODELSCOPE_DOMAIN");
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run vramfit");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The estimate's JSON for `repo` looked up on `hub` (Hugging Face's shape).
fn estimate(hub: &MockHub, cache: &PathBuf, repo: &str, extra: &[&str]) -> serde_json::Value {
    let url = hub.url();
    let mut args = vec![
        "estimate",
        "--model",
        repo,
        "--hub",
        "--hub-endpoint",
        &url,
        "--json",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = run(cache, &args, &[]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("one JSON object")
}

/// Requests that read a weights file's tensor data, or a weights file without a range.
fn weights_read(hub: &MockHub) -> Vec<String> {
    hub.log()
        .iter()
        .filter(|l| {
            l.data_bytes > 0
                || (l.range.is_none()
                    && (l.target.contains(".safetensors") || l.target.contains(".gguf"))
                    && !l.target.contains(".json"))
        })
        .map(|l| format!("{} {:?}", l.target, l.range))
        .collect()
}

fn checkpoint(v: &serde_json::Value) -> (u64, u64, u64) {
    let c = &v["hub"]["checkpoint"];
    (
        c["bytes"].as_u64().unwrap(),
        c["params"].as_u64().unwrap(),
        c["tensors"].as_u64().unwrap(),
    )
}

/// Bytes of one dtype in the checkpoint's `by_dtype`.
fn dtype_bytes(v: &serde_json::Value, dtype: &str) -> (u64, u64) {
    let t = v["hub"]["checkpoint"]["by_dtype"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["dtype"] == dtype)
        .unwrap_or_else(|| panic!("no {dtype}"));
    (t["tensors"].as_u64().unwrap(), t["bytes"].as_u64().unwrap())
}

// Qwen2 0.5B's projections, (out, in): q, k, v, o, gate, up, down (config.json: hidden 896,
// 14 heads and 2 KV heads of 64, intermediate 4864, 24 layers, vocabulary 151936, tied).
const QWEN05_LINEARS: [(u64, u64); 7] = [
    (896, 896),
    (128, 896),
    (128, 896),
    (896, 896),
    (4864, 896),
    (4864, 896),
    (896, 4864),
];

#[test]
fn a_bf16_repo_sharded_with_an_index_gives_its_exact_weights() {
    let hub = MockHub::start();
    let v = estimate(&hub, &cache("bf16"), "Qwen/Qwen2.5-3B-Instruct", &[]);
    // Qwen2.5-3B: hidden 2048, 16 heads and 2 KV heads of 128, intermediate 11008, 36 layers.
    let embed = 151_936 * 2048;
    let layer = 2048 * 2048 + 2048 // q_proj and its bias
        + 2 * (256 * 2048 + 256) // k_proj, v_proj and biases
        + 2048 * 2048 // o_proj
        + 3 * 2048 * 11_008 // gate, up, down
        + 2 * 2048; // the two norms
    let params: u64 = embed + 36 * layer + 2048;
    assert_eq!(params, 3_085_938_688);
    assert_eq!(checkpoint(&v), (2 * params, params, 434));
    assert_eq!(
        v["weights_bytes"],
        2 * params,
        "bf16: 2 bytes per parameter"
    );
    assert_eq!(v["params"], params);
    assert_eq!(
        v["hub"]["files_read"],
        serde_json::json!([
            "config.json",
            "model.safetensors.index.json",
            "model-00001-of-00002.safetensors",
            "model-00002-of-00002.safetensors"
        ])
    );
    assert_eq!(weights_read(&hub), Vec::<String>::new(), "headers only");
    // Each shard: 8 bytes, then its header; redirected to the CDN as huggingface.co does.
    let ranged: Vec<_> = hub
        .log()
        .into_iter()
        .filter(|l| l.target.starts_with("/__cdn/"))
        .collect();
    assert_eq!(ranged.len(), 4);
    assert_eq!(ranged[0].range.as_deref(), Some("bytes=0-7"));
}

/// A hybrid read through the hub: allenai/Olmo-Hybrid-7B's config.json and its three bf16
/// shards' headers (transformers 5.24.0's 475 tensors, `tests/hub/fixtures/write.py`).
#[test]
fn a_hybrid_repo_gives_its_exact_weights_and_its_state_beside_the_kv_cache() {
    let hub = MockHub::start();
    let v = estimate(
        &hub,
        &cache("olmo-hybrid"),
        "allenai/Olmo-Hybrid-7B",
        &["--batch", "2", "--seq-len", "1000", "--new-tokens", "24"],
    );
    // By hand (width 3840, FFN 11,008, vocabulary 100,352, untied): embeddings and head
    // 2 × 385,351,680 and the final norm; 32 FFNs of 3 × 3840 × 11,008 with 2 norms each; 8
    // attention layers of q, k, v, o 3840 × 3840 and q/k norms 2 × 3840; 24 Gated DeltaNet
    // layers of q, k 3840 × 2880, v, g, o 3840 × 5760, a, b 3840 × 30, conv1d 11,520 × 4,
    // A_log and dt_bias 30 each, the gated norm 192.
    let attention = 4 * 3840 * 3840 + 2 * 3840;
    let gdn = 2 * 3840 * 2880 + 3 * 3840 * 5760 + 2 * 3840 * 30 + 11_520 * 4 + 60 + 192;
    let params: u64 =
        2 * 100_352 * 3840 + 3840 + 32 * (3 * 3840 * 11_008 + 2 * 3840) + 8 * attention + 24 * gdn;
    assert_eq!(params, 7_430_870_688);
    assert_eq!(checkpoint(&v), (2 * params, params, 475));
    assert_eq!(v["params"], params);
    let part = |key: &str| {
        v["components"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["key"] == key)
            .map_or(0, |c| c["bytes"].as_u64().unwrap())
    };
    // transformers: K and V of the 8 attention layers, 30 heads of 128 in bf16, over 1,024
    // tokens of 2 sequences; per linear layer and sequence a bf16 convolution state of
    // 11,520 channels × 4 and an fp32 state of 30 heads × 96 × 192.
    assert_eq!(part("kv_cache"), 8 * 30 * 128 * 2 * 2 * 1024 * 2);
    assert_eq!(
        part("state_cache"),
        2 * 24 * (11_520 * 4 * 2 + 30 * 96 * 192 * 4)
    );
    assert_eq!(weights_read(&hub), Vec::<String>::new(), "headers only");
}

#[test]
fn an_awq_repo_gives_its_exact_weights() {
    let hub = MockHub::start();
    let v = estimate(&hub, &cache("awq"), "Qwen/Qwen2.5-0.5B-Instruct-AWQ", &[]);
    // AutoAWQ's GEMM layout, groups of 128 along the input: qweight I32 [in, out/8] (in·out/2
    // bytes), qzeros I32 [in/128, out/8] (in·out/256), scales F16 [in/128, out] (in·out/64).
    let linears: u64 = QWEN05_LINEARS
        .iter()
        .map(|&(o, i)| i * o / 2 + i * o / 256 + i * o / 64)
        .sum();
    let layer = linears + (896 + 128 + 128) * 2 + 2 * 896 * 2; // F16 biases and norms
    let bytes = 151_936 * 896 * 2 + 896 * 2 + 24 * layer; // F16 embedding (tied) and final norm
    assert_eq!(bytes, 458_314_496);
    assert_eq!(checkpoint(&v).0, bytes);
    assert_eq!(
        dtype_bytes(&v, "I32"),
        (
            24 * 7 * 2,
            24 * QWEN05_LINEARS
                .iter()
                .map(|&(o, i)| i * o / 2 + i * o / 256)
                .sum::<u64>()
        )
    );
    assert_eq!(
        v["weights_bytes"], bytes,
        "the AWQ format as vramfit models it is the checkpoint"
    );
    assert_eq!(v["hub"]["model"]["quantization"]["format"], "awq");
    assert_eq!(v["hub"]["model"]["quantization"]["group_size"], 128);
    assert_eq!(v["params"], 494_032_768);
    assert_eq!(weights_read(&hub), Vec::<String>::new());
}

#[test]
fn an_fp8_repo_gives_its_exact_checkpoint_and_says_how_the_estimate_differs() {
    let hub = MockHub::start();
    let v = estimate(&hub, &cache("fp8"), "Qwen/Qwen3-0.6B-FP8", &[]);
    // Qwen3-0.6B: hidden 1024, 16 heads and 8 KV heads of 128, intermediate 3072, 28 layers.
    // (out, in) of q, k, v, o, gate, up, down; F8_E4M3 weights, one F32 scale per 128×128 block.
    let linears: [(u64, u64); 7] = [
        (2048, 1024),
        (1024, 1024),
        (1024, 1024),
        (1024, 2048),
        (3072, 1024),
        (3072, 1024),
        (1024, 3072),
    ];
    let fp8: u64 = linears.iter().map(|&(o, i)| o * i).sum();
    let blocks: u64 = linears
        .iter()
        .map(|&(o, i)| o.div_ceil(128) * i.div_ceil(128))
        .sum();
    assert_eq!((fp8, blocks), (15_728_640, 960));
    let layer = fp8 + blocks * 4 + 2 * 128 * 2 + 2 * 1024 * 2; // q/k norms, two norms in BF16
    let bytes = 151_936 * 1024 * 2 + 1024 * 2 + 28 * layer;
    assert_eq!(bytes, 751_805_440);
    assert_eq!(checkpoint(&v).0, bytes);
    assert_eq!(dtype_bytes(&v, "F32"), (28 * 7, 28 * blocks * 4));
    // vramfit sizes FP8 with one F32 scale per output channel: 12,288 per layer, not 960.
    let outs: u64 = linears.iter().map(|&(o, _)| o).sum();
    assert_eq!(v["weights_bytes"], bytes + 28 * (outs - blocks) * 4);
    assert_eq!(v["hub"]["model"]["quantization"]["format"], "fp8");
}

#[test]
fn a_bnb_4bit_repo_gives_its_exact_checkpoint_and_says_how_the_estimate_differs() {
    let hub = MockHub::start();
    let v = estimate(
        &hub,
        &cache("bnb"),
        "unsloth/Qwen2.5-0.5B-Instruct-bnb-4bit",
        &[],
    );
    // bitsandbytes NF4 with double quantization, per linear of n weights: the packed weight
    // (n/2 U8), an absmax per 64 (n/64 U8), a nested F32 absmax per 256 of those, the nested
    // quant map (256 F32), the quant map (16 F32) and the packed quant state, a JSON text of
    // 163 bytes ([896, 896] or [128, 896]) or 164 ([4864, 896], [896, 4864]).
    let state = |o: u64, i: u64| if o.max(i) == 4864 { 164 } else { 163 };
    let linear = |o: u64, i: u64| {
        let n = o * i;
        n / 2 + n / 64 + (n / 64).div_ceil(256) * 4 + 256 * 4 + 16 * 4 + state(o, i)
    };
    let linears: u64 = QWEN05_LINEARS.iter().map(|&(o, i)| linear(o, i)).sum();
    let layer = linears + (896 + 128 + 128) * 2 + 2 * 896 * 2;
    let bytes = 151_936 * 896 * 2 + 896 * 2 + 24 * layer;
    assert_eq!(bytes, 457_214_336);
    assert_eq!(checkpoint(&v).0, bytes);
    // vramfit's NF4 counts the weight, absmax and nested absmax, not the maps and the state.
    let maps: u64 = QWEN05_LINEARS
        .iter()
        .map(|&(o, i)| 256 * 4 + 16 * 4 + state(o, i))
        .sum();
    assert_eq!(v["weights_bytes"], bytes - 24 * maps);
    assert_eq!(v["hub"]["model"]["quantization"]["format"], "bnb-nf4");
    assert_eq!(v["hub"]["model"]["quantization"]["double_quant"], true);
}

#[test]
fn a_gguf_repo_gives_its_exact_weights_on_llama_cpp() {
    let hub = MockHub::start();
    let v = estimate(&hub, &cache("gguf"), "Qwen/Qwen2.5-0.5B-Instruct-GGUF", &[]);
    // Q4_K_M of Qwen2.5-0.5B, as llama.cpp printed loading it
    // (https://github.com/ollama/ollama/issues/9031): f32 121, q5_0 132, q8_0 13, q4_K 12,
    // q6_K 12 tensors. Blocks: q5_0 22 bytes per 32, q8_0 34 per 32, q4_K 144 per 256, q6_K 210
    // per 256. A row of 896 is no whole block of 256: the tied embedding (Q6_K) and attn_v on
    // the 12 layers of more bits fall back to Q8_0, the other projections to Q5_0; ffn_down
    // (rows of 4864 = 19 × 256) is Q6_K on those 12 layers and Q4_K on the rest.
    let q5: u64 = 24 * (896 * 896 * 2 + 128 * 896 + 2 * 4864 * 896) + 12 * 128 * 896;
    let q8: u64 = 151_936 * 896 + 12 * 128 * 896;
    let down: u64 = 12 * 4864 * 896;
    let f32s: u64 = 24 * (2 * 896 + 896 + 128 + 128) + 896;
    assert_eq!(dtype_bytes(&v, "Q5_0"), (132, q5 / 32 * 22));
    assert_eq!(dtype_bytes(&v, "Q8_0"), (13, q8 / 32 * 34));
    assert_eq!(dtype_bytes(&v, "Q6_K"), (12, down / 256 * 210));
    assert_eq!(dtype_bytes(&v, "Q4_K"), (12, down / 256 * 144));
    assert_eq!(dtype_bytes(&v, "F32"), (121, f32s * 4));
    let bytes = q5 / 32 * 22 + q8 / 32 * 34 + down / 256 * 210 + down / 256 * 144 + f32s * 4;
    assert_eq!(bytes, 391_859_712);
    assert_eq!(checkpoint(&v), (bytes, 494_032_768, 290));
    assert_eq!(
        v["weights_bytes"], bytes,
        "llama.cpp's per-tensor types are the file's"
    );
    assert_eq!(v["hub"]["model"]["quantization"]["format"], "gguf");
    // A GGUF model runs on llama.cpp where no engine is named: its layers on the GPU.
    let weights = v["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "weights")
        .unwrap();
    assert!(
        weights["formula"]
            .as_str()
            .unwrap()
            .contains("blocks + output layer on the GPU"),
        "{weights}"
    );
    // The header, grown from a first megabyte by half again each time: tensor data read at most
    // in the last request, less than half the header.
    let log = hub.log();
    assert!(log.iter().all(|l| l.method == "GET"));
    let data: u64 = log.iter().map(|l| l.data_bytes).sum();
    let read: u64 = v["hub"]["bytes_read"].as_u64().unwrap();
    assert!(data < (read - data) / 2, "{data} bytes of tensor data");
    assert!(log.iter().filter(|l| l.data_bytes > 0).count() <= 1);
}

#[test]
fn a_gguf_file_is_chosen_by_a_part_of_its_name_and_a_wrong_one_names_the_choices() {
    let hub = MockHub::start();
    let c = cache("gguf-choice");
    let v = estimate(
        &hub,
        &c,
        "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
        &["--hub-file", "Q8_0"],
    );
    // Every 2-D tensor in Q8_0 (34 bytes per 32), the 121 vectors in F32.
    let f32s: u64 = 24 * (2 * 896 + 896 + 128 + 128) + 896;
    assert_eq!(checkpoint(&v).0, (494_032_768 - f32s) / 32 * 34 + f32s * 4);
    let url = hub.url();
    let (code, out, err) = run(
        &c,
        &[
            "estimate",
            "--model",
            "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
            "--hub",
            "--hub-endpoint",
            &url,
            "--hub-file",
            "IQ1",
        ],
        &[],
    );
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("no GGUF file matching `IQ1`"), "{err}");
    assert!(
        err.contains("qwen2.5-0.5b-instruct-q4_k_m.gguf, qwen2.5-0.5b-instruct-q8_0.gguf"),
        "{err}"
    );
}

#[test]
fn modelscope_gives_the_same_model_through_its_own_api() {
    let hub = MockHub::start();
    let url = hub.url();
    let hf = estimate(&hub, &cache("ms-hf"), "Qwen/Qwen2.5-0.5B-Instruct-AWQ", &[]);
    hub.clear();
    let (code, out, err) = run(
        &cache("ms"),
        &[
            "estimate",
            "--model",
            "Qwen/Qwen2.5-0.5B-Instruct-AWQ",
            "--hub",
            "modelscope",
            "--json",
        ],
        &[("MODELSCOPE_DOMAIN", &url)],
    );
    assert_eq!(code, 0, "{err}");
    let ms: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(ms["weights_bytes"], hf["weights_bytes"]);
    assert_eq!(ms["hub"]["checkpoint"], hf["hub"]["checkpoint"]);
    assert_eq!(ms["hub"]["hub"]["kind"], "modelscope");
    assert_eq!(ms["hub"]["revision"], "master");
    let log = hub.log();
    assert!(
        log[0].target.starts_with(
            "/api/v1/models/Qwen/Qwen2.5-0.5B-Instruct-AWQ/repo/files?Revision=master"
        ),
        "{log:?}"
    );
    assert!(log.iter().any(|l| {
        l.target
            .contains("repo?Revision=master&FilePath=config.json")
    }));
    assert!(log.iter().any(|l| l.target.starts_with("/__mscdn/")));
    assert_eq!(weights_read(&hub), Vec::<String>::new());
}

#[test]
fn hf_endpoint_names_the_mirror() {
    let hub = MockHub::start();
    let url = hub.url();
    let (code, out, err) = run(
        &cache("mirror"),
        &["estimate", "--model", "Qwen/Qwen3-0.6B-FP8", "--hub"],
        &[("HF_ENDPOINT", &url)],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(&format!(
            "From the hub: Qwen/Qwen3-0.6B-FP8 on {url} (main)"
        )),
        "{out}"
    );
    assert!(
        out.contains("Checkpoint (safetensors): 506 tensors, 751,805,440 bytes"),
        "{out}"
    );
    assert!(!hub.log().is_empty());
}

#[test]
fn a_model_once_read_comes_from_the_cache_and_a_damaged_copy_is_read_again() {
    let hub = MockHub::start();
    let c = cache("cache");
    let first = estimate(&hub, &c, "Qwen/Qwen2.5-0.5B-Instruct-AWQ", &[]);
    assert!(!hub.log().is_empty());
    hub.clear();
    let again = estimate(&hub, &c, "Qwen/Qwen2.5-0.5B-Instruct-AWQ", &[]);
    assert_eq!(again, first);
    assert!(hub.log().is_empty(), "from the cache: {:?}", hub.log());
    // --hub-refresh asks again.
    estimate(
        &hub,
        &c,
        "Qwen/Qwen2.5-0.5B-Instruct-AWQ",
        &["--hub-refresh"],
    );
    assert!(!hub.log().is_empty());
    // A damaged copy is not believed.
    let host = hub.url().replace("http://", "").replace(':', "_");
    let file = c.join(format!(
        "hub/huggingface/{host}/Qwen/Qwen2.5-0.5B-Instruct-AWQ.json"
    ));
    assert!(file.is_file(), "{}", file.display());
    std::fs::write(&file, "{\"repo\":").unwrap();
    hub.clear();
    assert_eq!(
        estimate(&hub, &c, "Qwen/Qwen2.5-0.5B-Instruct-AWQ", &[]),
        first
    );
    assert!(!hub.log().is_empty());
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("458314496")
    );
}

/// Looks `repo` up and expects exit code 2, nothing on stdout, a message with each of `says`,
/// and nothing cached.
fn fails(hub: &MockHub, repo: &str, extra: &[&str], says: &[&str]) {
    let c = cache(&repo.replace('/', "-"));
    let url = hub.url();
    let mut args = vec!["estimate", "--model", repo, "--hub", "--hub-endpoint", &url];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&c, &args, &[]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.starts_with("error: --hub: "), "{err}");
    for s in says {
        assert!(err.contains(s), "{s:?} not in {err}");
    }
    let cached = std::fs::read_dir(&c).map(|d| d.count()).unwrap_or(0);
    assert_eq!(cached, 0, "a failure is never cached");
}

#[test]
fn each_failure_names_the_repo_and_what_to_do_and_exits_2() {
    let hub = MockHub::start();
    let page = format!("{}/meta-llama/Llama-3.1-8B", hub.url());
    fails(
        &hub,
        "meta-llama/Llama-3.1-8B",
        &[],
        &[
            "`meta-llama/Llama-3.1-8B`",
            "is gated: HTTP 401 for config.json",
            "accept its licence at",
            &page,
        ],
    );
    fails(
        &hub,
        "Qwen/Qwen9-404B",
        &[],
        &[
            "`Qwen/Qwen9-404B` is not on",
            "(HTTP 401)",
            "does not exist, or it is private",
        ],
    );
    fails(
        &hub,
        "mock/rate-limited",
        &[],
        &["HTTP 429", "`mock/rate-limited`", "wait 30 s and ask again"],
    );
    fails(
        &hub,
        "mock/slow",
        &["--hub-timeout", "1"],
        &[
            "did not answer within 1 s",
            "`mock/slow`",
            "HF_ENDPOINT=https://hf-mirror.com",
        ],
    );
    fails(
        &hub,
        "mock/huge-header",
        &[],
        &[
            "model.safetensors of `mock/huge-header`",
            "104857600 bytes, over the 64 MiB",
        ],
    );
    fails(
        &hub,
        "state-spaces/mamba-130m-hf",
        &[],
        &[
            "`state-spaces/mamba-130m-hf`",
            "config.json: num_attention_heads: missing: `mamba` is not a model_type vramfit names",
            "one of llama",
        ],
    );
    fails(
        &hub,
        "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
        &["--hub-file", "IQ1"],
        &["no GGUF file matching"],
    );
    fails(&hub, "no repo", &[], &["`no repo` is not a repo id"]);
    // The huge header's file was never read past its first 8 bytes.
    assert!(
        hub.log()
            .iter()
            .filter(|l| l.target.contains("huge"))
            .all(|l| l.bytes <= 8 || !l.target.contains("safetensors"))
    );
}

#[test]
fn a_hub_out_of_reach_is_a_clear_error() {
    let c = cache("unreachable");
    let (code, out, err) = run(
        &c,
        &[
            "estimate",
            "--model",
            "Qwen/Qwen3-0.6B-FP8",
            "--hub",
            "--hub-endpoint",
            "http://127.0.0.1:9",
        ],
        &[],
    );
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains(
            "http://127.0.0.1:9 could not be reached for its file list of `Qwen/Qwen3-0.6B-FP8`"
        ),
        "{err}"
    );
}

#[test]
fn hub_flags_need_a_model_and_a_hub() {
    let c = cache("flags");
    let (code, _, err) = run(&c, &["estimate", "--hub"], &[]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(
        &c,
        &["estimate", "--model", "x/y", "--hub-endpoint", "http://x"],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&c, &["estimate", "--model", "x/y", "--hub", "github"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("`github` is not a kind of hub"), "{err}");
}
