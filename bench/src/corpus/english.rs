//! English transcripts: prose about code, mixed with paths, identifiers,
//! commands, errors, log lines, URLs, hashes and code blocks.

use super::tech::Tech;
use super::{end_sentence, Writer};
use crate::rng::{Rng, Zipf};

/// English words of chat about software, most frequent first.
const WORDS: &str = "
    the to and of a in is it that you for this on with be i we can are not have
    as if or at so but your from do will by an all run use file it's there what
    which one should need just also new code when then was like here now don't
    check test see make get more build error change add fix some up out would
    other into than only first any each time way set these how case update value
    try looks problem because works using version line function data call server
    config issue after before still again missing work why where same return
    output path command default instead their them user let sure both next local
    main option current already without through while think right type name
    found support probably request order start package install branch commit
    repo script log step running failed module import class object string number
    list field table query index database cache memory thread process service
    deploy release staging production endpoint response token session message
    history search result page window screen button click input format parse
    load save write read open close send receive match replace remove delete
    create move copy rename merge push pull clone review comment approve thanks
    please could great good bad wrong correct exactly actually maybe yes no
    okay done let's i'll you're we're that's here's isn't doesn't won't can't
    yesterday today tomorrow morning week deadline meeting team customer
    performance latency slow fast timeout retry connection network port host
    container image cluster node pod volume secret key permission access denied
    allowed root admin password login account email notification alert monitor
    dashboard metrics graph report summary plan idea question answer explain
    because although however therefore otherwise unless until since during
    between above below inside outside around across along behind beyond upon
    small large big huge tiny simple complex clean dirty stable broken flaky
    random unique empty full valid invalid null undefined true false unknown
";

/// Writer of English messages.
#[derive(Debug, Clone)]
pub struct English {
    words: Zipf,
    tech: Tech,
}

impl English {
    /// A writer with its word list.
    pub fn new() -> English {
        English {
            words: Zipf::new(WORDS, 0.8),
            tech: Tech::new(),
        }
    }

    /// Appends one prose sentence, sometimes with a technical token inside.
    fn sentence(&self, rng: &mut Rng, out: &mut String) {
        let length = rng.between(5, 22);
        let tech_at = rng.chance(0.35).then(|| rng.below(length));
        let mut previous = "";
        for i in 0..length {
            if i > 0 {
                out.push_str(if rng.chance(0.06) { ", " } else { " " });
            }
            if tech_at == Some(i) {
                self.tech.inline(rng, out);
                continue;
            }
            let word = self.words.sample_other(rng, previous);
            previous = word;
            if i == 0 {
                push_capitalized(word, out);
            } else {
                out.push_str(word);
            }
        }
        end_sentence(rng, out);
    }
}

impl Writer for English {
    fn language(&self, _rng: &mut Rng) -> usize {
        0
    }

    fn segment(&self, _language: usize, rng: &mut Rng, out: &mut String) {
        if rng.chance(0.18) {
            self.tech.block(rng, out);
        } else {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push(' ');
            }
            self.sentence(rng, out);
        }
    }
}

/// Appends `word` with its first letter upper-cased.
pub fn push_capitalized(word: &str, out: &mut String) {
    let mut chars = word.chars();
    if let Some(first) = chars.next() {
        out.extend(first.to_uppercase());
        out.push_str(chars.as_str());
    }
}
