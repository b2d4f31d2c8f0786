//! A small app instrumented with puffin that serves its frames with
//! puffin_http, to try live capture (and to test it end to end):
//!
//! ```text
//! cargo run --example live_demo -- 127.0.0.1:8585      # then:
//! puffin-lens connect                                  # desktop
//! puffin-lens record 127.0.0.1:8585 -o run.puffin --seconds 5
//! puffin-lens relay   # and open the web app with ?live=ws://127.0.0.1:8586
//! ```
//!
//! A main thread runs about 60 frames per second (`frame_body` > `update` >
//! `physics`, `render` with a draw call count as data, every 90th frame a
//! slow `load_level`), two workers run `job`s. Runs until killed.

use std::time::Duration;

fn spin_for(d: Duration) {
    let start = std::time::Instant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

fn main() {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8585".to_owned());
    puffin::set_scopes_on(true);
    let _server = match puffin_http::Server::new(&addr) {
        Ok(s) => s,
        Err(err) => {
            eprintln!("live_demo: cannot serve on {addr}: {err:#}");
            std::process::exit(1);
        }
    };
    eprintln!("live_demo: serving puffin frames on {addr}");
    for w in 0..2 {
        std::thread::Builder::new()
            .name(format!("worker {w}"))
            .spawn(move || {
                for i in 0u64.. {
                    puffin::profile_scope!("job", format!("item {i}"));
                    spin_for(Duration::from_micros(300 + (i % 7) * 100));
                    std::thread::sleep(Duration::from_millis(2));
                }
            })
            .expect("spawn a worker");
    }
    for frame in 0u64.. {
        {
            puffin::profile_scope!("frame_body");
            {
                puffin::profile_scope!("update");
                puffin::profile_scope!("physics");
                spin_for(Duration::from_micros(1500));
            }
            {
                puffin::profile_scope!("render", format!("{} draws", 100 + frame % 50));
                spin_for(Duration::from_micros(2500));
            }
            if frame % 90 == 0 {
                puffin::profile_scope!("load_level");
                spin_for(Duration::from_millis(12));
            }
        }
        puffin::GlobalProfiler::lock().new_frame();
        std::thread::sleep(Duration::from_millis(10));
    }
}
