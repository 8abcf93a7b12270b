//! The GPU record, its MIG profiles, and the lookups over the generated table.
//!
//! Catalog records are `&'static` data compiled into the crate, so they implement
//! `Serialize` only (a `&'static [T]` cannot be deserialized from borrowed JSON).

use alloc::vec::Vec;

use crate::units::Bytes;

use super::Generation;
use super::generated_gpus;

/// Where a GPU's `memory_bytes` comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum MemorySource {
    /// Printed by CUDA (`torch.cuda.get_device_properties().total_memory`) or Metal on a real
    /// device; the record's `memory_note` says where.
    Measured,
    /// Computed from the physical capacity by the rule in `memory_note`.
    Derived,
}

/// One GPU (or accelerator) of the catalog.
///
/// Its MIG profiles and sources sit in a table of their own ([`Gpu::mig_profiles`],
/// [`Gpu::mig_source`], [`Gpu::source`]): a module that reads only a card's memory figures, such
/// as the site's calculator, then links none of them; so do the link's and the power's text
/// ([`Gpu::interconnect`], [`Gpu::tdp_watts`]). The figures every estimate reads, its speed's
/// among them (bandwidth, FP16 and FP8 throughput, the link's bandwidth), are in the row. The
/// serialized record has every part in place, as fields: it is written through `wire::Gpu`,
/// which a field added here joins too.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Gpu {
    /// Lower-case kebab-case id, e.g. `a100-sxm4-80gb`.
    pub id: &'static str,
    /// Product name.
    pub name: &'static str,
    /// Vendor: NVIDIA, AMD, Huawei, Apple.
    pub vendor: &'static str,
    /// Architecture, e.g. `Hopper`.
    pub architecture: &'static str,
    /// The generation `architecture` names ([`Gpu::generation`]), parsed when the table is
    /// generated. Not serialized: the wire carries `architecture`, its text.
    pub(crate) generation: Generation,
    /// The memory label the vendor prints, e.g. `80 GB`.
    pub marketed_memory: &'static str,
    /// Memory the framework can see: CUDA's `total_memory` (ECC and firmware reservations
    /// removed), or on Apple the Metal working-set limit.
    pub memory: Bytes,
    /// Whether `memory` was measured or derived.
    pub memory_source: MemorySource,
    /// The measurement, or the rule of the derivation.
    pub memory_note: &'static str,
    /// Memory bandwidth in bytes per second ([`Gpu::bandwidth_bytes_per_s`]).
    pub(crate) bandwidth_bytes_per_s: u64,
    /// Dense FP16 tensor throughput in TFLOPS ([`Gpu::fp16_tflops`]).
    pub(crate) fp16_tflops: f64,
    /// Dense BF16 tensor throughput in TFLOPS (0 where unsupported).
    pub bf16_tflops: f64,
    /// Dense FP8 tensor throughput in TFLOPS ([`Gpu::fp8_tflops`]).
    pub(crate) fp8_tflops: f64,
    /// The first link's bandwidth per direction in bytes per second, 0 where its text names
    /// none: [`crate::throughput::link_bytes_per_s`] of [`Gpu::interconnect`], computed when the
    /// table is generated.
    pub(crate) link_bytes_per_s: f64,
    /// Unified memory shared with the CPU (Apple silicon).
    pub unified_memory: bool,
    /// The machine's physical unified memory (`hw.memsize`: a `128 GB` Mac holds 128 GiB), 0 on
    /// a card with memory of its own: the ceiling of macOS's `iogpu.wired_limit_mb`.
    pub unified_memory_bytes: Bytes,
    /// Compute slices of a MIG-capable GPU (7 on A100/H100, 4 on A30); 0 without MIG.
    pub mig_compute_slices: u8,
    /// Memory slices of a MIG-capable GPU (8 on A100/H100, 4 on A30); 0 without MIG.
    pub mig_memory_slices: u8,
    /// Streaming multiprocessors (`multi_processor_count`; an AMD card's compute units), where
    /// the record gives them with a source; 0 where it does not, and the estimate then counts
    /// [`super::UNKNOWN_SMS`]. vLLM's Triton top-k/top-p sampler keeps a buffer of one
    /// vocabulary row per SM (`estimate::vllm`).
    pub sms: u16,
    /// This card's row of [`GpuDetail`]s: its MIG profiles, sources, link and power.
    pub(crate) detail: u16,
    /// When the record was checked (YYYY-MM-DD).
    pub date: &'static str,
}

/// What a card's record keeps apart from the figures the estimator reads: see [`Gpu`].
#[derive(Debug)]
pub(crate) struct GpuDetail {
    pub mig_profiles: &'static [MigProfile],
    pub mig_source: &'static str,
    pub source: &'static str,
    pub interconnect: &'static str,
    pub tdp_watts: Option<u32>,
}

impl Gpu {
    /// The generation of the card's architecture: what the estimator asks of a card's kind
    /// (its cuBLAS workspace, BF16 and FP8, Metal) it asks of this.
    pub fn generation(&self) -> Generation {
        self.generation
    }

    fn detail(&self) -> &'static GpuDetail {
        &generated_gpus::DETAILS[usize::from(self.detail)]
    }

    /// The GPU instance profiles NVIDIA supports on this GPU (empty without MIG).
    pub fn mig_profiles(&self) -> &'static [MigProfile] {
        self.detail().mig_profiles
    }

    /// Where the MIG profiles come from.
    pub fn mig_source(&self) -> &'static str {
        self.detail().mig_source
    }

    /// Datasheet or document the figures come from.
    pub fn source(&self) -> &'static str {
        self.detail().source
    }

    /// Memory bandwidth in bytes per second.
    pub fn bandwidth_bytes_per_s(&self) -> u64 {
        self.bandwidth_bytes_per_s
    }

    /// Dense FP16 tensor throughput in TFLOPS.
    pub fn fp16_tflops(&self) -> f64 {
        self.fp16_tflops
    }

    /// Dense FP8 tensor throughput in TFLOPS (0 where unsupported).
    pub fn fp8_tflops(&self) -> f64 {
        self.fp8_tflops
    }

    /// GPU-to-GPU link, e.g. `NVLink 4 900 GB/s`.
    pub fn interconnect(&self) -> &'static str {
        self.detail().interconnect
    }

    /// Board power in watts, where published.
    pub fn tdp_watts(&self) -> Option<u32> {
        self.detail().tdp_watts
    }

    /// The MIG profile called `name` (e.g. `3g.40gb`), if this GPU has it.
    pub fn mig_profile(&self, name: &str) -> Option<&'static MigProfile> {
        self.mig_profiles().iter().find(|p| p.name == name)
    }

    /// Whether the GPU supports MIG.
    pub fn has_mig(&self) -> bool {
        self.mig_memory_slices > 0
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Gpu {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        wire::Gpu {
            id: self.id,
            name: self.name,
            vendor: self.vendor,
            architecture: self.architecture,
            marketed_memory: self.marketed_memory,
            memory: self.memory,
            memory_source: self.memory_source,
            memory_note: self.memory_note,
            bandwidth_bytes_per_s: self.bandwidth_bytes_per_s(),
            fp16_tflops: self.fp16_tflops(),
            bf16_tflops: self.bf16_tflops,
            fp8_tflops: self.fp8_tflops(),
            interconnect: self.interconnect(),
            tdp_watts: self.tdp_watts(),
            unified_memory: self.unified_memory,
            unified_memory_bytes: self.unified_memory_bytes,
            mig_compute_slices: self.mig_compute_slices,
            mig_memory_slices: self.mig_memory_slices,
            mig_profiles: self.mig_profiles(),
            mig_source: self.mig_source(),
            source: self.source(),
            date: self.date,
        }
        .serialize(s)
    }
}

/// A [`Gpu`] as it is serialized: every part in place, as a field. Its fields are documented on
/// [`Gpu`], whose docs the npm package's TypeScript generator (`vramfit-wasm/tests/dts.rs`)
/// takes for them.
#[cfg(feature = "serde")]
mod wire {
    use super::{Bytes, MemorySource, MigProfile};

    /// One GPU (or accelerator) of the catalog.
    #[derive(serde::Serialize)]
    #[allow(missing_docs)]
    pub(super) struct Gpu {
        pub id: &'static str,
        pub name: &'static str,
        pub vendor: &'static str,
        pub architecture: &'static str,
        pub marketed_memory: &'static str,
        #[serde(rename = "memory_bytes")]
        pub memory: Bytes,
        pub memory_source: MemorySource,
        pub memory_note: &'static str,
        /// Memory bandwidth in bytes per second.
        pub bandwidth_bytes_per_s: u64,
        /// Dense FP16 tensor throughput in TFLOPS.
        pub fp16_tflops: f64,
        pub bf16_tflops: f64,
        /// Dense FP8 tensor throughput in TFLOPS (0 where unsupported).
        pub fp8_tflops: f64,
        /// GPU-to-GPU link, e.g. `NVLink 4 900 GB/s`.
        pub interconnect: &'static str,
        /// Board power in watts, where published.
        pub tdp_watts: Option<u32>,
        pub unified_memory: bool,
        pub unified_memory_bytes: Bytes,
        pub mig_compute_slices: u8,
        pub mig_memory_slices: u8,
        /// The GPU instance profiles NVIDIA supports on this GPU (empty without MIG).
        pub mig_profiles: &'static [MigProfile],
        /// Where the MIG profiles come from.
        pub mig_source: &'static str,
        /// Datasheet or document the figures come from.
        pub source: &'static str,
        pub date: &'static str,
    }
}

/// One MIG GPU-instance profile and where NVIDIA lets it be placed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct MigProfile {
    /// Profile name, e.g. `3g.40gb`.
    pub name: &'static str,
    /// Compute slices (the `g` of the name).
    pub compute_slices: u8,
    /// Memory slices occupied.
    pub memory_slices: u8,
    /// Most instances of this profile on one GPU.
    pub max_instances: u8,
    /// The memory-slice indices an instance may start at (`nvidia-smi mig -lgipp`).
    pub starts: &'static [u8],
    /// Memory CUDA sees inside the instance: below the label (A100-40GB `1g.5gb` is 4.75 GiB).
    #[cfg_attr(feature = "serde", serde(rename = "usable_bytes"))]
    pub usable: Bytes,
    /// Measurement or derivation of `usable`.
    pub usable_source: &'static str,
}

/// Every GPU of the catalog, sorted by id.
pub fn gpus() -> &'static [Gpu] {
    generated_gpus::GPUS
}

/// The GPU with this id (exact, lower-case): a binary search, the table being sorted by id.
pub fn find_gpu(id: &str) -> Option<&'static Gpu> {
    let i = gpus().binary_search_by(|g| g.id.cmp(id)).ok()?;
    gpus().get(i)
}

/// The catalog GPUs that `query` names, as a person types a card: its id in any case
/// (`H100-SXM5-80GB`), its name (`NVIDIA H200 SXM 141GB`), or words of either, in order (`h200`,
/// `4090`, `a100 80gb`, `rtx 6000 ada`). Words are runs of ASCII letters and digits. An id wins
/// outright; then the GPUs whose id or name has every word whole; only when none has, those
/// where every word begins one (`mi300` for `mi300x`, `mi325` for `mi325x`; see
/// `crate::words::named_by`). So `h20` names the H20 alone, although it begins `h200` too.
/// Among several, the cards whose id or name ends with the words are preferred: `4080` names
/// the RTX 4080, not the RTX 4080 SUPER, as a person means it. Empty when nothing matches;
/// several when the words fit more than one card (`h100`: the NVL, PCIe and SXM5; `rtx 6000`:
/// the RTX 6000 Ada and the RTX PRO 6000 Blackwell).
pub fn match_gpus(query: &str) -> Vec<&'static Gpu> {
    let id = query.trim();
    if let Some(g) = gpus().iter().find(|g| g.id.eq_ignore_ascii_case(id)) {
        return alloc::vec![g];
    }
    let mut found = crate::words::named_by(query, gpus(), |g| [g.id, g.name]);
    let ends = |g: &&Gpu| {
        crate::words::ends_with_words(query, g.id) || crate::words::ends_with_words(query, g.name)
    };
    if found.len() > 1 && found.iter().any(ends) {
        found.retain(ends);
    }
    found
}

/// The one catalog GPU that `query` names ([`match_gpus`]), or an error for `field` that lists
/// the catalog's ids when it names none, and the ones it fits when it names several.
pub fn lookup_gpu(field: &str, query: &str) -> Result<&'static Gpu, crate::InputError> {
    fn ids<'a>(gs: impl IntoIterator<Item = &'a Gpu>) -> alloc::string::String {
        gs.into_iter().map(|g| g.id).collect::<Vec<_>>().join(", ")
    }
    match match_gpus(query).as_slice() {
        [g] => Ok(g),
        [] => {
            let (q, all) = (query.trim(), ids(gpus()));
            Err(input_error!(
                UnknownGpu,
                field,
                ["no GPU named `{q}`"],
                ["没有这个 GPU：`{q}`"],
                ["a catalog id or a unique part of one, e.g. h200 or 4090: {all}"],
                ["目录中的 id，或只属于一个 id 的一部分，如 h200 或 4090：{all}"],
            ))
        }
        several => {
            let (q, n, them) = (query.trim(), several.len(), ids(several.iter().copied()));
            Err(input_error!(
                UnknownGpu,
                field,
                ["`{q}` matches {n} GPUs"],
                ["`{q}` 对应 {n} 个 GPU"],
                ["one of {them}"],
                ["以下之一：{them}"],
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every id is lower-case and names one card, and the table is sorted by id:
    /// `catalog::find_device` looks an id up as written (`find_gpu`, a binary search) before
    /// `match_gpus` compares ids in any case.
    #[test]
    fn ids_are_lower_case_distinct_and_sorted() {
        let ids: Vec<&str> = super::gpus().iter().map(|g| g.id).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        for (g, id) in super::gpus().iter().zip(&ids) {
            assert_eq!(*id, id.to_ascii_lowercase());
            assert!(core::ptr::eq(super::find_gpu(id).unwrap(), g));
            let found = super::match_gpus(id);
            assert!(found.len() == 1 && core::ptr::eq(found[0], g));
        }
        assert!(super::find_gpu("h100").is_none());
    }
    use super::*;
    use crate::units::MIB;

    /// Usable MiB of `profile` on `gpu`.
    fn mib(gpu: &str, profile: &str) -> u64 {
        find_gpu(gpu)
            .unwrap()
            .mig_profile(profile)
            .unwrap()
            .usable
            .get()
            / MIB
    }

    /// `nvidia-smi mig -lgip` prints GiB with two decimals; the catalog keeps that figure
    /// rounded down to whole MiB.
    fn lgip(gib: f64) -> u64 {
        libm::floor(gib * 1024.0) as u64
    }

    #[test]
    fn mig_slices_hold_the_lowest_published_lgip_figure() {
        // A100 80GB (SXM4, PCIe, A800): kata-containers' NVIDIA GPU passthrough doc (A100 PCIe
        // 80GB: 9.50, 19.50; nvidia-smi shows 9728 MiB), HGX A100 notes (39.25, 78.75).
        for g in ["a100-sxm4-80gb", "a100-pcie-80gb", "a800-sxm4-80gb"] {
            assert_eq!(mib(g, "1g.10gb"), 9728);
            assert_eq!(mib(g, "1g.20gb"), lgip(19.50));
            assert_eq!(mib(g, "2g.20gb"), lgip(19.50));
            assert_eq!(mib(g, "3g.40gb"), lgip(39.25));
            assert_eq!(mib(g, "4g.40gb"), lgip(39.25));
            assert_eq!(mib(g, "7g.80gb"), lgip(78.75));
        }
        // A100 40GB: the MIG User Guide's Getting Started (4.75, 9.62, 19.50, 39.25).
        for g in ["a100-sxm4-40gb", "a100-pcie-40gb"] {
            assert_eq!(mib(g, "1g.5gb"), lgip(4.75));
            assert_eq!(mib(g, "1g.10gb"), lgip(9.62));
            assert_eq!(mib(g, "2g.10gb"), lgip(9.62));
            assert_eq!(mib(g, "3g.20gb"), lgip(19.50));
            assert_eq!(mib(g, "7g.40gb"), lgip(39.25));
        }
        // H100 80GB: Google Cloud's MIG section, driver 525.125.06 (9.62, 19.50, 39.25; the
        // 3g.40gb device shows 40192 MiB); 7g derived as 2 x 39.25.
        for g in ["h100-sxm5-80gb", "h100-pcie-80gb", "h800-sxm5-80gb"] {
            assert_eq!(mib(g, "1g.10gb"), lgip(9.62));
            assert_eq!(mib(g, "2g.20gb"), lgip(19.50));
            assert_eq!(mib(g, "3g.40gb"), 40192);
            assert_eq!(mib(g, "7g.80gb"), 2 * 40192);
        }
        // H100 NVL: OpenNebula's NVIDIA vGPU & MIG page (10.62, 21.50, 46.12, 92.62); the
        // audit measured 10.62-10.75 and 21.50-21.62, vramfit said 11.46 and 23.05.
        let nvl = "h100-nvl-94gb";
        assert_eq!(mib(nvl, "1g.12gb"), lgip(10.62));
        assert_eq!(mib(nvl, "1g.24gb"), lgip(21.50));
        assert_eq!(mib(nvl, "2g.24gb"), lgip(21.50));
        assert_eq!(mib(nvl, "3g.47gb"), lgip(46.12));
        assert_eq!(mib(nvl, "7g.94gb"), lgip(92.62));
        // H20: GPU Feature Discovery labels (MiB).
        assert_eq!(mib("h20-96gb", "1g.12gb"), 12032);
        assert_eq!(mib("h20-96gb", "1g.24gb"), 24192);
        assert_eq!(mib("h20-96gb", "3g.48gb"), 48512);
        // H200: NVIDIA/mig-parted#120 (16.00, 32.25, 69.50, 139.75).
        let h200 = "h200-sxm-141gb";
        assert_eq!(mib(h200, "1g.18gb"), lgip(16.00));
        assert_eq!(mib(h200, "1g.35gb"), lgip(32.25));
        assert_eq!(mib(h200, "3g.71gb"), lgip(69.50));
        assert_eq!(mib(h200, "7g.141gb"), lgip(139.75));
        // B200: NVIDIA/gpu-operator#1351 (20.50, 44.25).
        assert_eq!(mib("b200-180gb", "1g.23gb"), lgip(20.50));
        assert_eq!(mib("b200-180gb", "2g.45gb"), lgip(44.25));
        // GB200: NVIDIA/mig-parted#227 and NVIDIA/gpu-operator#1303 (20.00 and 22.00 for one
        // slice, the lower kept; 45.50 for two).
        assert_eq!(mib("gb200-186gb", "1g.23gb"), lgip(20.00));
        assert_eq!(mib("gb200-186gb", "1g.47gb"), lgip(45.50));
        assert_eq!(mib("gb200-186gb", "2g.47gb"), lgip(45.50));
        // RTX PRO 6000 Blackwell: bigstack-oss/cubecos#312 (23.12 for one slice; 23.62 in
        // GoogleCloudPlatform/container-engine-accelerators#564, the lower kept); two and four
        // slices derived as 2 and 4 times one.
        let pro = "rtx-pro-6000-blackwell";
        assert_eq!(mib(pro, "1g.24gb"), lgip(23.12));
        assert_eq!(mib(pro, "2g.48gb"), 2 * lgip(23.12));
        assert_eq!(mib(pro, "4g.96gb"), 4 * lgip(23.12));
    }

    /// Each card reads its own row of the table kept apart, and its JSON carries the MIG
    /// profiles and sources as fields, where they were when they were fields.
    #[cfg(feature = "serde")]
    #[test]
    fn a_cards_detail_row_is_its_own_and_serializes_in_place() {
        assert_eq!(generated_gpus::DETAILS.len(), gpus().len());
        for (i, g) in gpus().iter().enumerate() {
            assert_eq!(usize::from(g.detail), i, "{}", g.id);
        }
        let a100 = find_gpu("a100-sxm4-40gb").unwrap();
        let text = serde_json::to_string(a100).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["memory_bytes"], 42_505_076_736_u64);
        // 1g.5gb: 4.75 GiB = 4.75 × 1,073,741,824 B, as `nvidia-smi mig -lgip` prints it.
        assert_eq!(v["mig_profiles"][0]["name"], "1g.5gb");
        assert_eq!(v["mig_profiles"][0]["usable_bytes"], 5_100_273_664_u64);
        assert_eq!(v["mig_profiles"].as_array().unwrap().len(), 6);
        assert_eq!(
            v["mig_source"],
            "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html"
        );
        assert!(v["source"].as_str().unwrap().contains("a100-datasheet"));
        let at = |k: &str| text.find(&alloc::format!("\"{k}\":")).unwrap();
        assert!(at("id") < at("memory_bytes"));
        assert!(at("mig_memory_slices") < at("mig_profiles"));
        assert!(at("mig_profiles") < at("mig_source"));
        assert!(at("mig_source") < at("source"));
        assert!(text.ends_with(&alloc::format!(
            "\"source\":{},\"date\":\"{}\"}}",
            v["source"],
            a100.date
        )));
        // A card without MIG has none, and says so with its slices.
        let t4 = find_gpu("t4").unwrap();
        assert!(!t4.has_mig() && t4.mig_profiles().is_empty() && t4.mig_source().is_empty());
    }

    #[test]
    fn gb200_has_the_mig_user_guides_seven_instances() {
        // MIG User Guide, Supported GPUs: GB200, up to 7 instances; profiles from
        // NVIDIA/mig-parted#227: 1g.23gb, 1g.47gb, 2g.47gb, 3g.93gb, 4g.93gb, 7g.186gb.
        let g = find_gpu("gb200-186gb").unwrap();
        assert!(g.has_mig());
        let names: Vec<(&str, u8, &[u8])> = g
            .mig_profiles()
            .iter()
            .map(|p| (p.name, p.max_instances, p.starts))
            .collect();
        assert_eq!(
            names,
            [
                ("1g.23gb", 7, &[0, 1, 2, 3, 4, 5, 6][..]),
                ("1g.47gb", 4, &[0, 2, 4, 6][..]),
                ("2g.47gb", 3, &[0, 2, 4][..]),
                ("3g.93gb", 2, &[0, 4][..]),
                ("4g.93gb", 1, &[0][..]),
                ("7g.186gb", 1, &[0][..]),
            ]
        );
    }

    #[test]
    fn no_slice_is_larger_than_its_card_and_bigger_slices_hold_more() {
        // The audit found derived 7g slices above the whole card (B200 178.31 > 178.18 GiB,
        // H100 NVL 93.12 > 93.05, H20 95.10 > 95.03). A slice never has more than the card,
        // and a profile with more memory slices never has less than one with fewer.
        for g in gpus().iter().filter(|g| g.has_mig()) {
            for p in g.mig_profiles() {
                assert!(p.usable <= g.memory, "{} {}", g.id, p.name);
                for q in g.mig_profiles() {
                    if q.memory_slices > p.memory_slices {
                        assert!(q.usable >= p.usable, "{} {} < {}", g.id, q.name, p.name);
                    }
                    if q.memory_slices == p.memory_slices {
                        assert_eq!(q.usable, p.usable, "{} {} {}", g.id, q.name, p.name);
                    }
                }
            }
        }
    }
}
