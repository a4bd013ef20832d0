-- sessions_list: the caller's visible sessions, newest activity first, paged,
-- filtered, titles redacted; the same fail-closed errors as search.
.load dist/session_search
SELECT sessions_init() IS NOT NULL;
INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('a:1','main',10),('a:2','main',20),('b:1','other',30);
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES ('a:1:sub','main','a:1',40);
INSERT INTO messages(session_key, role, content, created_at) VALUES ('a:1','user','  Deploy   staging with sk-abcdefghijklmnopqrstuvwxyz123456 now, then check the dashboards of every region and report what broke in the meantime please',100),('a:1','assistant','ok',200),('a:2','system','sys',50),('a:2','tool','tool output',55),('a:2','user','[{"type":"tool_result","content":"x"}]',58),('a:2','user','[{"type":"text","text":"東京 trip"}]',60);
.print -- tree of a:1 (its spawned session has no messages: last activity is its creation)
SELECT sessions_list('{"caller":"a:1"}');
.print -- all, then two pages of two
SELECT sessions_list('{"caller":"a:1","visibility":"all"}');
SELECT sessions_list('{"caller":"a:1","visibility":"all","limit":2}');
SELECT sessions_list('{"caller":"a:1","visibility":"all","limit":2,"offset":2}');
.print -- filters: key prefix, agent, last activity between since and until
SELECT sessions_list('{"caller":"a:1","visibility":"agent","prefix":"a:1"}');
SELECT sessions_list('{"caller":"a:1","visibility":"all","agent":"other"}');
SELECT sessions_list('{"caller":"a:1","visibility":"all","since":60,"until":150}');
.print -- a sandboxed caller sees its tree; self sees itself
SELECT sessions_list('{"caller":"a:1:sub","visibility":"all","sandboxed":true}');
SELECT sessions_list('{"caller":"a:2","visibility":"self"}');
.print -- a new message moves its session to the front; a deleted session leaves
INSERT INTO messages(session_key, role, content, created_at) VALUES ('b:1','user','hello',300);
DELETE FROM sessions WHERE session_key = 'a:2';
SELECT json_group_array(json_extract(value, '$.sessionKey')) FROM json_each(sessions_list('{"caller":"a:1","visibility":"all"}'), '$.sessions');
.print -- errors
SELECT sessions_list('{"caller":"nope"}');
SELECT sessions_list('{"visibility":"all"}');
SELECT sessions_list('{"caller":"a:1","limit":0}');
SELECT sessions_list('{"caller":"a:1","offset":-1}');
SELECT sessions_list('{"caller":"a:1","bogus":1}');
SELECT sessions_list('not json');
SELECT sessions_list(NULL);
