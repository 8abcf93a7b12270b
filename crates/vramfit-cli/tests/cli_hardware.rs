//! The hardware subcommands end to end: the built binary, its JSON and its exit codes.

use serde_json::Value;

mod common;
use common::vramfit as run;

fn run_json(args: &[&str]) -> Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"))
}

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol, "{a} != {b}");
}

const MIB: u64 = 1 << 20;

#[test]
fn gpus_json_lists_the_catalog() {
    let v = run_json(&["gpus", "--json"]);
    let list = v.as_array().unwrap();
    assert!(list.len() >= 35);
    let h100 = list.iter().find(|g| g["id"] == "h100-sxm5-80gb").unwrap();
    // torch prints total_memory=81090MB on an H100 80GB HBM3 (79.19 GiB).
    assert_eq!(h100["memory_bytes"].as_u64(), Some(81_090 * MIB));
    assert_eq!(
        h100["bandwidth_bytes_per_s"].as_u64(),
        Some(3_350_000_000_000)
    );
    let migs: Vec<&str> = h100["mig_profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(
        migs,
        [
            "1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"
        ]
    );
    let (code, table, _) = run(&["gpus", "--vendor", "apple"]);
    assert_eq!(code, 0);
    assert!(table.contains("107.52 GiB (128 GB unified)"), "{table}");
}

#[test]
fn mig_reproduces_the_guide_example() {
    let v = run_json(&[
        "mig",
        "--gpu",
        "a100-sxm4-80gb",
        "--job",
        "13b-debug=36GiB",
        "--job",
        "16GiB",
        "--job",
        "16GiB",
        "--provider",
        "zhixingyun",
        "--json",
    ]);
    let cards = v["cards"].as_array().unwrap();
    assert_eq!(cards.len(), 1);
    assert_eq!(cards[0]["gpu"], "a100-sxm4-80gb");
    let mut slices: Vec<(String, u64)> = cards[0]["slices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["profile"].as_str().unwrap().to_string(),
                s["job"].as_u64().unwrap(),
            )
        })
        .collect();
    slices.sort();
    assert_eq!(
        slices,
        [
            ("2g.20gb".to_string(), 1),
            ("2g.20gb".to_string(), 2),
            ("3g.40gb".to_string(), 0)
        ]
    );
    // 2.5 + 1.25 + 1.25 CNY/h against 3 whole cards at 8 CNY/h.
    close(v["cost_per_hour"].as_f64().unwrap(), 5.0, 1e-9);
    close(v["whole_cards_cost_per_hour"].as_f64().unwrap(), 24.0, 1e-9);
    assert_eq!(v["currency"], "CNY");
    // In USD at a given rate: 5 / 7.0 = 0.714285…
    let v = run_json(&[
        "mig",
        "--gpu",
        "a100-sxm4-80gb",
        "--job",
        "36GiB",
        "--job",
        "16GiB",
        "--job",
        "16GiB",
        "--provider",
        "zhixingyun",
        "--currency",
        "USD",
        "--cny-per-usd",
        "7.0",
        "--json",
    ]);
    close(v["cost_per_hour"].as_f64().unwrap(), 5.0 / 7.0, 1e-9);
    // The table says in words how the plan was priced: zhixingyun rents each slice.
    let (code, out, _) = run(&[
        "mig",
        "--gpu",
        "a100-sxm4-80gb",
        "--job",
        "36GiB",
        "--provider",
        "zhixingyun",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("per hour (each slice at its offer's price)"),
        "{out}"
    );
    // An A100 40GB with no slice offers: each card at its cheapest whole-card price.
    let (_, out, _) = run(&["mig", "--gpu", "a100-sxm4-40gb", "--job", "4GB"]);
    assert!(
        out.contains("per hour (each card at its cheapest whole-card price)"),
        "{out}"
    );
}

#[test]
fn mig_bad_input_exits_2_naming_the_flag() {
    for (args, flag) in [
        (
            vec!["mig", "--gpu", "a100-sxm4-80gb", "--job", "16"],
            "--job",
        ),
        (
            vec!["mig", "--gpu", "a100-sxm4-80gb", "--job", "90GiB"],
            "--job",
        ),
        (vec!["mig", "--gpu", "rtx-4090", "--job", "1GiB"], "--gpu"),
        (vec!["mig", "--gpu", "nope", "--job", "1GiB"], "--gpu"),
        (
            vec![
                "mig",
                "--gpu",
                "a100-sxm4-80gb",
                "--job",
                "1GiB",
                "--currency",
                "EUR",
            ],
            "--currency",
        ),
        (
            vec![
                "mig",
                "--gpu",
                "a100-sxm4-80gb",
                "--job",
                "1GiB",
                "--provider",
                "nope",
            ],
            "--provider",
        ),
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(flag), "{args:?}: {err}");
    }
}

#[test]
fn platforms_rank_with_weights() {
    // Zhixingyun scores [4, 4, 5, 3, 4, 3]; with slicing weighted 5: (4+4+25+3+4+3)/10 = 4.3.
    let v = run_json(&["platforms", "--weights", "slicing=5", "--json"]);
    let first = &v["platforms"][0];
    assert_eq!(first["platform"], "zhixingyun");
    close(first["total"].as_f64().unwrap(), 4.3, 1e-12);
    assert_eq!(first["rank"], 1);
    let (code, _, err) = run(&["platforms", "--weights", "speed=2"]);
    assert_eq!(code, 2);
    assert!(err.contains("--weights"), "{err}");
}

#[test]
fn spot_by_hand() {
    // H 24, P 8, S 2.4, M 12, C 1, R 0.25: W = 24 (e^(1/12) − 1)(12.25) = 25.5497905592 h,
    // spot cost 61.3194973422, break-even price 192 / W = 7.5147387042.
    let args = [
        "spot",
        "--hours",
        "24",
        "--on-demand-price",
        "8",
        "--mtbi",
        "12",
        "--checkpoint-every",
        "1",
        "--json",
    ];
    let mut with_price = args.to_vec();
    with_price.extend(["--spot-price", "2.4"]);
    let v = run_json(&with_price);
    close(
        v["expected_wall_hours"].as_f64().unwrap(),
        25.5497905592,
        1e-9,
    );
    close(v["spot_cost"].as_f64().unwrap(), 61.3194973422, 1e-9);
    close(
        v["break_even_spot_price"].as_f64().unwrap(),
        7.5147387042,
        1e-9,
    );
    // A 70 % discount is the same 2.4.
    let mut with_discount = args.to_vec();
    with_discount.extend(["--spot-discount", "70"]);
    close(
        run_json(&with_discount)["spot_cost"].as_f64().unwrap(),
        61.3194973422,
        1e-9,
    );
    // Without either: the guide's 25 % → 2.0 × W = 51.0995811184.
    close(
        run_json(&args)["spot_cost"].as_f64().unwrap(),
        2.0 * 25.5497905592,
        1e-9,
    );
    let (code, _, err) = run(&[
        "spot",
        "--hours",
        "24",
        "--on-demand-price",
        "8",
        "--mtbi",
        "0",
        "--checkpoint-every",
        "1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--mtbi"), "{err}");
}

#[test]
fn recommend_ranks_offers_cheapest_first() {
    // 150 GiB on Lambda and RunPod (USD): one MI300X (190 GiB visible) at 2.49; then two A100
    // 80GB (79.32 GiB ≥ 75 GiB each under TP/PP/ZeRO-3) on Lambda's 8-GPU server rented whole,
    // 8 × 1.79 = 14.32. A multi-GPU layout needs one machine with that many GPUs, so two
    // separate 1-GPU rentals (RunPod's A100 or L40S) are never combined.
    let v = run_json(&[
        "recommend",
        "--memory",
        "150GiB",
        "--provider",
        "lambda",
        "--provider",
        "runpod",
        "--limit",
        "0",
        "--json",
    ]);
    let opts = v["options"].as_array().unwrap();
    assert_eq!(opts[0]["offer"], "runpod-mi300x-1x");
    assert_eq!(opts[0]["count"], 1);
    close(opts[0]["price_per_hour"].as_f64().unwrap(), 2.49, 1e-9);
    assert_eq!(opts[1]["offer"], "lambda-a100-80gb-8x");
    close(opts[1]["price_per_hour"].as_f64().unwrap(), 14.32, 1e-9);
    assert_eq!(opts[1]["per_gpu_bytes"].as_u64(), Some(75 << 30));
    assert_eq!(opts[1]["rented_gpus"], 8);
    assert!(
        opts.iter()
            .all(|o| o["count"].as_u64() <= o["rented_gpus"].as_u64())
    );
    assert!(
        opts.iter()
            .all(|o| o["count"] == 1 || !o["offer"].as_str().unwrap().ends_with("-1x"))
    );
    assert!(opts.iter().all(|o| o["parallelism"]["kind"] != "data"));
    let prices: Vec<f64> = opts
        .iter()
        .map(|o| o["price_per_hour"].as_f64().unwrap())
        .collect();
    assert!(prices.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(v["estimate"]["per_gpu_bytes"].as_u64(), Some(150 << 30));
    for (args, flag) in [
        (vec!["recommend", "--memory", "40"], "--memory"),
        (vec!["recommend"], "--memory"),
        (
            vec!["recommend", "--memory", "40GB", "--max-gpus", "0"],
            "--max-gpus",
        ),
        (
            vec!["recommend", "--memory", "40GB", "--params", "lots"],
            "--params",
        ),
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(flag), "{args:?}: {err}");
    }
}

#[test]
fn the_gpu_table_keeps_its_columns() {
    let (code, out, err) = run(&["gpus"]);
    assert_eq!(code, 0, "{err}");
    // Every row's bandwidth ends in the same column, the MI250X's long label included.
    let ends: Vec<usize> = out
        .lines()
        .filter_map(|l| l.find(" GB/s").map(|i| l[..i].chars().count()))
        .collect();
    assert!(ends.len() >= 30, "{out}");
    assert!(ends.iter().all(|&e| e == ends[0]), "{out}");
    assert!(out.contains("mi250x"));
}

/// `vramfit fits`: every preset × format that fits the card, each proved by `estimate` on that
/// card (the JSON's requirement is the estimate's, and at most the card's memory), the best
/// format once per model, and a clear error without a card or with a model.
#[test]
fn fits_lists_what_the_estimate_says_fits() {
    let rows = run_json(&[
        "fits", "--gpu", "rtx-4090", "--engine", "llamacpp", "--json",
    ]);
    let rows = rows.as_array().expect("a list");
    assert!(rows.len() > 30, "{}", rows.len());
    let memory = run_json(&["gpus", "--json"])
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == "rtx-4090")
        .unwrap()["memory_bytes"]
        .as_u64()
        .unwrap();
    for r in rows
        .iter()
        .filter(|r| r["model"] == "meta-llama/Llama-3.1-8B")
    {
        assert_eq!(r["fits"], true);
        let need = r["required_bytes"].as_u64().unwrap();
        assert!(need <= memory);
        let format = r["format"]["file_type"]
            .as_str()
            .unwrap()
            .to_ascii_lowercase();
        let e = run_json(&[
            "estimate",
            "--model",
            "meta-llama/Llama-3.1-8B",
            "--engine",
            "llamacpp",
            "--quantization",
            &format!("gguf-{format}"),
            "--gpu",
            "rtx-4090",
            "--json",
        ]);
        assert_eq!(e["required_bytes"].as_u64(), Some(need), "{format}");
    }
    // Llama-3.1-8B's F16 GGUF (16 GB of weights) fits a 24 GB card: its best format.
    let best: Vec<&Value> = rows
        .iter()
        .filter(|r| r["model"] == "meta-llama/Llama-3.1-8B" && r["best"] == true)
        .collect();
    assert_eq!(best.len(), 1);
    assert_eq!(best[0]["format"]["file_type"], "F16");
    let (code, _, err) = run(&["fits"]);
    assert_eq!(code, 2);
    assert!(err.contains("--gpu: no GPU given"), "{err}");
    let (code, _, err) = run(&["fits", "--gpu", "rtx-4090", "--model", "gpt2"]);
    assert_eq!(code, 2);
    assert!(err.contains("fits tries every preset"), "{err}");
    let (code, out, _) = run(&["fits", "--gpu", "rtx-4090"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("← best format") && out.contains("GiB"),
        "{out}"
    );
}

/// `recommend --per-job`: the options ranked by the whole job's cost, each its hours (the
/// tokens over the estimate's speed in that layout on that card) at its price; a job that does
/// not match the run, or that cannot be read, is refused with the flag named.
#[test]
fn recommend_per_job_ranks_by_the_jobs_cost() {
    let v = run_json(&[
        "recommend",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--per-job",
        "1M tokens",
        "--limit",
        "0",
        "--json",
    ]);
    assert_eq!(v["job"]["tokens"], 1_000_000);
    let jobs = v["jobs"].as_array().unwrap();
    assert!(jobs.len() > 5);
    let mut last = 0.0;
    for j in jobs {
        let (tps, price) = (
            j["tokens_per_s"].as_f64().unwrap(),
            j["option"]["price_per_hour"].as_f64().unwrap(),
        );
        let hours = 1e6 / tps / 3600.0;
        close(j["hours"].as_f64().unwrap() / hours, 1.0, 1e-3);
        close(j["cost"].as_f64().unwrap() / (hours * price), 1.0, 2e-3);
        let cost = j["cost"].as_f64().unwrap();
        assert!(cost >= last, "cheapest job first");
        last = cost;
    }
    // The speed is the estimate's on that card.
    let first = &jobs[0];
    let gpu = first["option"]["gpu"].as_str().unwrap();
    if first["option"]["count"] == 1 {
        let e = run_json(&[
            "estimate",
            "--model",
            "meta-llama/Llama-3.1-8B",
            "--gpu",
            gpu,
            "--json",
        ]);
        assert_eq!(
            e["throughput"]["decode_tokens_per_s"],
            first["tokens_per_s"]
        );
    }
    let (code, _, err) = run(&[
        "recommend",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--per-job",
        "epoch:1M",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--per-job"), "{err}");
    let (code, _, err) = run(&[
        "recommend",
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--per-job",
        "lots",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--per-job: `lots` is not a job"), "{err}");
}

/// An estimate that does not fit the card it names ends with the cheapest rental that holds
/// the run as asked: `recommend`'s first row for the same flags, whatever split the flags named
/// (Llama-3.3-70B serving 32 sequences of 8,448 tokens does not fit 2 H100s at tp 2).
#[test]
fn an_estimate_that_does_not_fit_names_the_cheapest_rental_that_holds_it() {
    let flags = [
        "--model",
        "meta-llama/Llama-3.3-70B-Instruct",
        "--mode",
        "serve",
        "--engine",
        "vllm",
        "--batch",
        "32",
        "--max-model-len",
        "8448",
        "--gpu",
        "h100-sxm5-80gb",
        "--gpus",
        "2",
        "--tp",
        "2",
    ];
    let (code, out, err) = run(&[&["estimate"][..], &flags[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("does NOT fit"), "{out}");
    let v = run_json(&[&["recommend", "--json"][..], &flags[..]].concat());
    let first = &v["options"][0];
    let line = out
        .lines()
        .find(|l| l.starts_with("Cheapest in the rental catalog"))
        .unwrap_or_else(|| panic!("{out}"));
    let offer = first["offer"].as_str().unwrap();
    let gpus = first["count"].as_u64().unwrap();
    assert!(
        line.contains(&format!(
            "{offer} ({gpus} × {}",
            first["gpu"].as_str().unwrap()
        )),
        "{line}"
    );
    // One 80 GiB card alone never holds it: the layout spans several.
    assert!(gpus > 1, "{line}");
}

/// The CLI's answer line says the offer's own price, currency and date, as the site's rental
/// line does: Llama-3.3-70B, vLLM, 32 × 8,448 on 2 H100s does not fit, and the cheapest
/// rental is aliyun's 8 × A100 80GB server, listed at 64 CNY an hour (`data/offers`), not the
/// 9.01 USD the planner ranks it at (64 / 7.1). `recommend --currency USD` gives both.
#[test]
fn the_answer_line_says_the_offers_own_price_and_date() {
    let flags = [
        "--model",
        "meta-llama/Llama-3.3-70B-Instruct",
        "--mode",
        "serve",
        "--engine",
        "vllm",
        "--batch",
        "32",
        "--max-model-len",
        "8448",
        "--gpu",
        "h100-sxm5-80gb",
        "--gpus",
        "2",
        "--tp",
        "2",
    ];
    let (code, out, err) = run(&[&["estimate"][..], &flags[..]].concat());
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("Cheapest in the rental catalog"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("aliyun-a100-80gb-8x"), "{line}");
    assert!(
        line.contains("at 64.00 CNY an hour, the offer's price on 20"),
        "{line}"
    );
    assert!(!line.contains("USD"), "{line}");
    let (code, table, err) = run(&[
        &["recommend", "--currency", "USD", "--cny-per-usd", "8"][..],
        &flags[..],
    ]
    .concat());
    assert_eq!(code, 0, "{err}");
    // 64 / 8 = 8.00 USD, the rate asked.
    let first = table.lines().find(|l| l.starts_with("#1 ")).unwrap();
    assert!(
        first.starts_with("#1 64.00 CNY an hour, the offer's price on 20"),
        "{first}"
    );
    assert!(first.ends_with("; 8.00 USD at 8 CNY per USD"), "{first}");
}

/// A vLLM serving run's recommend lists data-parallel replicas where they are the faster
/// layout at one price: Llama-3.1-70B with 256 sequences of 8k needs two servers of
/// 8 × A100 80GB, and two replicas of TP=8 (128 sequences each) come before TP=8 × PP=2
/// (the library's `replicas_share_the_concurrency_and_beat_a_pipeline_over_two_servers`
/// checks the per-GPU figure by hand).
#[test]
fn recommend_lists_replicas_for_a_serving_target() {
    let v = run_json(&[
        "recommend",
        "--model",
        "meta-llama/Llama-3.1-70B-Instruct",
        "--mode",
        "serve",
        "--engine",
        "vllm",
        "--batch",
        "256",
        "--max-model-len",
        "8192",
        "--limit",
        "2",
        "--json",
    ]);
    let opts = v["options"].as_array().unwrap();
    let l = &opts[0]["parallelism"];
    assert_eq!(opts[0]["offer"], "aliyun-a100-80gb-8x");
    assert_eq!(
        (&l["kind"], &l["dp"], &l["tp"], &l["nodes"]),
        (&"data".into(), &2.into(), &8.into(), &2.into())
    );
    assert_eq!(opts[1]["parallelism"]["kind"], "tensor-pipeline");
    assert_eq!(opts[0]["price_per_hour"], opts[1]["price_per_hour"]);
}

/// `vramfit launch --cheapest` launches the run on `recommend`'s first row: DeepSeek-V3 on
/// vLLM, 64 sequences of 4k, on two of aliyun's 8 × A100 servers as DP=2 × TP=8 + EP=16 (the
/// library's `deepseek_v3_wide_expert_parallel_over_two_servers_by_hand` checks its memory),
/// one command a node in vLLM's own data-parallel launcher.
#[test]
fn launch_cheapest_follows_the_planned_layout() {
    let flags = [
        "--model",
        "deepseek-ai/DeepSeek-V3",
        "--mode",
        "serve",
        "--engine",
        "vllm",
        "--batch",
        "64",
        "--max-model-len",
        "4096",
    ];
    let v = run_json(&[&["recommend", "--json", "--limit", "1"][..], &flags[..]].concat());
    let first = &v["options"][0];
    assert_eq!(first["offer"], "aliyun-a100-80gb-8x");
    assert_eq!(first["parallelism"]["kind"], "expert");
    let (code, out, err) = run(&[&["launch", "--cheapest"][..], &flags[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            "# On aliyun-a100-80gb-8x (16 × a100-sxm4-80gb, 2 nodes × 8 GPUs: DP=2 × TP=8 + EP=16)"
        ),
        "{out}"
    );
    assert!(out.contains("# Fits one NVIDIA A100 SXM4 80GB"), "{out}");
    let commands: Vec<&str> = out.split("# on node ").skip(1).collect();
    assert_eq!(commands.len(), 2, "{out}");
    for (node, c) in commands.iter().enumerate() {
        for part in [
            "--tensor-parallel-size 8",
            "--data-parallel-size 2",
            "--enable-expert-parallel",
            "--data-parallel-size-local 1",
            "--data-parallel-address HEAD_IP",
        ] {
            assert!(c.contains(part), "{part}: {c}");
        }
        assert_eq!(c.contains("--headless"), node == 1, "{c}");
    }
}
