//! Workspace-level integration tests, one binary (as ripgrep does): estimator cases against
//! reference data.

mod book_data;
mod build_features;
mod calibration;
mod deepspeed_published;
mod deepspeed_reference;
mod fsdp_published;
mod fsdp_reference;
mod input_faces;
/// The fields of `EstimateInput` (test code shared by every face's check).
#[path = "../input_fields.rs"]
mod input_fields;
mod launch_parsed;
mod llamacpp_calibration;
mod llamacpp_split;
mod megatron_published;
mod megatron_reference;
mod moments_calibration;
mod offload_speed;
mod ollama_calibration;
mod sglang_calibration;
mod sglang_versions;
mod throughput;
mod torch_reference;
mod training_launch_parsed;
mod training_launch_rl;
mod training_nodes;
mod training_published;
mod trtllm_calibration;
mod vllm_versions;
