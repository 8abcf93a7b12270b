//! SGLang's speculative flags written, and read back into the same estimate.

use crate::estimate::{
    Engine, EstimateInput, HardwareInput, Mode, ModelInput, RunInput, ServingInput, SpecMethod,
};
use crate::launch::{command_text, launch_input, read_command};

fn serve(method: SpecMethod, draft: Option<&str>, tokens: f64) -> EstimateInput {
    EstimateInput {
        model: ModelInput {
            model: Some("meta-llama/Llama-3.1-8B".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Sglang,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(8192.0),
            speculative_method: Some(method),
            draft_model: draft.map(Into::into),
            num_speculative_tokens: Some(tokens),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h100-sxm5-80gb".into()),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// `python -m sglang.launch_server … --speculative-algorithm EAGLE3 …` as SGLang 0.5.23 spells
/// it, pasted back: the same input, the same figures.
#[test]
fn sglang_speculative_flags_round_trip() {
    for input in [
        serve(
            SpecMethod::Eagle3,
            Some("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"),
            3.0,
        ),
        serve(
            SpecMethod::Eagle,
            Some("yuhuili/EAGLE-LLaMA3.1-Instruct-8B"),
            5.0,
        ),
        serve(
            SpecMethod::DraftModel,
            Some("meta-llama/Llama-3.2-1B-Instruct"),
            4.0,
        ),
    ] {
        let argv = &launch_input(&input).unwrap().commands[0];
        let (line, joined) = (command_text(argv), argv.join(" "));
        let method = crate::estimate::sglang_speculative_algorithm(
            input.serving.speculative_method.unwrap(),
        )
        .unwrap();
        let k = input.serving.num_speculative_tokens.unwrap() as u64;
        let draft = input.serving.draft_model.clone().unwrap();
        let flags = alloc::format!(
            "--speculative-algorithm {method} --speculative-draft-model-path {draft} --speculative-num-steps {k} --speculative-eagle-topk 1 --speculative-num-draft-tokens {}",
            k + 1
        );
        assert!(joined.contains(&flags), "{joined}");
        let r = read_command(&line).unwrap_or_else(|e| panic!("{line}: {e:?}"));
        assert!(r.not_read.is_empty(), "{line}: {:?}", r.not_read);
        assert_eq!(
            r.input.serving.speculative_method,
            input.serving.speculative_method
        );
        assert_eq!(r.input.serving.draft_model, input.serving.draft_model);
        assert_eq!(
            r.input.serving.num_speculative_tokens,
            input.serving.num_speculative_tokens
        );
        let back = EstimateInput {
            run: RunInput {
                batch: input.run.batch,
                ..r.input.run
            },
            hardware: HardwareInput {
                gpu: input.hardware.gpu.clone(),
                ..r.input.hardware
            },
            ..r.input
        };
        let (a, b) = (input.resolve().unwrap(), back.resolve().unwrap());
        assert_eq!(a.figures(), b.figures(), "{line}");
    }
}

/// `sglang serve` reads the same; what vramfit does not model is refused by name: NGRAM, tree
/// drafting, and `MTP`, which SGLang 0.5.23 does not spell (its NEXTN is read); a head without
/// its path cannot be launched.
#[test]
fn sglang_speculative_refusals_name_what() {
    let r = read_command(
        "sglang serve --model-path meta-llama/Llama-3.1-8B-Instruct --speculative-algorithm eagle3 --speculative-draft-model yuhuili/EAGLE3-LLaMA3.1-Instruct-8B --speculative-num-steps 3",
    )
    .unwrap();
    assert_eq!(r.input.serving.speculative_method, Some(SpecMethod::Eagle3));
    assert_eq!(r.input.serving.num_speculative_tokens, Some(3.0));
    for (flags, field) in [
        ("--speculative-algorithm MTP", "speculative_method"),
        ("--speculative-algorithm NGRAM", "speculative_method"),
        ("--speculative-eagle-topk 4", "command"),
    ] {
        let line = alloc::format!(
            "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 {flags}"
        );
        let e = read_command(&line).unwrap_err();
        assert_eq!(e.field, field, "{line}");
        assert!(
            e.problem.contains(flags.split(' ').nth(1).unwrap()),
            "{}",
            e.problem
        );
    }
    let headless = serve(SpecMethod::Eagle, None, 3.0);
    assert_eq!(launch_input(&headless).unwrap_err().field, "draft_model");
}

/// DeepSeek-V3 with its NEXTN layer on 8 × H200: `--speculative-algorithm NEXTN` and its steps
/// without a draft path (SGLang takes the model's own, `_handle_eagle_family`), read back into
/// the same figures; a pasted line that names the draft path reads it too.
#[test]
fn sglang_nextn_round_trip() {
    let input = EstimateInput {
        model: ModelInput {
            model: Some("deepseek-ai/DeepSeek-V3".into()),
            ..Default::default()
        },
        run: RunInput {
            mode: Mode::Serve,
            engine: Engine::Sglang,
            ..Default::default()
        },
        serving: ServingInput {
            max_model_len: Some(32768.0),
            speculative_method: Some(SpecMethod::Mtp),
            num_speculative_tokens: Some(3.0),
            ..Default::default()
        },
        hardware: HardwareInput {
            gpu: Some("h200-sxm-141gb".into()),
            ..Default::default()
        },
        placement: crate::estimate::PlacementInput {
            tp: 8.0,
            gpus: Some(8.0),
            ..Default::default()
        },
        ..Default::default()
    };
    let argv = &launch_input(&input).unwrap().commands[0];
    let (line, joined) = (command_text(argv), argv.join(" "));
    assert!(
        joined.contains(
            "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
        ),
        "{joined}"
    );
    assert!(
        !joined.contains("--speculative-draft-model-path"),
        "{joined}"
    );
    let r = read_command(&line).unwrap_or_else(|e| panic!("{line}: {e:?}"));
    assert!(r.not_read.is_empty(), "{line}: {:?}", r.not_read);
    assert_eq!(r.input.serving.speculative_method, Some(SpecMethod::Mtp));
    assert_eq!(r.input.serving.num_speculative_tokens, Some(3.0));
    let back = EstimateInput {
        run: RunInput {
            batch: input.run.batch,
            ..r.input.run
        },
        hardware: HardwareInput {
            gpu: input.hardware.gpu.clone(),
            ..r.input.hardware
        },
        ..r.input
    };
    let (a, b) = (input.resolve().unwrap(), back.resolve().unwrap());
    assert_eq!(a.figures(), b.figures(), "{line}");
    let named = read_command(
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --speculative-algorithm nextn --speculative-draft-model-path deepseek-ai/DeepSeek-V3 --speculative-num-steps 3",
    )
    .unwrap();
    assert_eq!(
        named.input.serving.speculative_method,
        Some(SpecMethod::Mtp)
    );
    assert_eq!(
        named.input.serving.draft_model.as_deref(),
        Some("deepseek-ai/DeepSeek-V3")
    );
}
