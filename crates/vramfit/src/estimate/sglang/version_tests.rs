//! SGLang's release rules against hand calculations from each release's `server_args.py`.

use super::super::tests::reserve;
use super::{FractionRule, Parallelism, SglangVersion};
use crate::estimate::PrefillGraphs;
use alloc::string::ToString;

fn v(t: &str) -> SglangVersion {
    SglangVersion::parse("engine_version", t).unwrap()
}

#[test]
fn versions_are_read_as_sglang_tags_them() {
    assert_eq!(v("0.4.3.post3"), SglangVersion::new(4, 3));
    assert_eq!(v("v0.5.23"), SglangVersion::LATEST);
    assert_eq!(v("0.5.2rc1"), SglangVersion::new(5, 2));
    assert_eq!(v("0.4").to_string(), "0.4.10");
    assert_eq!(v("0.5"), SglangVersion::LATEST);
    assert_eq!(v("0.4.0"), SglangVersion::OLDEST);
    assert!(v("0.4.10") > v("0.4.9.post6") && v("0.5.0rc2") > v("0.4.10.post2"));
    assert_eq!(SglangVersion::default(), SglangVersion::LATEST);
}

/// A bad string is refused naming `engine_version` and SGLang's accepted range, in both
/// languages where the build has them.
#[test]
fn a_bad_version_is_refused_with_the_range() {
    for bad in [
        "",
        "0",
        "1.0",
        "0.x",
        "0.3.6",
        "0.5.24",
        "0.4.11",
        "0.6",
        "latest",
        "0.5.",
        "0.5.2.dev1",
        "0.5.2.post1.x",
    ] {
        let e = SglangVersion::parse("engine_version", bad).unwrap_err();
        assert_eq!(e.field, "engine_version", "{bad}");
        assert!(e.accepted.contains("0.4.0 to 0.5.23"), "{bad}: {e}");
        #[cfg(all(feature = "en", feature = "zh"))]
        assert!(
            e.zh.as_ref().unwrap().1.contains("0.4.0 到 0.5.23"),
            "{bad}"
        );
    }
}

#[test]
fn lines_switch_where_the_wheels_say() {
    assert_eq!(v("0.4.4.post4").fraction_rule(), FractionRule::FixedByTp);
    assert_eq!(v("0.4.5").fraction_rule(), FractionRule::BigCardLess13Gib);
    assert_eq!(v("0.4.6.post5").fraction_rule(), FractionRule::BigCardLift);
    assert_eq!(v("0.4.7").fraction_rule(), FractionRule::ReserveByCard);
    assert_eq!(v("0.5.2").fraction_rule(), FractionRule::ReserveByCard);
    assert_eq!(v("0.5.3").fraction_rule(), FractionRule::ReserveByChunk);
    assert!(!v("0.5.9").prefill_graphs_by_default() && v("0.5.10").prefill_graphs_by_default());
    assert!(!v("0.4.4").dp_attention_groups_given() && v("0.4.5").dp_attention_groups_given());
    assert!(!v("0.5.21").spells_attn_dp_size() && v("0.5.22").spells_attn_dp_size());
    assert!(!v("0.5.13").spells_graph_backends() && v("0.5.14").spells_graph_backends());
}

/// An H100 (81,090 MiB) at tp 1, by hand from each release's source:
/// - 0.4.3 (`__post_init__`, v0.4.3.post3): fixed 0.88 at tp 1, 0.85 at tp 4;
/// - 0.4.5: 81,090 ≤ 81,920, the same fixed 0.88;
/// - 0.4.7 to 0.5.2 (below 90 GiB): reserve (9.5 + 1 / 2) GiB = 10,240 MiB, (81,090 − 10,240)
///   / 81,090 = 0.87372 → 0.874; with DP attention 4 GiB more: 14,336, 0.82321 → 0.823;
/// - 0.5.3 (no prefill graphs by default): 512 + 8192 × 1.5 + 256 × 2 + 1 / 8 × 1024 = 13,440
///   MiB, 0.834;
/// - 0.5.23 (58 prefill graphs × 8 MiB more): 13,904 MiB, 0.829.
#[test]
fn an_h100s_default_fraction_by_release() {
    let h100 = |bs, graphs| reserve(Some(81_090), 8192, bs, 1, 1, graphs);
    let off = PrefillGraphs::OFF;
    let on = PrefillGraphs::of(8192, true, false, false);
    assert_eq!(
        v("0.4.3.post3").default_fraction(&h100(160, off), None),
        0.88
    );
    let tp4 = reserve(Some(81_090), 8192, 160, 4, 1, off);
    assert_eq!(v("0.4.3.post3").default_fraction(&tp4, None), 0.85);
    assert_eq!(v("0.4.5").default_fraction(&h100(160, off), None), 0.88);
    assert_eq!(v("0.4.7").default_fraction(&h100(160, off), None), 0.874);
    let dp = reserve(Some(81_090), 8192, 160, 2, 2, off);
    // tp 2: (9.5 + 1) GiB + 4 GiB = 14,848 MiB; 66,242 / 81,090 = 0.81690 → 0.817.
    assert_eq!(v("0.5.2").default_fraction(&dp, None), 0.817);
    assert_eq!(v("0.5.3").default_fraction(&h100(256, off), None), 0.834);
    assert_eq!(v("0.5.23").default_fraction(&h100(256, on), None), 0.829);
}

/// An H200 (143,157 MiB as vramfit's catalog measures it) at tp 1:
/// - 0.4.5: above 81,920 MiB, (143,157 − 13,312) / 143,157 = 0.90701 (not rounded);
/// - 0.4.6: 0.88, then above 96 GiB min(0.88 + 49,152 × 0.12 / 143,157 = 0.92120, (143,157 −
///   18,432) / 143,157 = 0.87125) = 0.87125;
/// - 0.4.7: below 160 GiB, reserve 12.5 GiB = 12,800 MiB: 0.91059 → 0.911.
#[test]
fn an_h200s_default_fraction_by_release() {
    let h200 = reserve(Some(143_157), 8192, 256, 1, 1, PrefillGraphs::OFF);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-5;
    assert!(close(v("0.4.5").default_fraction(&h200, None), 0.90701));
    assert!(close(v("0.4.6").default_fraction(&h200, None), 0.87125));
    assert_eq!(v("0.4.7").default_fraction(&h200, None), 0.911);
    // Without a card: the fixed fraction up to 0.4.5, 0.88 after.
    let none = reserve(None, 4096, 160, 8, 1, PrefillGraphs::OFF);
    assert_eq!(v("0.4.3").default_fraction(&none, None), 0.81);
    assert_eq!(v("0.4.6").default_fraction(&none, None), 0.88);
    assert_eq!(v("0.5.0").default_fraction(&none, None), 0.88);
}

/// The chunk and the decode graphs SGLang picks by card and release: an L4 (22,558 MiB) at tp
/// 4 took 2048 and 80 under 0.4.3 (the 0.4.3.post3 log of tests/data/sglang-calibration.csv
/// prints both), 2048 and 8 under 0.4.2; an H100 8192 and 160 up to 0.5.2; an RTX 4090
/// (24,084 MiB) at tp 1 16 graphs under 0.5.3, 24 from 0.5.5; an H200 256 graphs under 0.4.7.
#[test]
fn defaults_by_card_and_release() {
    let d = |ver: &str, mib, tp| {
        let d = v(ver).defaults(Some(mib), tp);
        (d.chunked_prefill_size, d.cuda_graph_max_bs)
    };
    assert_eq!(d("0.4.3.post3", 22_558, 4), (2048, 80));
    assert_eq!(d("0.4.2", 22_558, 4), (2048, 8));
    assert_eq!(d("0.4.3", 81_090, 1), (8192, 160));
    assert_eq!(d("0.4.5", 143_157, 1), (8192, 256));
    assert_eq!(d("0.5.2", 81_090, 1), (8192, 160));
    assert_eq!(d("0.4.7", 143_157, 1), (8192, 256));
    assert_eq!(d("0.5.2", 180_000, 8), (16384, 512));
    assert_eq!(d("0.5.3", 24_084, 1), (2048, 16));
    assert_eq!(d("0.5.5", 24_084, 1), (2048, 24));
    assert_eq!(d("0.5.23", 81_090, 4), (8192, 512));
    let none = v("0.4.8").defaults(None, 1);
    assert_eq!(
        (none.chunked_prefill_size, none.cuda_graph_max_bs),
        (4096, 160)
    );
}

/// What a release cannot run as vramfit models it is refused, naming the release it needs
/// (the flags each release's `server_args.py` defines).
#[test]
fn what_a_release_lacks_is_refused() {
    let par = |ep, pp, dp_attention| Parallelism {
        ep,
        pp,
        dp_attention,
    };
    let e = v("0.4.5").check(par(1, 2, 1), false, false).unwrap_err();
    assert_eq!(e.field, "engine_version");
    assert!(e.accepted.contains("0.4.6"), "{e}");
    let e = v("0.4.2").check(par(2, 1, 1), false, false).unwrap_err();
    assert!(e.accepted.contains("0.4.3"), "{e}");
    assert!(v("0.4.3").check(par(2, 1, 1), false, false).is_ok());
    let e = v("0.4.4").check(par(1, 1, 4), false, false).unwrap_err();
    assert!(e.accepted.contains("0.4.5"), "{e}");
    assert!(v("0.4.5").check(par(1, 1, 4), false, false).is_ok());
    let e = v("0.4.10").check(par(1, 1, 1), true, false).unwrap_err();
    assert!(e.accepted.contains("0.5.0"), "{e}");
    let e = v("0.5.22").check(par(1, 1, 1), false, true).unwrap_err();
    assert!(e.accepted.contains("0.5.23"), "{e}");
    assert!(
        SglangVersion::LATEST
            .check(par(2, 2, 4), true, true)
            .is_ok()
    );
}
