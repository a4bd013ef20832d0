"""`session-search mcp` driven by the official MCP Python SDK over stdio, as
an agent's host drives it: initialize, list the tools, call each, bad
arguments, a pinned caller, and a large result within the byte limits.

    make test-mcp   (makes a venv with the `mcp` package, then runs this)

Needs target/release/session-search and /usr/bin/python3's
sqlite3, which loads dist/session_search.so to write the test database.
"""

import asyncio
import json
import os
import sqlite3
import tempfile
import unittest

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "target", "release", "session-search")
EXTENSION = os.path.join(ROOT, "dist", "session_search")


def make_database(path):
    """Two sessions of agent main (the second spawned by the first) and one
    of agent ops; a long session for the byte limits."""
    conn = sqlite3.connect(path)
    conn.enable_load_extension(True)
    conn.load_extension(EXTENSION)
    conn.execute("SELECT sessions_init()")
    conn.executemany(
        "INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES (?, ?, ?, ?)",
        [
            ("main:1", "main", None, 1_700_000_000_000),
            ("main:1:sub", "main", "main:1", 1_700_000_001_000),
            ("ops:1", "ops", None, 1_700_000_002_000),
            ("long:1", "ops", None, 1_700_000_003_000),
        ],
    )
    rows = [
        ("main:1", "user", "The staging deploy failed with a timeout on 東京", 1_700_000_000_100, "m1"),
        ("main:1", "assistant", "I restarted the staging deploy; token sk-abcdefghijklmnopqrstuvwxyz0123456789", 1_700_000_000_200, "m2"),
        ("main:1:sub", "user", "check the deploy logs of the worker", 1_700_000_001_100, "s1"),
        ("ops:1", "user", "rotate the database password for staging", 1_700_000_002_100, "o1"),
    ]
    rows += [("long:1", "user", "verbose staging report " + "word " * 400 + str(i), 1_700_000_003_000 + i, f"l{i}") for i in range(40)]
    conn.executemany(
        "INSERT INTO messages(session_key, role, content, created_at, message_id) VALUES (?, ?, ?, ?, ?)", rows
    )
    conn.commit()
    conn.close()


class McpServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.db = os.path.join(cls.folder.name, "agent.db")
        make_database(cls.db)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def session(self, *args, env=None):
        """Runs `body(client)` against a fresh server with these arguments."""
        params = StdioServerParameters(
            command=CLI, args=["--db", self.db, "mcp", *args], env={**os.environ, **(env or {})}
        )

        def run(body):
            async def main():
                async with stdio_client(params) as (read, write):
                    async with ClientSession(read, write) as client:
                        init = await client.initialize()
                        return await body(client, init)

            return asyncio.run(main())

        return run

    def call(self, *args, tool, arguments, env=None):
        """One tool call: (is_error, structured content, text)."""

        async def body(client, _):
            result = await client.call_tool(tool, arguments)
            text = "\n".join(block.text for block in result.content if block.type == "text")
            return bool(result.is_error), result.structured_content, text

        return self.session(*args, env=env)(body)

    def test_initialize_lists_three_tools_with_schemas_and_guidance(self):
        async def body(client, init):
            tools = await client.list_tools()
            return init, {tool.name: tool for tool in tools.tools}

        init, tools = self.session()(body)
        self.assertEqual(init.server_info.name, "session-search")
        self.assertTrue(init.instructions)
        self.assertEqual(set(tools), {"sessions_search", "sessions_history", "sessions_list"})
        search = tools["sessions_search"]
        self.assertIn("quote", search.description.lower())
        self.assertIn("sessions_history", search.description)
        properties = search.input_schema["properties"]
        self.assertEqual(search.input_schema["required"], ["query"])
        for name in ["query", "limit", "roles", "since", "until", "sessionKeys", "order", "groupBy", "snippetChars"]:
            self.assertIn(name, properties)
        # Who is asking is configuration, never an argument a model can set.
        for tool in tools.values():
            self.assertNotIn("caller", tool.input_schema.get("properties", {}))
            self.assertNotIn("visibility", tool.input_schema.get("properties", {}))
        self.assertIn("sessionKey", tools["sessions_history"].input_schema["required"])

    def test_search_answers_structured_json_and_readable_text(self):
        error, data, text = self.call(tool="sessions_search", arguments={"query": "staging deploy"})
        self.assertFalse(error, text)
        keys = [hit["sessionKey"] for hit in data["results"]]
        self.assertEqual(keys[:2], ["main:1", "main:1"])
        self.assertIn("m1", [hit["messageId"] for hit in data["results"]])
        self.assertIn("messageId m1", text)
        self.assertIn("main:1", text)
        # The secret never leaves the server.
        self.assertNotIn("sk-abcdefghij", json.dumps(data) + text)
        # CJK substring, a question in plain language, a session grouping.
        _, cjk, _ = self.call(tool="sessions_search", arguments={"query": "東京"})
        self.assertEqual([h["messageId"] for h in cjk["results"]], ["m1"])
        _, question, text = self.call(
            tool="sessions_search", arguments={"query": "where did we discuss the staging deploy timeout?"}
        )
        self.assertEqual(question["results"][0]["messageId"], "m1")
        self.assertTrue(question["results"][0]["partial"])
        self.assertEqual(question["results"][0]["matched"], ["staging", "deploy", "timeout"])
        self.assertIn("partial match: staging, deploy, timeout", text)
        # What each word matched, for a model to drop or replace one.
        terms = {t["term"]: t for t in question["terms"]}
        self.assertTrue(terms["where"]["framing"])
        self.assertEqual(terms["timeout"]["messages"], 1)
        self.assertIn("Messages holding each word:", text)
        _, zebra, text = self.call(tool="sessions_search", arguments={"query": "staging zebra"})
        self.assertEqual({t["term"]: t["messages"] for t in zebra["terms"]}["zebra"], 0)
        self.assertIn("zebra 0", text)
        self.assertTrue(all(hit["partial"] and hit["matched"] == ["staging"] for hit in zebra["results"]))
        _, grouped, _ = self.call(tool="sessions_search", arguments={"query": "staging", "groupBy": "session"})
        keys = [hit["sessionKey"] for hit in grouped["results"]]
        self.assertEqual(len(keys), len(set(keys)))
        self.assertEqual(set(keys), {"main:1", "ops:1", "long:1"})
        self.assertTrue(all(hit["hits"] >= 1 for hit in grouped["results"]))

    def test_history_opens_the_hit_and_list_pages_sessions(self):
        error, data, text = self.call(
            tool="sessions_history", arguments={"sessionKey": "main:1", "around": "m2", "before": 1, "after": 0}
        )
        self.assertFalse(error, text)
        self.assertEqual([m["messageId"] for m in data["messages"]], ["m1", "m2"])
        self.assertIn("[REDACTED]", text)
        self.assertNotIn("sk-abcdefghij", text)
        error, data, text = self.call(tool="sessions_list", arguments={"limit": 2})
        self.assertFalse(error, text)
        self.assertEqual([s["sessionKey"] for s in data["sessions"]], ["long:1", "ops:1"])
        self.assertTrue(data["truncated"])
        self.assertIn("offset 2", text)
        _, page, _ = self.call(tool="sessions_list", arguments={"limit": 2, "offset": 2, "agent": "main"})
        self.assertEqual(page["sessions"], [])
        _, main, _ = self.call(tool="sessions_list", arguments={"agent": "main", "since": "2023-11-14"})
        self.assertEqual([s["sessionKey"] for s in main["sessions"]], ["main:1:sub", "main:1"])

    def test_history_takes_a_start_of_a_key_as_the_command_line_does(self):
        # `ops` starts one key; `main` starts a session and its subagent.
        for start, key in [("ops", "ops:1"), ("main", "main:1"), ("main:1:s", "main:1:sub")]:
            error, data, text = self.call(tool="sessions_history", arguments={"sessionKey": start})
            self.assertFalse(error, text)
            self.assertEqual(data["sessionKey"], key)
        error, _, text = self.call(tool="sessions_history", arguments={"sessionKey": "nope"})
        self.assertTrue(error)
        self.assertIn('no session key is or starts with "nope"', text)
        self.assertNotIn("caller", text)

    def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(self):
        async def body(client, _):
            answers = []
            for tool, arguments in [
                ("sessions_search", {"query": ""}),
                ("sessions_search", {"query": "x", "limit": 0}),
                ("sessions_search", {"query": "x", "limit": "ten"}),
                ("sessions_search", {"query": "x", "visibility": "all"}),
                ("sessions_search", {}),
                ("sessions_search", {"query": "x", "since": "yesterday"}),
                ("sessions_history", {"sessionKey": "nope"}),
                ("sessions_history", {"sessionKey": "main:1", "around": "missing"}),
                ("sessions_list", {"limit": 500}),
            ]:
                result = await client.call_tool(tool, arguments)
                answers.append((bool(result.is_error), result.content[0].text))
            after = await client.call_tool("sessions_search", {"query": "staging"})
            return answers, bool(after.is_error)

        answers, error_after = self.session()(body)
        for error, text in answers:
            self.assertTrue(error, text)
        texts = [text for _, text in answers]
        self.assertIn("empty", texts[0])
        self.assertIn("limit must be between 1 and 25", texts[1])
        self.assertIn("invalid arguments", texts[2])
        self.assertIn("unknown field `visibility`", texts[3])
        self.assertIn("missing field `query`", texts[4])
        self.assertIn("yesterday", texts[5])
        self.assertIn("nope", texts[6])
        self.assertIn("missing", texts[7])
        self.assertIn("limit must be between 1 and 100", texts[8])
        self.assertFalse(error_after)

    def test_a_pinned_caller_sees_only_its_tree(self):
        error, data, text = self.call("--caller", "main:1", tool="sessions_search", arguments={"query": "deploy"})
        self.assertFalse(error, text)
        self.assertEqual({hit["sessionKey"] for hit in data["results"]}, {"main:1", "main:1:sub"})
        _, listed, _ = self.call(tool="sessions_list", arguments={}, env={"SESSION_SEARCH_CALLER": "main:1:sub"})
        self.assertEqual([s["sessionKey"] for s in listed["sessions"]], ["main:1:sub"])
        error, _, text = self.call(
            "--caller", "main:1", tool="sessions_history", arguments={"sessionKey": "ops:1"}
        )
        self.assertTrue(error)
        self.assertIn("no session \"ops:1\" is visible", text)
        error, _, text = self.call(
            "--caller", "main:1", "--visibility", "all", "--sandboxed", tool="sessions_search",
            arguments={"query": "rotate"},
        )
        self.assertFalse(error, text)
        self.assertIn("No matches", text)

    def test_a_large_result_stays_within_the_byte_limits(self):
        _, data, _ = self.call(tool="sessions_search", arguments={"query": "verbose", "limit": 25})
        self.assertEqual(len(data["results"]), 25)
        self.assertLessEqual(len(json.dumps(data["results"], ensure_ascii=False).encode()), 32768)
        _, history, _ = self.call(tool="sessions_history", arguments={"sessionKey": "long:1", "limit": 200})
        self.assertLessEqual(len(json.dumps(history["messages"], ensure_ascii=False).encode()), 65536)
        self.assertTrue(history["truncated"] or history["before"] > 0 or len(history["messages"]) == 40)


class McpWatchTest(unittest.TestCase):
    def test_watch_imports_transcripts_written_while_serving(self):
        """`mcp --watch` starts on a database that does not exist yet and a
        home without transcripts; a Claude Code session written while the
        server runs becomes searchable through the server itself."""
        with tempfile.TemporaryDirectory() as home:
            db = os.path.join(home, "data", "sessions.db")
            project = os.path.join(home, ".claude", "projects", "-home-dev-shop")
            env = {**os.environ, "HOME": home}
            for name in ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "OPENCLAW_STATE_DIR", "PI_CODING_AGENT_DIR"]:
                env.pop(name, None)
            params = StdioServerParameters(command=CLI, args=["--db", db, "mcp", "--watch"], env=env)
            line = {
                "type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "5e55a0c1",
                "timestamp": "2025-11-02T09:00:00Z", "cwd": "/home/dev/shop",
                "message": {"role": "user", "content": "the carburettor keeps flooding"},
            }

            async def main():
                async with stdio_client(params) as (read, write):
                    async with ClientSession(read, write) as client:
                        await client.initialize()
                        os.makedirs(project)
                        with open(os.path.join(project, "5e55a0c1.jsonl"), "w") as f:
                            f.write(json.dumps(line) + "\n")
                        for _ in range(200):
                            result = await client.call_tool("sessions_search", {"query": "carburettor"})
                            if not result.is_error and result.structured_content["results"]:
                                return result.structured_content
                            await asyncio.sleep(0.1)
                        self.fail("the transcript never became searchable")

            found = asyncio.run(main())
            self.assertEqual(found["results"][0]["sessionKey"], "claude-code:5e55a0c1")

    def test_a_server_without_watch_starts_before_anything_was_imported(self):
        """Without --watch and with no database yet, the server still
        serves, and its tools say how to import."""
        with tempfile.TemporaryDirectory() as home:
            db = os.path.join(home, "data", "sessions.db")
            params = StdioServerParameters(command=CLI, args=["--db", db, "mcp"], env=os.environ.copy())

            async def main():
                async with stdio_client(params) as (read, write):
                    async with ClientSession(read, write) as client:
                        await client.initialize()
                        return await client.call_tool("sessions_search", {"query": "anything"})

            result = asyncio.run(main())
            self.assertTrue(result.is_error)
            self.assertIn("session-search import", result.content[0].text)


if __name__ == "__main__":
    unittest.main()
