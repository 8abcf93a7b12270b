//! nvidia-smi log tests: real logs and hand-written ones.

use super::*;

#[test]
fn timestamps() {
    assert_eq!(timestamp_seconds("1970/01/01 00:00:01.500"), Some(1.5));
    assert_eq!(
        timestamp_seconds("2024/05/01 12:00:01.123").map(|s| s as i64),
        Some(1_714_564_801)
    );
    assert_eq!(timestamp_seconds("2024/13/01 12:00:01.123"), None);
    assert_eq!(timestamp_seconds("NVIDIA A100-SXM4-80GB"), None);
}

#[test]
fn process_rows_of_both_layouts() {
    let new =
        process_row("|    0   N/A  N/A     12345      C   /usr/bin/python3         12000MiB |")
            .expect("new layout");
    assert_eq!(
        (new.gpu, new.pid, new.name.as_str(), new.used),
        (0, 12345, "/usr/bin/python3", Some(Bytes::mib(12000)))
    );
    let old = process_row(
        "|    1     23456      C   python                                     4321MiB |",
    )
    .expect("old layout");
    assert_eq!(
        (old.gpu, old.pid, old.used),
        (1, 23456, Some(Bytes::mib(4321)))
    );
    // `N/A` memory (a container, WDDM): kept, memory unknown.
    let na = process_row(
        "|    0   N/A  N/A      4242    C+G   ...\\Microsoft VS Code\\Code.exe       N/A      |",
    )
    .expect("N/A memory");
    assert_eq!(
        (na.gpu, na.pid, na.name.as_str(), na.used),
        (0, 4242, "...\\Microsoft VS Code\\Code.exe", None)
    );
    // `12000 MiB`, with a space.
    let spaced = process_row("|    1     777      C   python train.py     12000 MiB |")
        .expect("spaced unit");
    assert_eq!(
        (spaced.pid, spaced.name.as_str(), spaced.used),
        (777, "python train.py", Some(Bytes::mib(12000)))
    );
    // Not MiB: not a process row of nvidia-smi.
    assert_eq!(
        process_row("|    0   N/A  N/A     12345      C   python      12.5 GiB |"),
        None
    );
    assert_eq!(
        process_row(
            "|  No running processes found                                                 |"
        ),
        None
    );
}

/// `--format=csv,noheader,nounits` (used, total in MiB; x is the sample number).
fn csv(used: &[u64], total: u64) -> String {
    used.iter()
        .map(|u| alloc::format!("{u}, {total}\n"))
        .collect()
}

fn one(used: &[u64], total: u64) -> SmiSeries {
    let log = parse_nvidia_smi_csv(&csv(used, total)).expect("a log");
    assert_eq!(log.series.len(), 1);
    log.series[0].clone()
}

const GIB: u64 = 1024; // MiB
const TOTAL: u64 = 80 * GIB; // an 80 GiB card: the leak threshold is 1 % of it, 819.2 MiB

/// Ten cycles of four samples, floor → half way → ceiling → half way (sample 4k is cycle k's
/// trough, 4k + 2 its peak), with `floor(k)` and `ceiling(k)` in MiB.
fn sawtooth(floor: impl Fn(u64) -> u64, ceiling: impl Fn(u64) -> u64) -> Vec<u64> {
    (0..10)
        .flat_map(|k| {
            let (lo, hi) = (floor(k), ceiling(k));
            [lo, (lo + hi) / 2, hi, (lo + hi) / 2]
        })
        .collect()
}

// The expected numbers below come from exact lines through whole MiB, so the only error is
// the rounding of sums of a few dozen products below 1e7: far below 1e-9 MiB.
const EPS: f64 = 1e-9;

#[test]
fn a_leak_under_a_sawtooth_is_rising() {
    // 10 → 30 GiB every 4 samples, floor and ceiling up 256 MiB a cycle: 64 MiB per sample.
    let used = sawtooth(|k| 10 * GIB + 256 * k, |k| 30 * GIB + 256 * k);
    // The line through the second half's samples cannot see it (the rule before envelopes).
    let xs: Vec<f64> = (20..40).map(f64::from).collect();
    let ys: Vec<f64> = used[20..].iter().map(|&u| u as f64).collect();
    assert!(fit(&xs, &ys).expect("a line").r2 < 0.5);
    let s = one(&used, TOTAL);
    assert_eq!(s.pattern, Pattern::Rising);
    let g = s.growth_mib_per_x.expect("a rate");
    assert!((g - 64.0).abs() < EPS, "{g}");
    // Peaks (x = 4k + 2) lie on 30 592 + 64 x MiB and reach 81 920 at x = 51 328 / 64 = 802;
    // the troughs (10 240 + 64 x) only at 1 120: the peaks run out first.
    let h = s.hits_total_at_x.expect("a time");
    assert!((h - 802.0).abs() < EPS, "{h}");
    // The line shown is the peaks' over the second half: samples 22 … 38.
    let t = s.tail_fit.expect("the line used");
    assert_eq!((t.start.x, t.end.x), (22.0, 38.0));
    assert_eq!(
        (t.start.used, t.end.used),
        (Bytes::mib(30_592 + 64 * 22), Bytes::mib(30_592 + 64 * 38))
    );
    assert!(t.r2 > 1.0 - EPS && t.direction == Direction::Rising);
    assert_eq!(s.steady, None);
    // The last sample, 22 784 MiB after the 33 024 MiB peak, is below 70 % of it, but it is
    // the usual way down to a trough, not a crash: kept.
    assert_eq!((s.dropped_tail, s.points.len()), (0, 40));
    // Then the process dies (3 MiB, twice): those two are left out, the rest is the same.
    let crashed = one(&[used.as_slice(), &[3, 3]].concat(), TOTAL);
    assert_eq!((crashed.dropped_tail, crashed.points.len()), (2, 40));
    assert_eq!(crashed.pattern, Pattern::Rising);
    assert_eq!(crashed.hits_total_at_x, s.hits_total_at_x);
    // The verdict: a leak, high (40 samples, r² 1), with the rate and the time.
    let d = crate::diagnose::diagnose(&csv(&used, TOTAL));
    assert_eq!(d.kind, crate::diagnose::Kind::Leak);
    assert_eq!(d.confidence, crate::diagnose::Confidence::High);
    assert!(d.explanation.en.contains("+64.0 MiB per sample"));
}

#[test]
fn a_creeping_ceiling_or_floor_alone_is_a_leak() {
    // Floor level at 10 GiB, peaks up 256 MiB a cycle: the peaks' line, as above.
    let s = one(&sawtooth(|_| 10 * GIB, |k| 30 * GIB + 256 * k), TOTAL);
    assert_eq!(s.pattern, Pattern::Rising);
    assert!((s.growth_mib_per_x.expect("a rate") - 64.0).abs() < EPS);
    assert!((s.hits_total_at_x.expect("a time") - 802.0).abs() < EPS);
    assert_eq!(s.tail_fit.map(|t| t.start.x), Some(22.0));
    // Ceiling level at 30 GiB, floor up 256 MiB a cycle: only the troughs rise, on
    // 10 240 + 64 x MiB (x = 4k), reaching 81 920 at x = 71 680 / 64 = 1 120.
    let s = one(&sawtooth(|k| 10 * GIB + 256 * k, |_| 30 * GIB), TOTAL);
    assert_eq!(s.pattern, Pattern::Rising);
    assert!((s.growth_mib_per_x.expect("a rate") - 64.0).abs() < EPS);
    assert!((s.hits_total_at_x.expect("a time") - 1120.0).abs() < EPS);
    let t = s.tail_fit.expect("the line used");
    assert_eq!((t.start.x, t.end.x), (20.0, 36.0));
    // Without memory.total, the same rate and no time (the troughs, the only envelope
    // that rises).
    let rows: String = sawtooth(|k| 10 * GIB + 256 * k, |_| 30 * GIB)
        .iter()
        .map(|u| alloc::format!("0, {u} MiB\n"))
        .collect();
    let text = alloc::format!("index, memory.used [MiB]\n{rows}");
    let s = parse_nvidia_smi_csv(&text).expect("a log").series[0].clone();
    assert_eq!(s.pattern, Pattern::Rising);
    assert!((s.growth_mib_per_x.expect("a rate") - 64.0).abs() < EPS);
    assert_eq!(s.hits_total_at_x, None);
}

#[test]
fn a_level_sawtooth_is_no_leak() {
    // 10 → 30 GiB every 4 samples, floor and ceiling level: one jump to a working cycle.
    let used = sawtooth(|_| 10 * GIB, |_| 30 * GIB);
    let s = one(&used, TOTAL);
    assert_eq!(s.pattern, Pattern::JumpThenFlat);
    assert_eq!(s.growth_mib_per_x, None);
    assert_eq!(s.hits_total_at_x, None);
    // The level: the mean of the second half, (10 + 20 + 30 + 20) / 4 GiB.
    assert_eq!(s.steady, Some(Bytes::mib(20 * GIB)));
    let d = crate::diagnose::diagnose(&csv(&used, TOTAL));
    assert_eq!(d.kind, crate::diagnose::Kind::Capacity);
    // Started at a peak and cut at a trough: last sample 20 GiB below the first, yet not
    // going down (the peaks are level).
    let shifted: Vec<u64> = used[2..37].to_vec();
    assert_eq!((shifted[0], shifted[34]), (30 * GIB, 10 * GIB));
    assert_eq!(one(&shifted, TOTAL).pattern, Pattern::JumpThenFlat);
    // With ±1 % jitter on every sample: peaks vary by at most 2 % of 30 GiB, 614 MiB, below
    // the 819 MiB a leak must grow by, so no run of it can rise; the shape is still one jump
    // (10 → 30 GiB, more than 0.6 of the 20.6 GiB rise at most) to a level cycle.
    let mut seed = 1u64;
    for _ in 0..50 {
        let jittered: Vec<u64> = used
            .iter()
            .map(|&u| {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let f = ((seed >> 33) % 2001) as f64 / 1000.0 - 1.0; // -1 … 1
                (u as f64 * (1.0 + 0.01 * f)) as u64
            })
            .collect();
        // Whichever peak is the highest, the falls after it are troughs, not a crash.
        let s = one(&jittered, TOTAL);
        assert_eq!(s.pattern, Pattern::JumpThenFlat, "{jittered:?}");
        assert_eq!(s.dropped_tail, 0, "{jittered:?}");
    }
}

#[test]
fn a_noisy_level_series_is_no_leak() {
    // 40 samples at 40 and at 76 GiB with ±1 % jitter: no swing of 3 × 819.2 MiB (no
    // sawtooth), and no line rising through them.
    let mut seed = 7u64;
    for level in [40 * GIB, 76 * GIB] {
        for _ in 0..50 {
            let used: Vec<u64> = (0..40)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let f = ((seed >> 33) % 2001) as f64 / 1000.0 - 1.0;
                    (level as f64 * (1.0 + 0.01 * f)) as u64
                })
                .collect();
            let s = one(&used, TOTAL);
            assert_ne!(s.pattern, Pattern::Rising, "{used:?}");
            assert_eq!(s.growth_mib_per_x, None);
        }
    }
}

#[test]
fn a_stepped_plateau_is_no_leak() {
    // The caching allocator growing in steps to its working set, then level: 20 samples.
    let used = [3, 5, 5, 7, 7, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9].map(|g| g * GIB);
    let s = one(&used, TOTAL);
    assert_eq!(s.pattern, Pattern::SteppedPlateau);
    assert_eq!(s.steady, Some(Bytes::mib(9 * GIB)));
    // A sawtooth whose peaks grow in steps over the first cycles and then level off: its
    // shape, floor then peaks, is 10, 16, 20, 24, 28, 30 … GiB, a rise of 20 GiB whose
    // largest step (6) is under 0.6 of it; the peaks of the second half are level.
    let peaks = [16, 20, 24, 28, 30, 30, 30, 30, 30, 30];
    let s = one(&sawtooth(|_| 10 * GIB, |k| peaks[k as usize] * GIB), TOTAL);
    assert_eq!(s.pattern, Pattern::SteppedPlateau);
    assert_eq!(s.growth_mib_per_x, None);
}

#[test]
fn cells() {
    let l = "| N/A   33C    P0    61W / 400W |  12345MiB / 81920MiB |      0%      Default |";
    assert_eq!(memory_cell(l), Some((Bytes::mib(12345), Bytes::mib(81920))));
    assert_eq!(
        gpu_cell("|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |"),
        (Some(0), Some(String::from("NVIDIA A100-SXM4-80GB")))
    );
}
