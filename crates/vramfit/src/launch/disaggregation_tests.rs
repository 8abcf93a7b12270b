//! The P/D launches: both sides and SGLang's router written as SGLang's PD guide writes them,
//! each server command read back into its side's estimate.

use alloc::string::String;
use alloc::vec::Vec;

use super::super::{command_text, launch_input, read_command};
use crate::estimate::{
    DisaggregationMode, Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput,
    ServingInput, TransferBackend,
};

fn side(engine: Engine, mode: DisaggregationMode) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine,
            batch: 16.0,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            disaggregation_mode: Some(mode),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The command of `argv`'s side read back, with the card and the requests from `input`: every
/// word read but where the server listens and which GPUs it starts from.
fn read_back(input: &EstimateInput, argv: &[String]) -> EstimateInput {
    let line = command_text(argv);
    let r = read_command(&line).unwrap_or_else(|e| panic!("{line}: {e:?}"));
    let place = ["--port", "--base-gpu-id"];
    let rest: Vec<&String> = r
        .not_read
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            !(place.contains(&w.as_str())
                || (*i > 0 && place.contains(&r.not_read[i - 1].as_str())))
        })
        .map(|(_, w)| w)
        .collect();
    assert!(rest.is_empty(), "{line}: not read {rest:?}");
    EstimateInput {
        run: RunInput {
            batch: input.run.batch,
            ..r.input.run
        },
        hardware: HardwareInput {
            gpu: input.hardware.gpu.clone(),
            ..r.input.hardware
        },
        ..r.input
    }
}

fn has(argv: &[String], words: &[&str]) -> bool {
    argv.windows(words.len()).any(|w| w == words)
}

/// SGLang: prefill at its 0.835, decode at its 0.874 from GPU 1, then the router (SGLang's PD
/// guide, docs/advanced_features/pd_disaggregation.md at 08edc506, "Llama Single Node").
#[test]
fn sglang_writes_both_sides_and_its_router() {
    for mode in [DisaggregationMode::Prefill, DisaggregationMode::Decode] {
        let input = {
            let mut input = side(Engine::Sglang, mode);
            input.serving.num_reserved_decode_tokens = Some(256.0);
            input
        };
        let l = launch_input(&input).unwrap();
        assert_eq!(l.commands.len(), 3);
        let (p, d, router) = (&l.commands[0], &l.commands[1], &l.commands[2]);
        assert!(has(p, &["--disaggregation-mode", "prefill"]), "{p:?}");
        assert!(has(p, &["--mem-fraction-static", "0.835"]), "{p:?}");
        assert!(has(p, &["--disaggregation-transfer-backend", "mooncake"]));
        assert!(has(p, &["--port", "30000"]));
        assert!(has(d, &["--disaggregation-mode", "decode"]), "{d:?}");
        assert!(has(d, &["--mem-fraction-static", "0.874"]), "{d:?}");
        assert!(has(d, &["--num-reserved-decode-tokens", "256"]));
        assert!(has(d, &["--port", "30001", "--base-gpu-id", "1"]), "{d:?}");
        assert_eq!(
            router.join(" "),
            "python -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001 --host 0.0.0.0 --port 8000"
        );
        // This side's command reads back as this side's estimate.
        let own = if mode == DisaggregationMode::Prefill {
            p
        } else {
            d
        };
        let back = read_back(&input, own);
        assert_eq!(back.serving.disaggregation_mode, Some(mode));
        assert_eq!(
            input.resolve().unwrap().figures(),
            back.resolve().unwrap().figures()
        );
    }
}

/// vLLM: a kv_producer on port 8100 and a kv_consumer on 8200 over the connector.
#[test]
fn vllm_writes_both_sides_with_their_roles() {
    let input = {
        let mut input = side(Engine::Vllm, DisaggregationMode::Decode);
        input.serving.disaggregation_transfer_backend = Some(TransferBackend::Mooncake);
        input
    };
    let l = launch_input(&input).unwrap();
    assert_eq!(l.commands.len(), 2);
    assert!(has(
        &l.commands[0],
        &[
            "--port",
            "8100",
            "--kv-transfer-config",
            "{\"kv_connector\":\"MooncakeConnector\",\"kv_role\":\"kv_producer\"}"
        ]
    ));
    assert!(has(
        &l.commands[1],
        &[
            "--port",
            "8200",
            "--kv-transfer-config",
            "{\"kv_connector\":\"MooncakeConnector\",\"kv_role\":\"kv_consumer\"}"
        ]
    ));
    let back = read_back(&input, &l.commands[1]);
    assert_eq!(
        back.serving.disaggregation_mode,
        Some(DisaggregationMode::Decode)
    );
    assert_eq!(
        back.serving.disaggregation_transfer_backend,
        Some(TransferBackend::Mooncake)
    );
    assert_eq!(
        input.resolve().unwrap().figures(),
        back.resolve().unwrap().figures()
    );
}

/// `kv_both` serves either side with a plain server's memory: listed as not read. A connector
/// not modelled is refused by name; SGLang's `null` is no side.
#[test]
fn kv_transfer_configs_are_read_or_named() {
    let both = r#"vllm serve meta-llama/Llama-3.1-8B --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'"#;
    let r = read_command(both).unwrap();
    assert_eq!(r.input.serving.disaggregation_mode, None);
    assert_eq!(r.not_read.len(), 2, "{:?}", r.not_read);
    let p2p = r#"vllm serve meta-llama/Llama-3.1-8B --kv-transfer-config '{"kv_connector":"P2pNcclConnector","kv_role":"kv_producer"}'"#;
    let e = read_command(p2p).unwrap_err();
    assert!(e.problem.contains("P2pNcclConnector"), "{e}");
    let null = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --disaggregation-mode null";
    assert_eq!(
        read_command(null)
            .unwrap()
            .input
            .serving
            .disaggregation_mode,
        None
    );
    let e = read_command(
        "python -m sglang.launch_server --model-path m --disaggregation-transfer-backend ascend",
    )
    .unwrap_err();
    assert_eq!(e.field, "disaggregation_transfer_backend");
}

/// Over two nodes each side is a multi-node server of its own: no launch written.
#[test]
fn a_side_over_nodes_is_not_written() {
    let input = {
        let mut input = side(Engine::Sglang, DisaggregationMode::Decode);
        input.model.model = Some("meta-llama/Llama-3.1-70B".into());
        input.placement.tp = 8.0;
        input.placement.pp = 2.0;
        input.hardware.gpu = Some("h100-sxm5-80gb".into());
        input
    };
    let e = launch_input(&input).unwrap_err();
    assert_eq!(e.field, "gpus");
}
