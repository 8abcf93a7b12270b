//! llama-server's slots where `-np` is not given: from ggml-org/llama.cpp PR #16736 ("server :
//! support unified cache across slots"), `common_params::n_parallel` defaults to -1 ("number of
//! server slots (default: -1, -1 = auto)", `common/arg.cpp`) and the server resolves it before
//! loading the model:
//!
//! ```text
//! if (params.n_parallel < 0) {
//!     params.n_parallel = 4;
//!     params.kv_unified = true;
//! }
//! ```
//!
//! (`tools/server/server.cpp`, `llama_server`, read at ggml-org/llama.cpp 00dd0816; the log line
//! "n_parallel is set to auto, using n_parallel = 4 and kv_unified = true"). Four sequences over
//! one cache: the KV pool is `-c` as with one slot, but each buffer sized by the sequences grows
//! with them: one reserved output per sequence in the compute buffer (`n_outputs_max`, from
//! b9509), a hybrid's recurrent state per sequence, a sliding-window cache of `n_swa × 4 +
//! ubatch` cells. `kv_unified` is forced even over `--no-kv-unified`.
//!
//! The PR was opened on 2025-10-23, and b7079 (2025-11-16) starts 4 slots without `-np`
//! (ggml-org/llama.cpp issue #17300's log, "initializing slots, n_slots = 4"); its merge build is
//! not printed in any log found, so vramfit takes the automatic slots from b6301 (2025-08-27,
//! luncliff/vcpkg-registry#433), before the PR existed: builds between b6301 and the merge,
//! which ran one slot, are counted with four, over by three outputs (and three recurrent
//! states), the safe side.

use crate::estimate::{Engine, EstimateInput, LlamacppBuild, RunnerType};

/// The slots llama-server serves without `-np`.
pub const AUTO_SLOTS: f64 = 4.0;

/// `input` as llama-server runs it without `-np`: 4 slots over one unified KV cache, in a build
/// that picks them (`engine_version`, the latest when not given); the context the sequences
/// share pinned first where it was not given, so the pool keeps the size it had (`seq_len +
/// new_tokens` × the batch it was read with). Other engines and older builds are left alone.
pub fn llama_server_auto_slots(input: &mut EstimateInput) {
    if input.run.engine != Engine::Llamacpp {
        return;
    }
    let build = match input.run.engine_version.as_deref() {
        None => LlamacppBuild::LATEST,
        // A build vramfit does not read is refused by the estimate, naming the field.
        Some(v) => match LlamacppBuild::parse("engine_version", v) {
            Ok(b) => b,
            Err(_) => return,
        },
    };
    if !build.auto_slots() {
        return;
    }
    // `--kv-unified-per-slot N` without `-c`: the estimate sizes the pool to the 4 slots × N.
    if input.serving.max_model_len.is_none() && input.serving.kv_unified_per_slot.is_none() {
        // A pooling run generates nothing (`new_tokens` taken as 0).
        let new = if input.run.runner == Some(RunnerType::Pooling) {
            0.0
        } else {
            input.run.new_tokens
        };
        let per_sequence = input.run.seq_len + new;
        input.serving.max_model_len = Some(per_sequence * input.run.batch);
    }
    input.run.batch = AUTO_SLOTS;
    input.serving.kv_unified = Some(true);
}
