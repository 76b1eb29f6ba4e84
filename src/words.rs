//! How the program writes numbers and errors in its messages and records: "1 device", "3
//! devices", hex digests, the system's errors without their numbers.

/// `n` and `noun`, the noun in the plural unless `n` is 1 (nouns that take an "s").
pub fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", plural(n))
}

/// The "s" a noun takes after `n`.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `bytes` in lowercase hex, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What the system says of `e`, without the error's number ("No such file or directory",
/// not "No such file or directory (os error 2)").
pub fn os_words(e: &std::io::Error) -> String {
    let said = e.to_string();
    match said.rfind(" (os error ") {
        Some(at) if said.ends_with(')') => said[..at].to_string(),
        _ => said,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_number_plural() {
        assert_eq!([counted(0, "device"), counted(1, "device"), counted(2, "row")], ["0 devices", "1 device", "2 rows"]);
    }

    #[test]
    fn the_systems_words_come_without_the_errors_number() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(os_words(&e), "No such file or directory");
        assert_eq!(os_words(&std::io::Error::other("cut short")), "cut short");
    }
}
