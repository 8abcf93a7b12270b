//! A fine-tuning stack's config file (`stack_config`) on arbitrary bytes: a reading or an
//! `InputError` naming a key or `config`, never a panic; a reading estimates without
//! panicking either, its sizes within reach.
//! Seed: any training YAML or JSON (`crates/vramfit/src/stack_config/tests.rs` holds several).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit::estimate::ModelInput;
use vramfit::estimate::{EstimateInput, estimate};
use vramfit::stack_config::read_training_config;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match read_training_config(&text, EstimateInput::default()) {
        Ok(r) => {
            let input = EstimateInput {
                model: ModelInput {
                    model: Some("meta-llama/Llama-3.2-1B".into()),
                    ..r.input.model
                },
                ..r.input
            };
            if let Ok(e) = estimate(&input) {
                assert!(e.total_bytes >= e.peak_allocated_bytes);
            }
        }
        Err(e) => assert!(!e.field.is_empty(), "{e}"),
    }
});
