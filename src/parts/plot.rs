//! `nqueen status --plot FILE.svg`: a picture of a run, drawn with plotters. Above, the
//! share of the estimated work done against the hours since the first record (a stall is a
//! flat stretch), and while shards are missing, its projection to the end at the recent
//! rate (dashed) with the finish time it gives. Below, each device's rate (a machine's
//! CPU, a GPU card) against the median of its kind, slowest first, with the median and half
//! of it: flagged devices and machines in red.

use std::time::{Duration, SystemTime};

use plotters::coord::CoordTranslate;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::ledger::Ledger;
use super::machines::Machines;
use super::provenance::utc;
use super::PartsError;
use crate::words::counted;

mod mark;

pub use mark::is_written;

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 800;
/// The share of the run's span over which the recent rate is taken for the projection.
const RECENT: f64 = 0.25;
/// The width of a character of the bars' names, in pixels, roughly.
const LABEL_CHAR_PIXELS: usize = 7;
/// Flagged bars named above them, at most, where the bars are too many to name each.
const NAMED_FLAGGED: usize = 8;

const DONE: RGBColor = RGBColor(31, 119, 180);
const FLAGGED: RGBColor = RGBColor(214, 39, 40);
const GUIDE: RGBColor = RGBColor(255, 127, 14);

/// The picture of the records of `ledger`, whose machines are `machines`, as an SVG
/// document. The ledger must have kept what a picture needs (see
/// [`Keep`](super::ledger::Keep)).
pub fn svg(ledger: &Ledger, machines: &Machines) -> Result<String, PartsError> {
    let progress = Progress::of(ledger)?;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(drawing)?;
        let (top, bottom) = root.split_vertically(HEIGHT * 9 / 20);
        progress.draw(&top, machines.complete).map_err(drawing)?;
        rates(&bottom, machines).map_err(drawing)?;
        root.present().map_err(drawing)?;
    }
    // The mark by which a later plot knows this file for one of nqueen's, whole.
    Ok(mark::marked(&out))
}

fn drawing<E: std::fmt::Display>(e: E) -> PartsError {
    PartsError::Plot(format!("cannot draw the plot: {e}"))
}

/// The work done over time: each shard's first record, by its end, weighed by its
/// estimate, over the cases' estimated work, from the earliest start of a record.
struct Progress {
    first: Option<SystemTime>,
    /// Hours from the first start, and the share done by then.
    points: Vec<(f64, f64)>,
}

impl Progress {
    fn of(ledger: &Ledger) -> Result<Progress, PartsError> {
        if let Some(problem) = ledger.refused() {
            return Err(problem.clone());
        }
        let (mut done, first) = (ledger.shared.points.clone(), ledger.shared.first_start);
        let total: f64 = ledger.inputs.values().flat_map(|input| input.cases.values()).map(|c| c.case_nodes.unwrap_or(0.0)).sum();
        done.sort_by_key(|d| d.0);
        let sum: f64 = done.iter().map(|d| d.1).sum();
        let total = if total >= sum && total > 0.0 { total } else { sum.max(1.0) };
        let mut acc = 0.0;
        let points = first
            .iter()
            .map(|_| (0.0, 0.0))
            .chain(done.iter().map(|(t, w)| {
                acc += w;
                (hours(t.duration_since(first.unwrap_or(*t)).unwrap_or_default()), acc / total)
            }))
            .collect();
        Ok(Progress { first, points })
    }

    /// Where the recent rate takes the work to its end: the hours from the first record,
    /// where there has been progress over the last [`RECENT`] of the span.
    fn finish(&self) -> Option<f64> {
        let &(now, share) = self.points.last()?;
        let since = now * (1.0 - RECENT);
        let before = self.points.iter().rev().find(|p| p.0 <= since).map_or(0.0, |p| p.1);
        let rate = (share - before) / (now - since);
        (rate > 0.0 && now > 0.0).then(|| now + (1.0 - share) / rate)
    }

    fn draw<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, plotters::coord::Shift>,
        complete: bool,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let (now, share) = self.points.last().copied().unwrap_or((0.0, 0.0));
        let finish = if complete { None } else { self.finish() };
        let when = |h: f64| self.first.map_or(String::new(), |f| utc(f + Duration::from_secs_f64(h * 3600.0)));
        let note = match finish {
            _ if complete => format!("complete at {} after {}", when(now), span_text(now)),
            Some(end) => format!("{:.1}%; at the recent rate, all by {} (in {})", 100.0 * share, when(end), span_text(end - now)),
            None => format!("{:.1}%, and no progress lately to project", 100.0 * share),
        };
        let end = finish.unwrap_or(now).max(now).max(1.0 / 3600.0) * 1.05;
        let (unit, per_hour) = unit(end);
        let mut chart = ChartBuilder::on(area)
            .caption(format!("Work done: {note}"), ("sans-serif", 18))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..end * per_hour, 0.0..100.0)?;
        chart
            .configure_mesh()
            .x_desc(format!("{unit} since the run's first start"))
            .y_desc("share of the estimated work")
            .y_label_formatter(&|y| format!("{y:.0}%"))
            .x_label_formatter(&|x| format!("{x:.3}").trim_end_matches('0').trim_end_matches('.').to_string())
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let done: Vec<(f64, f64)> = self.points.iter().map(|&(t, s)| (t * per_hour, 100.0 * s)).collect();
        let line = DONE.stroke_width(2);
        chart.draw_series(LineSeries::new(done, line))?.label("done").legend(swatch(line, false));
        if let Some(end) = finish {
            let dashed = DashedLineSeries::new([(now * per_hour, 100.0 * share), (end * per_hour, 100.0)], 8, 5, line);
            chart.draw_series(dashed)?.label("projected at the recent rate").legend(swatch(line, true));
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    }
}

/// The unit a span of `hours` reads best in, and how many of it make an hour.
fn unit(hours: f64) -> (&'static str, f64) {
    match hours {
        h if h >= 2.0 => ("hours", 1.0),
        h if h * 60.0 >= 2.0 => ("minutes", 60.0),
        _ => ("seconds", 3600.0),
    }
}

/// `hours` in the unit it reads best in: "31.2 h", "12.5 min", "40 s".
fn span_text(hours: f64) -> String {
    match unit(hours) {
        ("hours", _) => format!("{hours:.1} h"),
        ("minutes", m) => format!("{:.1} min", hours * m),
        (_, s) => format!("{:.0} s", hours * s),
    }
}

/// The devices' rates against the median of their kind, slowest first.
fn rates<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    machines: &Machines,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let mut bars: Vec<(String, f64, bool)> = machines
        .machines
        .iter()
        .flat_map(|m| {
            // A made-up id is long and says little: its first digits tell it apart.
            let made_up = m.id.len() == 16 && m.id.chars().all(|c| c.is_ascii_hexdigit());
            let id: String = m.id.chars().take(if made_up { 12 } else { 32 }).collect();
            let machine = match m.hosts.iter().next() {
                Some(host) if *host != m.id => format!("{id} ({host})"),
                _ => id,
            };
            m.devices.iter().filter_map(move |c| {
                let device: String = c.id.chars().take(13).collect();
                Some((format!("{machine} {device}"), c.pace.against_median?, m.flagged()))
            })
        })
        .collect();
    bars.sort_by(|a, b| a.1.total_cmp(&b.1));
    let top = bars.iter().map(|b| b.1 * 1.35).fold(2.0, f64::max);
    let medians: Vec<String> = machines.kinds.iter().map(|(kind, k)| format!("{kind} {:.2e} nodes/s ({})", k.median, k.devices)).collect();
    // Every bar is named under it where the names fit side by side; else only the flagged
    // ones, above their bars.
    let widest = bars.iter().map(|b| b.0.chars().count()).max().unwrap_or(0);
    let named = bars.len() * (widest * LABEL_CHAR_PIXELS + 8) <= WIDTH as usize - 100;
    let mut chart = ChartBuilder::on(area)
        .caption(format!("Rates, slowest first; medians: {}", medians.join(", ")), ("sans-serif", 16))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d((0..bars.len().max(1) - 1).into_segmented(), 0.0..top)?;
    let names: Vec<&str> = bars.iter().map(|b| b.0.as_str()).collect();
    let label = |x: &SegmentValue<usize>| match x {
        SegmentValue::CenterOf(i) if named => names.get(*i).map_or(String::new(), |n| n.to_string()),
        _ => String::new(),
    };
    let x_desc = format!("{}: each machine's CPU and each GPU card", counted(bars.len(), "device"));
    chart
        .configure_mesh()
        .y_desc("rate / median of its kind")
        .y_label_formatter(&|y| format!("{y:.1}x"))
        .light_line_style(WHITE.mix(0.0))
        .disable_x_mesh()
        .x_desc(x_desc)
        .x_labels(if named { bars.len() + 1 } else { 1 })
        .x_label_formatter(&label)
        .draw()?;
    for (flagged, color, text) in [(false, DONE, "device"), (true, FLAGGED, "flagged: slow, or its machine disagrees or is silent")] {
        let shown = bars.iter().enumerate().filter(|(_, b)| b.2 == flagged).map(|(i, b)| (i, b.1));
        let margin = if named { 12 } else { u32::from(bars.len() < 300) };
        let histogram = Histogram::vertical(&chart).style(color.filled()).margin(margin).data(shown);
        chart.draw_series(histogram)?.label(text).legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    if !named {
        // Named above the bars, one under another, from their bar towards the middle.
        let font = ("sans-serif", 13).into_font().color(&FLAGGED);
        let flagged = bars.iter().enumerate().filter(|(_, b)| b.2).take(NAMED_FLAGGED);
        chart.draw_series(flagged.enumerate().map(|(k, (i, b))| {
            let (side, x) = if 2 * i < bars.len() { (HPos::Left, i) } else { (HPos::Right, i + 1) };
            let y = top * (0.93 - 0.05 * k as f64);
            Text::new(format!("{}: {:.2}x", b.0, b.1), (SegmentValue::Exact(x), y), font.clone().pos(Pos::new(side, VPos::Center)))
        }))?;
    }
    let whole = (SegmentValue::Exact(0), SegmentValue::Exact(bars.len().max(1)));
    let style = GUIDE.stroke_width(2);
    let median = [(whole.0.clone(), 1.0), (whole.1.clone(), 1.0)];
    chart.draw_series(LineSeries::new(median, style))?.label("median of its kind").legend(swatch(style, false));
    let half = DashedLineSeries::new([(whole.0, 0.5), (whole.1, 0.5)], 8, 5, style);
    chart.draw_series(half)?.label("half the median: slower is flagged slow").legend(swatch(style, true));
    legend(&mut chart, SeriesLabelPosition::UpperRight)
}

/// A legend's mark for a line drawn in `style`: a long stroke, or a short one for a dashed
/// line.
fn swatch(style: ShapeStyle, dashed: bool) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    let length = if dashed { 8 } else { 20 };
    move |(x, y)| PathElement::new([(x, y), (x + length, y)], style)
}

/// Draws the legend of `chart`'s series at `at`.
fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    at: SeriesLabelPosition,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    chart.configure_series_labels().position(at).border_style(BLACK).background_style(WHITE.mix(0.9)).draw()
}

fn hours(d: Duration) -> f64 {
    d.as_secs_f64() / 3600.0
}
