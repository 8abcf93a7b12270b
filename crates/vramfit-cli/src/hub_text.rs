//! The lines `vramfit estimate --hub` prints above the estimate: where the model came from,
//! what its checkpoint holds exactly, and how the estimate's weights compare with it.

use std::fmt::Write as _;

use vramfit::estimate::{Estimate, thousands};
use vramfit::hub::HubModel;

/// The model's source and checkpoint, and the weights compared.
pub fn describe(m: &HubModel, e: &Estimate) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "From the hub: {} on {} ({}), read: {} ({} bytes; the weights' headers, not the weights).",
        m.repo,
        m.hub.endpoint,
        m.revision,
        m.files_read.join(", "),
        thousands(m.bytes_read)
    );
    let format = m
        .model
        .quantization
        .map_or_else(|| String::from("unquantized"), |q| q.name());
    let _ = writeln!(
        s,
        "Model: {}, {} parameters, {}, {}.",
        m.model.model_type,
        thousands(m.model.arch.params()),
        m.model.dtype.map_or("dtype not given", |d| d.name()),
        format
    );
    if let Some(c) = &m.checkpoint {
        let types: Vec<String> = c
            .by_dtype
            .iter()
            .map(|t| {
                format!(
                    "{} {} elements, {} bytes",
                    t.dtype,
                    thousands(t.params),
                    t.bytes.map_or_else(|| String::from("?"), thousands)
                )
            })
            .collect();
        let _ = writeln!(
            s,
            "Checkpoint ({}): {} tensors, {} bytes ({:.2} GiB): {}.",
            c.format,
            thousands(c.tensors),
            thousands(c.bytes),
            c.bytes as f64 / (1u64 << 30) as f64,
            types.join(" · ")
        );
        // Per GPU the estimate holds a share of the weights: compare one GPU's whole copy only.
        if e.gpus == 1 {
            let w = e.weights_bytes.get();
            let _ = if w == c.bytes {
                writeln!(
                    s,
                    "The estimate's weights are the checkpoint's bytes exactly."
                )
            } else {
                writeln!(
                    s,
                    "The estimate's weights, {} bytes, differ from the checkpoint's by {} bytes ({:+.3} %): the format as vramfit models it (see its notes).",
                    thousands(w),
                    thousands(w.abs_diff(c.bytes)),
                    (w as f64 - c.bytes as f64) / c.bytes.max(1) as f64 * 100.0
                )
            };
        }
    }
    for n in &m.model.notes {
        let _ = writeln!(s, "  note: {n}");
    }
    let _ = writeln!(s);
    s
}
