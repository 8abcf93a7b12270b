//! The site's module: mounts the app on `#app` when it starts. The library exports [`stop`]
//! for `www/boot.js`, which hands the page over from the calculator-only build to the full one.
//!
//! [`stop`]: vramfit_web::stop
fn main() {
    #[cfg(target_arch = "wasm32")]
    vramfit_web::start();
}
