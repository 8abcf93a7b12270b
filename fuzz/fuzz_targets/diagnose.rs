//! Every diagnosis parser on arbitrary bytes: no panic, and no NaN, infinity or negative number
//! in what comes out. Seed it with the real corpus:
//! `cargo +nightly fuzz run diagnose ../tests/corpus/diagnose`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit::diagnose::{self, Parsed};

fn ok(v: f64) -> bool {
    v.is_finite() && v >= 0.0
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let d = diagnose::diagnose(&text);
    for e in &d.evidence {
        assert!(e.value.is_none_or(ok), "{e:?}");
    }
    if let Parsed::NvidiaSmi(log) = &d.parsed {
        for s in &log.series {
            assert!(s.points.iter().all(|p| ok(p.x)));
            for f in s.fit.iter().chain(s.tail_fit.iter()) {
                assert!(ok(f.rate_mib_per_x) && ok(f.r2) && f.r2 <= 1.0);
            }
            assert!(s.growth_mib_per_x.is_none_or(ok) && s.hits_total_at_x.is_none_or(ok));
        }
    }
    let _ = diagnose::detect(&text);
    let _ = diagnose::parse_pytorch_oom(&text);
    let _ = diagnose::parse_memory_summaries(&text);
    let _ = diagnose::parse_nvidia_smi_table(&text);
    let _ = diagnose::parse_nvidia_smi_csv(&text);
    let _ = diagnose::parse_tensorflow_oom(&text);
    let _ = diagnose::parse_jax_oom(&text);
    let _ = diagnose::parse_vllm_error(&text);
    let _ = diagnose::parse_llamacpp_error(&text);
});
