//! A line of JSON read as one of the program's records, with what is wrong with it said in
//! the program's words ("the field `count` holds text where a whole number belongs"), not
//! in the words of the JSON library beneath.

use std::fmt;

use serde::de::DeserializeOwned;

/// What is wrong with a line of JSON read as a record. A `field` is the path to a field
/// (`count`, `ranges[0]`), `None` where the fault is the whole line's.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonError {
    /// A list, where every record is an object.
    List,
    /// No number where the field's number belongs (`"count":x`).
    NoNumber { field: String },
    /// A number too large for the field.
    TooLarge { field: String },
    /// A number below 0 where the field holds a whole number.
    Negative { field: String },
    /// JSON, but not of a record, from this column (from 1).
    NotARecord { column: usize },
    /// Not JSON, from this column.
    NotJson { column: usize },
    /// JSON that ends before it should.
    CutShort,
    /// The line could not be read.
    Unreadable,
    /// More after the JSON, from this column.
    MoreAfter { column: usize },
    /// A field the record does not have.
    UnknownField(String),
    /// A field the record must have.
    MissingField(String),
    /// A field given twice.
    TwiceField(String),
    /// A name that is not one the field takes.
    NotAValue { field: Option<String>, value: String },
    /// A value of another kind: what was found (in words) and what belongs there.
    WrongKind { field: Option<String>, found: String, expected: &'static str },
    /// A list of another length.
    WrongLength { field: Option<String>, length: String },
    /// A value the field does not take.
    Other { field: Option<String> },
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |f: &mut fmt::Formatter<'_>, field: &Option<String>| match field {
            Some(field) => write!(f, "the field `{field}` holds "),
            None => Ok(()),
        };
        match self {
            JsonError::List => f.write_str("a JSON list where a record belongs"),
            JsonError::NoNumber { field } => write!(f, "the field `{field}` holds no number where one belongs"),
            JsonError::TooLarge { field } => write!(f, "the field `{field}` holds a number too large for it"),
            JsonError::Negative { field } => write!(f, "the field `{field}` holds a number below 0 where a whole number belongs"),
            JsonError::NotARecord { column } => write!(f, "JSON, but not what a record holds from column {column}"),
            JsonError::NotJson { column } => write!(f, "not JSON from column {column}"),
            JsonError::CutShort => f.write_str("JSON cut short"),
            JsonError::Unreadable => f.write_str("unreadable"),
            JsonError::MoreAfter { column } => write!(f, "more after the JSON, from column {column}"),
            JsonError::UnknownField(name) => write!(f, "a field `{name}` that it does not have"),
            JsonError::MissingField(name) => write!(f, "the field `{name}` is missing"),
            JsonError::TwiceField(name) => write!(f, "the field `{name}` twice"),
            JsonError::NotAValue { field, value } => {
                at(f, field)?;
                write!(f, "\"{value}\", which is not a value it takes")
            }
            JsonError::WrongKind { field, found, expected } => {
                at(f, field)?;
                write!(f, "{found} where {expected} belongs")
            }
            JsonError::WrongLength { field, length } => {
                at(f, field)?;
                write!(f, "a list of {length} where another length belongs")
            }
            JsonError::Other { field } => {
                at(f, field)?;
                f.write_str("a value it does not take")
            }
        }
    }
}

impl std::error::Error for JsonError {}

/// `text` read as a `T`, or what is wrong with it.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, JsonError> {
    // Every record is an object; serde would read a list's items as its fields in turn.
    if text.trim_start().starts_with('[') && is_json(text) {
        return Err(JsonError::List);
    }
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut reader).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        match inner.classify() {
            serde_json::error::Category::Syntax if inner.to_string().starts_with("invalid number") && field != "." => {
                JsonError::NoNumber { field }
            }
            serde_json::error::Category::Syntax if inner.to_string().starts_with("number out of range") && field != "." => {
                if negative_at(text, inner.column()) {
                    JsonError::Negative { field }
                } else {
                    JsonError::TooLarge { field }
                }
            }
            serde_json::error::Category::Syntax if is_json(text) => JsonError::NotARecord { column: inner.column() },
            serde_json::error::Category::Syntax => JsonError::NotJson { column: inner.column() },
            serde_json::error::Category::Eof => JsonError::CutShort,
            serde_json::error::Category::Io => JsonError::Unreadable,
            serde_json::error::Category::Data => {
                let said = inner.to_string();
                let said = said.rsplit_once(" at line ").map_or(said.as_str(), |(m, _)| m);
                data(said, &field)
            }
        }
    })?;
    reader.end().map_err(|e| JsonError::MoreAfter { column: e.column() })?;
    Ok(value)
}

/// Whether the number serde found out of range at `column` (from 1) of `text` is negative:
/// serde stops at its sign, where a whole number belongs.
fn negative_at(text: &str, column: usize) -> bool {
    column.checked_sub(1).and_then(|at| text.as_bytes().get(at)) == Some(&b'-')
}

/// Whether `text` is JSON of any shape.
fn is_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// A data error `said` by serde about the field at `field` ("." where it is the whole
/// line), in the program's words.
fn data(said: &str, field: &str) -> JsonError {
    let field = Some(field.to_string()).filter(|f| f != "." && !f.is_empty());
    let named = |rest: &str| rest.split('`').next().unwrap_or_default().to_string();
    if let Some(rest) = said.strip_prefix("unknown field `") {
        return JsonError::UnknownField(named(rest));
    }
    if let Some(rest) = said.strip_prefix("missing field `") {
        return JsonError::MissingField(named(rest));
    }
    if let Some(rest) = said.strip_prefix("duplicate field `") {
        return JsonError::TwiceField(named(rest));
    }
    if let Some(rest) = said.strip_prefix("unknown variant `") {
        return JsonError::NotAValue { field, value: named(rest) };
    }
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = said.strip_prefix(prefix) {
            if let Some((found, expected)) = rest.rsplit_once(", expected ") {
                return JsonError::WrongKind { field, found: found_words(found), expected: expected_words(expected) };
            }
        }
    }
    if let Some(rest) = said.strip_prefix("invalid length ") {
        return JsonError::WrongLength { field, length: rest.split(',').next().unwrap_or_default().to_string() };
    }
    JsonError::Other { field }
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
        parse::<Line>(text).unwrap_err().to_string()
    }

    #[test]
    fn what_is_wrong_with_a_line_is_said_in_the_programs_words() {
        assert_eq!(said("8"), "the number 8 where an object belongs");
        assert_eq!(said(r#"{"count":"x","share":1,"name":"a"}"#), "the field `count` holds no number where one belongs");
        assert_eq!(said(r#"{"count":1,"share":1,"name":2}"#), "the field `name` holds the number 2 where text belongs");
        assert_eq!(said(r#"{"count":1,"share":1,"name":"a","format":2}"#), "a field `format` that it does not have");
        assert_eq!(said(r#"{"count":1,"name":"a"}"#), "the field `share` is missing");
        assert_eq!(said("[1,2,3]"), "a JSON list where a record belongs");
        assert_eq!(said(r#"{"count":1e400,"share":1,"name":"a"}"#), "JSON, but not what a record holds from column 11");
        assert_eq!(said(r#"{"count":-1,"share":1,"name":"a"}"#), "the field `count` holds a number below 0 where a whole number belongs");
        assert_eq!(
            said(r#"{"count":340282366920938463463374607431768211456,"share":1,"name":"a"}"#),
            "the field `count` holds a number too large for it"
        );
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
            for library in [
                "invalid type",
                "expected struct",
                "unknown field",
                "invalid digit",
                "expected number at",
                " at line ",
                "no field",
                "out of its range",
            ] {
                assert!(!words.contains(library), "{words}");
            }
        }
        assert_eq!(parse::<Line>(r#"{"count":1,"share":0.5,"name":"a"}"#).unwrap().count, 1);
    }
}
