//! `puffin-lens export`: Parquet tables with README's schema and the model's
//! values, SQL in DuckDB answering what the CLI answers, JSON exports, and
//! batches with damaged and unreadable inputs.

mod common;

use common::{code, run, stderr};
use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use puffin_lens::engine::write::puffin::{Compression, Format, synthetic_capture, write_recording};
use puffin_lens::engine::{self, ScopeIdx};
use std::path::{Path, PathBuf};

fn reader(path: &Path) -> SerializedFileReader<std::fs::File> {
    SerializedFileReader::new(std::fs::File::open(path).expect("exists")).expect("a Parquet file")
}

/// `(column, type)` of a file, in README's words.
fn columns(path: &Path) -> Vec<(String, String)> {
    let r = reader(path);
    let schema = r.metadata().file_metadata().schema_descr_ptr();
    schema
        .columns()
        .iter()
        .map(|c| {
            let t = match (c.physical_type(), c.logical_type_ref()) {
                (Physical::BYTE_ARRAY, Some(LogicalType::String)) => "string".to_owned(),
                (p, Some(LogicalType::Integer(int))) if !int.is_signed => {
                    assert!(matches!(p, Physical::INT32 | Physical::INT64));
                    format!("uint{}", int.bit_width)
                }
                (Physical::INT64, None) => "int64".to_owned(),
                other => panic!("unexpected column type {other:?}"),
            };
            let nullable = c.self_type().get_basic_info().repetition() == Repetition::OPTIONAL;
            let t = if nullable { format!("{t} or null") } else { t };
            (c.name().to_owned(), t)
        })
        .collect()
}

/// The documented schema table (docs/formats.md): `| table | `column` |
/// type | meaning |` rows.
fn readme_schema(table: &str) -> Vec<(String, String)> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/formats.md"))
            .expect("docs/formats.md");
    readme
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells.len() >= 5 && cells[1] == table)
                .then(|| (cells[2].trim_matches('`').to_owned(), cells[3].to_owned()))
        })
        .collect()
}

/// Recordings with answers known by construction, in a folder tree.
fn captures(dir: &Path) -> Vec<PathBuf> {
    let sub = dir.join("ci/run-2");
    std::fs::create_dir_all(&sub).unwrap();
    let files = [
        (
            dir.join("a.puffin"),
            synthetic_capture(6, 2, 300),
            Format::Pfd4(Compression::Lz4),
        ),
        (
            dir.join("ci/b.puffin"),
            synthetic_capture(4, 1, 200),
            Format::Pfd4(Compression::Zstd),
        ),
        (
            sub.join("c.puffin"),
            synthetic_capture(3, 3, 100),
            Format::Pfd3(Compression::None),
        ),
    ];
    files
        .into_iter()
        .map(|(path, frames, format)| {
            std::fs::write(&path, write_recording(&frames, format)).unwrap();
            path
        })
        .collect()
}

/// `captures` in a temp folder, exported with `args` added: the folder
/// (kept while it lives), the recordings, the output folder and the run.
fn export_captures(
    args: &[&str],
) -> (
    tempfile::TempDir,
    Vec<PathBuf>,
    PathBuf,
    std::process::Output,
) {
    let dir = tempfile::tempdir().unwrap();
    let caps = dir.path().join("caps");
    let files = captures(&caps);
    let out = dir.path().join("out");
    let mut all = vec![
        "export",
        caps.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    let result = run(&all);
    (dir, files, out, result)
}

#[test]
fn parquet_tables_hold_the_model_with_readmes_schema() {
    let (_dir, files, out, result) = export_captures(&[]);
    assert_eq!(code(&result), 0, "{}", stderr(&result));
    assert!(
        stderr(&result).contains("exported 3 of 3 recordings"),
        "{}",
        stderr(&result)
    );
    // One file per input and table, named after the path below the folder.
    for table in ["scopes", "frames", "scope_defs"] {
        let mut names: Vec<String> = std::fs::read_dir(out.join(table))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["a.parquet", "ci__b.parquet", "ci__run-2__c.parquet"],
            "{table}"
        );
        let cols = columns(&out.join(table).join("a.parquet"));
        assert_eq!(
            cols,
            readme_schema(table),
            "README documents the {table} schema"
        );
    }
    // Every scope row equals the model, in model order.
    let path = &files[0];
    let decoded = engine::load(&std::fs::read(path).unwrap()).unwrap();
    let t = &decoded.trace;
    let shown = path.to_string_lossy().into_owned();
    let rows: Vec<Vec<Field>> = reader(&out.join("scopes/a.parquet"))
        .get_row_iter(None)
        .unwrap()
        .map(|r| {
            r.unwrap()
                .get_column_iter()
                .map(|(_, f)| f.clone())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), t.scopes.len());
    for (i, row) in rows.iter().enumerate() {
        let s = ScopeIdx(i as u32);
        let stream = t.scopes.stream[i];
        let parent = t.scopes.parent[i];
        let want = vec![
            Field::Str(shown.clone()),
            Field::ULong(t.frames.frame_index[t.streams.frame[stream.idx()].idx()]),
            Field::Str(t.thread_name(t.scope_thread(s)).to_owned()),
            Field::UShort(t.scopes.depth[i] as u16),
            Field::UInt(i as u32),
            if parent == u32::MAX {
                Field::Null
            } else {
                Field::UInt(parent)
            },
            Field::Str(t.scope_name(s).to_owned()),
            Field::Str(t.scope_data(s).to_owned()),
            Field::UInt(t.scope_raw_id(s)),
            Field::Long(t.scopes.start_ns[i]),
            Field::Long(t.scopes.duration_ns[i]),
            Field::Long(t.scopes.self_ns[i]),
        ];
        assert_eq!(row, &want, "scope row {i}");
    }
    let frames = reader(&out.join("frames/a.parquet"));
    assert_eq!(
        frames.metadata().file_metadata().num_rows() as usize,
        t.frames.len()
    );

    // DuckDB over scopes/*.parquet answers what the CLI answers, per file.
    let check = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/duckdb_check.py");
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(&check)
        .arg(env!("CARGO_BIN_EXE_puffin-lens"))
        .arg(&out)
        .args(&files);
    let duck = cmd.output().expect("python3 runs");
    assert!(
        duck.status.success(),
        "DuckDB check failed (scripts/setup.sh --browser installs the duckdb package):\n{}{}",
        String::from_utf8_lossy(&duck.stdout),
        String::from_utf8_lossy(&duck.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&duck.stdout).lines().count(), 3);
}

/// Writes `bytes` as `NAME.puffin` in `dir`, exports it alone (one job)
/// and returns its scopes table's path.
fn export_alone(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(format!("{name}.puffin"));
    std::fs::write(&path, bytes).unwrap();
    let out = dir.join("out");
    let result = run(&[
        "export",
        path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--jobs",
        "1",
    ]);
    assert_eq!(code(&result), 0, "{}", stderr(&result));
    out.join(format!("scopes/{name}.parquet"))
}

#[test]
fn large_recordings_are_split_into_row_groups_of_a_million_rows() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = write_recording(
        &synthetic_capture(12, 1, 100_000),
        Format::Pfd4(Compression::Lz4),
    );
    let r = reader(&export_alone(dir.path(), "big", &bytes));
    let meta = r.metadata();
    let rows: i64 = meta.row_groups().iter().map(|g| g.num_rows()).sum();
    assert!(rows > 1 << 20, "{rows}");
    assert_eq!(meta.num_row_groups(), (rows as usize).div_ceil(1 << 20));
    assert!(meta.row_groups().iter().all(|g| g.num_rows() <= 1 << 20));
    // Statistics on, strings dictionary-encoded, compressed.
    let name_col = meta.row_group(0).column(6);
    assert!(name_col.statistics().is_some());
    assert!(name_col.dictionary_page_offset().is_some());
    assert_eq!(
        name_col.compression(),
        parquet::basic::Compression::ZSTD(Default::default())
    );
}

#[test]
fn a_batch_keeps_going_past_damaged_and_unreadable_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let caps = dir.path().join("caps");
    let files = captures(&caps);
    // A damaged copy (cut inside its last frame) and a file that is no recording.
    let bytes = std::fs::read(&files[0]).unwrap();
    std::fs::write(caps.join("cut.puffin"), &bytes[..bytes.len() - 50]).unwrap();
    std::fs::write(caps.join("notes.json"), b"{ not json").unwrap();
    let out = dir.path().join("out");
    let result = run(&[
        "export",
        caps.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    let err = stderr(&result);
    assert_eq!(code(&result), 1, "{err}");
    assert!(
        err.contains("notes.json") && err.contains("skipped"),
        "{err}"
    );
    assert!(
        err.contains("damaged:") && err.contains("cut.puffin"),
        "{err}"
    );
    assert!(err.contains("exported 4 of 5 recordings"), "{err}");
    // The damaged one's intact frames are there; nothing half-written.
    let cut = reader(&out.join("frames/cut.parquet"));
    let full = engine::load(&bytes).unwrap().trace.frames.len();
    assert_eq!(cut.metadata().file_metadata().num_rows() as usize, full - 1);
    for table in ["scopes", "frames", "scope_defs"] {
        for e in std::fs::read_dir(out.join(table)).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            assert!(
                name.ends_with(".parquet") && !name.starts_with('.'),
                "{name}"
            );
        }
        assert!(!out.join(table).join("notes.parquet").exists());
    }
    // Without the unreadable one: exit 3 for the damaged one.
    std::fs::remove_file(caps.join("notes.json")).unwrap();
    let result = run(&[
        "export",
        caps.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&result), 3, "{}", stderr(&result));
    // Usage errors.
    assert_eq!(code(&run(&["export", "-o", "x"])), 2);
    assert_eq!(
        code(&run(&[
            "export",
            caps.to_str().unwrap(),
            "-o",
            "x",
            "--jobs",
            "0"
        ])),
        2
    );
    let missing = run(&["export", "no/such/dir", "-o", out.to_str().unwrap()]);
    assert_eq!(code(&missing), 1);
    assert!(stderr(&missing).contains("no/such/dir: no such file or folder"));
}

#[test]
fn json_format_writes_the_documented_export_per_input() {
    let (_dir, files, out, result) = export_captures(&["--format", "json"]);
    assert_eq!(code(&result), 0, "{}", stderr(&result));
    for (file, name) in files.iter().zip(["a", "ci__b", "ci__run-2__c"]) {
        let dump = run(&["dump", file.to_str().unwrap()]);
        let got = std::fs::read(out.join("json").join(format!("{name}.json"))).unwrap();
        assert_eq!(got, dump.stdout, "{name}");
    }
}

/// `frames` frames of `frame_body` > (`physics` of `physics_ms`, `render` of 3 ms).
fn game(frames: usize, physics_ms: i64) -> Vec<puffin_lens::engine::write::puffin::FrameData> {
    use puffin_lens::engine::write::puffin::{FrameData, Registration, ScopeNode, ThreadData};
    const MS: i64 = 1_000_000;
    (0..frames)
        .map(|f| {
            let t0 = 1_700_000_000_000_000_000 + f as i64 * 20 * MS;
            let body = ScopeNode::new(1, t0, t0 + (physics_ms + 4) * MS)
                .child(ScopeNode::new(2, t0, t0 + physics_ms * MS))
                .child(ScopeNode::new(
                    3,
                    t0 + physics_ms * MS,
                    t0 + (physics_ms + 3) * MS,
                ));
            FrameData {
                frame_index: f as u64,
                threads: vec![ThreadData {
                    name: "main".into(),
                    start_time_ns: None,
                    scopes: vec![body],
                }],
                registrations: if f == 0 {
                    vec![
                        Registration::named(1, "frame_body", "game::run", "src/game.rs", 10),
                        Registration::named(2, "physics", "game::run", "src/game.rs", 20),
                        Registration::named(3, "render", "game::run", "src/game.rs", 30),
                    ]
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

#[test]
fn spark_example_finds_the_regression() {
    let java = std::process::Command::new("java").arg("-version").output();
    let pyspark = std::process::Command::new("python3")
        .args(["-c", "import pyspark"])
        .output();
    if !(java.is_ok_and(|o| o.status.success()) && pyspark.is_ok_and(|o| o.status.success())) {
        eprintln!(
            "spark_fleet.py skipped: no Java or no pyspark (scripts/setup.sh --fleet installs them)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let caps = dir.path().join("caps");
    std::fs::create_dir_all(&caps).unwrap();
    // Physics doubles (2 to 4 ms per frame); render stays at 3 ms.
    for (name, frames, physics) in [
        ("before-1", 10, 2),
        ("before-2", 20, 2),
        ("after-1", 10, 4),
        ("after-2", 30, 4),
    ] {
        let bytes = write_recording(&game(frames, physics), Format::Pfd4(Compression::Lz4));
        std::fs::write(caps.join(format!("{name}.puffin")), bytes).unwrap();
    }
    let out = dir.path().join("fleet");
    let result = run(&[
        "export",
        caps.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&result), 0, "{}", stderr(&result));
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/spark_fleet.py");
    let spark = std::process::Command::new("python3")
        .arg(example)
        .arg(&out)
        .args(["--before", "*/before-*", "--after", "*/after-*", "--json"])
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&spark.stdout);
    assert!(
        spark.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&spark.stderr)
    );
    let answers: Vec<serde_json::Value> = stdout
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2, "{stdout}");
    let p95 = &answers[0]["rows"];
    let physics = p95
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "physics")
        .unwrap();
    assert_eq!(physics["calls"], 70);
    assert_eq!(physics["recordings"], 4);
    assert_eq!(physics["p95_ns"], 4_000_000);
    // Physics first: its self time doubled; frame_body's total grew with it.
    let rows = answers[1]["rows"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|r| r["name"] == name).unwrap();
    assert_eq!(rows[0]["name"], "physics", "{stdout}");
    assert_eq!(row("physics")["before_self_ns_per_frame"], 2_000_000.0);
    assert_eq!(row("physics")["after_self_ns_per_frame"], 4_000_000.0);
    assert_eq!(row("frame_body")["delta_self_ns_per_frame"], 0.0);
    assert_eq!(row("frame_body")["delta_total_ns_per_frame"], 2_000_000.0);
    assert_eq!(row("render")["delta_total_ns_per_frame"], 0.0);
}

#[test]
fn a_data_column_of_distinct_strings_is_written_plain_and_reads_back() {
    use puffin_lens::engine::write::puffin::worst_case_capture;
    let dir = tempfile::tempdir().unwrap();
    // 200k scopes, nine in ten with a data string of their own.
    let bytes = write_recording(
        &worst_case_capture(20, 10_000, 300, 1),
        Format::Pfd4(Compression::Lz4),
    );
    let r = reader(&export_alone(dir.path(), "worst", &bytes));
    let group = r.metadata().row_group(0);
    let column = |name: &str| {
        (0..group.num_columns())
            .find(|&c| group.column(c).column_path().string() == name)
            .unwrap()
    };
    assert!(
        group
            .column(column("data"))
            .dictionary_page_offset()
            .is_none(),
        "data: plain"
    );
    assert!(
        group
            .column(column("name"))
            .dictionary_page_offset()
            .is_some(),
        "name: a dictionary"
    );
    let t = engine::load(&bytes).unwrap().trace;
    let data: Vec<String> = r
        .get_row_iter(None)
        .unwrap()
        .map(|row| {
            let row = row.unwrap();
            let (_, f) = row
                .get_column_iter()
                .find(|(n, _)| n.as_str() == "data")
                .unwrap();
            match f {
                Field::Str(s) => s.clone(),
                other => panic!("{other:?}"),
            }
        })
        .collect();
    assert_eq!(data.len(), t.scopes.len());
    for (i, d) in data.iter().enumerate() {
        assert_eq!(d, t.scope_data(ScopeIdx(i as u32)), "row {i}");
    }
}
