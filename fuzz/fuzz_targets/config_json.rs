//! `config.json` import on arbitrary bytes: a value or an `InputError` naming `config.json`,
//! never a panic; an imported architecture estimates without panicking either.
//! Seed: `cargo fuzz run config_json ../crates/vramfit/tests/corpus/configs`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit::config::parse_config;
use vramfit::estimate::{EstimateInput, estimate};
use vramfit::estimate::{ModelInput, RunInput};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match parse_config(&text) {
        Ok(c) => {
            let input = EstimateInput {
                model: ModelInput {
                    arch: Some(c.arch),
                    quantization: c.quantization.unwrap_or_default(),
                    ..Default::default()
                },
                run: RunInput {
                    dtype: c.dtype,
                    ..Default::default()
                },
                ..Default::default()
            };
            if let Ok(e) = estimate(&input) {
                assert!(e.total_bytes >= e.peak_allocated_bytes);
            }
        }
        Err(e) => assert!(e.field.starts_with("config.json"), "{e}"),
    }
});
