//! Host memory: the CPU's memory that llama.cpp reads the layers and experts it keeps off the GPU
//! from (desktop DDR4/DDR5 channels, workstation and server platforms, unified memory), and the
//! lookups by id or words.
//!
//! Like [`crate::gpu`] it sits below the estimator: the speed under offload
//! ([`crate::throughput`]) reads a host's bandwidth from here. The table is data: one
//! human-edited TOML file per record under `crates/vramfit/data/hosts/`, each with its source and
//! date, turned into `src/generated/hosts.rs` by the test `tests/sourcegen_hosts.rs`, which also
//! checks every peak against its bus: bus width / 8 × transfers per second, within 3 % (vendors
//! round: Apple prints 200 GB/s for the M1 Pro's 256-bit LPDDR5-6400, 204.8 GB/s).

use alloc::vec::Vec;

/// What kind of machine a host memory is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum HostKind {
    /// A desktop board: two 64-bit DDR channels.
    Desktop,
    /// A workstation platform (Threadripper, Xeon W, Core X): four or eight channels.
    Workstation,
    /// A server socket (EPYC, Xeon Scalable): eight or twelve channels.
    Server,
    /// Memory the CPU and GPU share (Apple silicon, Strix Halo, DGX Spark).
    Unified,
}

/// One host memory of the catalog.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct HostMemory {
    /// Lower-case kebab-case id, e.g. `ddr5-6000-2ch`.
    pub id: &'static str,
    /// What a person calls it, e.g. `Desktop, dual-channel DDR5-6000`.
    pub name: &'static str,
    /// Desktop, workstation, server or unified memory.
    pub kind: HostKind,
    /// The memory and its transfer rate, e.g. `DDR5-6000`, `LPDDR5X-8533`.
    pub memory: &'static str,
    /// The bus's data width in bits: 64 a DDR channel.
    pub bus_bits: u32,
    /// Transfers per second, in millions (MT/s).
    pub transfer_mt_s: u32,
    /// Peak bandwidth in bytes per second: the vendor's figure, or bus / 8 × transfers.
    pub bandwidth_bytes_per_s: u64,
    /// A published measurement of the bandwidth a program reached (0 where none is at hand).
    pub measured_bytes_per_s: u64,
    /// Where the measurement was printed (empty without one).
    pub measured_source: &'static str,
    /// Datasheet or standard the peak comes from.
    pub source: &'static str,
    /// When the record was checked (YYYY-MM-DD).
    pub date: &'static str,
}

/// The host assumed when a run with layers or experts in CPU memory names none: a desktop with
/// two channels of DDR5-5600 (89.6 GB/s), what a desktop of 2024–2026 is sold with. A DDR4
/// machine is slower (DDR4-3200: 51.2 GB/s), a workstation or server faster: the estimate's note
/// says which was assumed.
pub const DEFAULT_HOST: &str = "ddr5-5600-2ch";

/// The host memory a run reads its CPU-resident weights from, as the input chose it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HostChoice {
    /// A catalog record, named by `host_memory`.
    Catalog(&'static HostMemory),
    /// The user's own peak, `host_bandwidth`, in bytes per second.
    Given(u64),
    /// None given: [`DEFAULT_HOST`], which the estimate's note names.
    Assumed(&'static HostMemory),
}

impl HostChoice {
    /// The peak bandwidth, bytes per second.
    pub fn bandwidth_bytes_per_s(&self) -> u64 {
        match self {
            HostChoice::Catalog(h) | HostChoice::Assumed(h) => h.bandwidth_bytes_per_s,
            HostChoice::Given(b) => *b,
        }
    }

    /// The class of host, which sets the share of the peak llama.cpp reaches
    /// ([`crate::throughput::efficiency::host_mbu`]); `None` for a bandwidth given alone.
    pub fn kind(&self) -> Option<HostKind> {
        match self {
            HostChoice::Catalog(h) | HostChoice::Assumed(h) => Some(h.kind),
            HostChoice::Given(_) => None,
        }
    }
}

/// Every host memory of the catalog, sorted by id.
pub fn hosts() -> &'static [HostMemory] {
    generated_hosts::HOSTS
}

/// The host memory with this id (exact, lower-case).
pub fn find_host(id: &str) -> Option<&'static HostMemory> {
    let i = hosts().binary_search_by(|h| h.id.cmp(id)).ok()?;
    hosts().get(i)
}

/// The catalog hosts that `query` names: an id in any case, or words of an id or name in order
/// (`ddr5 6000`, `m4 max`, `genoa`, `strix halo`), as [`crate::gpu::match_gpus`] reads a card;
/// among several, those whose id or name ends with the words (`m4 max` is the 16-core M4 Max,
/// not `apple-m4-max-14c`).
pub fn match_hosts(query: &str) -> Vec<&'static HostMemory> {
    let id = query.trim();
    if let Some(h) = hosts().iter().find(|h| h.id.eq_ignore_ascii_case(id)) {
        return alloc::vec![h];
    }
    let mut found = crate::words::named_by(query, hosts(), |h| [h.id, h.name]);
    let ends = |h: &&HostMemory| {
        crate::words::ends_with_words(query, h.id) || crate::words::ends_with_words(query, h.name)
    };
    if found.len() > 1 && found.iter().any(ends) {
        found.retain(ends);
    }
    found
}

/// The one catalog host that `query` names ([`match_hosts`]), or an error for `field` listing the
/// catalog's ids (none named) or the ones it fits (several).
pub fn lookup_host(field: &str, query: &str) -> Result<&'static HostMemory, crate::InputError> {
    fn ids<'a>(hs: impl IntoIterator<Item = &'a HostMemory>) -> alloc::string::String {
        hs.into_iter().map(|h| h.id).collect::<Vec<_>>().join(", ")
    }
    match match_hosts(query).as_slice() {
        [h] => Ok(h),
        [] => {
            let (q, all) = (query.trim(), ids(hosts()));
            Err(input_error!(
                UnknownName,
                field,
                ["no host memory named `{q}`"],
                ["没有这个主机内存：`{q}`"],
                ["a catalog id or a unique part of one, e.g. ddr5-6000-2ch or m4 max: {all}"],
                ["目录中的 id，或只属于一个 id 的一部分，如 ddr5-6000-2ch 或 m4 max：{all}"],
            ))
        }
        several => {
            let (q, n, them) = (query.trim(), several.len(), ids(several.iter().copied()));
            Err(input_error!(
                UnknownName,
                field,
                ["`{q}` matches {n} host memories"],
                ["`{q}` 对应 {n} 种主机内存"],
                ["one of {them}"],
                ["以下之一：{them}"],
            ))
        }
    }
}

// The generated table (see the module documentation).
#[rustfmt::skip]
#[path = "generated/hosts.rs"]
mod generated_hosts;

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids are sorted (the binary search) and every record's peak is its bus's: DDR5-6000 dual
    /// channel is 128 bits / 8 × 6,000 MT/s = 96 GB/s; EPYC Genoa's twelve channels of
    /// DDR5-4800, 768 / 8 × 4,800 = 460.8 GB/s, AMD's own figure.
    #[test]
    fn the_table_is_sorted_and_peaks_are_their_buses() {
        let ids: Vec<&str> = hosts().iter().map(|h| h.id).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        assert_eq!(
            find_host("ddr5-6000-2ch").unwrap().bandwidth_bytes_per_s,
            96_000_000_000
        );
        assert_eq!(
            find_host("epyc-genoa-12ch").unwrap().bandwidth_bytes_per_s,
            460_800_000_000
        );
        assert!(find_host(DEFAULT_HOST).is_some());
    }

    /// Words find a host as a person types it; an unknown or ambiguous name is an error naming
    /// the field.
    #[test]
    fn hosts_are_found_by_words() {
        assert_eq!(
            lookup_host("host_memory", "DDR5 6000").unwrap().id,
            "ddr5-6000-2ch"
        );
        assert_eq!(
            lookup_host("host_memory", "m4 max").unwrap().id,
            "apple-m4-max"
        );
        assert_eq!(
            lookup_host("host_memory", "strix halo").unwrap().id,
            "strix-halo"
        );
        assert_eq!(
            lookup_host("host_memory", "genoa").unwrap().id,
            "epyc-genoa-12ch"
        );
        let none = lookup_host("host_memory", "ddr7").unwrap_err();
        assert_eq!(none.field, "host_memory");
        assert_eq!(none.kind, crate::ErrorKind::UnknownName);
        let several = lookup_host("host_memory", "ddr5").unwrap_err();
        assert!(several.problem.contains("matches"), "{}", several.problem);
    }
}
