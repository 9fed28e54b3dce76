// SPDX-License-Identifier: GPL-3.0-or-later
//! How long the plots take to draw: the live frequency plot at its window size with a full
//! minute of 16 CPUs, which the window redraws at 10 Hz, a new sample each time, and one
//! ramp-up chart.
//!
//! `cargo bench -p pacer --bench plot`

use std::time::{Duration, Instant};

use pacer_core::values::CoreType;
use relm4::gtk::cairo::{Context, Format, ImageSurface};

use pacer::widgets::plot::{
    draw_ramp, FrequencyHistory, FrequencyLayers, FrequencyMarks, Line, Palette, RampChart,
    RampSeries, TracedCpu,
};

const WIDTH: u32 = 640;
const HEIGHT: u32 = 280;
const SAMPLES: usize = 600;
const DRAWS: usize = 200;

/// A deterministic jitter in -0.5..0.5, so that every run draws the same picture.
struct Jitter(u64);

impl Jitter {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

/// 4 P-cores with SMT (8 CPUs) and 8 E-cores sampled at 10 Hz: bursts of load that move each
/// CPU between its lowest and highest frequency, plus noise.
struct Load {
    jitter: Jitter,
    next: usize,
}

impl Load {
    fn new() -> Self {
        Load {
            jitter: Jitter(7),
            next: 0,
        }
    }

    /// The history of the first minute.
    fn history(&mut self) -> FrequencyHistory {
        let cpus: Vec<TracedCpu> = (0..16)
            .map(|id| TracedCpu {
                id,
                core_type: Some(if id < 8 {
                    CoreType::Performance
                } else {
                    CoreType::Efficiency
                }),
            })
            .collect();
        let mut history = FrequencyHistory::new(cpus, SAMPLES);
        for _ in 0..SAMPLES {
            self.push_next(&mut history);
        }
        history
    }

    /// Adds the next sample, 100 ms after the last.
    fn push_next(&mut self, history: &mut FrequencyHistory) {
        let n = self.next;
        self.next += 1;
        let t = n as f64 / 10.0;
        let khz: Vec<Option<u32>> = (0..16)
            .map(|cpu| {
                let (low, high) = if cpu < 8 {
                    (800e3, 4_700e3)
                } else {
                    (800e3, 3_400e3)
                };
                let load =
                    ((t / (3.0 + cpu as f64 * 0.37)).sin() * 0.5 + 0.5 + self.jitter.next() * 0.3)
                        .clamp(0.0, 1.0);
                Some((low + (high - low) * load) as u32)
            })
            .collect();
        history.push(Duration::from_millis(n as u64 * 100), &khz);
    }
}

fn marks() -> Vec<FrequencyMarks> {
    vec![
        FrequencyMarks {
            core_type: Some(CoreType::Performance),
            min_khz: Some(400_000),
            base_khz: Some(2_100_000),
            max_khz: Some(4_700_000),
        },
        FrequencyMarks {
            core_type: Some(CoreType::Efficiency),
            min_khz: Some(400_000),
            base_khz: Some(1_500_000),
            max_khz: Some(3_400_000),
        },
    ]
}

fn ramp_chart() -> RampChart {
    let curve = |tau_ms: f64| {
        (0..30)
            .map(|n| {
                let ms = 10f64.powf(f64::from(n) / 10.0);
                (ms, 100.0 * (1.0 - (-ms / tau_ms).exp()))
            })
            .collect()
    };
    let series = |label: &str, setting, core_type, tau_ms| RampSeries {
        label: Some(label.into()),
        setting,
        core_type: Some(core_type),
        line: Line::Mean,
        points: curve(tau_ms),
    };
    RampChart {
        series: vec![
            series("A P-core", 0, CoreType::Performance, 5.0),
            series("B P-core", 1, CoreType::Performance, 50.0),
            series("B E-core", 1, CoreType::Efficiency, 30.0),
        ],
        frequency: None,
    }
}

/// Milliseconds at the given quantile of sorted durations.
fn quantile_ms(sorted: &[Duration], quantile: f64) -> f64 {
    let index = ((sorted.len() - 1) as f64 * quantile).round() as usize;
    sorted[index].as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let marks = marks();
    let surface = ImageSurface::create(Format::ARgb32, WIDTH as i32, HEIGHT as i32)?;
    let cr = Context::new(&surface)?;
    // Every layer drawn each time (a new size or style), then as the window draws it from one
    // sample to the next: the kept axes, limits and complete columns of the lines, and the
    // newest columns anew.
    for (name, palette) in [("light", Palette::LIGHT), ("dark", Palette::DARK)] {
        for kept in [false, true] {
            let mut load = Load::new();
            let mut history = load.history();
            let mut layers = FrequencyLayers::default();
            let mut times = Vec::with_capacity(DRAWS);
            for _ in 0..DRAWS {
                if kept {
                    load.push_next(&mut history);
                } else {
                    layers = FrequencyLayers::default();
                }
                cr.set_source_rgb(1.0, 1.0, 1.0);
                cr.paint()?;
                let start = Instant::now();
                layers.draw(&cr, WIDTH, HEIGHT, &history, &marks, &palette)?;
                surface.flush();
                times.push(start.elapsed());
            }
            times.sort_unstable();
            let how = if kept { "next samples" } else { "all layers" };
            println!(
                "frequency plot, 16 CPUs x {SAMPLES} samples, {WIDTH}x{HEIGHT}, {name}, {how}: \
                 median {:.3} ms, p90 {:.3} ms over {DRAWS} draws",
                quantile_ms(&times, 0.5),
                quantile_ms(&times, 0.9),
            );
        }
    }

    let chart = ramp_chart();
    let mut times = Vec::with_capacity(20);
    for _ in 0..20 {
        cr.set_source_rgb(1.0, 1.0, 1.0);
        cr.paint()?;
        let start = Instant::now();
        draw_ramp(&cr, WIDTH, HEIGHT, &chart, &Palette::LIGHT)?;
        surface.flush();
        times.push(start.elapsed());
    }
    times.sort_unstable();
    println!(
        "ramp-up chart, 3 series x 30 points, {WIDTH}x{HEIGHT}: median {:.3} ms over 20 draws \
         (first {:.3} ms)",
        quantile_ms(&times, 0.5),
        times.first().map_or(0.0, |t| t.as_secs_f64() * 1e3),
    );
    Ok(())
}
