-- sessions_tokenize() reports byte offsets into its argument as FTS5 sees it:
-- TEXT holding invalid UTF-8 gives the same tokens and offsets as the same
-- bytes as a BLOB, and no offset lies past the end of the input.
.bail off
.echo on
.load dist/session_search
SELECT sessions_tokenize(x'68656c6c6fff776f726c64');
SELECT sessions_tokenize(CAST(x'68656c6c6fff776f726c64' AS TEXT));
SELECT sessions_tokenize(x'c0af2e2e2f706173737764');
SELECT sessions_tokenize(CAST(x'c0af2e2e2f706173737764' AS TEXT));
SELECT sessions_tokenize(CAST(x'80e69db1e4baace983bd80' AS TEXT), 'cjk 1')
     = sessions_tokenize(x'80e69db1e4baace983bd80', 'cjk 1');
SELECT max(json_extract(value, '$.end')) <= 11
  FROM json_each(sessions_tokenize(CAST(x'80e69db1e4baace983bd80' AS TEXT), 'cjk 1'));
