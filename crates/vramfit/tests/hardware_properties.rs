//! Properties of the planners over random input: nothing panics, every MIG layout proposed is
//! one the driver accepts, every job is placed once in a slice whose usable memory holds it,
//! and no number is NaN, infinite or negative.

use proptest::prelude::*;
use vramfit::Bytes;
use vramfit::hardware::fit::largest_fitting;
use vramfit::hardware::mig::{MigOptions, Placement, check_layout, plan_mig};
use vramfit::hardware::spot::{SpotInput, compare};
use vramfit::hardware::{Layout, ParallelKind, PlanOptions, gpus, offers, plan};

fn mig_gpu_ids() -> Vec<&'static str> {
    gpus()
        .iter()
        .filter(|g| g.has_mig())
        .map(|g| g.id)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn mig_plans_are_valid(gi in 0usize..13, jobs in prop::collection::vec(1u64..200_000, 1..12)) {
        let ids = mig_gpu_ids();
        let g = vramfit::hardware::find_gpu(ids[gi % ids.len()]).unwrap();
        let jobs: Vec<Bytes> = jobs.iter().map(|m| Bytes::mib(*m)).collect();
        match plan_mig(g, &jobs, offers(), &MigOptions::default()) {
            Err(e) => prop_assert_eq!(e.field, "job"),
            Ok(p) => {
                let mut seen = vec![0u32; jobs.len()];
                for card in &p.cards {
                    let layout: Vec<Placement> = card.slices.iter()
                        .map(|s| Placement { profile: g.mig_profile(&s.profile).unwrap(), start: s.start })
                        .collect();
                    prop_assert_eq!(check_layout(g, &layout), Ok(()));
                    for s in &card.slices {
                        seen[s.job] += 1;
                        prop_assert!(s.usable_bytes >= jobs[s.job]);
                        prop_assert_eq!(s.margin_bytes, s.usable_bytes.minus(jobs[s.job]));
                    }
                }
                prop_assert!(seen.iter().all(|n| *n == 1));
                for c in [p.cost_per_hour, p.whole_cards_cost_per_hour].into_iter().flatten() {
                    prop_assert!(c.is_finite() && c >= 0.0);
                }
            }
        }
    }

    #[test]
    fn cheapest_fit_is_sorted_and_fits(need_gib in 1u64..2000, max in 1u32..16) {
        let opts = PlanOptions { max_gpus_per_node: max, include_spot: true, ..PlanOptions::default() };
        let per_gpu = |l: Layout, _: &vramfit::hardware::Gpu| match l.kind {
            ParallelKind::Single | ParallelKind::Mig | ParallelKind::Data | ParallelKind::Expert => Bytes::gib(need_gib),
            _ => Bytes::gib(need_gib).div_ceil(u64::from(l.gpus)).plus(Bytes::gib(1)),
        };
        let got = plan(per_gpu, offers(), gpus(), &opts);
        prop_assert!(got.windows(2).all(|w| w[0].price_per_hour <= w[1].price_per_hour));
        for o in &got {
            prop_assert!(o.per_gpu_bytes <= o.usable_bytes);
            // At most `max` GPUs in each node, on at most `max_nodes` nodes.
            let nodes = o.parallelism.nodes;
            prop_assert!(nodes >= 1 && nodes <= opts.max_nodes);
            prop_assert!(o.count <= max.max(1) * nodes && o.count >= 1);
            prop_assert!(o.price_per_hour.is_finite() && o.price_per_hour > 0.0);
            prop_assert!(o.parallelism.kind != ParallelKind::Data);
        }
    }

    #[test]
    fn spot_is_finite_or_an_error(h in -10.0f64..1e6, p in -1.0f64..100.0, s in -1.0f64..100.0,
                                 m in -1.0f64..1000.0, c in -1.0f64..1000.0, r in -1.0f64..10.0) {
        let input = SpotInput { hours: h, on_demand_price: p, spot_price: s, mtbi_hours: m,
                                checkpoint_every_hours: c, restart_hours: r };
        if let Ok(out) = compare(&input) {
            for x in [out.expected_wall_hours, out.spot_cost, out.on_demand_cost, out.break_even_spot_price,
                      out.expected_interruptions, out.expected_lost_hours_per_interruption] {
                prop_assert!(x.is_finite() && x >= 0.0, "{x}");
            }
            prop_assert!(out.expected_wall_hours >= input.hours * (1.0 - 1e-12));
        }
    }

    #[test]
    fn largest_fitting_is_the_largest(a in 0u64..1 << 20, b in 1u64..1 << 12, cap in 0u64..1 << 32, hi in 0u64..1 << 24) {
        let need = |x: u64| Bytes::new(a.saturating_add(b.saturating_mul(x)));
        let brute_max = if cap < a { None } else { Some(((cap - a) / b).min(hi)) };
        match largest_fitting(need, Bytes::new(cap), 0, hi) {
            None => prop_assert!(brute_max.is_none()),
            Some(f) => {
                prop_assert_eq!(Some(f.value), brute_max);
                if let Some(nb) = f.next_bytes { prop_assert!(nb > Bytes::new(cap)); }
            }
        }
    }
}
