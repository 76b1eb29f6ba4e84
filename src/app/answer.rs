//! Answer lines, "Case k: count", written without the formatting machinery, which costs
//! more than a small board's count.

/// "Case k: count".
pub(super) fn answer_line(case: usize, count: u128) -> String {
    let mut line = String::with_capacity(48);
    line.push_str("Case ");
    push_decimal(&mut line, case as u128);
    line.push_str(": ");
    push_decimal(&mut line, count);
    line
}

/// Appends `value` in decimal to `out` (in 64-bit arithmetic where it fits).
fn push_decimal(out: &mut String, value: u128) {
    let mut digits = [0u8; 39];
    let mut at = digits.len();
    let mut push = |digit: u8| {
        at -= 1;
        digits[at] = b'0' + digit;
    };
    match u64::try_from(value) {
        Ok(mut v) => loop {
            push((v % 10) as u8);
            v /= 10;
            if v == 0 {
                break;
            }
        },
        Err(_) => {
            let mut v = value;
            loop {
                push((v % 10) as u8);
                v /= 10;
                if v == 0 {
                    break;
                }
            }
        }
    }
    out.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_lines_write_every_size_of_count() {
        for count in [0, 7, 92, 314_666_222_712, u128::from(u64::MAX), u128::from(u64::MAX) + 1, u128::MAX] {
            assert_eq!(answer_line(12, count), format!("Case 12: {count}"));
        }
    }
}
