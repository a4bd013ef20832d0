//! The documentation names every format and tool of the registry, and no
//! other.

use session_search_import::{default_locations, Format};
use std::path::Path;

/// The text of the repository's file at `path`.
fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap()
}

/// The rows of the first Markdown table after the line `heading`, without
/// its header and separator, each a list of its cells.
fn table(text: &str, heading: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip_while(|line| *line != heading)
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|row| {
            let cells = row.trim_matches('|').split(" | ");
            cells.map(|cell| cell.trim().to_owned()).collect()
        })
        .collect()
}

#[test]
fn the_readme_lists_every_format_by_its_name() {
    let readme = read("README.md").replace('\n', " ");
    let marker = "(`--format` names one): ";
    let start = readme.find(marker).expect("the README lists the formats") + marker.len();
    let list = &readme[start..];
    let mut listed: Vec<&str> = list[..list.find(';').unwrap()]
        .split(", ")
        .map(|name| name.trim_matches('`'))
        .collect();
    let mut names: Vec<&str> = Format::ALL.into_iter().map(Format::name).collect();
    listed.sort_unstable();
    names.sort_unstable();
    assert_eq!(listed, names);
}

#[test]
fn the_import_docs_give_every_formats_session_key() {
    let docs = read("docs/importing.md");
    let rows = table(&docs, "# Importing transcripts");
    let keys: Vec<&str> = rows.iter().map(|row| row[2].as_str()).collect();
    for format in Format::ALL {
        let key = format!("`{}:", format.name());
        assert!(
            keys.iter().any(|cell| cell.contains(&key)),
            "{format} is not in docs/importing.md's table of formats"
        );
    }
}

#[test]
fn the_import_docs_give_every_tools_default_folders() {
    let docs = read("docs/importing.md");
    let rows = table(&docs, "## Default locations");
    // A cell names one or more tools, each perhaps with a note.
    let tools: Vec<&str> = rows
        .iter()
        .flat_map(|row| row[0].split(", "))
        .map(|tool| tool.split(" (").next().unwrap())
        .collect();
    let locations = default_locations(|name| (name == "HOME").then(|| "/home/ada".into()));
    for location in locations.unwrap() {
        assert!(
            tools.contains(&location.tool),
            "{} is not in docs/importing.md's table of default locations",
            location.tool
        );
    }
}
