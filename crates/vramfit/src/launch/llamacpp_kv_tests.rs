//! llama-server's `--kv-unified` (`-kvu`) written and read back: the flag where the input
//! asks for one KV cache, nothing where `-np` is to split it, and the same KV cache either way.

use super::{command_text, launch_input, read_command};
use crate::estimate::{
    Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, ServingInput, estimate,
};
use crate::precision::{GgufFileType, Quantization};

fn gpt_oss(kv_unified: Option<bool>) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("openai/gpt-oss-20b".into()),
            quantization: Quantization::Gguf {
                file_type: GgufFileType::Q4_K_M,
            },
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Llamacpp,
            batch: 4.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            kv_unified,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

#[test]
fn kv_unified_is_written_and_read_back() {
    for (asked, flag) in [(Some(true), true), (None, false)] {
        let input = gpt_oss(asked);
        let line = command_text(&launch_input(&input).unwrap().commands[0]);
        assert_eq!(line.contains(" --kv-unified"), flag, "{line}");
        assert!(line.contains(" -np 4"), "{line}");
        let r = read_command(&line).unwrap();
        assert!(r.not_read.is_empty(), "{line}: {:?}", r.not_read);
        assert_eq!(r.input.serving.kv_unified, asked, "{line}");
        let back = EstimateInput {
            hardware: HardwareInput {
                gpu: input.hardware.gpu.clone(),
                ..r.input.hardware
            },
            ..r.input
        };
        assert_eq!(
            estimate(&back).unwrap().kv_cache_bytes,
            estimate(&input).unwrap().kv_cache_bytes,
            "{line}"
        );
    }
    // llama.cpp's short spellings, and the negation (`common/arg.cpp` of b11434:
    // `{"-kvu", "--kv-unified"}, {"-no-kvu", "--no-kv-unified"}`).
    for (flag, unified) in [
        ("-kvu", true),
        ("-no-kvu", false),
        ("--no-kv-unified", false),
    ] {
        let line = alloc::format!("llama-server -m gpt-oss-20b-Q4_K_M.gguf -c 8192 -np 4 {flag}");
        assert_eq!(
            read_command(&line).unwrap().input.serving.kv_unified,
            Some(unified),
            "{flag}"
        );
    }
}

/// llama-server's `--kv-unified-per-slot N` (ggml-org/llama.cpp#24124, from b10662; its help in
/// `common/arg.cpp`: "context limit per parallel slot … when set without -c/--ctx-size, the
/// shared KV pool is sized to n_parallel*N") read as the input's `kv_unified_per_slot`, the
/// context left to the estimate: without `-c`, `-np 4` slots of 8,192 are a pool of 4 × 8,192 =
/// 32,768 tokens, the KV cache of `-c 32768 -np 4`; without `-np` llama-server's automatic 4
/// slots (`tools/server/server.cpp`: "using n_parallel = 4 and kv_unified = true"), the same
/// pool. With `-c` it only caps each slot (`n_ctx_slot`): the pool is `-c`'s; N of 0 does
/// nothing.
#[test]
fn kv_unified_per_slot_sizes_the_pool_without_a_context() {
    let read = |flags: &str| {
        let line = alloc::format!("llama-server -m gpt-oss-20b-Q4_K_M.gguf {flags}");
        let r = read_command(&line).unwrap();
        assert!(r.not_read.is_empty(), "{line}: {:?}", r.not_read);
        r.input
    };
    let kv = |flags: &str| {
        let input = {
            let mut input = read(flags);
            input.hardware.gpu = Some("h100-sxm5-80gb".into());
            input
        };
        estimate(&input).unwrap().kv_cache_bytes
    };
    for flags in [
        "-np 4 --kv-unified-per-slot 8192",
        "--kv-unified-per-slot 8192",
        "-c 0 -np 4 --kv-unified-per-slot 8192",
    ] {
        let i = read(flags);
        assert_eq!(
            (i.serving.max_model_len, i.serving.kv_unified_per_slot),
            (None, Some(8192.0))
        );
        assert_eq!(i.run.batch, 4.0, "{flags}");
    }
    // The pool so read holds the KV cache of the same pool given as -c.
    assert_eq!(kv("-np 4 --kv-unified-per-slot 8192"), kv("-c 32768 -np 4"));
    assert_eq!(kv("--kv-unified-per-slot 8192"), kv("-c 32768"));
    assert_eq!(kv("-np 2 --kv-unified-per-slot 8192"), kv("-c 16384 -np 2"));
    let capped = read("-c 16384 -np 8 --kv-unified-per-slot 4096");
    assert_eq!(capped.serving.max_model_len, Some(16_384.0));
    assert_eq!(
        kv("-c 16384 -np 8 --kv-unified-per-slot 4096"),
        kv("-c 16384 -np 8")
    );
    // N of 0: as without the flag, the trained context (131,072 for gpt-oss-20b).
    let zero = read("-np 4 --kv-unified-per-slot 0");
    assert_eq!(zero.serving.kv_unified_per_slot, None);
    assert_eq!(zero.serving.max_model_len, Some(131_072.0));
}

/// `kv_unified_per_slot` written into the llama-server launch and read back: 4 unified slots
/// of 4,096 tokens without a context are `-c 16384 -np 4 --kv-unified-per-slot 4096`,
/// gpt-oss-20b's unified 16,384-token cache of (12 × 16,384 + 12 × GGML_PAD(128 × 4 + 512, 256)
/// = 1,024) cells × 2,048 B = 427,819,008 B either way, with a note of the flag's first build
/// for older ones.
#[test]
fn kv_unified_per_slot_is_written_and_read_back() {
    let input = {
        let mut input = gpt_oss(Some(true));
        input.serving.max_model_len = None;
        input.serving.kv_unified_per_slot = Some(4096.0);
        input
    };
    let launch = launch_input(&input).unwrap();
    let line = command_text(&launch.commands[0]);
    for flag in [
        " -c 16384",
        " -np 4",
        " --kv-unified-per-slot 4096",
        " --kv-unified",
    ] {
        assert!(line.contains(flag), "{flag}: {line}");
    }
    assert!(
        launch
            .notes
            .iter()
            .any(|n| n.en.contains("b10662") && n.zh.contains("b10662")),
        "{:?}",
        launch.notes
    );
    let r = read_command(&line).unwrap();
    assert!(r.not_read.is_empty(), "{line}: {:?}", r.not_read);
    assert_eq!(r.input.serving.kv_unified_per_slot, Some(4096.0));
    let back = EstimateInput {
        hardware: HardwareInput {
            gpu: input.hardware.gpu.clone(),
            ..r.input.hardware
        },
        ..r.input
    };
    let kv = |i: &EstimateInput| estimate(i).unwrap().kv_cache_bytes.get();
    assert_eq!(kv(&input), 427_819_008);
    assert_eq!(kv(&back), 427_819_008);
    // Without the field nothing is written.
    let plain = command_text(&launch_input(&gpt_oss(Some(true))).unwrap().commands[0]);
    assert!(!plain.contains("--kv-unified-per-slot"), "{plain}");
}

/// llama-server without `-c` (or with `-c 0`) allocates the context the model was trained with
/// (`common_params::n_ctx = 0`, "0 == context the model was trained with", `common/common.h`;
/// `--fit` lowers it toward 4,096 only where the free memory lacks): Llama 3.1 8B's 131,072
/// tokens, whose f16 KV is 2 × 32 layers × 8 KV heads × 128 × 2 B = 131,072 B a token, 16 GiB
/// (it read as 2,304 tokens, 288 MiB, before: an under-estimate of 15.7 GiB).
#[test]
fn a_command_without_a_context_gets_the_trained_one() {
    for line in [
        "llama-server -m Meta-Llama-3.1-8B-Q4_K_M.gguf",
        "llama-server -m Meta-Llama-3.1-8B-Q4_K_M.gguf -c 0",
    ] {
        let r = read_command(line).unwrap();
        assert_eq!(r.input.serving.max_model_len, Some(131_072.0), "{line}");
        let e = estimate(&EstimateInput {
            hardware: HardwareInput {
                gpu: Some("h100-sxm5-80gb".into()),
                ..r.input.hardware
            },
            ..r.input
        })
        .unwrap();
        assert_eq!(e.kv_cache_bytes.get(), 16 << 30, "{line}");
    }
    // A context given is kept.
    let r = read_command("llama-server -m Meta-Llama-3.1-8B-Q4_K_M.gguf -c 8192").unwrap();
    assert_eq!(r.input.serving.max_model_len, Some(8192.0));
}

/// `--kv-unified-per-slot N` does not make the cache unified by itself: llama-server sizes the
/// pool from it (`tools/server/server.cpp`, `ctx_pool_auto_sized`: `n_ctx = n_parallel *
/// kv_unified_per_slot` where `-c` is not given) and sets `kv_unified = true` only where it
/// picks the slots (`n_parallel < 0`: "using n_parallel = 4 and kv_unified = true"); the flag's
/// help says "default: unset, behavior unchanged" (`common/arg.cpp`; both read in copies of
/// builds from b10662, where PR #24124 added the flag, to b10734). So `-np 4
/// --kv-unified-per-slot 8192` is a pool of 32,768 cells split in 4 streams as `-c 32768 -np 4`
/// is, and `-kvu` or no `-np` unifies it. By hand, gpt-oss-20b (12 full layers, 12 sliding over
/// 128 tokens, 2,048 B per cell per layer in f16), `-ub 512`:
/// - split: 4 streams × (12 × GGML_PAD(32,768 / 4, 256) = 8,192 + 12 × GGML_PAD(128 + 512,
///   256) = 768) × 2,048 B = 4 × 107,520 × 2,048 = 880,803,840 B;
/// - unified: (12 × 32,768 + 12 × GGML_PAD(128 × 4 + 512, 256) = 1,024) × 2,048 B =
///   405,504 × 2,048 = 830,472,192 B.
#[test]
fn kv_unified_per_slot_leaves_the_split_as_given() {
    let kv = |flags: &str| {
        let line = alloc::format!("llama-server -m gpt-oss-20b-Q4_K_M.gguf -ub 512 {flags}");
        let r = read_command(&line).unwrap();
        assert!(r.not_read.is_empty(), "{line}: {:?}", r.not_read);
        let input = EstimateInput {
            hardware: HardwareInput {
                gpu: Some("h100-sxm5-80gb".into()),
                ..r.input.hardware
            },
            ..r.input
        };
        (
            input.serving.kv_unified,
            estimate(&input).unwrap().kv_cache_bytes.get(),
        )
    };
    let split = 4 * (12 * 8192 + 12 * 768) * 2048;
    let unified = (12 * 32_768 + 12 * 1024) * 2048;
    assert_eq!((split, unified), (880_803_840, 830_472_192));
    assert_eq!(
        kv("-np 4 --kv-unified-per-slot 8192"),
        (None, split),
        "the flag alone splits by -np"
    );
    assert_eq!(
        kv("-np 4 --kv-unified-per-slot 8192").1,
        kv("-c 32768 -np 4").1
    );
    assert_eq!(
        kv("-np 4 -kvu --kv-unified-per-slot 8192"),
        (Some(true), unified)
    );
    // Without -np llama-server picks 4 slots and unifies them itself.
    assert_eq!(kv("--kv-unified-per-slot 8192").1, unified);
}
