//! The planner's serving layouts (data-parallel replicas, expert parallel, the order of one
//! price) on the catalog's offers, each proved by the estimator and checked by hand.

use super::plan::*;
use crate::estimate::{
    ComponentKind, Engine, EstimateInput, Mode, ModelInput, RunInput, ServingInput, estimate, need,
};
use crate::gpu::Gpu;
use crate::hardware::{find_gpu, gpus, layout_input, layout_required_bytes, offers};

/// A serving run of `model` on `engine` asked to hold `batch` sequences of `context` tokens.
fn serve(model: &str, engine: Engine, batch: f64, context: f64) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some(model.into()),
            ..Default::default()
        },
        run: RunInput {
            engine,
            mode: Mode::Serve,
            batch,
            seq_len: context,
            new_tokens: 0.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(context),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn planned(input: &EstimateInput) -> alloc::vec::Vec<PlanOption> {
    plan(
        |l, g| layout_required_bytes(input, l, g),
        offers(),
        gpus(),
        &PlanOptions::default().for_run(input),
    )
}

fn card(id: &str) -> &'static Gpu {
    find_gpu(id).unwrap()
}

/// The Weights component of the run of `input` over `layout` on `on`.
fn weights(input: &EstimateInput, layout: Layout, on: &Gpu) -> u64 {
    let e = estimate(&layout_input(input, layout, on).unwrap()).unwrap();
    e.components
        .iter()
        .filter(|c| c.key.kind == ComponentKind::Weights)
        .map(|c| c.bytes.get())
        .sum()
}

#[test]
fn at_one_price_tensor_parallel_comes_before_pipeline() {
    // Llama-3.1-70B on vLLM, 32 sequences of 8k: the cheapest server rents 4 of its 8 A100s,
    // where TP=4, TP=2 × PP=2 and PP=4 all fit at one price. PP=4 has the largest margin
    // (each stage holds a quarter of the layers whole), but every token's decode passes the
    // four stages one after another: TP=4 over NVLink is what users run, and comes first.
    let input = serve(
        "meta-llama/Llama-3.1-70B-Instruct",
        Engine::Vllm,
        32.0,
        8192.0,
    );
    let got = planned(&input);
    let first: alloc::vec::Vec<_> = got
        .iter()
        .take(3)
        .map(|o| (o.offer.as_str(), o.count, o.parallelism.describe()))
        .collect();
    assert_eq!(
        first,
        [
            ("aliyun-a100-80gb-8x", 4, "TP=4".into()),
            ("aliyun-a100-80gb-8x", 4, "TP=2 × PP=2".into()),
            ("aliyun-a100-80gb-8x", 4, "PP=4".into()),
        ]
    );
    assert!(got[2].margin_bytes > got[0].margin_bytes);
    // Proved by the estimator: each needs what the run over its layout needs.
    for o in &got[..3] {
        let g = card(&o.gpu);
        assert_eq!(
            o.per_gpu_bytes,
            layout_required_bytes(&input, o.parallelism, g)
        );
        assert!(o.per_gpu_bytes <= g.memory);
    }
}

#[test]
fn replicas_share_the_concurrency_and_beat_a_pipeline_over_two_servers() {
    // Llama-3.1-70B on vLLM asked to hold 256 sequences of 8k: one server of 8 × 80 GB holds
    // no layout (8 × 0.9 × 79.2 GiB less 131 GiB of weights leaves about 440 GiB of pool, 176
    // sequences at 320 KiB a token), so two servers: TP=8 × PP=2, or two replicas of TP=8 each
    // holding 128 of the 256. Same price and GPUs: the replicas (no pipeline) come first.
    let input = serve(
        "meta-llama/Llama-3.1-70B-Instruct",
        Engine::Vllm,
        256.0,
        8192.0,
    );
    let got = planned(&input);
    let o = &got[0];
    assert_eq!(o.offer, "aliyun-a100-80gb-8x");
    assert_eq!(o.parallelism, Layout::data(2, 8, 2));
    assert_eq!(o.parallelism.describe(), "2 nodes × 8 GPUs: DP=2 × TP=8");
    assert_eq!(o.rented_gpus, 16);
    assert_eq!(got[1].parallelism, Layout::across_nodes(2, 8));
    assert_eq!(got[1].price_per_hour, o.price_per_hour);
    // Proved by the estimator: the per-GPU need is one replica's, TP=8 on its 8 GPUs holding
    // ceil(256 / 2) = 128 sequences (with the replicas' 16 GPUs counted, as vLLM's DP group):
    // the estimator shares the 256 asked for among the two replicas itself.
    let a100 = card("a100-sxm4-80gb");
    let fleet = |batch: f64| {
        need(&{
            let mut input = input.clone();
            input.hardware.gpu = Some(a100.id.into());
            input.placement.gpus = Some(16.0);
            input.placement.tp = 8.0;
            input.run.batch = batch;
            input.placement.gpus_per_node = Some(8.0);
            input
        })
    };
    assert_eq!(o.per_gpu_bytes, fleet(256.0));
    assert!(o.per_gpu_bytes <= a100.memory);
    // By hand, the KV of one more sequence of the replica's share (255 or 256 over two
    // replicas: 128 each; 254: 127): 80 layers × 8 KV heads × 128 × 2 (K and V) × 2 B =
    // 327,680 B a token, × 8,192 tokens / 8 GPUs = 335,544,320 B per GPU, inside vLLM's 0.9
    // budget: 372,827,022 B of card.
    assert_eq!(fleet(255.0), fleet(256.0));
    let one_more = fleet(256.0).get() - fleet(254.0).get();
    assert!(one_more.abs_diff(372_827_022) <= 2, "{one_more}");
    // All 256 in one TP=8 server do not fit: the second server is needed.
    assert!(layout_required_bytes(&input, Layout::candidates(8)[0], a100) > a100.memory);
}

#[test]
fn deepseek_v3_wide_expert_parallel_over_two_servers_by_hand() {
    // DeepSeek-V3 (fp8 as released) on vLLM holding 64 sequences of 4k: over two servers of
    // 8 × 80 GB, besides TP=8 × PP=2, the experts over all 16 GPUs with TP=8 in each server
    // and DP attention across (DP=2 × TP=8 + EP=16), and wide expert parallel: 16 attention
    // replicas, the experts over all 16 (`--data-parallel-size 16 --enable-expert-parallel`).
    let input = serve("deepseek-ai/DeepSeek-V3", Engine::Vllm, 64.0, 4096.0);
    let got = planned(&input);
    let wide = Layout::expert(1, 16, 2);
    assert_eq!(wide.describe(), "2 nodes × 8 GPUs: DP=16 + EP=16");
    let cheapest: alloc::vec::Vec<_> = got
        .iter()
        .filter(|o| o.offer == "aliyun-a100-80gb-8x")
        .map(|o| o.parallelism)
        .collect();
    assert_eq!(
        cheapest,
        [Layout::expert(8, 2, 2), wide, Layout::across_nodes(2, 8)]
    );
    let h100 = card("h100-sxm5-80gb");
    // By hand, the routed experts: 58 MoE layers × 256 experts × 3 matrices of 7,168 × 2,048
    // at 1 B (fp8), with the estimator's fp32 scale per output row ((2,048 + 2,048 + 7,168) ×
    // 4 B: the checkpoint's 128 × 128 blocks need 10,752 B, so 34,304 B an expert, 0.51 GB in
    // all, on the safe side): 44,085,248 B an expert, 654,577,762,304 B in all. Over 16 GPUs
    // each holds 1/16, over 32 GPUs 1/32: the difference is 654,577,762,304 / 32 =
    // 20,455,555,072 B; the rest (attention, the 3 dense layers, the shared experts, the bf16
    // embedding and head) is whole on every GPU.
    let w16 = weights(&input, wide, h100);
    let w32 = weights(&input, Layout::expert(1, 32, 4), h100);
    assert_eq!(w16 - w32, 654_577_762_304 / 32);
    // What each GPU holds whole: 19,097,856,256 B, against ~17.1 B parameters outside the
    // routed experts (671 B − 653.9 B): 1.85 B of bf16 embedding and head (3.71 GB) and
    // 15.2 B at 1 B (15.2 GB) with scales, 18.9 GB: within 1.1 %.
    let whole = w16 - 654_577_762_304 / 16;
    assert_eq!(whole, 19_097_856_256);
    assert!((whole as f64 / 18.91e9 - 1.0).abs() < 0.011);
    // The KV of its share: each of the 16 ranks schedules 64 / 16 = 4 sequences; one fewer
    // each (48 in all) needs one sequence's latent cache less: (512 + 64) × 2 B × 61 layers =
    // 70,272 B a token × 4,096 = 287,834,112 B, inside the 0.9 budget: 319,815,680 B of card.
    let at = |batch: f64| {
        layout_required_bytes(
            &{
                let mut input = input.clone();
                input.run.batch = batch;
                input
            },
            wide,
            h100,
        )
        .get()
    };
    assert!((at(64.0) - at(48.0)).abs_diff(319_815_680) <= 2);
    // Proved by the estimator for every option listed: it fits, as its layout's run.
    for o in &got {
        let g = card(&o.gpu);
        assert_eq!(
            o.per_gpu_bytes,
            layout_required_bytes(&input, o.parallelism, g)
        );
        assert!(o.per_gpu_bytes <= o.usable_bytes);
    }
}

#[test]
fn sglang_keeps_only_the_expert_layouts_its_estimate_holds() {
    // SGLang, the same run: its wide layout (`--tp 16 --attn-dp-size 16
    // --ep-size 16`) leaves no token pool in its static fraction on an 80 GB card (the
    // attention and embedding whole on each GPU, SGLang's larger CUDA graphs beside), so the
    // estimator's need exceeds the card and the planner does not list it; DP=2 × TP=8 + EP=16
    // fits.
    let input = serve("deepseek-ai/DeepSeek-V3", Engine::Sglang, 64.0, 4096.0);
    let got = planned(&input);
    let h100 = card("h100-sxm5-80gb");
    assert!(layout_required_bytes(&input, Layout::expert(1, 16, 2), h100) > h100.memory);
    assert!(
        got.iter()
            .all(|o| o.parallelism != Layout::expert(1, 16, 2))
    );
    assert!(
        got.iter()
            .any(|o| o.parallelism == Layout::expert(8, 2, 2) && o.offer == "aliyun-a100-80gb-8x")
    );
    // SGLang's form of it: tp over all 16 GPUs, two attention groups, the experts over 16.
    let i = layout_input(&input, Layout::expert(8, 2, 2), h100).unwrap();
    assert_eq!(
        (
            i.placement.tp,
            i.placement.gpus,
            i.placement.ep,
            i.placement.dp_size
        ),
        (16.0, Some(16.0), 16.0, Some(2.0))
    );
    assert!(i.placement.enable_dp_attention);
    assert_eq!(i.run.batch, 64.0);
}

#[test]
fn replicas_and_experts_only_where_an_engine_serves_them() {
    let moe = "Qwen/Qwen3-30B-A3B";
    let fleets = |i: &EstimateInput| {
        let o = PlanOptions::default().for_run(i);
        (o.data_parallel, o.expert_parallel)
    };
    assert_eq!(fleets(&serve(moe, Engine::Vllm, 8.0, 4096.0)), (true, true));
    assert_eq!(
        fleets(&serve(moe, Engine::Sglang, 8.0, 4096.0)),
        (true, true)
    );
    let dense = "meta-llama/Llama-3.1-8B-Instruct";
    assert_eq!(
        fleets(&serve(dense, Engine::Vllm, 8.0, 4096.0)),
        (true, false)
    );
    for engine in [Engine::Hf, Engine::Llamacpp] {
        let i = {
            let mut input = serve(moe, engine, 1.0, 4096.0);
            input.run.engine = engine;
            input.run.mode = Mode::Inference;
            input
        };
        assert_eq!(fleets(&i), (false, false), "{engine:?}");
        let h100 = card("h100-sxm5-80gb");
        assert!(layout_input(&i, Layout::data(2, 1, 1), h100).is_none());
        assert!(layout_input(&i, Layout::expert(2, 1, 1), h100).is_none());
    }
    let training = {
        let mut input = serve(dense, Engine::Hf, 1.0, 4096.0);
        input.run.mode = Mode::Training;
        input.run.engine = Engine::Hf;
        input
    };
    assert_eq!(fleets(&training), (false, false));
    // SGLang 0.5.23 refuses replicas over several nodes (attention DP only): never planned.
    let h100 = card("h100-sxm5-80gb");
    let sglang = serve(dense, Engine::Sglang, 256.0, 8192.0);
    assert!(layout_input(&sglang, Layout::data(2, 8, 2), h100).is_none());
    assert!(layout_input(&sglang, Layout::data(2, 4, 1), h100).is_some());
    // The layout keeps the requests asked for; the estimator gives each replica its share,
    // ceil(N / dp): 9 sequences over 2 replicas, 5 each.
    let i = layout_input(
        &serve(dense, Engine::Vllm, 9.0, 4096.0),
        Layout::data(2, 4, 1),
        h100,
    )
    .unwrap();
    assert_eq!(
        (
            i.run.batch,
            i.placement.gpus,
            i.placement.tp,
            i.placement.ep
        ),
        (9.0, Some(8.0), 4.0, 1.0)
    );
    let w = i.resolve().unwrap();
    assert_eq!((w.batch, w.requests, w.copies), (5, 9, 2));
    // A dense model refuses expert parallel by name, which the planner reads as no fit.
    assert_eq!(
        layout_required_bytes(
            &serve(dense, Engine::Vllm, 8.0, 4096.0),
            Layout::expert(2, 1, 1),
            h100
        ),
        crate::units::MAX_SIZE
    );
}

#[cfg(feature = "serde")]
#[test]
fn a_layout_saved_before_dp_and_ep_reads_as_one_each() {
    let old = r#"{"gpus":4,"tp":4,"pp":1,"zero_stage":0,"kind":"tensor","nodes":1}"#;
    let l: Layout = serde_json::from_str(old).unwrap();
    assert_eq!(l, Layout::candidates(4)[0]);
    assert_eq!((l.dp, l.ep), (1, 1));
    let o: PlanOptions = serde_json::from_str(
        r#"{"currency":"USD","cny_per_usd":7.1,"max_gpus_per_node":8,"include_spot":false,
            "include_slices":true,"providers":[],"limit":0}"#,
    )
    .unwrap();
    assert!(!o.data_parallel && !o.expert_parallel);
    let wide = serde_json::to_string(&Layout::expert(1, 16, 2)).unwrap();
    assert_eq!(
        wide,
        r#"{"gpus":16,"tp":1,"pp":1,"zero_stage":0,"kind":"expert","nodes":2,"dp":16,"ep":16}"#
    );
}

#[test]
fn replicas_generate_dp_times_as_fast_per_job() {
    // Two replicas of TP=8 run independently: the option's tokens/s is twice one replica's at
    // its batch, so a job of 1M tokens takes half the hours one replica would.
    let input = serve(
        "meta-llama/Llama-3.1-70B-Instruct",
        Engine::Vllm,
        256.0,
        8192.0,
    );
    let got = planned(&input);
    let job = crate::hardware::job::parse_job("per_job", "1M tokens").unwrap();
    let rows = crate::hardware::job::cost_per_job(&input, &got[..2], job).unwrap();
    let dp = rows
        .iter()
        .find(|r| r.option.parallelism == Layout::data(2, 8, 2))
        .unwrap();
    let mut replica = layout_input(&input, dp.option.parallelism, card(&dp.option.gpu)).unwrap();
    replica.run.batch = dp.batch as f64;
    let one = estimate(&replica)
        .unwrap()
        .throughput
        .unwrap()
        .decode_tokens_per_s
        .unwrap();
    assert!(
        (dp.tokens_per_s - 2.0 * one).abs() < 1e-9 * one,
        "{} {one}",
        dp.tokens_per_s
    );
}
