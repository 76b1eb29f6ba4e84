//! `--merge --status --plot FILE.svg`: a picture of a run, drawn as plain SVG. Above, the
//! share of the estimated work done against time, from the records' end times (a stall is
//! a flat stretch); below, each machine's rate in estimated nodes a second, sorted, with
//! its kind's median and half of it, flagged machines in red (a slow card stands out at a
//! glance). Each series is a `<g>` whose `id` names it.

use std::fmt::Write;
use std::time::SystemTime;

use super::ledger::{self, Ledger};
use super::machines::Machines;
use super::Located;

const WIDTH: f64 = 960.0;
const PANEL: f64 = 300.0;
const MARGIN: f64 = 60.0;

/// The picture of `records`, whose machines are `machines`, as an SVG document.
pub fn svg(records: &[Located], machines: &Machines) -> Result<String, String> {
    let ledger = Ledger::new(records)?;
    // Work done over time: each shard's first record, by its end, weighed by its estimate.
    let mut done: Vec<(SystemTime, f64)> = Vec::new();
    let mut total = 0.0;
    for input in ledger.inputs.values() {
        for by_shard in input.cases.values() {
            for first in by_shard.firsts() {
                let Some(c) = ledger::case(first) else { continue };
                let weight = c.shard_nodes.unwrap_or(1.0);
                if let Some(t) = c.ended.as_deref().and_then(|t| humantime::parse_rfc3339(t).ok()) {
                    done.push((t, weight));
                }
            }
            total += by_shard.firsts().filter_map(ledger::case).next().and_then(|c| c.case_nodes).unwrap_or(0.0);
        }
    }
    done.sort_by_key(|d| d.0);
    let sum: f64 = done.iter().map(|d| d.1).sum();
    let total = if total >= sum && total > 0.0 { total } else { sum.max(1.0) };
    let mut out = String::new();
    let height = 2.0 * PANEL + 3.0 * MARGIN;
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    out.push_str(r#"<rect width="100%" height="100%" fill="white"/>"#);
    let inner = WIDTH - 2.0 * MARGIN;
    // Panel 1: share of the work done.
    let (top1, bottom1) = (MARGIN, MARGIN + PANEL);
    axes(&mut out, top1, bottom1, "share of the estimated work done", "time (hours from the first record)");
    if let (Some(first), Some(last)) = (done.first(), done.last()) {
        let span = last.0.duration_since(first.0).unwrap_or_default().as_secs_f64().max(1.0);
        let mut acc = 0.0;
        let mut points = String::new();
        for (t, w) in &done {
            acc += w;
            let x = MARGIN + inner * t.duration_since(first.0).unwrap_or_default().as_secs_f64() / span;
            let y = bottom1 - PANEL * acc / total;
            let _ = write!(points, "{x:.1},{y:.1} ");
        }
        let _ = write!(
            out,
            r#"<g id="work-done"><polyline fill="none" stroke="steelblue" stroke-width="2" points="{}"/></g>"#,
            points.trim_end()
        );
        let _ = write!(
            out,
            r#"<text x="{}" y="{}" text-anchor="end">{:.2} h, {:.1}% done</text>"#,
            WIDTH - MARGIN,
            top1 - 8.0,
            span / 3600.0,
            100.0 * acc / total
        );
    }
    // Panel 2: each machine's rate, sorted.
    let (top2, bottom2) = (2.0 * MARGIN + PANEL, 2.0 * MARGIN + 2.0 * PANEL);
    axes(&mut out, top2, bottom2, "estimated nodes a second per machine", "machines, slowest first (red: flagged)");
    let mut rated: Vec<(&str, f64, bool)> =
        machines.machines.iter().filter_map(|m| Some((m.id.as_str(), m.rate?, !m.flags.is_empty()))).collect();
    rated.sort_by(|a, b| a.1.total_cmp(&b.1));
    let top_rate = rated.iter().map(|r| r.1).fold(0.0, f64::max).max(1e-9);
    out.push_str(r#"<g id="machine-rates">"#);
    let bar = inner / rated.len().max(1) as f64;
    for (i, (id, rate, flagged)) in rated.iter().enumerate() {
        let h = PANEL * rate / top_rate;
        let fill = if *flagged { "crimson" } else { "steelblue" };
        let _ = write!(
            out,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.2}" height="{h:.1}" fill="{fill}"><title>{id}: {rate:.3e}</title></rect>"#,
            MARGIN + bar * i as f64,
            bottom2 - h,
            (bar * 0.9).max(0.5)
        );
    }
    out.push_str("</g>");
    let rates: Vec<f64> = rated.iter().map(|r| r.1).collect();
    if !rates.is_empty() {
        let median = rates[rates.len() / 2];
        for (id, value, dash) in [("median", median, ""), ("half-median", median / 2.0, r#" stroke-dasharray="6,4""#)] {
            let y = bottom2 - PANEL * value / top_rate;
            let _ = write!(
                out,
                r#"<g id="{id}"><line x1="{MARGIN}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="darkorange"{dash}/><text x="{}" y="{:.1}" text-anchor="end">{id} {value:.2e}</text></g>"#,
                WIDTH - MARGIN,
                WIDTH - MARGIN,
                y - 4.0
            );
        }
    }
    out.push_str("</svg>\n");
    Ok(out)
}

/// A panel's axes between `top` and `bottom`, with its labels.
fn axes(out: &mut String, top: f64, bottom: f64, y_label: &str, x_label: &str) {
    let _ = write!(
        out,
        r#"<g id="axes"><line x1="{MARGIN}" y1="{top}" x2="{MARGIN}" y2="{bottom}" stroke="black"/><line x1="{MARGIN}" y1="{bottom}" x2="{}" y2="{bottom}" stroke="black"/><text x="{MARGIN}" y="{}">{y_label}</text><text x="{}" y="{}" text-anchor="middle">{x_label}</text></g>"#,
        WIDTH - MARGIN,
        top - 8.0,
        WIDTH / 2.0,
        bottom + 20.0
    );
}
