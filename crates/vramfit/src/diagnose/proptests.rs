//! Every parser, fed arbitrary text and bytes, returns without panicking, and what it returns
//! holds no NaN, infinity or negative number.

use alloc::string::String;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::*;

/// Fragments of the real formats, so that random text reaches deep into the parsers.
const PIECES: &[&str] = &[
    "CUDA out of memory. Tried to allocate ",
    "2.00 GiB",
    " (GPU 0; ",
    "15.78 GiB total capacity; ",
    "already allocated; ",
    "free; ",
    "reserved in total by PyTorch)",
    ". GPU 0 has a total capacity of ",
    " of which ",
    " is free. ",
    "Process 12345 has ",
    " memory in use. ",
    "Including non-PyTorch memory, this process has ",
    "Of the allocated memory ",
    " is allocated by PyTorch, and ",
    " is reserved by PyTorch but unallocated.",
    "| Allocated memory      |",
    "  14935 MB |",
    " 631465 KB |",
    "|",
    "PyTorch CUDA memory summary, device ID 0",
    "CUDA OOMs: 58 | cudaMalloc retries: 66",
    "| GPU reserved memory   |",
    "| Non-releasable memory |",
    "| Non-releasable allocs |",
    "|  12345MiB / 81559MiB |",
    "NVIDIA-SMI 535.104.05",
    "|   0  NVIDIA A100 On |",
    "| Processes: |\n",
    "|    0   N/A  N/A     12345      C   python   12000MiB |\n",
    "|    0   N/A  N/A     23456    C+G   python   N/A |\n",
    "|    1     777      G   Xorg   0 MiB |\n",
    "timestamp, index, memory.used [MiB], memory.total [MiB]\n",
    "2024/05/01 12:00:01.123, 0, 1234 MiB, 81920 MiB\n",
    "OOM when allocating tensor with shape[",
    "64,2016,9,9",
    "] and type float on /job:localhost",
    " by allocator GPU_0_bfc",
    "Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.34GiB (rounded to 2511536640)",
    "Limit: 99",
    "InUse: ",
    "RESOURCE_EXHAUSTED: Out of memory while trying to allocate ",
    " bytes.",
    "max seq len (",
    "131072",
    ") is larger than the maximum number of tokens that can be stored in KV cache (",
    "38656)",
    "(24.0 GiB KV cache is needed, which is larger than the available KV cache memory (3.18 GiB).",
    "Free memory on device (13.5/23.55 GiB) on startup is less than desired GPU memory utilization (0.9, 21.2 GiB).",
    "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4096.00 MiB on device 0: cudaMalloc failed: out of memory",
    "ggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size ",
    "offloaded 39/41 layers to GPU",
    "No available memory for the cache blocks",
    "显存",
    "\n",
    " ",
    ",",
    ".",
    "99999999999999999999999",
    "1e308",
    "-5",
    "NaN",
];

fn stitched() -> impl Strategy<Value = String> {
    prop::collection::vec((0..PIECES.len(), any::<u16>()), 0..40).prop_map(|v| {
        let mut s = String::new();
        for (i, n) in v {
            s.push_str(PIECES[i]);
            if n % 3 == 0 {
                s.push_str(&alloc::format!("{}", n));
            }
        }
        s
    })
}

fn finite(v: f64) -> bool {
    v.is_finite() && v >= 0.0
}

fn check(d: &Diagnosis) {
    for e in &d.evidence {
        if let Some(v) = e.value {
            assert!(finite(v), "{e:?}");
        }
    }
    if let Parsed::NvidiaSmi(log) = &d.parsed {
        for s in &log.series {
            for p in &s.points {
                assert!(finite(p.x));
            }
            for f in s.fit.iter().chain(s.tail_fit.iter()) {
                assert!(
                    finite(f.rate_mib_per_x)
                        && finite(f.r2)
                        && f.r2 <= 1.0
                        && finite(f.start.x)
                        && finite(f.end.x)
                );
            }
            for v in s.growth_mib_per_x.iter().chain(s.hits_total_at_x.iter()) {
                assert!(finite(*v));
            }
        }
    }
    if d.kind == Kind::Unknown {
        assert!(d.what_to_paste_instead.is_some());
    }
}

fn all_parsers(s: &str) {
    check(&diagnose(s));
    let _ = detect(s);
    let _ = parse_pytorch_oom(s);
    let _ = parse_memory_summaries(s);
    let _ = parse_nvidia_smi_table(s);
    let _ = parse_nvidia_smi_csv(s);
    let _ = parse_tensorflow_oom(s);
    let _ = parse_jax_oom(s);
    let _ = parse_vllm_error(s);
    let _ = parse_llamacpp_error(s);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_strings_do_not_panic(s in any::<String>()) {
        all_parsers(&s);
    }

    #[test]
    fn arbitrary_bytes_do_not_panic(b in prop::collection::vec(any::<u8>(), 0..2048)) {
        let s = String::from_utf8_lossy(&b);
        all_parsers(&s);
    }

    #[test]
    fn stitched_fragments_do_not_panic(s in stitched()) {
        all_parsers(&s);
    }

    #[test]
    fn csv_series_of_any_numbers(v in prop::collection::vec((0u64..200_000, 0u64..200_000), 0..64)) {
        let mut s = String::from("timestamp, index, memory.used [MiB], memory.total [MiB]\n");
        for (i, (u, t)) in v.iter().enumerate() {
            s.push_str(&alloc::format!("2024/05/01 12:{:02}:{:02}.000, 0, {u} MiB, {t} MiB\n", (i / 60) % 60, i % 60));
        }
        check(&diagnose(&s));
    }
}

#[test]
fn huge_input_is_bounded() {
    let mut s = String::new();
    let line = "| N/A   33C    P0    61W / 400W |  12345MiB / 81920MiB |      0%      Default |\n";
    while s.len() < (6 << 20) {
        s.push_str(line);
    }
    let d = diagnose(&s);
    assert!(!d.notes.is_empty());
    let _: Vec<_> = d.evidence;
}

#[test]
fn pathological_long_lines_stay_linear() {
    // One 4 MiB line full of slashes and `MiB` (the table parser looks at every `/`), one of
    // `Process ` (the PyTorch parser lists processes), one of separators (the CSV parser).
    for unit in [
        "1MiB/",
        "Process 1 has 2 GiB memory in use. ",
        "|,",
        "Tried to allocate 1 GiB (GPU 0;",
    ] {
        let mut s = String::with_capacity(MAX_INPUT_BYTES);
        while s.len() + unit.len() <= MAX_INPUT_BYTES {
            s.push_str(unit);
        }
        let t = std::time::Instant::now();
        let d = diagnose(&s);
        check(&d);
        // Debug build, shared CI cores: generous, but quadratic work would take minutes.
        assert!(t.elapsed().as_secs() < 20, "{unit}: {:?}", t.elapsed());
    }
}
