//! torchtune's recipes with torchao's `CPUOffloadOptimizer` (torchtune 0.6.1's docs,
//! `docs/source/tutorials/memory_optimizations.rst`, and its wrapper
//! `torchtune.modules.optim.CPUOffloadOptimizer`) and on several GPUs without `fsdp_*` keys,
//! read and estimated; the figures by hand in `estimate/training/torchao_offload_tests.rs`.

use super::read_training_config;
use crate::estimate::{EstimateInput, Offload, Optimizer, estimate};

/// Llama-3.1-8B's parameters and its embedding (as its untied head) 128,256 × 4,096.
const P: u64 = 8_030_261_248;
const EMBED: u64 = 128_256 * 4_096;

fn recipe(optimizer: &str) -> super::ReadConfig {
    let text = alloc::format!(
        "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n\
         tokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n  path: /tmp/t.model\n  max_seq_len: 1024\n\
         batch_size: 1\ndtype: bf16\n{optimizer}"
    );
    match read_training_config(&text, EstimateInput::default()) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn cpu_offload_optimizer_with_offload_gradients() {
    // The docs' example: the prototype path, offload_gradients, fused AdamW by default.
    let r = recipe(
        "optimizer:\n  _component_: torchao.prototype.low_bit_optim.CPUOffloadOptimizer\n  offload_gradients: True\n  lr: 4e-5\n  fused: True\n",
    );
    let i = &r.input;
    assert_eq!(
        (
            i.training.optimizer,
            i.training.fused_optimizer,
            i.placement.offload
        ),
        (Optimizer::Adamw, true, Offload::Cpu)
    );
    assert_eq!(i.placement.zero, 0.0);
    assert!(
        r.not_read.iter().any(|k| k.starts_with("optimizer.lr")),
        "{:?}",
        r.not_read
    );
    let e = estimate(i).unwrap();
    // Two of the largest gradients (2 × 525,336,576 × 2 B), the bf16 parameters (2 B × P), no
    // state on the GPU; in CPU memory 8 B × P.
    assert_eq!(e.gradients_bytes.get(), 2 * EMBED * 2);
    assert_eq!(e.weights_bytes.get(), 2 * P);
    assert_eq!((e.optimizer_bytes.get(), e.cpu_bytes.get()), (0, 8 * P));
}

#[test]
fn cpu_offload_optimizer_names_its_class() {
    // torchtune's wrapper with `optimizer_class`; the gradients stay on the GPU.
    for component in [
        "torchtune.modules.optim.CPUOffloadOptimizer",
        "torchao.optim.CPUOffloadOptimizer",
    ] {
        let r = recipe(&alloc::format!(
            "optimizer:\n  _component_: {component}\n  optimizer_class: torch.optim.AdamW\n  offload_gradients: False\n  lr: 2e-5\n"
        ));
        let i = &r.input;
        // fused: torchao's default for AdamW when not given.
        assert_eq!(
            (
                i.training.optimizer,
                i.training.fused_optimizer,
                i.placement.offload
            ),
            (Optimizer::Adamw, true, Offload::OptimizerCpu)
        );
        let e = estimate(i).unwrap();
        assert_eq!(e.gradients_bytes.get(), 2 * P);
        assert_eq!(e.optimizer_bytes.get(), 0);
    }
    // A class vramfit does not count is refused at its key and line.
    let text = "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\ntokenizer:\n  max_seq_len: 1024\n\
         optimizer:\n  _component_: torchao.optim.CPUOffloadOptimizer\n  optimizer_class: my.Optim\n";
    let err = read_training_config(text, EstimateInput::default()).unwrap_err();
    assert_eq!(err.field, "optimizer.optimizer_class");
}

#[test]
fn a_recipe_on_several_gpus_without_fsdp_keys_is_fsdp2() {
    // torchtune 0.6.1's distributed configs (`llama3_1/8B_full.yaml`) carry no fsdp_* key;
    // `full_finetune_distributed.py` shards with FSDP2 all the same.
    let r = recipe("optimizer:\n  _component_: torch.optim.AdamW\n  fused: True\n");
    let mut i = r.input;
    i.placement.gpus = Some(8.0);
    let e = estimate(&i).unwrap();
    // 2 B × P / 8 each for weights and gradients, AdamW's bf16 moments 4 B × P / 8.
    assert_eq!(e.weights_bytes.get(), 2 * P / 8);
    assert_eq!(e.gradients_bytes.get(), 2 * P / 8);
    assert_eq!(e.optimizer_bytes.get(), 4 * P / 8);
}
