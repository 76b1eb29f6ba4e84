//! The comment by which nqueen knows a plot for one it drew, whole and unedited: on the
//! line after the opening tag, `<!-- nqueen status plot sha256=HEX -->`, the SHA-256 of the
//! file without that line. Any edit, or anything written after the picture, breaks it, so
//! that a plot is replaced only where nothing in it is a person's. Plots of earlier builds
//! carry no digest; they are taken for nqueen's where they read as plotters draws them.

use crate::files::digest;
use crate::files::kind::PLOT_MARKS;

/// The marks of earlier builds' plots, which hold no digest (the first named the option,
/// which XML does not allow in a comment).
const UNSEALED: [&str; 2] = ["<!-- nqueen status --plot -->", "<!-- nqueen status plot -->"];

/// What ends a plot, and only a plot.
const END: &str = "</svg>\n";

/// The elements plotters draws with, inside the `svg` element.
const DRAWN: [&str; 7] = ["circle", "image", "line", "polygon", "polyline", "rect", "text"];

/// `svg`, as plotters drew it, with the mark after its opening tag.
pub(super) fn marked(svg: &str) -> String {
    let opened = svg.find('>').map_or(0, |end| end + 1);
    let mark = format!("\n{} sha256={} -->", PLOT_MARKS[0], digest::of(svg));
    [&svg[..opened], &mark, &svg[opened..]].concat()
}

/// Whether `bytes`, the whole of a file, are a plot as nqueen draws one: its mark after the
/// opening tag, its digest that of the rest (or, in a plot of an earlier build, no digest),
/// and the rest one `svg` element of what plotters draws, ending the file.
pub fn is_written(bytes: &[u8]) -> bool {
    let Some((opening, mark, rest)) = std::str::from_utf8(bytes).ok().and_then(parts) else { return false };
    let drawn = [opening, rest].concat();
    let sealed = match mark.strip_prefix(PLOT_MARKS[0]).and_then(|m| m.strip_prefix(" sha256=")).and_then(|m| m.strip_suffix(" -->")) {
        Some(sealed) => sealed == digest::of(&drawn),
        None => UNSEALED.contains(&mark),
    };
    sealed && as_plotters_draws(&drawn)
}

/// The opening tag of `text`, the line after it and the rest, from that line's end.
fn parts(text: &str) -> Option<(&str, &str, &str)> {
    if !text.starts_with("<svg ") {
        return None;
    }
    let opened = text.find('>')? + 1;
    let after = text[opened..].strip_prefix('\n')?;
    let mark = after.find('\n')?;
    Some((&text[..opened], &after[..mark], &after[mark..]))
}

/// Whether `svg` is one `svg` element that ends the text, as plotters draws it: its
/// elements among [`DRAWN`], none within another, and text only within `text` elements.
fn as_plotters_draws(svg: &str) -> bool {
    if !svg.ends_with(END) {
        return false;
    }
    let Ok(document) = roxmltree::Document::parse(svg) else { return false };
    let root = document.root_element();
    let alone = document.root().children().all(|node| node == root);
    let drawn = root.children().all(|node| match node.tag_name().name() {
        _ if node.is_text() => node.text().is_some_and(|t| t.trim().is_empty()),
        "text" if node.is_element() => node.children().all(|inner| inner.is_text()),
        name if node.is_element() => DRAWN.contains(&name) && !node.has_children(),
        _ => false,
    });
    alone && root.tag_name().name() == "svg" && drawn
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRAWING: &str = "<svg width=\"10\" height=\"10\" xmlns=\"http://www.w3.org/2000/svg\">\n<rect x=\"0\" y=\"0\"/>\n<text x=\"1\">\nWork done\n</text>\n</svg>\n";

    #[test]
    fn a_plot_is_known_by_its_mark_whole_and_unedited_only() {
        let plot = marked(DRAWING);
        assert!(plot.starts_with("<svg width=\"10\" height=\"10\" xmlns=\"http://www.w3.org/2000/svg\">\n<!-- nqueen status plot sha256="));
        assert!(is_written(plot.as_bytes()));
        let mark = plot.lines().nth(1).unwrap();
        assert!(!mark[4..mark.len() - 3].contains("--"), "XML allows no -- within a comment");
        roxmltree::Document::parse(&plot).unwrap();
        for old in UNSEALED {
            let earlier = plot.replacen(mark, old, 1);
            assert!(is_written(earlier.as_bytes()), "{old}");
            for edited in [
                format!("{earlier}<!-- annotated by bob -->\n"),
                earlier.replacen("</svg>", "<!-- mine -->\n</svg>", 1),
                earlier.replacen("<rect", "<g><rect", 1).replacen("/>", "/></g>", 1),
                earlier.replacen("</text>", "</text>\nMY DRAWING", 1),
                format!("{}\n{old}\nMY DRAWING", DRAWING.lines().next().unwrap()),
            ] {
                assert!(!is_written(edited.as_bytes()), "{edited}");
            }
        }
        for edited in [
            format!("{plot}<!-- annotated by bob -->\n"),
            format!("{plot}\n"),
            plot.replacen("Work done", "Work done, says alice", 1),
            plot.replacen("sha256=", "sha256=0", 1),
            plot.replacen("<rect x=\"0\" y=\"0\"/>\n", "", 1),
            format!("{}\n{mark}\nMY DRAWING", DRAWING.lines().next().unwrap()),
            plot[..plot.len() - 1].to_string(),
            String::new(),
        ] {
            assert!(!is_written(edited.as_bytes()), "{edited}");
        }
    }
}
