//! `cargo xtask`: the commands CI runs, and nothing else.
fn main() {
    eprintln!("usage: cargo xtask <serve|test|dist>");
    std::process::exit(2);
}
