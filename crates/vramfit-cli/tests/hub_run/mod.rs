//! What the hub test binaries share: `vramfit estimate --hub` against the mock hub.

use std::path::Path;
use std::process::Command;

/// `vramfit estimate --model REPO --hub --hub-endpoint URL --json EXTRA…` with its own cache
/// folder (`VRAMFIT_CACHE_DIR`) and none of the user's hub settings (`HF_ENDPOINT`,
/// `MODELSCOPE_DOMAIN`): its exit code, stdout and stderr.
pub fn hub_estimate(url: &str, repo: &str, extra: &[&str], cache: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args([
            "estimate",
            "--model",
            repo,
            "--hub",
            "--hub-endpoint",
            url,
            "--json",
        ])
        .args(extra)
        .env("VRAMFIT_CACHE_DIR", cache)
        .env_remove("HF_ENDPOINT")
        .env_remove("MODELSCOPE_DOMAIN")
        .output()
        .expect("run vramfit");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
