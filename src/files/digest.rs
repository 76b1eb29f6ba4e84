//! A line's digest of its own content, as part records and checkpoints carry it: the
//! SHA-256 of the line up to, not including, its last field, `,"digest":"<64 hex digits>"}`.
//! A torn or edited line no longer matches it. Anyone can check a line with standard tools:
//!
//! ```sh
//! printf '%s' "${line%,\"digest\":*}" | sha256sum
//! ```

use sha2::{Digest, Sha256};

/// What ends a sealed line before its digest.
const FIELD: &str = ",\"digest\":\"";

/// `json`, one JSON object on one line (no newline), with its digest as its last field.
pub fn seal(json: &str) -> String {
    let body = json.strip_suffix('}').unwrap_or(json);
    let digest = of(body);
    format!("{body}{FIELD}{digest}\"}}")
}

/// The hex SHA-256 of `text`.
pub fn of(text: &str) -> String {
    crate::words::hex(&Sha256::digest(text.as_bytes()))
}

/// Why a sealed line does not check.
#[derive(Debug, PartialEq, Eq)]
pub enum Unsealed {
    /// It has no digest as its last field.
    Missing,
    /// Its digest is not that of its content.
    Mismatch,
}

/// The digest of `line` (one JSON object, no newline) where it is its last field and
/// matches the content before it.
pub fn check(line: &str) -> Result<&str, Unsealed> {
    let at = line.rfind(FIELD).ok_or(Unsealed::Missing)?;
    let (body, field) = line.split_at(at);
    let digest = field[FIELD.len()..].strip_suffix("\"}").ok_or(Unsealed::Missing)?;
    if digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()) {
        return Err(Unsealed::Missing);
    }
    if of(body) != digest {
        return Err(Unsealed::Mismatch);
    }
    Ok(digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_line_checks_and_an_edited_one_does_not() {
        let line = seal(r#"{"count":92,"file":"a \",\"digest\":\" b"}"#);
        assert!(line.ends_with("\"}") && line.contains(",\"digest\":\""));
        let digest = check(&line).unwrap();
        // The digest is that of the text before its field, as the shell recipe computes.
        assert_eq!(digest, of(&line[..line.rfind(",\"digest\"").unwrap()]));
        assert_eq!(check(&line.replace("92", "93")), Err(Unsealed::Mismatch));
        assert_eq!(check(r#"{"count":92}"#), Err(Unsealed::Missing));
        assert_eq!(check(&line[..line.len() - 3]), Err(Unsealed::Missing));
    }
}
