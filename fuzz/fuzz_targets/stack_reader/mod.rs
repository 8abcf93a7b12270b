//! What every training-config target checks (`training_config`, which recognises the stack
//! from the file's keys, and one target per reader, which names the stack whatever the keys):
//! a reading or an `InputError` naming a key or `config`, never a panic; a reading estimates
//! without panicking either, its sizes within reach.

use vramfit::estimate::ModelInput;
use vramfit::estimate::{EstimateInput, estimate};
use vramfit::stack_config::{ConfigFormat, read_training_config, read_training_config_as};

/// Reads `data` as `format`'s file (recognised when `None`) and estimates what it read.
pub fn check(data: &[u8], format: Option<ConfigFormat>) {
    let text = String::from_utf8_lossy(data);
    let read = match format {
        Some(f) => read_training_config_as(&text, f, EstimateInput::default()),
        None => read_training_config(&text, EstimateInput::default()),
    };
    match read {
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
}
