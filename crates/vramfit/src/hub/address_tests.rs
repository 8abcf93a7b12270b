//! Addresses beyond a hub's repos: a GGUF at any address, a Hugging Face file link, an Ollama
//! registry tag; the registry's manifest; the lookups they drive, with replies made by hand.

use alloc::string::String;
use alloc::vec::Vec;
use alloc::{format, vec};

use super::*;

/// A GGUF writer: the magic, version 3, then what is added (ggml's `gguf.c` layout: strings as
/// u64 length + bytes, a pair as key + u32 type + value, a tensor as name + u32 dims + u64 each +
/// u32 type + u64 offset).
struct Gguf(Vec<u8>);

impl Gguf {
    fn new(tensors: u64, kvs: u64) -> Gguf {
        let mut b = b"GGUF".to_vec();
        b.extend_from_slice(&3u32.to_le_bytes());
        b.extend_from_slice(&tensors.to_le_bytes());
        b.extend_from_slice(&kvs.to_le_bytes());
        Gguf(b)
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.0.extend_from_slice(&(s.len() as u64).to_le_bytes());
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    fn kv_u32(&mut self, k: &str, v: u32) -> &mut Self {
        self.str(k);
        self.0.extend_from_slice(&4u32.to_le_bytes());
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn kv_str(&mut self, k: &str, v: &str) -> &mut Self {
        self.str(k);
        self.0.extend_from_slice(&8u32.to_le_bytes());
        self.str(v)
    }
    fn tensor(&mut self, name: &str, dims: &[u64], ty: u32) -> &mut Self {
        self.str(name);
        self.0.extend_from_slice(&(dims.len() as u32).to_le_bytes());
        for d in dims {
            self.0.extend_from_slice(&d.to_le_bytes());
        }
        self.0.extend_from_slice(&ty.to_le_bytes());
        self.0.extend_from_slice(&0u64.to_le_bytes());
        self
    }
}

/// A Llama-shaped Q8_0 GGUF header: vocabulary 32, width 64, 1 block of 2 heads (1 KV head),
/// FFN 128, tied embeddings; every tensor F32 (type 0) but the embedding, Q8_0 (type 8).
fn llama_gguf() -> Vec<u8> {
    let mut g = Gguf::new(11, 7);
    g.kv_str("general.architecture", "llama")
        .kv_u32("general.file_type", 7)
        .kv_u32("llama.block_count", 1)
        .kv_u32("llama.embedding_length", 64)
        .kv_u32("llama.attention.head_count", 2)
        .kv_u32("llama.attention.head_count_kv", 1)
        .kv_u32("llama.feed_forward_length", 128);
    g.tensor("token_embd.weight", &[64, 32], 8)
        .tensor("blk.0.attn_norm.weight", &[64], 0)
        .tensor("blk.0.attn_q.weight", &[64, 64], 0)
        .tensor("blk.0.attn_k.weight", &[64, 32], 0)
        .tensor("blk.0.attn_v.weight", &[64, 32], 0)
        .tensor("blk.0.attn_output.weight", &[64, 64], 0)
        .tensor("blk.0.ffn_gate.weight", &[64, 128], 0)
        .tensor("blk.0.ffn_up.weight", &[64, 128], 0)
        .tensor("blk.0.ffn_norm.weight", &[64], 0)
        .tensor("blk.0.ffn_down.weight", &[128, 64], 0)
        .tensor("output_norm.weight", &[64], 0);
    g.0
}

/// Elements of [`llama_gguf`], by hand: embedding 2,048; three norms of 64; q 4,096, k and v
/// 2,048 each, o 4,096; gate, up and down 8,192 each.
const LLAMA_PARAMS: u64 = 2_048 + 3 * 64 + 4_096 + 2 * 2_048 + 4_096 + 3 * 8_192;

fn ok(status: u16, body: &[u8], total: Option<u64>) -> Reply {
    Reply::Http {
        status,
        code: None,
        retry_after: None,
        total,
        body: body.to_vec(),
    }
}

/// The answer of a server that honours Range, for `r`, from a file of `total` bytes that starts
/// with `start` (zeros after it: the tensors' data).
fn serve(start: &[u8], total: u64, r: &Request) -> Reply {
    let (a, b) = r.range.unwrap();
    let body: Vec<u8> = (a..=b.min(total - 1))
        .map(|i| start.get(i as usize).copied().unwrap_or(0))
        .collect();
    ok(206, &body, Some(total))
}

fn status(status: u16) -> Reply {
    Reply::Http {
        status,
        code: None,
        retry_after: None,
        total: None,
        body: Vec::new(),
    }
}

const D1: &str = "sha256:667b0c1932bc6ffc593ed1d03f895bf2dc8dc6df21db3042284a6f4416b06a29";
const D2: &str = "sha256:948af2743fc78a328dcb3b0f5a31b3d75f415840fdb699e8b1235978392ecf85";
const D3: &str = "sha256:0ba8f0e314b4264dfd19df045cde9d4c394a52474bf92ed6a3de22a4ca31a177";

/// A manifest as registry.ollama.ai serves it: the Docker v2 schema (ollama's
/// `manifest/manifest.go` `Manifest`, `manifest/layer.go` `Layer`), a config blob, the model,
/// a projector where given, then the template, licence and parameters layers.
fn manifest(projector: bool) -> String {
    let proj = if projector {
        format!(
            r#"{{"mediaType":"application/vnd.ollama.image.projector","digest":"{D3}","size":851251104}},"#
        )
    } else {
        String::new()
    };
    format!(
        r#"{{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json","config":{{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"{D2}","size":485}},"layers":[{{"mediaType":"application/vnd.ollama.image.model","digest":"{D1}","size":4920738944}},{proj}{{"mediaType":"application/vnd.ollama.image.template","digest":"{D2}","size":1481}},{{"mediaType":"application/vnd.ollama.image.license","digest":"{D2}","size":12320}},{{"mediaType":"application/vnd.ollama.image.params","digest":"{D2}","size":96}}]}}"#
    )
}

#[test]
fn ollama_names_as_ollama_reads_them() {
    for (text, host, repo) in [
        ("llama3.1:8b", None, "library/llama3.1:8b"),
        ("gemma3", None, "library/gemma3:latest"),
        ("library/qwen3:30b-a3b", None, "library/qwen3:30b-a3b"),
        ("user_1/my-model:q4_K_M", None, "user_1/my-model:q4_K_M"),
        (
            "registry.ollama.ai/library/gemma3:4b",
            Some("https://registry.ollama.ai"),
            "library/gemma3:4b",
        ),
        (
            "https://ollama.com/library/qwen3",
            Some("https://registry.ollama.ai"),
            "library/qwen3:latest",
        ),
        (
            "http://localhost:5000/library/x:1",
            Some("http://localhost:5000"),
            "library/x:1",
        ),
    ] {
        let (h, r) = address::ollama_parts(text).unwrap();
        assert_eq!((h.as_deref(), r.as_str()), (host, repo), "{text}");
    }
    for bad in [
        "",
        "Llama 3",
        "a/b/c/d",
        "-x",
        "x:",
        "x:-y",
        "ns.dot/x",
        "x@sha256:00",
        "ftp://h/a/b",
        &"m".repeat(81),
    ] {
        let e = address::ollama_parts(bad).unwrap_err();
        assert_eq!(e.field, "hub");
        assert!(
            e.problem.contains("is not an Ollama model name"),
            "{bad}: {e}"
        );
        assert!(e.accepted.contains("llama3.1:8b"), "{e}");
    }
}

#[test]
fn what_a_person_types_becomes_a_hub_and_a_repo() {
    let ollama = Hub::new(HubKind::Ollama, OLLAMA_REGISTRY).unwrap();
    let t = target("llama3.1:8b", Some(&ollama)).unwrap();
    assert_eq!(
        (t.hub.kind, t.repo.as_str()),
        (HubKind::Ollama, "library/llama3.1:8b")
    );
    let t = target("registry.ollama.ai/library/gemma3:4b", None).unwrap();
    assert_eq!(
        (t.hub, t.repo.as_str()),
        (ollama.clone(), "library/gemma3:4b")
    );
    // A Hugging Face link to a GGUF: the repo and the file, as the repo lists it.
    let t = target(
        "https://huggingface.co/bartowski/Qwen2.5-7B-Instruct-GGUF/blob/main/sub%20dir/Qwen2.5-7B-Instruct-Q4_K_M.gguf?download=true",
        None,
    )
    .unwrap();
    assert_eq!(t.hub.endpoint, "https://huggingface.co");
    assert_eq!(t.repo, "bartowski/Qwen2.5-7B-Instruct-GGUF");
    assert_eq!(
        t.file.as_deref(),
        Some("sub dir/Qwen2.5-7B-Instruct-Q4_K_M.gguf")
    );
    // On the mirror chosen, a huggingface.co link reads from the mirror.
    let mirror = Hub::at("https://hf-mirror.com").unwrap();
    let t = target(
        "https://huggingface.co/a/b/resolve/main/x.gguf",
        Some(&mirror),
    )
    .unwrap();
    assert_eq!((t.hub, t.file.as_deref()), (mirror.clone(), Some("x.gguf")));
    // Another revision: that file itself, at its download address.
    let t = target("https://huggingface.co/a/b/blob/v2/x.gguf", None).unwrap();
    assert_eq!(t.hub.kind, HubKind::Url);
    assert_eq!(t.repo, "https://huggingface.co/a/b/resolve/v2/x.gguf");
    // Any server.
    let t = target("https://files.example.com:8443/m/Model-Q4_K_M.GGUF", None).unwrap();
    assert_eq!(
        (t.hub.kind, t.hub.endpoint.as_str(), t.repo.as_str()),
        (
            HubKind::Url,
            "https://files.example.com:8443",
            "https://files.example.com:8443/m/Model-Q4_K_M.GGUF"
        )
    );
    // A repo's address, as before, with a hub chosen; without one, only a GGUF's.
    let hf = Hub::at("https://huggingface.co").unwrap();
    let t = target(
        "https://huggingface.co/Qwen/Qwen3-0.6B/tree/main",
        Some(&hf),
    )
    .unwrap();
    assert_eq!((t.repo.as_str(), t.file), ("Qwen/Qwen3-0.6B", None));
    assert_eq!(target("Qwen/Qwen3-0.6B", None).unwrap().hub, hf);
    for bad in [
        "https://example.com/model.bin",
        "https://example.com/",
        "https://user@example.com/m.gguf",
        "https://exa mple.com/m.gguf",
        "https://example.com/.gguf",
    ] {
        let e = target(bad, None).unwrap_err();
        assert!(
            e.problem.contains("is not the address of a GGUF file"),
            "{bad}: {e}"
        );
    }
    assert!(is_address("https://x/y.gguf") && is_address("ollama.com/library/qwen3"));
    assert!(!is_address("llama3.1:8b") && !is_address("Qwen/Qwen3-0.6B"));
}

#[test]
fn a_split_gguf_is_read_from_its_first_part_by_the_names_of_the_others() {
    assert_eq!(
        address::gguf_parts("https://h/d/M-Q8_0-00002-of-00003.gguf?x=1").unwrap(),
        [
            "https://h/d/M-Q8_0-00001-of-00003.gguf?x=1",
            "https://h/d/M-Q8_0-00002-of-00003.gguf?x=1",
            "https://h/d/M-Q8_0-00003-of-00003.gguf?x=1",
        ]
    );
    assert_eq!(
        address::gguf_parts("https://h/M.gguf").unwrap(),
        ["https://h/M.gguf"]
    );
    // Part 4 of 3 is not a split's name: the file alone.
    assert_eq!(
        address::gguf_parts("https://h/M-00004-of-00003.gguf")
            .unwrap()
            .len(),
        1
    );
    let e = address::gguf_parts("https://h/M-00001-of-99999.gguf").unwrap_err();
    assert!(e.problem.contains("99999 parts"), "{e}");
}

#[test]
fn ollama_addresses() {
    let h = Hub::new(HubKind::Ollama, OLLAMA_REGISTRY).unwrap();
    assert_eq!(
        h.list_url("library/llama3.1:8b"),
        "https://registry.ollama.ai/v2/library/llama3.1/manifests/8b"
    );
    assert_eq!(
        h.file_url("library/llama3.1:8b", D1),
        format!("https://registry.ollama.ai/v2/library/llama3.1/blobs/{D1}")
    );
    assert_eq!(
        h.page_url("library/llama3.1:8b"),
        "https://ollama.com/llama3.1:8b"
    );
    assert_eq!(h.page_url("u/m:t"), "https://ollama.com/u/m:t");
    assert_eq!(HubKind::parse("Ollama").unwrap(), HubKind::Ollama);
    assert_eq!(Hub::at("https://registry.ollama.ai").unwrap(), h);
}

#[test]
fn a_manifest_gives_the_model_blob_and_the_projector() {
    let h = Hub::new(HubKind::Ollama, OLLAMA_REGISTRY).unwrap();
    let m = ollama::read_manifest(&h, "library/x:1", &manifest(true)).unwrap();
    assert_eq!(m.model.digest, D1);
    assert_eq!(m.model.size, Some(4_920_738_944));
    let p = m.projector.unwrap();
    assert_eq!((p.digest.as_str(), p.size), (D3, Some(851_251_104)));
    assert!(
        ollama::read_manifest(&h, "library/x:1", &manifest(false))
            .unwrap()
            .projector
            .is_none()
    );
    // No model layer: the layers it has, named.
    let tensors = manifest(false).replace("image.model", "image.tensor");
    let e = ollama::read_manifest(&h, "library/x:1", &tensors).unwrap_err();
    assert!(e.problem.contains("has no GGUF model layer"), "{e}");
    assert!(
        e.problem.contains("application/vnd.ollama.image.tensor"),
        "{e}"
    );
    // A digest that is not sha256 and 64 lowercase hex digits.
    for d in [
        "sha256:667B0C1932bc6ffc593ed1d03f895bf2dc8dc6df21db3042284a6f4416b06a29",
        "sha256:667b",
        "sha512:667b0c1932bc6ffc593ed1d03f895bf2dc8dc6df21db3042284a6f4416b06a29",
        "../../etc/passwd",
    ] {
        let e = ollama::read_manifest(&h, "library/x:1", &manifest(false).replacen(D1, d, 1))
            .unwrap_err();
        assert!(e.problem.contains("which is not a digest"), "{d}: {e}");
    }
    for (body, why) in [
        ("<html>", "expected value"),
        ("{}", "no `layers` list"),
        (
            &manifest(false).replace("4920738944", "-1"),
            "is not a byte count",
        ),
    ] {
        let e = ollama::read_manifest(&h, "library/x:1", body).unwrap_err();
        assert!(
            e.problem.contains(why) && e.problem.contains("manifest"),
            "{e}"
        );
    }
}

#[test]
fn an_ollama_tag_reads_its_manifest_then_the_model_blobs_header_by_range() {
    let hub = Hub::new(HubKind::Ollama, OLLAMA_REGISTRY).unwrap();
    let mut l = Lookup::of("qwen3:0.6b", Some(&hub), None).unwrap();
    let r = l.request().unwrap().clone();
    assert_eq!(
        r.url,
        "https://registry.ollama.ai/v2/library/qwen3/manifests/0.6b"
    );
    assert_eq!(
        r.accept,
        Some("application/vnd.docker.distribution.manifest.v2+json")
    );
    assert_eq!(r.range, None);
    let man = manifest(true);
    l.answer(ok(200, man.as_bytes(), None)).unwrap();
    let r = l.request().unwrap().clone();
    assert_eq!(
        r.url,
        format!("https://registry.ollama.ai/v2/library/qwen3/blobs/{D1}")
    );
    assert_eq!((r.range, r.accept), (Some((0, (1 << 20) - 1)), None));
    let g = llama_gguf();
    l.answer(serve(&g, 4_920_738_944, &r)).unwrap();
    assert!(l.request().is_none());
    let m = l.finish().unwrap();
    assert_eq!(
        (m.repo.as_str(), m.revision.as_str()),
        ("library/qwen3:0.6b", "0.6b")
    );
    assert_eq!(m.files_read, ["manifest", D1]);
    assert_eq!(m.bytes_read, (man.len() + (1 << 20)) as u64);
    assert!(m.is_gguf());
    assert_eq!(m.model.arch.params(), LLAMA_PARAMS);
    assert!(
        m.notes(false)
            .iter()
            .any(|n| n.contains("vision projector (mmproj) of 851251104 bytes"))
    );
    assert!(m.notes(true).iter().any(|n| n.contains("视觉投影层")));
    m.validate().unwrap();
    // A missing tag: the registry's 404, named with what to write.
    let mut l = Lookup::of("qwen3:999b", Some(&hub), None).unwrap();
    let e = l.answer(status(404)).unwrap_err();
    assert!(
        e.problem
            .contains("`library/qwen3:999b` is not on https://registry.ollama.ai"),
        "{e}"
    );
    assert!(e.accepted.contains("https://ollama.com/qwen3:999b"), "{e}");
    // A manifest over 16 MiB is not read.
    let mut l = Lookup::of("qwen3", Some(&hub), None).unwrap();
    let e = l
        .answer(ok(200, &vec![b' '; (MAX_TEXT_BYTES + 1) as usize], None))
        .unwrap_err();
    assert!(e.problem.contains("over the 16 MiB"), "{e}");
}

#[test]
fn a_gguf_at_an_address_is_read_by_range_and_estimated_from_its_header() {
    let url = "https://files.example.com/m/tiny-Q8_0.gguf";
    let mut l = Lookup::of(url, None, None).unwrap();
    let r = l.request().unwrap().clone();
    assert_eq!((r.url.as_str(), r.range), (url, Some((0, (1 << 20) - 1))));
    let g = llama_gguf();
    l.answer(serve(&g, 1 << 30, &r)).unwrap();
    let m = l.finish().unwrap();
    assert_eq!(
        (m.hub.kind, m.repo.as_str(), m.revision.as_str()),
        (HubKind::Url, url, "")
    );
    assert_eq!(m.model.model_type, "gguf (llama)");
    let c = m.checkpoint.as_ref().unwrap();
    assert_eq!((c.tensors, c.params), (11, LLAMA_PARAMS));
    // Q8_0: 34 bytes per 32 elements; F32: 4 bytes each.
    assert_eq!(c.bytes, 2_048 / 32 * 34 + (LLAMA_PARAMS - 2_048) * 4);
    m.validate().unwrap();
    #[cfg(feature = "serde")]
    {
        let back: HubModel = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(back, m);
    }
    // A header longer than the first megabyte (a string of 2 MiB announced): the rest by range,
    // and a server that then sends the whole file (it ignores Range) is refused.
    let mut p = Gguf::new(0, 1);
    p.str("k");
    p.0.extend_from_slice(&8u32.to_le_bytes());
    p.0.extend_from_slice(&(2u64 << 20).to_le_bytes());
    let mut big = Lookup::of(url, None, None).unwrap();
    let r = big.request().unwrap().clone();
    big.answer(serve(&p.0, 1 << 30, &r)).unwrap();
    let r = big.request().unwrap().clone();
    assert_eq!(r.range.unwrap().0, 1 << 20);
    let e = big.answer(ok(200, &g, None)).unwrap_err();
    assert!(e.problem.contains("ignored the byte range"), "{e}");
    // Not a GGUF (an HTML page), and a header cut short by the file's end: named.
    let e = Lookup::of(url, None, None)
        .unwrap()
        .answer(ok(200, b"<!doctype html>", None))
        .unwrap_err();
    assert!(
        e.problem.contains("does not start with the GGUF magic"),
        "{e}"
    );
    let short = g.len() as u64 - 10;
    let e = Lookup::of(url, None, None)
        .unwrap()
        .answer(ok(206, &g[..short as usize], Some(short)))
        .unwrap_err();
    assert_eq!(e.field, "hub");
    assert!(e.problem.contains(url), "{e}");
    // A missing file.
    let e = Lookup::of(url, None, None)
        .unwrap()
        .answer(status(404))
        .unwrap_err();
    assert_eq!(
        e.problem,
        format!("https://files.example.com has no {url} (HTTP 404)")
    );
}

#[test]
fn a_split_gguf_at_an_address_reads_each_part() {
    let url = "https://h.example/m-00001-of-00002.gguf";
    let mut asked = Vec::new();
    let g = llama_gguf();
    let r = run_lookup(Lookup::of(url, None, None).unwrap(), |r| {
        asked.push(r.url.clone());
        serve(&g, 1 << 30, r)
    });
    assert_eq!(asked, [url, "https://h.example/m-00002-of-00002.gguf"]);
    // Both parts' tensors are counted; a split's architecture needs its config.json.
    let e = r.unwrap_err();
    assert!(
        e.problem.contains("its GGUF header names no architecture"),
        "{e}"
    );
    assert!(
        e.accepted
            .contains(&format!("--params {}", 2 * LLAMA_PARAMS)),
        "{e}"
    );
}
