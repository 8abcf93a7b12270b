//! safetensors header import on arbitrary bytes (one shard, or the input cut into two shards):
//! a summary or an `InputError` naming `safetensors`, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit::headers::{
    parse_safetensors_header, parse_safetensors_shards, safetensors_header_len,
};

fuzz_target!(|data: &[u8]| {
    if let Err(e) = safetensors_header_len(data) {
        assert!(e.field.starts_with("safetensors"), "{e}");
    }
    if let Err(e) = parse_safetensors_header(data) {
        assert!(e.field.starts_with("safetensors"), "{e}");
    }
    if let Some((&cut, rest)) = data.split_first() {
        let (a, b) = rest.split_at(usize::from(cut).min(rest.len()));
        let _ = parse_safetensors_shards(&[a, b]);
    }
});
