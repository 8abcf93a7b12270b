//! A fine-tuning stack's config file (`stack_config`) on arbitrary bytes, its stack recognised
//! from its keys; what is checked is in `stack_reader/mod.rs`. The `config_*` targets drive
//! each stack's reader alone.
//! Seeds: `fuzz/seeds/training_config/` holds one file per reader (a Trainer JSON, TRL, DeepSpeed,
//! torchtune, LLaMA-Factory, axolotl, accelerate and verl), so each reader is reached from the
//! start; `crates/vramfit/src/stack_config/tests.rs` holds more.
#![no_main]

mod stack_reader;

libfuzzer_sys::fuzz_target!(|data: &[u8]| stack_reader::check(data, None));
