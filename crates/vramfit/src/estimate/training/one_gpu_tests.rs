//! Training on one GPU takes an unquantized model's weights as the parameter count × the dtype's
//! bytes instead of walking the tensors again (`training_weights`): that is the walk's sum, for
//! every preset with tensors and every dtype training holds weights in.

use crate::estimate::weights::per_gpu_weight_bytes;
use crate::precision::{Dtype, Quantization};

#[test]
fn one_gpu_unquantized_weights_are_the_parameters_times_the_bytes() {
    let mut seen = 0;
    for p in crate::presets::presets()
        .iter()
        .filter(|p| p.arch.is_detailed())
    {
        for d in [Dtype::Fp32, Dtype::Fp16, Dtype::Bf16] {
            let walked = per_gpu_weight_bytes(&p.arch, d, &Quantization::None, 1, 1);
            let bytes = p.arch.params().saturating_mul(d.bits() as u64 / 8);
            assert_eq!(walked, bytes, "{} {d:?}", p.id);
        }
        seen += 1;
    }
    assert!(seen > 50, "{seen}");
    // By hand: Llama 3.1 8B's 8,030,261,248 parameters at 4 bytes are 32,121,044,992 bytes.
    let l = crate::presets::find("meta-llama/Llama-3.1-8B").unwrap();
    assert_eq!(
        per_gpu_weight_bytes(&l.arch, Dtype::Fp32, &Quantization::None, 1, 1),
        32_121_044_992
    );
}
