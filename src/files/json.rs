//! A line of JSON read as one of the program's records, with what is wrong with it said in
//! the program's words ("the field `count` holds text where a whole number belongs"), not
//! in the words of the JSON library beneath.

use serde::de::DeserializeOwned;

/// `text` read as a `T`, or what is wrong with it.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    // Every record is an object; serde would read a list's items as its fields in turn.
    if text.trim_start().starts_with('[') && is_json(text) {
        return Err("a JSON list where a record belongs".to_string());
    }
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut reader).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        match inner.classify() {
            serde_json::error::Category::Syntax if inner.to_string().starts_with("invalid number") && field != "." => {
                format!("the field `{field}` holds no number where one belongs")
            }
            serde_json::error::Category::Syntax if inner.to_string().starts_with("number out of range") && field != "." => {
                format!("the field `{field}` holds a number out of its range")
            }
            serde_json::error::Category::Syntax if is_json(text) => {
                format!("JSON, but not what a record holds from column {}", inner.column())
            }
            serde_json::error::Category::Syntax => format!("not JSON from column {}", inner.column()),
            serde_json::error::Category::Eof => "JSON cut short".to_string(),
            serde_json::error::Category::Io => "unreadable".to_string(),
            serde_json::error::Category::Data => {
                let said = inner.to_string();
                let said = said.rsplit_once(" at line ").map_or(said.as_str(), |(m, _)| m);
                data(said, &field)
            }
        }
    })?;
    reader.end().map_err(|e| format!("more after the JSON, from column {}", e.column()))?;
    Ok(value)
}

/// Whether `text` is JSON of any shape.
fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// A data error `said` by serde about the field at `field` ("." where it is the whole
/// line), in the program's words.
fn data(said: &str, field: &str) -> String {
    let at = |what: String| if field == "." || field.is_empty() { what } else { format!("the field `{field}` holds {what}") };
    if let Some(rest) = said.strip_prefix("unknown field `") {
        let name = rest.split('`').next().unwrap_or_default();
        return format!("a field `{name}` that it does not have");
    }
    if let Some(rest) = said.strip_prefix("missing field `") {
        let name = rest.split('`').next().unwrap_or_default();
        return format!("no field `{name}`");
    }
    if let Some(rest) = said.strip_prefix("duplicate field `") {
        let name = rest.split('`').next().unwrap_or_default();
        return format!("the field `{name}` twice");
    }
    if let Some(rest) = said.strip_prefix("unknown variant `") {
        let name = rest.split('`').next().unwrap_or_default();
        return at(format!("\"{name}\", which is not a value it takes"));
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = said.strip_prefix(prefix) {
            if let Some((found, expected)) = rest.rsplit_once(", expected ") {
                return at(format!("{} where {} belongs", found_words(found), expected_words(expected)));
            }
        }
    }
    if let Some(rest) = said.strip_prefix("invalid length ") {
        let count = rest.split(',').next().unwrap_or_default();
        return at(format!("a list of {count} where another length belongs"));
    }
    at("a value it does not take".to_string())
}

/// What serde found, in plain words: "integer `8`" is "the number 8".
fn found_words(found: &str) -> String {
    let quoted = |s: &str| s.trim_matches('`').to_string();
    if let Some(v) = found.strip_prefix("integer ").or_else(|| found.strip_prefix("floating point ")) {
        return format!("the number {}", quoted(v));
    }
    if let Some(v) = found.strip_prefix("string ") {
        return format!("the text {v}");
    }
    if let Some(v) = found.strip_prefix("boolean ") {
        return quoted(v);
    }
    match found {
        "map" => "an object".into(),
        "sequence" => "a list".into(),
        "null" | "unit value" => "null".into(),
        other => other.into(),
    }
}

/// What serde expected, in plain words: "u128" is "a whole number".
fn expected_words(expected: &str) -> &'static str {
    match expected {
        e if e.starts_with('u') && e[1..].chars().all(|c| c.is_ascii_digit()) => "a whole number",
        "usize" => "a whole number",
        e if e.starts_with('i') && e[1..].chars().all(|c| c.is_ascii_digit()) => "a number",
        "f64" | "f32" => "a number",
        "a string" | "a borrowed string" | "string or map" => "text",
        "a boolean" => "true or false",
        e if e.starts_with("struct ") || e.starts_with("a map") || e == "map" => "an object",
        e if e.starts_with("an array") || e.starts_with("a sequence") || e.starts_with("a tuple") => "a list",
        e if e.starts_with('`') || e.starts_with("one of") => "one of the names it takes",
        _ => "a value of another kind",
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Line {
        count: u128,
        share: f64,
        name: String,
        #[serde(default)]
        ranges: Vec<[u32; 2]>,
        #[serde(default)]
        kind: Option<Which>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Which {
        Case,
    }

    fn said(text: &str) -> String {
        parse::<Line>(text).unwrap_err()
    }

    #[test]
    fn what_is_wrong_with_a_line_is_said_in_the_programs_words() {
        assert_eq!(said("8"), "the number 8 where an object belongs");
        assert_eq!(said(r#"{"count":"x","share":1,"name":"a"}"#), "the field `count` holds no number where one belongs");
        assert_eq!(said(r#"{"count":1,"share":1,"name":2}"#), "the field `name` holds the number 2 where text belongs");
        assert_eq!(said(r#"{"count":1,"share":1,"name":"a","format":2}"#), "a field `format` that it does not have");
        assert_eq!(said(r#"{"count":1,"name":"a"}"#), "no field `share`");
        assert_eq!(said("[1,2,3]"), "a JSON list where a record belongs");
        assert_eq!(said(r#"{"count":1e400,"share":1,"name":"a"}"#), "JSON, but not what a record holds from column 11");
        assert_eq!(said(r#"{"count":-1,"share":1,"name":"a"}"#), "the field `count` holds a number out of its range");
        assert_eq!(said(r#"{"count":1,"share":true,"name":"a"}"#), "the field `share` holds true where a number belongs");
        assert_eq!(
            said(r#"{"count":1,"share":1,"name":"a","ranges":[[1]]}"#),
            "the field `ranges[0]` holds a list of 1 where another length belongs"
        );
        assert_eq!(
            said(r#"{"count":1,"share":1,"name":"a","kind":"end"}"#),
            "the field `kind` holds \"end\", which is not a value it takes"
        );
        assert_eq!(said(r#"{"count":1,"share":1,"name":"a","count":2}"#), "the field `count` twice");
        assert_eq!(said(r#"{"count":1,"#), "JSON cut short");
        assert_eq!(said("{count}"), "not JSON from column 2");
        assert_eq!(said(r#"{"count":1,"share":1,"name":"a"} x"#), "more after the JSON, from column 34");
        for words in [said("8"), said(r#"{"count":"x","share":1,"name":"a"}"#), said(r#"{"count":1,"name":"a","x":1}"#)] {
            for library in ["invalid type", "expected struct", "unknown field", "invalid digit", "expected number at", " at line "] {
                assert!(!words.contains(library), "{words}");
            }
        }
        assert_eq!(parse::<Line>(r#"{"count":1,"share":0.5,"name":"a"}"#).unwrap().count, 1);
    }
}
