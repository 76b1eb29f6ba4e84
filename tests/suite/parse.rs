//! The parser reads judge input however its tokens are split: across lines with any line
//! end, with any ASCII whitespace, or all on one line.

use nqueen::board::Board;
use nqueen::parse::Parser;
use proptest::prelude::*;

use crate::common::{random_board, Rng};

/// Separators a judge file may use between tokens.
const SEPARATORS: [&str; 9] = [" ", "\n", "\r\n", "\r", "\t", "\x0b", "\x0c", "  \n\n", " \r\n\t"];

/// `boards` as judge text, each gap between tokens a separator picked by `picks`.
fn text(boards: &[Board], picks: &[usize]) -> String {
    let tokens = boards.iter().flat_map(|b| {
        let lines: Vec<String> = b.to_string().lines().map(str::to_string).collect();
        lines
    });
    let mut out = String::new();
    for (i, token) in tokens.enumerate() {
        if i > 0 {
            out.push_str(SEPARATORS[picks[i % picks.len()] % SEPARATORS.len()]);
        }
        out.push_str(&token);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn boards_split_any_way_read_the_same(seed in any::<u64>(), count in 1usize..6, picks in proptest::collection::vec(0usize..100, 1..40)) {
        let mut rng = Rng::new(seed);
        let boards: Vec<Board> = (0..count).map(|_| { let n = rng.range(1, 9); random_board(&mut rng, n, 0.3) }).collect();
        let input = text(&boards, &picks);
        let got: Vec<Board> = Parser::new(input.as_bytes()).collect::<Result<_, _>>().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&got, &boards);
        // All on one line too.
        let one_line = text(&boards, &[0]);
        prop_assert!(!one_line.contains('\n'));
        prop_assert_eq!(Parser::new(one_line.as_bytes()).count(), count);
    }

    #[test]
    fn an_error_points_at_the_same_place_whatever_the_line_ends(seed in any::<u64>(), end in 0usize..3) {
        let mut rng = Rng::new(seed);
        let n = rng.range(2, 8);
        let board = random_board(&mut rng, n, 0.3);
        let (bad_row, bad_col) = (rng.range(0, n - 1), rng.range(0, n - 1));
        let mut lines: Vec<String> = board.to_string().lines().map(str::to_string).collect();
        lines[1 + bad_row].replace_range(bad_col..bad_col + 1, "#");
        let input = lines.join(["\n", "\r\n", "\r"][end]);
        let e = Parser::new(input.as_bytes()).next().expect("one item").expect_err("a bad cell");
        prop_assert!(e.to_string().starts_with(&format!("line {}, column {}:", bad_row + 2, bad_col + 1)), "{}", e);
    }
}
