//! Plots of an Oware tablebase folder (plotters): the value distribution
//! per layer and the build rate per layer, as SVG or PNG.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use mancala_tb::error::Cause;
use mancala_tb::games::oware::Ruleset;
use mancala_tb::tablebase::oware::{self as tb, BuildTime, TablebaseError};

/// The font of the labels: plotters lays text out with its metrics (and a
/// PNG draws its glyphs).
const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Errors of plotting.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The tables failed.
    #[error(transparent)]
    Tables(#[from] TablebaseError),
    /// An output file name without a known ending.
    #[error("{0}: the plot file must end in .svg or .png")]
    Format(PathBuf),
    /// The font plots are drawn with is not installed.
    #[error("plots need the font {FONT} (Debian: apt-get install fonts-dejavu-core)")]
    Font,
    /// Nothing to plot: no layer of the ruleset is built (`missing` says
    /// what builds the first).
    #[error("no layers of the {rules} tables are built")]
    NoLayers {
        /// The ruleset asked for.
        rules: Ruleset,
        /// Its first layer, missing.
        missing: TablebaseError,
    },
    /// Nothing to plot: no build times were recorded (in the named file).
    #[error(
        "no build times recorded in {0} (`mancala-tb build oware` records them for the layers it builds)"
    )]
    NoTimes(PathBuf),
    /// The plotting library failed.
    #[error("cannot draw the plot: {0}")]
    Draw(String),
}

impl PlotError {
    /// Why the plot failed, for the exit code.
    pub fn cause(&self) -> Cause<'_> {
        match self {
            PlotError::Tables(e) | PlotError::NoLayers { missing: e, .. } => e.cause(),
            PlotError::Format(_) => Cause::BadInput,
            PlotError::Font | PlotError::NoTimes(_) | PlotError::Draw(_) => Cause::Other,
        }
    }
}

/// Per layer: positions, wins, draws, losses and score percentiles.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerSummary {
    /// The layer.
    pub seeds: usize,
    /// Its positions.
    pub positions: u64,
    /// Positions the mover wins.
    pub wins: u64,
    /// Positions drawn.
    pub draws: u64,
    /// Positions the mover loses.
    pub losses: u64,
    /// Minimum, 10th percentile, median, 90th percentile, maximum.
    pub spread: [i8; 5],
}

/// The summaries of the consecutive layers built from 0 up.
pub fn layer_summaries(dir: &Path, rules: Ruleset) -> Result<Vec<LayerSummary>, PlotError> {
    let tables = tb::OwareTablebase::open(dir, rules)?;
    let top = tables.built_layers().take_while({
        let mut next = 0;
        move |&s| {
            let consecutive = s == next;
            next += 1;
            consecutive
        }
    });
    let Some(max) = top.last() else {
        return Err(PlotError::NoLayers {
            rules,
            missing: tables.missing_layer(0),
        });
    };
    let mut summaries = Vec::new();
    tb::decode_layers(dir, rules, max, |seeds, values| {
        summaries.push(summarise(seeds, values));
        Ok(())
    })?;
    Ok(summaries)
}

fn summarise(seeds: usize, values: &[i8]) -> LayerSummary {
    let mut counts = [0u64; 256];
    for &v in values {
        counts[(i16::from(v) + 128) as usize] += 1;
    }
    let count =
        |range: std::ops::Range<i16>| -> u64 { range.map(|v| counts[(v + 128) as usize]).sum() };
    let n = values.len() as u64;
    // The value at rank ⌊q·(n−1)⌋ of the sorted values.
    let quantile = |q: f64| -> i8 {
        let rank = (q * (n.saturating_sub(1)) as f64) as u64;
        let mut seen = 0;
        for (i, &c) in counts.iter().enumerate() {
            seen += c;
            if seen > rank {
                return (i as i16 - 128) as i8;
            }
        }
        0
    };
    LayerSummary {
        seeds,
        positions: n,
        wins: count(1..128),
        draws: count(0..1),
        losses: count(-128..0),
        spread: [0.0, 0.1, 0.5, 0.9, 1.0].map(quantile),
    }
}

fn draw_error(e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(e.to_string())
}

/// Draws on an SVG or PNG file of `size` pixels, by the file's extension.
fn with_area(
    out: &Path,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), PlotError>,
    draw_png: impl FnOnce(&DrawingArea<BitMapBackend, Shift>) -> Result<(), PlotError>,
) -> Result<(), PlotError> {
    let extension = out.extension().and_then(|e| e.to_str());
    if !matches!(extension, Some("svg" | "png")) {
        return Err(PlotError::Format(out.to_owned()));
    }
    let font = std::fs::read(FONT).map_err(|_| PlotError::Font)?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, font.leak())
        .map_err(|_| PlotError::Font)?;
    match extension {
        Some("svg") => {
            let area = SVGBackend::new(out, size).into_drawing_area();
            draw(&area)?;
            area.present().map_err(draw_error)
        }
        _ => {
            let area = BitMapBackend::new(out, size).into_drawing_area();
            draw_png(&area)?;
            area.present().map_err(draw_error)
        }
    }
}

/// Wins, draws and losses (share of the layer) and the spread of the
/// values, per layer.
pub fn plot_values(dir: &Path, rules: Ruleset, out: &Path) -> Result<(), PlotError> {
    let layers = layer_summaries(dir, rules)?;
    let title = format!("Oware ({rules}): values by seeds on the board");
    with_area(
        out,
        (1000, 900),
        |a| draw_values(a, &title, &layers),
        |a| draw_values(a, &title, &layers),
    )
}

/// The value plot: the outcomes' shares above, the values' spread below.
fn draw_values<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    layers: &[LayerSummary],
) -> Result<(), PlotError> {
    area.fill(&WHITE).map_err(draw_error)?;
    let area = area.titled(title, ("sans-serif", 26)).map_err(draw_error)?;
    let (top, bottom) = area.split_vertically(430);
    let max_seeds = layers.last().map_or(1, |l| l.seeds) as i32;
    draw_shares(&top, layers, max_seeds)?;
    draw_spread(&bottom, layers, max_seeds)
}

/// Each layer's share of wins, draws and losses for the player to move.
fn draw_shares<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    layers: &[LayerSummary],
    max_seeds: i32,
) -> Result<(), PlotError> {
    let mut shares = ChartBuilder::on(area)
        .margin(15)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .caption(
            "outcome for the player to move (% of the layer)",
            ("sans-serif", 18),
        )
        .build_cartesian_2d(0..max_seeds, 0f64..100f64)
        .map_err(draw_error)?;
    shares
        .configure_mesh()
        .x_desc("seeds")
        .y_desc("%")
        .draw()
        .map_err(draw_error)?;
    let share = |n: u64, l: &LayerSummary| 100.0 * n as f64 / l.positions.max(1) as f64;
    type Count = fn(&LayerSummary) -> u64;
    let series: [(&str, RGBColor, Count); 3] = [
        ("wins", RGBColor(46, 125, 50), |l| l.wins),
        ("draws", RGBColor(110, 110, 110), |l| l.draws),
        ("losses", RGBColor(198, 40, 40), |l| l.losses),
    ];
    for (name, color, pick) in series {
        shares
            .draw_series(LineSeries::new(
                layers.iter().map(|l| (l.seeds as i32, share(pick(l), l))),
                color.stroke_width(2),
            ))
            .map_err(draw_error)?
            .label(name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    shares
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperMiddle)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(draw_error)
}

/// Each layer's values: minimum, deciles 1 and 9, median and maximum.
fn draw_spread<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    layers: &[LayerSummary],
    max_seeds: i32,
) -> Result<(), PlotError> {
    let low = layers.iter().map(|l| l.spread[0]).min().unwrap_or(0) as i32;
    let high = layers.iter().map(|l| l.spread[4]).max().unwrap_or(0) as i32;
    let mut spread = ChartBuilder::on(area)
        .margin(15)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .caption(
            "value (seeds won over the opponent): min, 10%, median, 90%, max",
            ("sans-serif", 18),
        )
        .build_cartesian_2d(0..max_seeds, (low - 1)..(high + 1))
        .map_err(draw_error)?;
    spread
        .configure_mesh()
        .x_desc("seeds")
        .y_desc("value")
        .draw()
        .map_err(draw_error)?;
    let blue = RGBColor(21, 101, 192);
    let lines: [(usize, ShapeStyle); 5] = [
        (0, blue.mix(0.4).stroke_width(1)),
        (1, blue.mix(0.7).stroke_width(2)),
        (2, blue.stroke_width(3)),
        (3, blue.mix(0.7).stroke_width(2)),
        (4, blue.mix(0.4).stroke_width(1)),
    ];
    for (at, style) in lines {
        spread
            .draw_series(LineSeries::new(
                layers
                    .iter()
                    .map(|l| (l.seeds as i32, i32::from(l.spread[at]))),
                style,
            ))
            .map_err(draw_error)?;
    }
    Ok(())
}

/// Positions solved per second for each layer built (from the build times
/// the builder records).
pub fn plot_rates(dir: &Path, rules: Ruleset, out: &Path) -> Result<(), PlotError> {
    let times = tb::build_times(dir, rules)?;
    if times.is_empty() {
        return Err(PlotError::NoTimes(tb::build_times_path(dir, rules)));
    }
    let title = format!("Oware ({rules}): build rate by layer");
    with_area(
        out,
        (1000, 500),
        |a| draw_rates(a, &title, &times),
        |a| draw_rates(a, &title, &times),
    )
}

fn draw_rates<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    times: &[BuildTime],
) -> Result<(), PlotError> {
    area.fill(&WHITE).map_err(draw_error)?;
    let rate = |t: &BuildTime| t.positions as f64 / t.seconds.max(1e-9) / 1e6;
    let top = times.iter().map(rate).fold(0.0, f64::max) * 1.1;
    let max_seeds = times.iter().map(|t| t.seeds).max().unwrap_or(1) as i32;
    let mut chart = ChartBuilder::on(area)
        .margin(15)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .caption(title, ("sans-serif", 24))
        .build_cartesian_2d(0..max_seeds + 1, 0f64..top.max(1e-3))
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_desc("seeds")
        .y_desc("million positions per second")
        .draw()
        .map_err(draw_error)?;
    let color = RGBColor(21, 101, 192);
    chart
        .draw_series(
            times
                .iter()
                .map(|t| Circle::new((t.seeds as i32, rate(t)), 4, color.filled())),
        )
        .map_err(draw_error)?;
    chart
        .draw_series(LineSeries::new(
            times.iter().map(|t| (t.seeds as i32, rate(t))),
            color.stroke_width(2),
        ))
        .map_err(draw_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use mancala_tb::tablebase::Quiet;

    use super::*;

    #[test]
    fn each_layer_is_summarised() {
        let dir = tempfile::tempdir().unwrap();
        tb::build(
            dir.path(),
            Ruleset::Awari,
            &tb::BuildOptions::new(6, 1 << 30),
            &Quiet,
        )
        .unwrap();
        let layers = layer_summaries(dir.path(), Ruleset::Awari).unwrap();
        assert_eq!(layers.len(), 7);
        // Layer 3 (as `stats oware --seeds 3` counts it): values −3 ×177,
        // −1 ×1, 0 ×63, 1 ×7, 3 ×116.
        assert_eq!(
            layers[3],
            LayerSummary {
                seeds: 3,
                positions: 364,
                wins: 123,
                draws: 63,
                losses: 178,
                spread: [-3, -3, 0, 3, 3],
            }
        );
    }
}
