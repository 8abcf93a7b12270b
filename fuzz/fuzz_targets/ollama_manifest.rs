//! An Ollama registry's manifest on arbitrary bytes, through the lookup: the next request (the
//! model blob, by Range, within the first megabyte) or an `InputError` naming `hub`, never a
//! panic; a blob read is always a digest of `sha256:` and 64 hex digits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit::hub::{Hub, HubKind, Lookup, Reply, ollama};

fuzz_target!(|data: &[u8]| {
    let hub = Hub::new(HubKind::Ollama, "https://registry.ollama.ai").unwrap();
    if let Ok(text) = std::str::from_utf8(data) {
        match ollama::read_manifest(&hub, "library/x:1", text) {
            Ok(m) => assert!(ollama::is_digest(&m.model.digest)),
            Err(e) => assert_eq!(e.field, "hub", "{e}"),
        }
    }
    let mut l = Lookup::new(&hub, "library/x:1", None).unwrap();
    let reply = Reply::Http {
        status: 200,
        code: None,
        retry_after: None,
        total: None,
        body: data.to_vec(),
    };
    match l.answer(reply) {
        Ok(()) => {
            let r = l.request().expect("the blob");
            let (a, b) = r.range.expect("by Range");
            assert!(a == 0 && b < 1 << 20, "{r:?}");
            assert!(ollama::is_digest(&r.file), "{r:?}");
        }
        Err(e) => assert_eq!(e.field, "hub", "{e}"),
    }
});
