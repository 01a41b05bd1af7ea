//! Checks of the `--help` texts against the options they describe: every
//! `--option` a command's long help names is one of its options (or one
//! of another command's, written as that command: `` `solve --time` ``),
//! a default stated in words is the default clap applies, and the
//! commands that search name one default database size.

use crate::Cli;
use clap::CommandFactory;
use std::collections::BTreeSet;

/// Every subcommand, depth first, with its path (`ballots run`).
fn commands() -> Vec<(String, clap::Command)> {
    fn walk(prefix: &str, c: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
        for s in c.get_subcommands().filter(|s| s.get_name() != "help") {
            let path = format!("{prefix}{}", s.get_name()).trim().to_string();
            out.push((path.clone(), s.clone()));
            walk(&format!("{path} "), s, out);
        }
    }
    let mut root = Cli::command();
    root.build();
    let mut out = Vec::new();
    walk("", &root, &mut out);
    out
}

/// The long options of `c` and of its subcommands (a command's help may
/// describe what its subcommands take), with `--help`.
fn options(c: &clap::Command) -> BTreeSet<String> {
    let mut set: BTreeSet<String> = c
        .get_arguments()
        .filter_map(|a| a.get_long().map(str::to_string))
        .collect();
    for s in c.get_subcommands() {
        set.extend(options(s));
    }
    set.extend(["help", "version"].map(String::from));
    set
}

/// The `--options` named in `text`, except those inside a backquoted
/// command line that names another command (`` `solve --time` ``,
/// `` `checkers egdb build --pieces 6` ``).
fn named_options(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, span) in text.split('`').enumerate() {
        let quoted = i % 2 == 1;
        let words: Vec<&str> = span.split_whitespace().collect();
        let names_a_command = quoted
            && words
                .first()
                .is_some_and(|w| !w.starts_with('-') && w.chars().all(|c| c.is_ascii_lowercase()));
        if names_a_command {
            continue;
        }
        for w in words {
            if let Some(rest) = w.strip_prefix("--") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                let name = name.trim_end_matches('-').to_string();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        }
    }
    out
}

#[test]
fn every_option_a_help_names_exists() {
    let mut wrong = Vec::new();
    for (path, mut c) in commands() {
        let have = options(&c);
        let help = c.render_long_help().to_string();
        for name in named_options(&help) {
            if !have.contains(&name) {
                wrong.push(format!("checkers {path} --help names --{name}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// A default stated in an option's own words, "(default: N ...", is the
/// one clap applies (and prints as `[default: N]`).
#[test]
fn defaults_in_words_are_the_real_ones() {
    let mut wrong = Vec::new();
    for (path, c) in commands() {
        for a in c.get_arguments() {
            let help = a
                .get_long_help()
                .or(a.get_help())
                .map(|h| h.to_string())
                .unwrap_or_default();
            let Some(at) = help.find("(default: ") else {
                continue;
            };
            let stated: String = help[at + "(default: ".len()..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            let real: Vec<String> = a
                .get_default_values()
                .iter()
                .map(|v| v.to_string_lossy().into_owned())
                .collect();
            if !stated.is_empty() && !real.is_empty() && real != [stated.clone()] {
                wrong.push(format!(
                    "checkers {path} --{}: says {stated}, is {real:?}",
                    a.get_long().unwrap_or("?")
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The commands that search use databases of one size unless told
/// otherwise, and their help says which.
#[test]
fn searching_commands_share_one_database_size() {
    let want = crate::limits::DEFAULT_EGDB_PIECES.to_string();
    let searching = [
        "solve",
        "bestmove",
        "play",
        "hub",
        "proof verify",
        "proof show",
        "ballots run",
        "serve",
    ];
    let all = commands();
    for name in searching {
        let (_, c) = all
            .iter()
            .find(|(p, _)| p == name)
            .unwrap_or_else(|| panic!("no command {name}"));
        let a = c
            .get_arguments()
            .find(|a| a.get_long() == Some("egdb-pieces"))
            .unwrap_or_else(|| panic!("{name} has no --egdb-pieces"));
        let real: Vec<String> = a
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            real,
            std::slice::from_ref(&want),
            "checkers {name} --egdb-pieces"
        );
        let help = c.clone().render_long_help().to_string();
        assert!(
            help.contains(&format!("[default: {want}]")),
            "checkers {name} --help does not print the default"
        );
    }
}

#[test]
fn options_in_backquoted_commands_of_others_are_not_counted() {
    assert_eq!(
        named_options("a `solve --time` b --budget, (`--json`) --no-carry-over)"),
        ["budget", "json", "no-carry-over"]
    );
}
