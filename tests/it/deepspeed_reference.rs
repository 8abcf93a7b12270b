//! ZeRO's model states against DeepSpeed's own estimators: `tests/reference/deepspeed-estimates.csv`,
//! written by `tests/reference/deepspeed_estimates.py` from `estimate_zero2_model_states_mem_needs`
//! and `estimate_zero3_model_states_mem_needs` (DeepSpeed 0.19.8), the optimizer offloaded alone
//! (`cpu_offload=True, cpu_offload_params=False`: vramfit's `optimizer-cpu`) among them, and
//! their CPU memory beside vramfit's.

use vramfit::estimate::{ComponentKind, Estimate, EstimateInput, Mode, Offload, estimate};
use vramfit::estimate::{ModelInput, PlacementInput, RunInput, TrainingInput};

struct DsCase {
    model: String,
    stage: u8,
    gpus: u64,
    offload: Offload,
    params: u64,
    gpu: u64,
    /// The estimator's CPU memory per node, with its `additional_buffer_factor` of 1.5.
    cpu: u64,
}

fn cases() -> Vec<DsCase> {
    crate::calibration::csv(
        include_str!("../reference/deepspeed-estimates.csv"),
        |row| {
            let g = |n: &str| row.get(n);
            DsCase {
                model: g("model").to_string(),
                stage: g("stage").parse().unwrap(),
                gpus: g("gpus").parse().unwrap(),
                offload: match g("offload") {
                    "none" => Offload::None,
                    "cpu" => Offload::Cpu,
                    "optimizer-cpu" => Offload::OptimizerCpu,
                    o => panic!("offload {o}"),
                },
                params: g("params").parse().unwrap(),
                gpu: g("gpu_bytes").parse().unwrap(),
                cpu: g("cpu_bytes").parse().unwrap(),
            }
        },
    )
}

fn part(e: &Estimate, kind: ComponentKind) -> u64 {
    e.components
        .iter()
        .filter(|c| c.key.kind == kind)
        .map(|c| c.bytes.get())
        .sum()
}

/// Weights, gradients, optimizer states, the step's fp32 gradient partition and ZeRO's
/// buffers: what DeepSpeed's estimators count (fused AdamW: no foreach temporary).
fn model_states(e: &Estimate) -> u64 {
    e.weights_bytes.get()
        + e.gradients_bytes.get()
        + e.optimizer_bytes.get()
        + part(e, ComponentKind::StepTemporaries)
        + part(e, ComponentKind::ZeroBuffers)
}

/// ZeRO-2 is DeepSpeed's estimate exactly (`2 Ψ + 18 Ψ / N`; offloaded, `2 Ψ`). ZeRO-3 with
/// its buffers set to nothing is DeepSpeed's `4 × largest module + 18 Ψ / N` and the 16-bit
/// gradient partition (`2 Ψ / N`) that it leaves out; at DeepSpeed's defaults it is above it
/// by the reduce bucket and the parameters kept gathered for reuse, never under. With the
/// optimizer offloaded alone it is `4 × largest module + 2 Ψ / N` (the 16-bit partition stays).
#[test]
fn zero_model_states_are_deepspeeds_estimates() {
    let cases = cases();
    // Llama-3.1-8B, Llama-3.1-70B and Llama-3.2-1B (tied), 8 and 16 GPUs, ZeRO-2 without and
    // with offload, ZeRO-3 without, with everything and with the optimizer alone offloaded.
    assert_eq!(cases.len(), 30);
    for c in &cases {
        let input = EstimateInput {
            model: ModelInput {
                model: Some(c.model.clone()),
                ..Default::default()
            },
            run: RunInput {
                mode: Mode::Training,
                seq_len: 1024.0,
                ..Default::default()
            },
            training: TrainingInput {
                fused_optimizer: true,
                ..Default::default()
            },
            placement: PlacementInput {
                zero: f64::from(c.stage),
                offload: c.offload,
                gpus: Some(c.gpus as f64),
                ..Default::default()
            },
            ..Default::default()
        };
        let e = estimate(&input).unwrap();
        assert_eq!(e.params, c.params, "{}", c.model);
        let ours = model_states(&e);
        let id = format!(
            "{} ZeRO-{} {} GPUs offload {:?}",
            c.model, c.stage, c.gpus, c.offload
        );
        cpu_is_deepspeeds(c, &e, &id);
        if c.stage == 2 {
            let buckets = part(&e, ComponentKind::ZeroBuffers);
            assert_eq!(ours - buckets, c.gpu, "{id}");
            continue;
        }
        let bare = estimate(&{
            let mut input = input.clone();
            input.training.reduce_bucket_size = Some(0.0);
            input.training.stage3_prefetch_bucket_size = Some(0.0);
            input.training.stage3_max_live_parameters = Some(0.0);
            input.training.stage3_param_persistence_threshold = Some(0.0);
            input
        })
        .unwrap();
        let gradient_partition = if c.offload.optimizer() {
            0
        } else {
            (2 * c.params).div_ceil(c.gpus)
        };
        // Rounding: each partition is rounded up on its own.
        let diff = model_states(&bare) as i64 - (c.gpu + gradient_partition) as i64;
        assert!(diff.abs() < 16, "{id}: {diff}");
        let over = ours as f64 / c.gpu as f64 - 1.0;
        let bare_over = model_states(&bare) as f64 / c.gpu as f64 - 1.0;
        eprintln!(
            "{id}: {:+.1} % at DeepSpeed's defaults, {:+.1} % with its buffers at 0",
            over * 100.0,
            bare_over * 100.0
        );
        assert!(ours >= c.gpu, "{id}");
    }
}

/// The CPU memory of an offloaded run: vramfit's per GPU, times the 8 GPUs of a node, is
/// DeepSpeed's per node before its `additional_buffer_factor` 1.5 under ZeRO-3 (`16 Ψ` with
/// the optimizer alone: fp32 masters, two Adam moments, the fp32 gradient partition; `18 Ψ`
/// with the 16-bit parameters too; `× 1 / nodes`). Under ZeRO-2 DeepSpeed counts
/// `max(4 × total GPUs, 16) Ψ`: beside the same 16 Ψ, the fp32 model each process loads on the
/// CPU before `deepspeed.initialize` (4 B per parameter per process, a start-up figure, not the
/// step's), which vramfit does not count: its figure is the 16 Ψ alone, recorded here.
fn cpu_is_deepspeeds(c: &DsCase, e: &Estimate, id: &str) {
    let per_node = e.cpu_bytes.get() * 8;
    let nodes = c.gpus / 8;
    match (c.stage, c.offload) {
        (_, Offload::None) => assert_eq!(e.cpu_bytes.get(), 0, "{id}"),
        (3, _) => {
            let ds = c.cpu as f64 / 1.5;
            // Rounding: vramfit rounds each GPU's share up, DeepSpeed truncates once.
            assert!(
                (per_node as f64 - ds).abs() < 64.0,
                "{id}: {per_node} vs {ds}"
            );
        }
        _ => {
            assert_eq!(per_node, 16 * c.params / nodes, "{id}");
            let ds_states = c.params * (4 * c.gpus).max(16) * 3 / 2;
            assert_eq!(c.cpu, ds_states, "{id}");
        }
    }
}
