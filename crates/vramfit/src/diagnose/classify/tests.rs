//! The classifier on real and hand-written inputs.

use super::*;

/// Text pasted from a Markdown quote (`> ` before every line, as GitHub shows a pasted log)
/// reads as the text itself: an nvidia-smi table's rows and a memory summary's lines.
#[test]
fn a_quoted_paste_reads_as_the_text() {
    for text in [
        include_str!(
            "../../../../../tests/corpus/diagnose/smi-table-notebook-kernel-holds-10gib.txt"
        ),
        include_str!(
            "../../../../../tests/corpus/diagnose/summary-2.x-fragmented-with-retries.txt"
        ),
        "RuntimeError: CUDA out of memory. Tried to allocate 60.00 MiB (GPU 0; 11.17 GiB total \
         capacity; 505.96 MiB already allocated; 12.50 MiB free; 530.00 MiB reserved in total \
         by PyTorch)",
    ] {
        let plain = diagnose(text);
        let quoted: String = text.lines().map(|l| alloc::format!("> {l}\n")).collect();
        let nested: String = text.lines().map(|l| alloc::format!("> > {l}\n")).collect();
        for q in [quoted, nested] {
            let d = diagnose(&q);
            assert_eq!(
                (d.kind, d.input, d.leaf.clone()),
                (plain.kind, plain.input, plain.leaf.clone())
            );
            assert_eq!(d.evidence, plain.evidence);
            assert_eq!(detect(&q), plain.input);
        }
        assert_ne!(plain.input, InputFormat::Unknown);
    }
    // A text with one quoted line among many is left as it is.
    assert!(matches!(
        super::unquote("a\nb\n> c\nd\n"),
        alloc::borrow::Cow::Borrowed(_)
    ));
}

fn bytes(d: &Diagnosis, name: &str) -> Option<u64> {
    d.evidence
        .iter()
        .find(|e| e.name == name)
        .and_then(|e| e.bytes)
        .map(Bytes::get)
}

/// One `nvidia-smi` print (driver 535 layout): GPUs as (index, used MiB, total MiB),
/// processes as (gpu, pid, name, memory as printed).
fn smi_table(gpus: &[(u32, u64, u64)], procs: &[(u32, u64, &str, &str)]) -> String {
    let mut t = String::from(
        "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n",
    );
    for (i, used, total) in gpus {
        t.push_str(&format!(
            "|   {i}  NVIDIA GeForce RTX 4090        Off | 00000000:01:00.0 Off |                  Off |\n| 30%   52C    P2             281W / 450W |  {used}MiB / {total}MiB |     97%      Default |\n"
        ));
    }
    t.push_str("| Processes:                                                                            |\n");
    for (g, pid, name, mem) in procs {
        t.push_str(&format!(
            "|    {g}   N/A  N/A     {pid}      C   {name}                          {mem} |\n"
        ));
    }
    t
}

/// The brief's case: a stale notebook kernel keeps 10 GiB of a nearly full 24 GB card.
#[test]
fn another_process_holding_a_full_card_is_named_first() {
    let d = diagnose(&smi_table(
        &[(0, 24010, 24564)],
        &[
            (0, 48812, "python", "13700MiB"),
            (0, 3121, "/opt/conda/bin/python", "10240MiB"),
        ],
    ));
    assert_eq!(d.input, InputFormat::NvidiaSmiTable);
    assert_eq!(d.kind, Kind::Capacity);
    assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
    assert_eq!(d.confidence, Confidence::Medium);
    assert_eq!(d.fixes[0].id, "stop_other_processes");
    assert!(d.what_to_paste_instead.is_none());
    assert_eq!(bytes(&d, "other_processes"), Some(10240 << 20));
    assert_eq!(bytes(&d, "process_memory"), Some(13700 << 20));
    let en = &d.explanation.en;
    for part in [
        "PID 48812 (python) 13.38 GiB",
        "PID 3121 (/opt/conda/bin/python) 10.00 GiB",
        "Besides the largest (PID 48812), the others hold 10.00 GiB (42 % of the 23.99 GiB card)",
        "nearly full",
    ] {
        assert!(en.contains(part), "{part}: {en}");
    }
    let zh = &d.explanation.zh;
    assert!(
        zh.contains("PID 3121") && zh.contains("10.00 GiB") && zh.contains("42%"),
        "{zh}"
    );
    assert!(d.notes.is_empty());
}

/// One process holding the card: the verdict of a single print, unchanged.
#[test]
fn one_process_keeps_the_single_print_verdict() {
    let d = diagnose(&smi_table(
        &[(0, 23400, 24564)],
        &[(0, 42420, "python", "22900MiB")],
    ));
    assert_eq!(d.kind, Kind::Unknown);
    assert_eq!(d.confidence, Confidence::Low);
    assert!(d.fixes.iter().all(|f| f.id != "stop_other_processes"));
    assert!(d.notes.is_empty());
    assert_eq!(bytes(&d, "other_processes"), None);
}

/// A desktop's Xorg and shell beside the job (under 10 % of the card): named in a note,
/// the verdict and the fixes unchanged.
#[test]
fn small_other_processes_are_only_noted() {
    let d = diagnose(&smi_table(
        &[(0, 23400, 24564)],
        &[
            (0, 1842, "/usr/lib/xorg/Xorg", "215MiB"),
            (0, 2101, "/usr/bin/gnome-shell", "48MiB"),
            (0, 42420, "python", "22900MiB"),
            (0, 5555, "idle", "0MiB"),
        ],
    ));
    assert_eq!(d.kind, Kind::Unknown);
    assert!(d.fixes.iter().all(|f| f.id != "stop_other_processes"));
    assert_eq!(bytes(&d, "other_processes"), Some(263 << 20));
    assert_eq!(d.notes.len(), 1);
    let n = &d.notes[0];
    assert!(n.en.contains("GPU 0: 3 processes hold memory"), "{}", n.en);
    assert!(n.en.contains("Too little"), "{}", n.en);
    assert!(
        !n.en.contains("5555"),
        "0 MiB is not holding memory: {}",
        n.en
    );
    assert!(
        n.zh.contains("PID 1842") && n.zh.contains("不足以"),
        "{}",
        n.zh
    );
}

/// `N/A` memory: the others hold at least what is printed; all `N/A`, nothing is computed.
#[test]
fn na_memory_gives_a_lower_bound_or_nothing() {
    let d = diagnose(&smi_table(
        &[(0, 24010, 24564)],
        &[
            (0, 1, "python", "13700MiB"),
            (0, 2, "python", "8000MiB"),
            (0, 3, "python", "N/A"),
        ],
    ));
    assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
    assert_eq!(d.fixes[0].id, "stop_other_processes");
    assert_eq!(bytes(&d, "other_processes"), Some(8000 << 20));
    assert!(
        d.explanation
            .en
            .contains("the others hold at least 7.81 GiB"),
        "{}",
        d.explanation.en
    );
    assert!(d.explanation.en.contains("PID 3 (python) N/A"));
    assert!(d.explanation.zh.contains("至少"));

    let d = diagnose(&smi_table(
        &[(0, 24010, 24564)],
        &[(0, 1, "python", "N/A"), (0, 2, "python", "N/A")],
    ));
    assert_eq!(d.kind, Kind::Unknown);
    assert_eq!(bytes(&d, "other_processes"), None);
    assert!(d.fixes.iter().all(|f| f.id != "stop_other_processes"));
    assert_eq!(d.notes.len(), 1);
    assert!(d.notes[0].en.contains("N/A"), "{}", d.notes[0].en);
}

/// Several GPUs: the verdict is about the GPU whose others hold the largest share; other
/// shared GPUs get notes; ranks also on other GPUs are named as such.
#[test]
fn several_gpus_pick_the_largest_share() {
    let d = diagnose(&smi_table(
        &[(0, 30000, 81559), (1, 80000, 81559), (2, 12000, 81559)],
        &[
            (0, 10, "python", "20000MiB"),
            (0, 11, "python", "9500MiB"),
            (1, 20, "python", "50000MiB"),
            (1, 21, "jupyter", "29500MiB"),
            (2, 11, "python", "11500MiB"),
        ],
    ));
    assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
    assert_eq!(d.confidence, Confidence::Medium);
    assert!(
        d.explanation.en.starts_with("GPU 1: 2 processes"),
        "{}",
        d.explanation.en
    );
    assert_eq!(bytes(&d, "other_processes"), Some(9500 << 20));
    assert_eq!(d.notes.len(), 1);
    assert!(d.notes[0].en.starts_with("GPU 0:"), "{}", d.notes[0].en);
    assert!(
        d.notes[0]
            .en
            .contains("(PID 11) also hold memory on other GPUs"),
        "{}",
        d.notes[0].en
    );
    assert!(d.notes[0].zh.contains("rank"), "{}", d.notes[0].zh);
}

/// A curve keeps its verdict; the last print's other processes are noted.
#[test]
fn a_curve_keeps_its_verdict_with_a_note() {
    let mut log = String::new();
    for i in 0..8u64 {
        log.push_str(&smi_table(
            &[(0, 10000 + 1000 * i, 81559)],
            &[(0, 1, "python", "9000MiB"), (0, 2, "python", "20000MiB")],
        ));
    }
    let d = diagnose(&log);
    assert_eq!(d.kind, Kind::Leak);
    assert_eq!(d.fixes[0].id, "free_graph_refs");
    assert_eq!(d.notes.len(), 1);
    assert!(
        d.notes[0].en.contains("the others hold 8.79 GiB"),
        "{}",
        d.notes[0].en
    );
}

/// 2.1 and later, another process listed: this process needs 11.91 + 1.95 GiB of a
/// 23.65 GiB card, so it is the 10 GiB of process 1111, not the job's peak.
#[test]
fn a_listed_process_holding_the_card_is_the_cause() {
    let d = diagnose(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.20 GiB is free. Process 1111 has 10.00 GiB memory in use. Process 2222 has 12.43 GiB memory in use. Including non-PyTorch memory, this process has 12.43 GiB memory in use. Of the allocated memory 11.50 GiB is allocated by PyTorch, and 420.00 MiB is reserved by PyTorch but unallocated.",
    );
    assert_eq!(d.kind, Kind::Capacity);
    assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
    assert_eq!(d.confidence, Confidence::High);
    assert_eq!(d.fixes[0].id, "stop_other_processes");
    assert_eq!(bytes(&d, "other_processes"), Some(10 << 30));
    // 23.65 GiB − (11.50 GiB + 420 MiB) − 1.20 GiB, each rounded to the byte.
    assert_eq!(
        bytes(&d, "outside_pytorch"),
        Some(25_393_994_138 - (12_348_030_976 + 440_401_920) - 1_288_490_189)
    );
    assert!(
        d.explanation.en.contains("13.86 GiB in all"),
        "{}",
        d.explanation.en
    );
}

/// Small stray contexts of other ranks (4 × 414 MiB on a 39.49 GiB card) are not the
/// cause: the verdict stays the peak, but freeing them is offered.
#[test]
fn small_other_processes_keep_the_peak_verdict() {
    let d = diagnose(
        "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 572.00 MiB. GPU 0 has a total capacity of 39.49 GiB of which 321.31 MiB is free. Process 3721648 has 414.00 MiB memory in use. Including non-PyTorch memory, this process has 37.46 GiB memory in use. Process 1374765 has 414.00 MiB memory in use. Process 1374763 has 414.00 MiB memory in use. Process 1374764 has 414.00 MiB memory in use. Of the allocated memory 36.04 GiB is allocated by PyTorch, and 321.37 MiB is reserved by PyTorch but unallocated.",
    );
    assert_eq!(d.leaf.as_deref(), Some("capacity_peak"));
    assert_eq!(d.confidence, Confidence::Medium);
    assert_eq!(bytes(&d, "other_processes"), Some((4 * 414) << 20));
    assert!(d.fixes.iter().any(|f| f.id == "stop_other_processes"));
    assert!(
        d.explanation
            .en
            .contains("Other processes also hold 1.62 GiB")
    );
}

/// Nothing in PyTorch's cache and 7.78 GiB of a 7.79 GiB card held elsewhere: the request of
/// 1 MiB fails because of that memory.
#[test]
fn an_empty_cache_on_a_full_card() {
    let d = diagnose(
        "RuntimeError: CUDA out of memory. Tried to allocate 1024.00 KiB (GPU 0; 7.79 GiB total capacity; 0 bytes already allocated; 5.44 MiB free; 0 bytes reserved in total by PyTorch)",
    );
    assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
    assert_eq!(d.fixes[0].id, "stop_other_processes");
    assert_eq!(
        bytes(&d, "outside_pytorch"),
        Some(8_364_448_809 - 5_704_253)
    );
}

/// A request past 1 PiB is refused and named, not dropped as "cut".
#[test]
fn an_overflowing_request_is_named() {
    let d = diagnose(
        "RuntimeError: CUDA out of memory. Tried to allocate 99999999999999999999.00 GiB (GPU 0; 15.78 GiB total capacity; 14.56 GiB already allocated; 3.44 MiB free; 14.71 GiB reserved in total by PyTorch)",
    );
    assert_eq!(d.confidence, Confidence::Low);
    assert_eq!(bytes(&d, "requested"), None);
    assert_eq!(bytes(&d, "total_capacity"), Some(16_943_645_983));
    assert!(
        d.explanation
            .en
            .contains("`99999999999999999999.00 GiB` is not a size")
    );
    assert!(!d.explanation.en.contains("cut"));
    assert!(
        d.notes
            .iter()
            .any(|n| n.en.contains("99999999999999999999.00 GiB")
                && n.zh.contains("99999999999999999999.00 GiB"))
    );
    assert!(d.what_to_paste_instead.is_some());
}

/// `1e300 GiB` is not 300 GiB, `1e30 GiB` not a capacity.
#[test]
fn exponents_are_refused_whole() {
    let d = diagnose(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 1e30 GiB of which 1.05 GiB is free. Of the allocated memory 1e300 GiB is allocated by PyTorch, and 1.60 GiB is reserved by PyTorch but unallocated.",
    );
    assert_eq!(bytes(&d, "allocated"), None);
    assert_eq!(bytes(&d, "total_capacity"), None);
    assert_eq!(bytes(&d, "requested"), Some(2 << 30));
    assert_eq!(d.confidence, Confidence::Low);
    assert!(
        d.explanation
            .en
            .contains("`1e30 GiB` and `1e300 GiB` are not sizes")
    );
    assert!(!d.explanation.en.contains('%'));
}

/// Allocated above reserved (and above the card) cannot be: no percentage over 100, no
/// derived 0 B, no kind.
#[test]
fn allocated_above_reserved_is_a_contradiction() {
    let d = diagnose(
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; 20.56 GiB already allocated; 3.44 MiB free; 14.71 GiB reserved in total by PyTorch)",
    );
    assert_eq!(d.kind, Kind::Unknown);
    assert!(
        d.explanation
            .en
            .contains("20.56 GiB allocated is more than 14.71 GiB reserved")
    );
    assert!(d.explanation.zh.contains("20.56 GiB"));
    assert_eq!(bytes(&d, "reserved_unallocated"), None);
    assert!(!d.explanation.en.contains('%'));
    assert!(
        d.notes
            .iter()
            .all(|n| !n.en.contains("shared system memory"))
    );
    assert!(d.what_to_paste_instead.is_some());

    let zero = diagnose(
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 0 bytes total capacity; 0 bytes already allocated; 0 bytes free; 0 bytes reserved in total by PyTorch)",
    );
    assert_eq!(zero.kind, Kind::Unknown);
    assert!(zero.explanation.en.contains("0 B"));
}

/// A WSL-shaped message (allocated above the card, below reserved) is not a contradiction.
#[test]
fn wsl_allocated_above_the_card_is_not_a_contradiction() {
    let d = diagnose(
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB (GPU 0; 8.00 GiB total capacity; 17.20 GiB already allocated; 0 bytes free; 19.15 GiB reserved in total by PyTorch)",
    );
    assert_eq!(d.leaf.as_deref(), Some("capacity_peak"));
    assert!(
        d.notes
            .iter()
            .any(|n| n.en.contains("shared system memory"))
    );
    // No share of the card above 100 %.
    assert!(
        d.explanation
            .en
            .contains("Live tensors hold 17.20 GiB, more than the whole 8.00 GiB card"),
        "{}",
        d.explanation.en
    );
    assert!(!d.explanation.en.contains(" %)"));
}

/// A GPU failure after a pinned-memory warning: the GPU buffer's size is the request.
#[test]
fn a_pinned_warning_does_not_hide_a_gpu_failure() {
    let d = diagnose(
        "ggml_cuda_host_malloc: failed to allocate 1024.00 MiB of pinned memory: out of memory\nalloc_tensor_range: failed to allocate CUDA0 buffer of size 10345253120\nllama_model_load: error loading model: unable to allocate CUDA0 buffer",
    );
    assert_eq!(d.kind, Kind::Capacity);
    assert_eq!(d.leaf.as_deref(), Some("capacity_static"));
    assert_eq!(bytes(&d, "requested"), Some(10_345_253_120));
}

/// The newer spelling of XLA's allocator message.
#[test]
fn xla_resource_exhausted_request() {
    let d = diagnose(
        "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 2.00GiB (2147483648B) on device ordinal 0",
    );
    assert_eq!(d.input, InputFormat::JaxOom);
    assert_eq!(d.leaf.as_deref(), Some("capacity_peak"));
    assert_eq!(bytes(&d, "requested"), Some(2_147_483_648));
    // A byte count past 1 PiB is refused.
    let d = diagnose(
        "RESOURCE_EXHAUSTED: Failed to allocate request for 8.00EiB (9223372036854775807B) on device ordinal 0",
    );
    assert_eq!(d.input, InputFormat::JaxOom);
    assert_eq!(bytes(&d, "requested"), None);
    assert_eq!(d.confidence, Confidence::Low);
}
