//! The nodes a run's GPUs fill: `gpus_per_node` (default 8) and the network between nodes
//! (`node_link`, default 400 Gb/s per GPU), checked into a [`Nodes`].

use super::int;
use crate::error::Result;
use crate::estimate::EstimateInput;
use crate::estimate::nodes::{DEFAULT_GPUS_PER_NODE, DEFAULT_NODE_LINK_BYTES_PER_S, Nodes};
use crate::units::parse_number;

/// The slowest network accepted, per GPU: 1 Gb/s, in bytes per second.
const LOW: f64 = 1e9 / 8.0;
/// The fastest: 8 Tb/s (NVLink between the trays of an NVL72 rack is 7.2 Tb/s per GPU).
const HIGH: f64 = 8e12 / 8.0;

impl EstimateInput {
    /// The nodes `gpus` GPUs fill. A layout over more than one node fills whole nodes: `gpus`
    /// a multiple of `gpus_per_node`.
    /// A build without the `nodes` feature refuses a layout over more than one node, or
    /// either field, naming it ([`super::checks::not_built`]).
    pub(super) fn resolve_nodes(&self, gpus: u64) -> Result<Nodes> {
        if !cfg!(feature = "nodes") {
            if self.placement.gpus_per_node.is_some() {
                return Err(super::checks::not_built("gpus_per_node"));
            }
            if self.hardware.node_link.is_some() {
                return Err(super::checks::not_built("node_link"));
            }
            if gpus > DEFAULT_GPUS_PER_NODE {
                return Err(super::checks::not_built("gpus"));
            }
            return Ok(Nodes::ONE);
        }
        let g = match self.placement.gpus_per_node {
            Some(g) => int("gpus_per_node", g, 1, 64)?,
            None => DEFAULT_GPUS_PER_NODE,
        };
        if gpus > g && !gpus.is_multiple_of(g) {
            return Err(input_error!(
                Conflict,
                "gpus_per_node",
                ["{gpus} GPUs do not fill whole nodes of {g}"],
                ["{gpus} 个 GPU 填不满每节点 {g} 个 GPU 的整数个节点"],
                [
                    "a node size that divides the {gpus} GPUs (tp × pp × dp), or gpus a multiple of {g}"
                ],
                ["能整除 {gpus} 个 GPU（tp × pp × dp）的每节点 GPU 数，或 gpus 为 {g} 的倍数"],
            ));
        }
        let (link, link_given) = match &self.hardware.node_link {
            Some(rate) => (node_link(rate)?, true),
            None => (DEFAULT_NODE_LINK_BYTES_PER_S, false),
        };
        Ok(Nodes {
            gpus_per_node: g,
            nodes: gpus.div_ceil(g),
            link_bytes_per_s: link,
            link_given,
        })
    }
}

/// A network rate per GPU as people write it, bytes per second: bits (`400Gb/s`, `400Gbps`,
/// `400Gbit/s`, as adapters are sold) or bytes (`50GB/s`), decimal prefixes, 1 Gb/s to 8 Tb/s.
pub(crate) fn node_link(text: &str) -> Result<u64> {
    let t = text.trim();
    let refused = || {
        input_error!(
            OutOfRange,
            "node_link",
            ["`{t}` is not a network rate from 1 Gb/s to 8 Tb/s"],
            ["`{t}` 不是 1 Gb/s 到 8 Tb/s 之间的网络速率"],
            "a rate per GPU with its unit, bits or bytes, from 1Gb/s to 8Tb/s, e.g. 400Gb/s, 200Gbps or 50GB/s",
            "每 GPU 的带单位速率（比特或字节），1Gb/s 到 8Tb/s，如 400Gb/s、200Gbps 或 50GB/s",
        )
    };
    let split = t
        .find(|c: char| c.is_ascii_alphabetic())
        .ok_or_else(refused)?;
    let (num, unit) = t.split_at(split);
    let value = parse_number(num.trim()).ok_or_else(refused)?;
    let unit = unit.trim();
    let (prefix, rest) = unit.split_at(unit.chars().next().map_or(0, char::len_utf8));
    let scale = match prefix {
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        _ => return Err(refused()),
    };
    let per_byte = match rest {
        "b/s" | "bps" | "bit/s" | "bits/s" => 1.0 / 8.0,
        "B/s" | "Bps" => 1.0,
        _ => return Err(refused()),
    };
    let bytes = value * scale * per_byte;
    if !(LOW..=HIGH).contains(&bytes) {
        return Err(refused());
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::EstimateInput;
    use crate::estimate::PlacementInput;

    #[test]
    fn network_rates_in_bits_or_bytes() {
        // 400 Gb/s = 400e9 / 8 = 50e9 B/s; 200 Gbps RoCE = 25e9; 50 GB/s as bytes.
        assert_eq!(node_link("400Gb/s").unwrap(), 50_000_000_000);
        assert_eq!(node_link("200Gbps").unwrap(), 25_000_000_000);
        assert_eq!(node_link(" 50 GB/s").unwrap(), 50_000_000_000);
        assert_eq!(node_link("3.2Tbit/s").unwrap(), 400_000_000_000);
        for bad in [
            "400", "400Gb", "0.5Gb/s", "9Tb/s", "NaNGb/s", "-1Gb/s", "400Xb/s", "fast",
        ] {
            let e = node_link(bad).unwrap_err();
            assert_eq!(e.field, "node_link", "{bad}");
            assert!(e.accepted.contains("1Gb/s to 8Tb/s"), "{bad}");
        }
    }

    #[test]
    fn whole_nodes_or_a_named_refusal() {
        let input = |gpus: f64, g: Option<f64>| EstimateInput {
            placement: PlacementInput {
                gpus_per_node: g,
                gpus: Some(gpus),
                ..Default::default()
            },
            ..Default::default()
        };
        // 16 GPUs, the default 8 per node: 2 nodes; 4 GPUs: one node, partly used.
        assert_eq!(input(16.0, None).resolve_nodes(16).unwrap().nodes, 2);
        assert_eq!(input(4.0, None).resolve_nodes(4).unwrap().nodes, 1);
        assert_eq!(input(32.0, Some(4.0)).resolve_nodes(32).unwrap().nodes, 8);
        // 12 GPUs on nodes of 8 leave one node half used: refused, naming the field.
        let e = input(12.0, None).resolve_nodes(12).unwrap_err();
        assert_eq!(e.field, "gpus_per_node");
        assert!(
            e.problem.contains("12 GPUs do not fill whole nodes of 8"),
            "{}",
            e.problem
        );
        for g in [0.0, 65.0, 2.5, f64::NAN] {
            assert_eq!(
                input(8.0, Some(g)).resolve_nodes(8).unwrap_err().field,
                "gpus_per_node"
            );
        }
    }
}
