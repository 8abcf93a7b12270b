//! The site's URL state (`web/src/route.rs`, `web/src/state.rs`) on arbitrary hashes: no panic,
//! and the state a link opens writes a URL that reopens exactly that state, without problems.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vramfit_web::i18n::Lang;
use vramfit_web::route::{Route, decode, encode};
use vramfit_web::state::AppState;

fuzz_target!(|data: &[u8]| {
    let hash = String::from_utf8_lossy(data);
    let route = Route::parse(&hash);
    let state = AppState::from_route(&route, Lang::En);
    let again = AppState::from_route(&Route::parse(&state.hash()), Lang::Zh);
    assert_eq!(again.view, state.view, "{hash}");
    assert_eq!(again.lang, state.lang, "{hash}");
    assert_eq!(again.calc, state.calc, "{hash}");
    assert_eq!(again.extra, state.extra, "{hash}");
    assert!(
        again.problems.is_empty(),
        "{hash} → {} → {:?}",
        state.hash(),
        again.problems
    );
    assert_eq!(decode(&encode(&hash)), hash);
});
