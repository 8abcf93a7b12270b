//! Every field of `EstimateInput` is a flag of each subcommand that takes a run, reaches that
//! field, and is listed in the book's CLI reference: a field added to the input and forgotten
//! here fails these tests. The field list is the input's own (`tests/input_fields.rs`).

use clap::{Arg, ArgAction, Args, Command, CommandFactory, FromArgMatches};

use crate::estimate::EstimateFlags;
use crate::input_fields::input_fields;

/// The fields with no flag of their own, and why.
const NO_FLAG: &[(&str, &str)] = &[
    // The architecture is read, not typed: `--model` naming a config.json file, or `--hub`.
    ("arch", "read from --model <config.json> or --hub"),
    // The checkpoint's own dtype comes with the architecture; --dtype is the run's choice.
    (
        "checkpoint_dtype",
        "read from --model <config.json> or --hub, with the architecture",
    ),
];

/// The fields whose flag is not the field's name in kebab case, and why.
const FLAG_NAMED_OTHERWISE: &[(&str, &str, &str)] = &[
    // A switch for the value that is not the default (`Logits::All`).
    (
        "logits",
        "all-logits",
        "the only value other than the default",
    ),
    // vLLM's own spelling of `cuda_graphs: false` (SGLang's `--disable-cuda-graph` an alias).
    ("cuda_graphs", "enforce-eager", "vLLM's flag, the negation"),
    (
        "foreach",
        "no-foreach",
        "the negation: foreach is PyTorch's default",
    ),
];

/// The flag of `field` (without `--`), or `None` where it has none.
fn flag_of(field: &str) -> Option<String> {
    if NO_FLAG.iter().any(|(f, _)| *f == field) {
        return None;
    }
    Some(
        FLAG_NAMED_OTHERWISE
            .iter()
            .find(|(f, _, _)| *f == field)
            .map_or_else(|| field.replace('_', "-"), |(_, flag, _)| flag.to_string()),
    )
}

/// The long names of `cmd`'s flags.
fn longs(cmd: &Command) -> Vec<String> {
    cmd.get_arguments()
        .filter_map(Arg::get_long)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_exclusions_name_fields_of_the_input() {
    let fields = input_fields();
    assert!(fields.len() > 30, "{fields:?}");
    for field in NO_FLAG
        .iter()
        .map(|(f, _)| f)
        .chain(FLAG_NAMED_OTHERWISE.iter().map(|(f, _, _)| f))
    {
        assert!(
            fields.contains(field),
            "`{field}` is no field of EstimateInput"
        );
    }
}

#[test]
fn every_input_field_is_a_flag_of_each_subcommand_that_takes_a_run() {
    let cli = crate::Cli::command();
    for sub in ["estimate", "fits", "recommend"] {
        let cmd = cli.find_subcommand(sub).expect(sub);
        let flags = longs(cmd);
        for field in input_fields() {
            if let Some(flag) = flag_of(field) {
                assert!(
                    flags.contains(&flag),
                    "`vramfit {sub}` has no --{flag} for the input's field `{field}`"
                );
            }
        }
    }
}

/// Each field's flag, given a value other than its default, changes that field of the input
/// (and only the fields it names): a flag wired to the wrong field fails.
#[test]
fn each_fields_flag_reaches_that_field() {
    let cmd = EstimateFlags::augment_args(Command::new("t").no_binary_name(true));
    let default = serde_json::to_value(
        EstimateFlags::from_arg_matches(&cmd.clone().get_matches_from(Vec::<String>::new()))
            .unwrap()
            .run_input()
            .ok()
            .unwrap(),
    )
    .unwrap();
    // Values tried in turn until one parses: a number, a count, a dtype, a format, a card.
    let candidates = ["3", "7B", "fp16", "gptq", "h200", "80GB"];
    for field in input_fields() {
        let Some(flag) = flag_of(field) else { continue };
        let arg = cmd
            .get_arguments()
            .find(|a| a.get_long() == Some(flag.as_str()))
            .unwrap_or_else(|| panic!("no --{flag}"));
        let values: Vec<String> = if matches!(arg.get_action(), ArgAction::SetTrue) {
            vec![String::new()]
        } else if arg.get_possible_values().is_empty() {
            candidates.iter().map(|v| v.to_string()).collect()
        } else {
            arg.get_possible_values()
                .iter()
                .map(|v| v.get_name().to_string())
                .collect()
        };
        let reaches = values.iter().any(|v| {
            let mut argv = vec![format!("--{flag}")];
            argv.extend((!v.is_empty()).then(|| v.clone()));
            let Ok(m) = cmd.clone().try_get_matches_from(argv) else {
                return false;
            };
            let Ok(input) = EstimateFlags::from_arg_matches(&m).unwrap().run_input() else {
                return false;
            };
            let input = serde_json::to_value(input).unwrap();
            let changed: Vec<&String> = input
                .as_object()
                .unwrap()
                .iter()
                .filter(|(k, v)| default[k.as_str()] != **v)
                .map(|(k, _)| k)
                .collect();
            changed == [*field]
        });
        assert!(reaches, "--{flag} does not set the field `{field}` alone");
    }
}

/// The book's CLI reference (both languages) lists every field's flag.
#[test]
fn the_books_cli_reference_lists_every_fields_flag() {
    for lang in ["en", "zh"] {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../book/").to_string()
            + lang
            + "/src/reference/cli.md";
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for field in input_fields() {
            if let Some(flag) = flag_of(field) {
                assert!(
                    text.contains(&format!("`--{flag}")),
                    "{path} does not list --{flag} (the input's field `{field}`)"
                );
            }
        }
    }
}
