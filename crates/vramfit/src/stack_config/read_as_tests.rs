//! A stack named rather than recognised (`read_training_config_as`, which the fuzz targets
//! `config_*` drive): the named reader reads the file as its own, and keys it does not know
//! are listed as not read, never taken by another stack's reader.

use alloc::vec;
use alloc::vec::Vec;

use super::{ConfigFormat, read_training_config, read_training_config_as};
use crate::estimate::EstimateInput;

const DEEPSPEED: &str =
    r#"{"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 2}}"#;
const TRAINER: &str = r#"{"per_device_train_batch_size": 2, "gradient_accumulation_steps": 4}"#;

/// Naming the stack a file's keys say is the same reading as recognising it.
#[test]
fn the_stack_named_reads_as_the_stack_recognised() {
    let recognised = read_training_config(DEEPSPEED, EstimateInput::default()).unwrap();
    let named =
        read_training_config_as(DEEPSPEED, ConfigFormat::Deepspeed, EstimateInput::default())
            .unwrap();
    assert_eq!(recognised.format, ConfigFormat::Deepspeed);
    assert_eq!(named, recognised);
    // The file's micro-batch and ZeRO stage, read by DeepSpeed's reader.
    assert_eq!(
        (named.input.run.batch, named.input.placement.zero),
        (4.0, 2.0)
    );
}

/// A Trainer file named as verl's: verl's reader knows none of its keys, so both are listed as
/// not read and the micro-batch stays the input's.
#[test]
fn another_stacks_keys_are_listed_not_read() {
    let r = read_training_config_as(TRAINER, ConfigFormat::Verl, EstimateInput::default()).unwrap();
    assert_eq!(r.format, ConfigFormat::Verl);
    assert_eq!(r.input.run.batch, EstimateInput::default().run.batch);
    let listed: Vec<&str> = r.not_read.iter().map(|s| s.as_str()).collect();
    assert_eq!(
        listed,
        vec![
            "per_device_train_batch_size (line 1)",
            "gradient_accumulation_steps (line 1)"
        ]
    );
}
