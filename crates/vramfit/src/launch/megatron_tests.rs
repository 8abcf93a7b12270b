//! Megatron-LM's launch, written and read back: `torchrun … pretrain_gpt.py` on every node,
//! read by vramfit's command reader into the same estimate (memory, nodes and step); what it
//! cannot say refused by field. Megatron-LM's and torchrun's own parsers read it too
//! (`tests/launch/parse_training.py`).

use alloc::string::String;

use super::{launch_input, read_command};
use crate::estimate::{
    Checkpointing, EstimateInput, HardwareInput, Mode, ModelInput, PlacementInput, RunInput, Stack,
    TrainingInput, estimate,
};

/// Llama 3.1 70B under Megatron on `gpus` H100: tp 8, pp 4 with 2 virtual stages, sequence
/// parallel, the distributed optimizer, 16 micro-batches of one 8192-token sequence.
fn seventy(gpus: f64) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-70B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Training,
            batch: 1.0,
            seq_len: 8192.0,
            ..Default::default()
        },
        training: TrainingInput {
            stack: Some(Stack::Megatron),
            grad_accum: Some(16.0),
            grad_checkpointing: Checkpointing::Selective,
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        placement: PlacementInput {
            gpus: Some(gpus),
            tp: 8.0,
            pp: 4.0,
            vp: Some(2.0),
            sequence_parallel: true,
            distributed_optimizer: true,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn line(argv: &[String]) -> String {
    shlex::try_join(argv.iter().map(String::as_str)).unwrap()
}

#[test]
fn megatron_over_nodes_reads_back_into_its_estimate() {
    for gpus in [64.0, 32.0] {
        let input = seventy(gpus);
        let l = launch_input(&input).unwrap_or_else(|e| panic!("{e:?}"));
        let nodes = (gpus / 8.0) as usize;
        assert_eq!(l.commands.len(), nodes);
        let text = line(&l.commands[1]);
        for want in [
            "torchrun --nnodes",
            "--rdzv-backend c10d --rdzv-endpoint HEAD_IP:29500 --nproc-per-node 8 pretrain_gpt.py",
            "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 4",
            // 80 layers / (4 stages × 2 chunks) = 10 a chunk.
            "--num-layers-per-virtual-pipeline-stage 10",
            "--sequence-parallel",
            "--use-distributed-optimizer",
            "--group-query-attention --num-query-groups 8",
            "--micro-batch-size 1",
            "--recompute-granularity selective",
            "--tokenizer-model meta-llama/Llama-3.1-70B",
        ] {
            assert!(text.contains(want), "{want}: {text}");
        }
        // dp = gpus / (8 × 4): 16 micro-batches of 1 on each replica.
        let global = alloc::format!("--global-batch-size {}", 16.0 * gpus / 32.0);
        assert!(text.contains(&global), "{text}");
        let back = read_command(&text).unwrap();
        assert!(back.not_read.iter().any(|w| w == "--mock-data"));
        let again = EstimateInput {
            hardware: HardwareInput {
                gpu: input.hardware.gpu.clone(),
                ..back.input.hardware
            },
            ..back.input
        };
        let (a, b) = (estimate(&input).unwrap(), estimate(&again).unwrap());
        assert_eq!(a.total_bytes, b.total_bytes);
        assert_eq!(a.peak_allocated_bytes, b.peak_allocated_bytes);
        assert_eq!((a.nodes, a.gpus), (b.nodes, b.gpus));
        assert_eq!(
            a.throughput.and_then(|t| t.step_time_s),
            b.throughput.and_then(|t| t.step_time_s)
        );
    }
}

#[test]
fn megatron_on_one_node_is_standalone_and_refuses_what_it_cannot_say() {
    let one = {
        let mut input = seventy(8.0);
        input.model.model = Some("meta-llama/Llama-3.1-8B".into());
        input.placement.tp = 2.0;
        input.placement.pp = 1.0;
        input.placement.vp = None;
        input.training.grad_accum = Some(4.0);
        input.placement.gpus = Some(8.0);
        input.training.grad_checkpointing = Checkpointing::Full;
        input
    };
    let l = launch_input(&one).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(l.commands.len(), 1);
    let text = line(&l.commands[0]);
    assert!(
        text.starts_with("torchrun --standalone --nproc-per-node 8 pretrain_gpt.py"),
        "{text}"
    );
    assert!(text.contains(
        "--recompute-granularity full --recompute-method uniform --recompute-num-layers 1"
    ));
    // dp 4 × 4 micro-batches × 1.
    assert!(text.contains("--global-batch-size 16"), "{text}");
    let back = read_command(&text).unwrap();
    assert_eq!(back.input.training.grad_accum, Some(4.0));
    assert_eq!(back.input.placement.gpus_per_node, None);
    for (bad, field) in [
        (
            {
                let mut input = one.clone();
                input.training.lora_rank = 16.0;
                input
            },
            "lora_rank",
        ),
        (
            {
                let mut input = one.clone();
                input.model.model = Some("mistralai/Mixtral-8x7B-v0.1".into());
                input
            },
            "model",
        ),
        (
            {
                let mut input = one.clone();
                input.placement.zero = 1.0;
                input.placement.distributed_optimizer = false;
                input
            },
            "zero",
        ),
    ] {
        let e = launch_input(&bad).unwrap_err();
        assert_eq!(e.field, field, "{e:?}");
    }
}

/// Whatever follows `torchrun`, the reader answers or names its problem; it never panics, and
/// every word it does not use is listed.
#[test]
fn torchrun_lines_read_or_are_refused() {
    for line in [
        "torchrun",
        "torchrun --nnodes",
        "torchrun --nnodes 0 pretrain_gpt.py",
        "torchrun --nproc-per-node=x pretrain_gpt.py",
        "torchrun train.py --lr 1",
        "torchrun pretrain_gpt.py --micro-batch-size",
        "torchrun pretrain_gpt.py --global-batch-size 7 --micro-batch-size 2",
        "torchrun pretrain_gpt.py --num-layers-per-virtual-pipeline-stage 3",
        "torchrun --standalone --nproc_per_node=4 pretrain_gpt.py --tensor-model-parallel-size=2 --seq-length=4096 --swiglu",
        "NCCL_DEBUG=INFO torchrun --nnodes=2 --nproc-per-node=8 pretrain_gpt.py --bf16",
    ] {
        match read_command(line) {
            Ok(r) => {
                assert_eq!(r.input.run.mode, Mode::Training, "{line}");
                assert_eq!(r.input.training.stack, Some(Stack::Megatron), "{line}");
            }
            Err(e) => assert!(!e.field.is_empty(), "{line}"),
        }
    }
    let r = read_command(
        "NCCL_DEBUG=INFO torchrun --standalone --nproc_per_node=4 pretrain_gpt.py \
         --tensor-model-parallel-size=2 --seq-length=4096 --swiglu --global-batch-size 7 \
         --micro-batch-size 2",
    )
    .unwrap();
    assert_eq!(
        (
            r.input.placement.tp,
            r.input.run.seq_len,
            r.input.placement.gpus
        ),
        (2.0, 4096.0, Some(4.0))
    );
    // 7 sequences do not split into micro-batches of 2 over 2 replicas: listed, not guessed.
    for word in [
        "NCCL_DEBUG=INFO",
        "--standalone",
        "--swiglu",
        "--global-batch-size",
    ] {
        assert!(
            r.not_read.iter().any(|w| w == word),
            "{word}: {:?}",
            r.not_read
        );
    }
}
