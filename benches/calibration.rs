//! `cargo bench --bench calibration`: the model of change's A/A harness
//! (benches/common/calibration.rs) per setting, on fixed seeds: the
//! false-change rate per row, the share of inconclusive rows, the gate's
//! false trips and inconclusive answers (2% of the frame), and the power on
//! planted changes. The table docs/statistics.md quotes.
//! `CALIBRATION_PAIRS=N` sets the pairs per setting (default 400).

#[path = "common/calibration.rs"]
mod calibration;

use calibration::{Calls, Setting, rates};

fn main() {
    let pairs: usize = std::env::var("CALIBRATION_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let aa = Setting::aa;
    let settings: Vec<Setting> = vec![
        aa("tau 0, 300 frames"),
        Setting {
            tau: 0.03,
            ..aa("tau 3%")
        },
        Setting {
            tau: 0.05,
            ..aa("tau 5%")
        },
        Setting {
            tau: 0.12,
            ..aa("tau 12%")
        },
        // A machine noisier than the prior (12.75%): the pair's spread is
        // held to the prior, so this is where a too small prior shows.
        Setting {
            tau: 0.2,
            ..aa("tau 20% (past the prior)")
        },
        Setting {
            phi: 0.9,
            frames: 600,
            ..aa("AR(1) phi 0.9, 600 frames")
        },
        Setting {
            phi: 0.99,
            frames: 600,
            ..aa("AR(1) phi 0.99, 600 frames")
        },
        Setting {
            drift: 0.15,
            drift_sd: 0.02,
            tau: 0.03,
            ..aa("drift +16%, spread 2%, tau 3%")
        },
        Setting {
            calls: Calls::Few,
            ..aa("few calls (1 in 10 frames)")
        },
        Setting {
            calls: Calls::Huge,
            ..aa("huge call counts (500 a frame)")
        },
        Setting {
            frames: 60,
            ..aa("60 frames")
        },
        Setting {
            runs: 2,
            frames: 150,
            tau: 0.05,
            drift_sd: 0.02,
            ..aa("2 runs a side, tau 5%")
        },
        Setting {
            runs: 3,
            frames: 150,
            tau: 0.05,
            drift_sd: 0.02,
            ..aa("3 runs a side, tau 5%")
        },
        Setting {
            runs: 5,
            frames: 150,
            tau: 0.02,
            drift_sd: 0.01,
            ..aa("5 runs a side, tau 2% (a quiet machine)")
        },
        Setting {
            runs: 5,
            frames: 150,
            tau: 0.05,
            drift_sd: 0.02,
            ..aa("5 runs a side, tau 5%")
        },
        Setting {
            runs: 5,
            frames: 150,
            tau: 0.12,
            drift_sd: 0.02,
            ..aa("5 runs a side, tau 12%")
        },
    ];
    println!(
        "| setting | rows | false change | inconclusive | gate false trip | gate inconclusive \
         | false trend | false step | false periodic |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (k, s) in settings.iter().enumerate() {
        let r = rates(s, 1 + k as u64, pairs);
        println!(
            "| {} | {} | {:.2}% | {:.1}% | {:.2}% | {:.1}% | {:.2}% | {:.2}% | {:.2}% |",
            s.name,
            r.rows,
            100.0 * r.false_change,
            100.0 * r.inconclusive,
            100.0 * r.gate_false_trip,
            100.0 * r.gate_inconclusive,
            100.0 * r.false_trend,
            100.0 * r.false_step,
            100.0 * r.false_periodic
        );
    }
    println!();
    println!("| planted change of one row | pairs | found (power) | false change, other rows |");
    println!("| --- | ---: | ---: | ---: |");
    let power: Vec<Setting> = [0.05, 0.10, 0.20]
        .into_iter()
        .flat_map(|p| {
            [
                Setting {
                    planted: p,
                    ..aa("tau 0, 300 frames")
                },
                Setting {
                    planted: p,
                    frames: 60,
                    ..aa("tau 0, 60 frames")
                },
                Setting {
                    planted: p,
                    tau: 0.05,
                    ..aa("tau 5%, 1 run a side")
                },
                Setting {
                    planted: p,
                    runs: 5,
                    frames: 150,
                    tau: 0.05,
                    drift_sd: 0.02,
                    ..aa("tau 5%, 5 runs a side")
                },
            ]
        })
        .collect();
    for (k, s) in power.iter().enumerate() {
        let r = rates(s, 100 + k as u64, pairs);
        println!(
            "| {:.0}%: {} | {} | {:.1}% | {:.2}% |",
            100.0 * s.planted,
            s.name,
            r.pairs,
            100.0 * r.power,
            100.0 * r.false_change
        );
    }
}
