//! `cargo run -p vramfit-mock-hub [PORT]`: the mock hub on a loopback port, until stopped (for
//! trying the CLI or the site by hand: `vramfit estimate --model Qwen/Qwen3-0.6B-FP8 --hub
//! --hub-endpoint http://127.0.0.1:PORT`).

fn main() {
    let port = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let hub = vramfit_mock_hub::MockHub::start_on(port, std::time::Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("cannot listen on 127.0.0.1:{port}: {e}"));
    println!("mock hub at {}", hub.url());
    loop {
        std::thread::park();
    }
}
