#!/usr/bin/env bash
# `make demo`, part 2: the sample transcripts of demo/transcripts imported into
# demo.db by the session-search CLI, then searched through the CLI and through
# the sqlite3 shell with the loadable extension. Each step prints its caption.
set -euo pipefail
cd "$(dirname "$0")/.."

cli=${CLI:-target/release/session-search}
sqlite3=${SQLITE3:-sqlite3}
db=demo.db
shop=claude-code:5220432c-8cb7-4afb-bcb7-0236903bcbfd
billing=claude-code:3a1bac8e-df98-4501-a88c-d36ec3551bb6

step() { printf '\n== %s\n' "$1"; }
ss() { "$cli" --db "$db" "$@"; }
# A search that must find nothing: exit status 1, as grep's when no line matches.
nothing() {
  local status=0
  ss "$@" || status=$?
  if [ "$status" -ne 1 ]; then echo "expected no match (exit status 1), got $status" >&2; exit 1; fi
}

rm -f "$db" "$db-wal" "$db-shm"
step "import: Claude Code and OpenClaw transcripts, a spawned subagent, six languages"
ss import demo/transcripts

step "diacritics: 'deploiement' finds the French déploiement, 'strasse' the German Straße"
ss search 'deploiement' --limit 2
ss search 'strasse' --limit 1

step "CJK: the 2-character queries 東京 and 서울 find words inside longer runs"
ss search '東京' --limit 1
ss search '서울' --limit 1

step "a question in plain words: no message holds every word, so the closest come as partial matches, with the words each holds ('locked' also finds 'locks')"
ss search 'why was the invoices table locked during the staging deploy?' --limit 3
step "a question in Chinese: its pieces (首尔, 区域, 部署) count, its framing words (什么时候, 的) do not"
ss search '首尔区域什么时候部署的？' --limit 2

step "rewind: the abandoned 'blue-green cutover' branch is not on the active branch, so not found"
nothing search '"blue-green cutover"'

step "secrets: the pasted API key is redacted, and searching for it finds nothing"
ss search 'key staging' --caller "$shop" --limit 1
nothing search 'sk-proj-demo8AhzLG5IXNh55QLM4QVtQqP7YoyHLv66Bd1S' --caller "$shop"

step "visibility: 'migration' as the shop session sees it (tree: itself and the subagent it spawned)"
ss search 'migration' --caller "$shop" --visibility tree --limit 3
step "visibility: 'migration' as the billing session sees it (self: only its own French migration)"
ss search 'migration' --caller "$billing" --visibility self --limit 3

hit=$("$sqlite3" "$db" "SELECT message_id FROM messages WHERE session_key = '$billing' AND content LIKE '%Straße%' ORDER BY id LIMIT 1")
step "history: the billing session's active branch around the Straße hit, tool calls summarised"
ss history "$billing" --around "$hit" --before 1 --after 1

step "the sqlite3 shell: the same store read with SQL, as JSON a host's tool would forward"
"$sqlite3" "$db" <<SQL
.load dist/session_search
.mode list
.print -- diacritics, then a 2-character CJK word:
SELECT sessions_search('strasse', '{"caller":"$billing","visibility":"self","limit":1,"snippetChars":80}');
SELECT sessions_search('東京', '{"caller":"$shop","visibility":"all","limit":1,"snippetChars":60}');
.print -- the rewound branch is not found:
SELECT sessions_search('"blue-green cutover"', '{"caller":"$shop","visibility":"all"}');
.print -- the key is redacted:
SELECT sessions_search('key staging', '{"caller":"$shop","limit":1}');
.print -- visibility: hits for 'migration' by self, tree and all, as the shop session:
SELECT json_array_length(sessions_search('migration', '{"caller":"$shop","visibility":"self"}'), '$.results'),
       json_array_length(sessions_search('migration', '{"caller":"$shop","visibility":"tree"}'), '$.results'),
       json_array_length(sessions_search('migration', '{"caller":"$shop","visibility":"all"}'), '$.results');
.print -- sessions_history around the hit:
SELECT sessions_history('$billing', json_object('caller', '$billing', 'around', '$hit', 'before', 1, 'after', 1));
SELECT sessions_status();
SQL
