//! Bodies of the SQL functions, as plain functions of plain values. The
//! extension and the wrapper register them under the same names and only
//! convert arguments and results.

use crate::tokenizer::{ArgumentError, Options, Purpose, Tokenizer, TOKENIZER_VERSION};
use serde_json::json;

/// `sessions_version()`: the crate version and the tokenizer version, as JSON,
/// e.g. `{"version":"0.1.0","tokenizer":1}`.
pub fn version() -> String {
    json!({ "version": crate::VERSION, "tokenizer": TOKENIZER_VERSION }).to_string()
}

/// `sessions_tokenize(text, args)`: the document tokens of `text` under the
/// tokenizer arguments `args` (e.g. `'cjk 1'`), as a JSON array of
/// `{"token","start","end"}` objects (`"colocated":true` on tokens that share
/// the previous position). Offsets are bytes of the UTF-8 text.
///
/// # Errors
///
/// An [`ArgumentError`] naming an unknown or malformed argument.
pub fn tokenize(text: &[u8], args: &str) -> Result<String, ArgumentError> {
    let args: Vec<&str> = args.split_whitespace().collect();
    let mut tokenizer = Tokenizer::new(Options::parse(&args)?);
    let tokens: Vec<_> = tokenizer
        .tokens(text, Purpose::Document)
        .into_iter()
        .map(|(token, start, end, colocated)| {
            let mut entry = json!({ "token": token, "start": start, "end": end });
            if colocated {
                entry["colocated"] = json!(true);
            }
            entry
        })
        .collect();
    Ok(serde_json::Value::from(tokens).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_names_both_versions() {
        let v: serde_json::Value = serde_json::from_str(&version()).unwrap();
        assert_eq!(v["version"], crate::VERSION);
        assert_eq!(v["tokenizer"], TOKENIZER_VERSION);
    }

    #[test]
    fn tokenize_reports_offsets_and_colocation() {
        let out = tokenize("Café 東京".as_bytes(), "cjk 1").unwrap();
        assert_eq!(
            out,
            r#"[{"end":5,"start":0,"token":"cafe"},{"end":9,"start":6,"token":"東"},{"colocated":true,"end":12,"start":6,"token":"東京"},{"end":12,"start":9,"token":"京"}]"#
        );
    }

    #[test]
    fn tokenize_names_the_bad_argument() {
        let err = tokenize(b"x", "cjk 1 stemmer porter").unwrap_err();
        assert!(err.to_string().contains("'stemmer'"), "{err}");
    }
}
