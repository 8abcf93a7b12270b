//! GGUF header import on arbitrary bytes: a summary or an `InputError` naming `gguf`, never a
//! panic; when it asks for a longer prefix, the request is longer than what it was given.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit::headers::{gguf_prefix_needed, parse_gguf_header};

fuzz_target!(|data: &[u8]| {
    match parse_gguf_header(data) {
        Ok(h) => assert!(h.header_bytes <= data.len() as u64),
        Err(e) => {
            assert!(e.field.starts_with("gguf"), "{e}");
            if let Some(n) = gguf_prefix_needed(&e) {
                assert!(
                    n > data.len() as u64,
                    "asks for {n} bytes having {}: {e}",
                    data.len()
                );
            }
        }
    }
});
