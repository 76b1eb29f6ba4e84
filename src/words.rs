//! Numbers of things as messages write them: "1 device", "3 devices".

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_number_plural() {
        assert_eq!([counted(0, "device"), counted(1, "device"), counted(2, "row")], ["0 devices", "1 device", "2 rows"]);
    }
}
