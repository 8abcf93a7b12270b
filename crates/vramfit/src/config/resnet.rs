//! ResNet: its per-image activation counts, followed module by module.

use alloc::format;

use super::Cfg;
use super::decoder::dim;
use crate::error::{ErrorKind, InputError, Result};
use crate::model::{Architecture, MAX_DIM};

/// The side of the square image a ResNet's per-image counts are for: its image processor's
/// 224 × 224 (the config itself names no size).
pub(super) const RESNET_IMAGE: u64 = 224;

/// Bytes alive during an inference pass, followed allocation by allocation.
#[derive(Default)]
pub(super) struct Alive {
    now: u64,
    peak: u64,
}

impl Alive {
    fn alloc(&mut self, n: u64) {
        self.now = self.now.saturating_add(n);
        self.peak = self.peak.max(self.now);
    }
    fn free(&mut self, n: u64) {
        self.now = self.now.saturating_sub(n);
    }
    /// transformers' `ResNetConvLayer` on an input that its caller holds: the convolution's
    /// output, the BatchNorm's beside it, then (with an activation) ReLU's beside that; each
    /// replaced tensor freed once the next exists; the output is left alive.
    fn conv_layer(&mut self, out: u64, act: bool) {
        self.alloc(out);
        self.alloc(out);
        self.free(out);
        if act {
            self.alloc(out);
            self.free(out);
        }
    }
}

/// ResNet (`ResNetForImageClassification`): convolutions without biases, BatchNorm weight and
/// bias (the running statistics are buffers, not parameters), a linear classifier; and, per
/// 224 × 224 image, what training saves for backward and what inference holds at its widest.
///
/// Training saves each convolution's input, each BatchNorm's input (the convolution's output),
/// each ReLU's output, the max-pool's input and int64 indices, the pooling's input and the
/// classifier's; a block's last BatchNorm output, added to in place, is saved by nothing.
/// Inference follows transformers' modules as Python holds their tensors: the image throughout,
/// a stage's input through the stage (`ResNetStage`'s argument), a block's input through the
/// block (`residual`), and within a `ResNetConvLayer` at most two of its tensors at once.
pub(super) fn resnet(c: &Cfg) -> Result<Architecture> {
    let emb = dim(
        c,
        "embedding_size",
        c.u("embedding_size")?.unwrap_or(64),
        1,
        1 << 16,
    )?;
    let channels = dim(c, "num_channels", c.u("num_channels")?.unwrap_or(3), 1, 64)?;
    let hidden = c
        .u_arr("hidden_sizes")?
        .unwrap_or_else(|| alloc::vec![256, 512, 1024, 2048]);
    let depths = c
        .u_arr("depths")?
        .unwrap_or_else(|| alloc::vec![3, 4, 6, 3]);
    if hidden.len() != depths.len() || hidden.is_empty() || hidden.len() > 16 {
        return Err(InputError::new(
            ErrorKind::Conflict,
            c.field("depths"),
            format!(
                "{} stage depths for {} hidden sizes",
                depths.len(),
                hidden.len()
            ),
            "one depth per entry of hidden_sizes, 1 to 16 stages",
        ));
    }
    let bottleneck = match c.str("layer_type")?.unwrap_or("bottleneck") {
        "bottleneck" => true,
        "basic" => false,
        other => {
            return Err(InputError::new(
                ErrorKind::UnknownName,
                c.field("layer_type"),
                format!("`{other}` is not a ResNet layer type"),
                "bottleneck or basic",
            ));
        }
    };
    let first_stride = c.b("downsample_in_first_stage")?.unwrap_or(false);
    let in_bottleneck = c.b("downsample_in_bottleneck")?.unwrap_or(false);
    let labels = dim(c, "id2label", c.num_labels()?, 0, MAX_DIM)?;
    let bn = |n: u64| 2 * n;
    let mut total = channels * emb * 49 + bn(emb);
    let mut inp = emb;
    // Per image: the stem's 7×7 stride-2 convolution and 3×3 stride-2 max-pool.
    let half = |s: u64| s.div_ceil(2);
    let mut side = half(half(RESNET_IMAGE));
    let stem = emb * half(RESNET_IMAGE) * half(RESNET_IMAGE);
    let pooled = emb * side * side;
    let image = channels * RESNET_IMAGE * RESNET_IMAGE;
    let mut saved = image + 2 * stem + pooled;
    let indices = pooled;
    let mut live = Alive::default();
    live.alloc(image);
    // (On CUDA the max-pool also computes int64 indices in inference, for an instant.)
    live.conv_layer(stem, true);
    live.alloc(pooled);
    live.free(stem);
    for (stage, (&out, &depth)) in hidden.iter().zip(&depths).enumerate() {
        let out = dim(c, "hidden_sizes", out, 4, 1 << 16)?;
        let depth = dim(c, "depths", depth, 1, 1024)?;
        let stage_input = inp * side * side;
        for block in 0..depth {
            let strided = block == 0 && (stage > 0 || first_stride);
            let s_in = side;
            let s_out = if strided { half(side) } else { side };
            let block_input = inp * s_in * s_in;
            let o = out * s_out * s_out;
            total += if bottleneck {
                let mid = out / 4;
                inp * mid + bn(mid) + 9 * mid * mid + bn(mid) + mid * out + bn(out)
            } else {
                9 * inp * out + bn(out) + 9 * out * out + bn(out)
            };
            // The main path's layers: (output elements, ReLU after it).
            let layers: alloc::vec::Vec<(u64, bool)> = if bottleneck {
                let mid = out / 4;
                let s1 = if in_bottleneck { s_out } else { s_in };
                alloc::vec![
                    (mid * s1 * s1, true),
                    (mid * s_out * s_out, true),
                    (o, false)
                ]
            } else {
                alloc::vec![(o, true), (o, false)]
            };
            // Training: each convolution's output (a BatchNorm's input), each ReLU's output,
            // the block's final ReLU output; the next convolution's input is one of these.
            saved += layers
                .iter()
                .map(|&(n, act)| if act { 2 * n } else { n })
                .sum::<u64>()
                + o;
            // `nn.Sequential` frees a layer's input once the next layer has returned; the
            // first one's is the block's input, which `residual` holds.
            let mut prev = 0;
            for &(n, act) in &layers {
                live.conv_layer(n, act);
                live.free(prev);
                prev = n;
            }
            let shortcut = inp != out || strided;
            if shortcut {
                total += inp * out + bn(out);
                saved += o;
                live.conv_layer(o, false);
            }
            // `+= residual` in place, then the ReLU beside it.
            live.alloc(o);
            live.free(prev);
            if shortcut {
                live.free(o);
            }
            if block > 0 {
                live.free(block_input);
            }
            inp = out;
            side = s_out;
        }
        live.free(stage_input);
    }
    // The pooling reads the last ReLU's output; the classifier saves its pooled input.
    saved += inp;
    Ok(Architecture {
        image_size: RESNET_IMAGE,
        image_activations: saved,
        image_indices: indices,
        image_working: live.peak,
        ..Architecture::opaque(total + inp * labels + labels)
    })
}
