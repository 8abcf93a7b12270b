//! Workspace-level integration tests, one binary (as ripgrep does): estimator cases against
//! reference data.

mod book_data;
mod calibration;
mod llamacpp_calibration;
mod ollama_calibration;
mod sglang_calibration;
mod throughput;
mod torch_reference;
