//! LLaMA-Factory's YAML read by its own reader on arbitrary bytes, whatever keys the file has (the stack named,
//! not recognised); what is checked is in `stack_reader/mod.rs`. Seeded with every reader's
//! file in `fuzz/seeds/training_config/`.
#![no_main]

mod stack_reader;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    stack_reader::check(
        data,
        Some(vramfit::stack_config::ConfigFormat::Llamafactory),
    )
});
