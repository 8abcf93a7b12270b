//! What a person types for a model (a GGUF's address, a Hugging Face file link, an Ollama tag)
//! on arbitrary text: a target or an `InputError` naming `hub`, never a panic; a target's repo
//! reads back as its hub names a model, and a GGUF address's parts are bounded.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit::hub::{Hub, HubKind, Lookup, address, target};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let hubs = [
        None,
        Hub::new(HubKind::HuggingFace, "https://huggingface.co").ok(),
        Hub::new(HubKind::Ollama, "https://registry.ollama.ai").ok(),
    ];
    for hub in &hubs {
        match target(text, hub.as_ref()) {
            Ok(t) => {
                assert_eq!(
                    t.hub.check_repo(&t.repo).ok().as_deref(),
                    Some(t.repo.as_str())
                );
                if t.hub.kind == HubKind::Url {
                    let parts = address::gguf_parts(&t.repo);
                    assert!(
                        parts.is_err() || parts.is_ok_and(|p| !p.is_empty() && p.len() <= 4096)
                    );
                }
                let l = Lookup::new(&t.hub, &t.repo, t.file.as_deref());
                assert!(l.is_ok_and(|l| l.request().is_some()) || t.hub.kind == HubKind::Url);
            }
            Err(e) => assert_eq!(e.field, "hub", "{e}"),
        }
    }
});
