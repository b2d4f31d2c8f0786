//! Parquet export benchmark: `cargo bench --bench export`.
//!
//! - The 2M-scope recording (200 frames, 4 threads) to Parquet: the three
//!   tables written from the model in this process, and `puffin-lens
//!   export` of the file end to end (read, decode, write); output sizes
//!   against the `.puffin` file and the JSON dump.
//! - A folder of 200 recordings of 10k-200k scopes: `export` with `--jobs 1`
//!   and on all cores, scopes/s and peak memory (max RSS).
//! - The same recording for other viewers: Chrome trace, speedscope and
//!   folded stacks, written from the model (time, bytes) and by `export -o -`
//!   end to end (time, peak memory);
//! - The top 10 slowest scopes over all 200 recordings: one DuckDB query on
//!   the export (Python `duckdb`) against running `puffin-lens top` per file
//!   and merging; the answers must agree.

mod common;

use common::{best_of, max_rss_kib_of};
use puffin_lens::engine::write::puffin::{Compression, Format, synthetic_capture, write_recording};
use puffin_lens::engine::{self, write::parquet};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const EXE: &str = env!("CARGO_BIN_EXE_puffin-lens");

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn export(args: &[&str]) -> f64 {
    let t = Instant::now();
    let out = Command::new(EXE).args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    t.elapsed().as_secs_f64()
}

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();

    // 1. One 2M-scope recording.
    let bytes = write_recording(
        &synthetic_capture(200, 3, 10_000),
        Format::Pfd4(Compression::Lz4),
    );
    let big = dir.join("big.puffin");
    std::fs::write(&big, &bytes).expect("write");
    let decoded = engine::load(&bytes).expect("decodes");
    let scopes = decoded.trace.scopes.len();
    // For other viewers: written from the model to a byte counter, then end
    // to end by the CLI to /dev/null (peak memory: max RSS).
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len() as u64;
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let trace = &decoded.trace;
    for format in ["chrome", "speedscope", "folded"] {
        let (t, n) = best_of(3, || {
            let mut c = Count(0);
            {
                let w = std::io::BufWriter::with_capacity(1 << 16, &mut c);
                match format {
                    "chrome" => {
                        engine::write::chrome::write_chrome(trace, "big", w).expect("writes")
                    }
                    "speedscope" => {
                        engine::write::chrome::write_speedscope(trace, "big", w).expect("writes")
                    }
                    _ => {
                        let mut w = w;
                        let text = engine::write::folded::folded(
                            trace,
                            0..trace.frames.len() as u32,
                            None,
                        );
                        std::io::Write::write_all(&mut w, text.as_bytes()).expect("writes");
                    }
                }
            }
            c.0
        });
        let big_str = big.to_str().expect("utf-8");
        let t_cli = Instant::now();
        let rss = max_rss_kib_of(&[EXE, "export", big_str, "-o", "-", "--format", format]);
        let cli_s = t_cli.elapsed().as_secs_f64();
        println!(
            "{format:>10} of {scopes} scopes: written in {:.0} ms, {:.1} MB ({:.1} bytes/scope); \
             `export -o - --format {format}` {:.2} s end to end, peak {} MB",
            t.as_secs_f64() * 1e3,
            n as f64 / 1e6,
            n as f64 / scopes as f64,
            cli_s,
            rss.map_or("?".to_owned(), |k| format!("{:.0}", k as f64 / 1024.0))
        );
    }
    let (write, tables) = best_of(3, || {
        parquet::write_tables(&decoded.trace, "big.puffin").expect("writes")
    });
    let parquet_bytes: usize = tables.iter().map(|(_, b)| b.len()).sum();
    let json_bytes = engine::export_string(&decoded.trace, "big.puffin", false).len();
    let out = dir.join("out-big");
    let big_s = best_of(3, || {
        export(&[
            "export",
            big.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--jobs",
            "1",
        ])
    })
    .0
    .as_secs_f64();
    println!(
        "2M-scope recording ({scopes} scopes): Parquet tables from the model {:.0} ms; \
         `export --jobs 1` end to end {:.0} ms",
        write.as_secs_f64() * 1e3,
        big_s * 1e3
    );
    println!(
        "  sizes: .puffin (lz4) {:.1} MB, JSON dump {:.1} MB, Parquet (zstd) {:.1} MB \
         (scopes {:.1} MB, frames {:.3} MB, scope_defs {:.3} MB)",
        bytes.len() as f64 / 1e6,
        json_bytes as f64 / 1e6,
        parquet_bytes as f64 / 1e6,
        tables[0].1.len() as f64 / 1e6,
        tables[1].1.len() as f64 / 1e6,
        tables[2].1.len() as f64 / 1e6,
    );
    drop(decoded);

    // 2. A folder of 200 recordings of 10k-200k scopes.
    let fleet = dir.join("fleet");
    std::fs::create_dir_all(&fleet).expect("mkdir");
    let mut total_scopes = 0usize;
    let mut largest = 0usize;
    let mut files = Vec::new();
    for i in 0..200usize {
        let n = 10_000 + i * 190_000 / 199;
        let frames = 20;
        let capture = synthetic_capture(frames, 1 + i % 3, n / frames);
        let bytes = write_recording(&capture, Format::Pfd4(Compression::Lz4));
        let path = fleet.join(format!("run-{i:03}.puffin"));
        let s = engine::load(&bytes).expect("decodes").trace.scopes.len();
        total_scopes += s;
        largest = largest.max(s);
        std::fs::write(&path, bytes).expect("write");
        files.push(path);
    }
    let fleet_mb = dir_bytes(&fleet) as f64 / 1e6;
    println!(
        "200 recordings, {total_scopes} scopes ({:.1} M, largest {largest}), {fleet_mb:.1} MB:",
        total_scopes as f64 / 1e6
    );
    let out = dir.join("out-fleet");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for jobs in [1, cores] {
        let jobs_s = jobs.to_string();
        let args = [
            "export",
            fleet.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--jobs",
            &jobs_s,
        ];
        let s = best_of(2, || export(&args)).1;
        let mut cmd = vec![EXE];
        cmd.extend_from_slice(&args);
        let rss =
            max_rss_kib_of(&cmd).map_or("?".to_owned(), |k| format!("{:.0} MB", k as f64 / 1024.0));
        println!(
            "  --jobs {jobs}: {:.2} s = {:.1} M scopes/s, {:.0} MB/s read; peak memory {rss}",
            s,
            total_scopes as f64 / s / 1e6,
            fleet_mb / s
        );
    }
    println!(
        "  Parquet written: {:.1} MB",
        (dir_bytes(&out.join("scopes"))
            + dir_bytes(&out.join("frames"))
            + dir_bytes(&out.join("scope_defs"))) as f64
            / 1e6
    );

    // 3. The 10 slowest scopes of all 200: DuckDB on the export vs `top` per file.
    let query = format!(
        "import duckdb, json, time\n\
         con = duckdb.connect()\n\
         t = time.perf_counter()\n\
         rows = con.execute(\"SELECT recording, name, duration_ns, start_ns FROM read_parquet('{}/scopes/*.parquet') \
         ORDER BY duration_ns DESC, start_ns ASC LIMIT 10\").fetchall()\n\
         print(json.dumps({{'ms': (time.perf_counter() - t) * 1e3, 'rows': rows}}))",
        out.display()
    );
    let duck = Command::new("python3").args(["-c", &query]).output();
    let t = Instant::now();
    let mut merged: Vec<(String, String, i64, i64)> = Vec::new();
    for f in &files {
        let out = Command::new(EXE)
            .args(["top", f.to_str().unwrap(), "--top", "10", "--json"])
            .output()
            .expect("runs");
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON");
        for r in rows {
            merged.push((
                f.to_string_lossy().into_owned(),
                r["name"].as_str().unwrap_or_default().to_owned(),
                r["duration_ns"].as_i64().unwrap_or_default(),
                r["start_ns"].as_i64().unwrap_or_default(),
            ));
        }
    }
    merged.sort_by(|a, b| b.2.cmp(&a.2).then(a.3.cmp(&b.3)));
    merged.truncate(10);
    let per_file_ms = t.elapsed().as_secs_f64() * 1e3;
    match duck {
        Ok(o) if o.status.success() => {
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
            let rows: Vec<(String, String, i64, i64)> = v["rows"]
                .as_array()
                .expect("rows")
                .iter()
                .map(|r| {
                    (
                        r[0].as_str().unwrap_or_default().to_owned(),
                        r[1].as_str().unwrap_or_default().to_owned(),
                        r[2].as_i64().unwrap_or_default(),
                        r[3].as_i64().unwrap_or_default(),
                    )
                })
                .collect();
            assert_eq!(rows, merged, "DuckDB and `top` per file disagree");
            println!(
                "top 10 over the 200 recordings: DuckDB on the export {:.0} ms; `puffin-lens top` per file, merged {per_file_ms:.0} ms (same answer)",
                v["ms"].as_f64().unwrap_or_default()
            );
        }
        _ => println!(
            "top 10 over the 200 recordings: DuckDB not installed (pip install duckdb); `top` per file {per_file_ms:.0} ms"
        ),
    }
}
