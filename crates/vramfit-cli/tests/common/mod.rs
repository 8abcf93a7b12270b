//! What every CLI test binary shares: running the built `vramfit`.

use std::process::Command;

/// The built binary run with `args`: its exit code, stdout and stderr.
pub fn vramfit(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(args)
        .output()
        .expect("run vramfit");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
