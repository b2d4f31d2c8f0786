//! A recording as three Parquet tables, for query engines (DuckDB, Spark,
//! Polars, DataFusion) over many recordings: `scopes` (one row per scope
//! instance), `frames` and `scope_defs`. Every table starts with
//! `recording`, the input's path as given, so the files of many recordings
//! read as one dataset (`scopes/*.parquet`).
//!
//! Written with the arrow-rs `parquet` crate's column writers (no Arrow
//! arrays in between): row groups of up to [`ROW_GROUP_ROWS`] rows, string
//! columns dictionary-encoded, page statistics on, zstd natively and
//! LZ4_RAW in the browser (pure Rust).
//!
//! | table | column | Parquet type |
//! |---|---|---|
//! | scopes | `recording`, `thread`, `name`, `data` | string |
//! | scopes | `frame_index` | uint64 |
//! | scopes | `depth` | uint16 |
//! | scopes | `scope_row`, `id` | uint32 |
//! | scopes | `parent_row` | uint32, null at top level |
//! | scopes | `start_ns`, `duration_ns`, `self_ns` | int64 |
//! | frames | `recording` | string |
//! | frames | `position`, `frame_index`, `num_scopes` | uint64 |
//! | frames | `start_ns`, `end_ns`, `duration_ns` | int64 |
//! | scope_defs | `recording`, `name`, `function`, `file`, `kind` | string |
//! | scope_defs | `id`, `line` | uint32 |

use crate::engine::model::{NO_PARENT, Trace};
use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, DataType, Int32Type, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::{
    SerializedColumnWriter, SerializedFileWriter, SerializedRowGroupWriter,
};
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use std::io::Write;
use std::sync::Arc;

/// Rows per row group (about a million: big enough for scans, small
/// enough to build one column of a group at a time).
pub const ROW_GROUP_ROWS: usize = 1 << 20;

/// The three tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Scopes,
    Frames,
    ScopeDefs,
}

impl Table {
    pub const ALL: [Table; 3] = [Table::Scopes, Table::Frames, Table::ScopeDefs];

    /// The table's name: its folder in an export.
    pub fn name(self) -> &'static str {
        match self {
            Table::Scopes => "scopes",
            Table::Frames => "frames",
            Table::ScopeDefs => "scope_defs",
        }
    }

    /// The Parquet schema (see the module doc).
    pub fn schema(self) -> &'static str {
        match self {
            Table::Scopes => {
                "message scopes {
                    REQUIRED BYTE_ARRAY recording (STRING);
                    REQUIRED INT64 frame_index (INTEGER(64,false));
                    REQUIRED BYTE_ARRAY thread (STRING);
                    REQUIRED INT32 depth (INTEGER(16,false));
                    REQUIRED INT32 scope_row (INTEGER(32,false));
                    OPTIONAL INT32 parent_row (INTEGER(32,false));
                    REQUIRED BYTE_ARRAY name (STRING);
                    REQUIRED BYTE_ARRAY data (STRING);
                    REQUIRED INT32 id (INTEGER(32,false));
                    REQUIRED INT64 start_ns;
                    REQUIRED INT64 duration_ns;
                    REQUIRED INT64 self_ns;
                }"
            }
            Table::Frames => {
                "message frames {
                    REQUIRED BYTE_ARRAY recording (STRING);
                    REQUIRED INT64 position (INTEGER(64,false));
                    REQUIRED INT64 frame_index (INTEGER(64,false));
                    REQUIRED INT64 start_ns;
                    REQUIRED INT64 end_ns;
                    REQUIRED INT64 duration_ns;
                    REQUIRED INT64 num_scopes (INTEGER(64,false));
                }"
            }
            Table::ScopeDefs => {
                "message scope_defs {
                    REQUIRED BYTE_ARRAY recording (STRING);
                    REQUIRED INT32 id (INTEGER(32,false));
                    REQUIRED BYTE_ARRAY name (STRING);
                    REQUIRED BYTE_ARRAY function (STRING);
                    REQUIRED BYTE_ARRAY file (STRING);
                    REQUIRED INT32 line (INTEGER(32,false));
                    REQUIRED BYTE_ARRAY kind (STRING);
                }"
            }
        }
    }

    fn rows(self, trace: &Trace) -> usize {
        match self {
            Table::Scopes => trace.scopes.len(),
            Table::Frames => trace.frames.len(),
            Table::ScopeDefs => trace.defs.len(),
        }
    }
}

/// Whether most scopes carry a data string of their own: a dictionary of
/// the `data` column would hold about every value once, so it is written
/// plain (the dictionary's hashing and its fallback cost more than they save).
fn data_mostly_distinct(trace: &Trace) -> bool {
    let mut seen = vec![false; trace.strings.len()];
    let mut distinct = 0usize;
    for d in &trace.scopes.data {
        let s = &mut seen[d.idx()];
        distinct += usize::from(!*s);
        *s = true;
    }
    distinct > 100_000 && distinct.saturating_mul(2) > trace.scopes.len()
}

fn properties(trace: &Trace, table: Table) -> WriterProperties {
    #[cfg(not(target_arch = "wasm32"))]
    let compression = Compression::ZSTD(Default::default());
    #[cfg(target_arch = "wasm32")]
    let compression = Compression::LZ4_RAW;
    let plain_data = table == Table::Scopes && data_mostly_distinct(trace);
    WriterProperties::builder()
        .set_compression(compression)
        .set_dictionary_enabled(true)
        .set_column_dictionary_enabled(ColumnPath::from("data"), !plain_data)
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_created_by(format!("puffin-lens {}", env!("CARGO_PKG_VERSION")))
        .build()
}

/// Writes `table` of `trace` as a Parquet file to `out`; `recording` fills
/// the `recording` column.
pub fn write_table<W: Write + Send>(
    trace: &Trace,
    recording: &str,
    table: Table,
    out: W,
) -> Result<W, ParquetError> {
    let schema = Arc::new(parse_message_type(table.schema())?);
    let mut writer = SerializedFileWriter::new(out, schema, Arc::new(properties(trace, table)))?;
    let strings = Strings::new(trace, recording);
    let rows = table.rows(trace);
    let mut lo = 0;
    while lo < rows || (lo == 0 && rows == 0) {
        let hi = (lo + ROW_GROUP_ROWS).min(rows);
        let mut group = Group {
            rg: writer.next_row_group()?,
        };
        match table {
            Table::Scopes => scopes(&mut group, trace, &strings, lo..hi)?,
            Table::Frames => frames(&mut group, trace, &strings, lo..hi)?,
            Table::ScopeDefs => defs(&mut group, trace, &strings, lo..hi)?,
        }
        group.rg.close()?;
        if rows == 0 {
            break;
        }
        lo = hi;
    }
    writer.into_inner()
}

/// Every table of `trace`, as `(table, file bytes)`.
pub fn write_tables(trace: &Trace, recording: &str) -> Result<Vec<(Table, Vec<u8>)>, ParquetError> {
    Table::ALL
        .iter()
        .map(|&t| Ok((t, write_table(trace, recording, t, Vec::new())?)))
        .collect()
}

/// The trace's strings as Parquet values, made once: slices of one copy of
/// the string table's text (a clone is a reference count, not a copy; a
/// value made per string cost an allocation each: a tenth of the export of
/// 1.8M distinct strings).
struct Strings {
    recording: ByteArray,
    by_id: Vec<ByteArray>,
}

impl Strings {
    fn new(trace: &Trace, recording: &str) -> Self {
        let (text, ends) = trace.strings.parts();
        let text = bytes::Bytes::copy_from_slice(text.as_bytes());
        let by_id = std::iter::once(0)
            .chain(ends.iter().copied())
            .zip(ends)
            .map(|(start, &end)| ByteArray::from(text.slice(start..end)))
            .collect();
        Self {
            recording: ByteArray::from(recording),
            by_id,
        }
    }

    fn get(&self, id: crate::engine::model::StrId) -> ByteArray {
        self.by_id[id.idx()].clone()
    }
}

struct Group<'a, W: Write + Send> {
    rg: SerializedRowGroupWriter<'a, W>,
}

impl<W: Write + Send> Group<'_, W> {
    /// The row group's next column (an error past the schema's last).
    fn next_column(&mut self) -> Result<SerializedColumnWriter<'_>, ParquetError> {
        self.rg
            .next_column()?
            .ok_or_else(|| ParquetError::General("more columns than the schema".into()))
    }

    /// Writes the next column's values (`def`: definition levels of an
    /// optional column, 0 = null).
    fn column<T: DataType>(
        &mut self,
        values: &[T::T],
        def: Option<&[i16]>,
    ) -> Result<(), ParquetError> {
        let mut col = self.next_column()?;
        col.typed::<T>().write_batch(values, def, None)?;
        col.close()
    }

    fn strings(&mut self, values: Vec<ByteArray>) -> Result<(), ParquetError> {
        self.column::<ByteArrayType>(&values, None)
    }

    fn i64s(&mut self, values: &[i64]) -> Result<(), ParquetError> {
        self.column::<Int64Type>(values, None)
    }

    /// A string column of `rows` copies of `value`, written from one batch
    /// of at most 64k copies (a copy is a reference count: two million of
    /// them were a thirtieth of the export of 2M scopes).
    fn repeated(&mut self, value: &ByteArray, rows: usize) -> Result<(), ParquetError> {
        let batch = vec![value.clone(); rows.min(1 << 16)];
        let mut col = self.next_column()?;
        let mut left = rows;
        while left > 0 {
            let n = left.min(batch.len());
            col.typed::<ByteArrayType>()
                .write_batch(&batch[..n], None, None)?;
            left -= n;
        }
        col.close()
    }

    /// Unsigned 32-bit values, stored as INT32 bit patterns.
    fn u32s(&mut self, values: impl Iterator<Item = u32>) -> Result<(), ParquetError> {
        let v: Vec<i32> = values.map(|x| x as i32).collect();
        self.column::<Int32Type>(&v, None)
    }

    /// Unsigned 64-bit values, stored as INT64 bit patterns.
    fn u64s(&mut self, values: impl Iterator<Item = u64>) -> Result<(), ParquetError> {
        let v: Vec<i64> = values.map(|x| x as i64).collect();
        self.column::<Int64Type>(&v, None)
    }
}

fn scopes<W: Write + Send>(
    g: &mut Group<'_, W>,
    t: &Trace,
    s: &Strings,
    rows: std::ops::Range<usize>,
) -> Result<(), ParquetError> {
    let sc = &t.scopes;
    let stream = |i: usize| sc.stream[i].idx();
    g.repeated(&s.recording, rows.len())?;
    g.u64s(
        rows.clone()
            .map(|i| t.frames.frame_index[t.streams.frame[stream(i)].idx()]),
    )?;
    g.strings(
        rows.clone()
            .map(|i| s.get(t.threads.name[t.streams.thread[stream(i)].idx()]))
            .collect(),
    )?;
    let depth: Vec<i32> = rows
        .clone()
        .map(|i| sc.depth[i].min(u32::from(u16::MAX)) as i32)
        .collect();
    g.column::<Int32Type>(&depth, None)?;
    g.u32s(rows.clone().map(|i| i as u32))?;
    // parent_row: the non-null values, and a definition level per row.
    let parents: Vec<i32> = rows
        .clone()
        .filter(|&i| sc.parent[i] != NO_PARENT)
        .map(|i| sc.parent[i] as i32)
        .collect();
    let levels: Vec<i16> = rows
        .clone()
        .map(|i| i16::from(sc.parent[i] != NO_PARENT))
        .collect();
    g.column::<Int32Type>(&parents, Some(&levels))?;
    g.strings(
        rows.clone()
            .map(|i| s.get(t.defs.name[sc.def[i].idx()]))
            .collect(),
    )?;
    g.strings(rows.clone().map(|i| s.get(sc.data[i])).collect())?;
    g.u32s(rows.clone().map(|i| t.defs.raw_id[sc.def[i].idx()]))?;
    g.i64s(&sc.start_ns[rows.clone()])?;
    g.i64s(&sc.duration_ns[rows.clone()])?;
    g.i64s(&sc.self_ns[rows])
}

fn frames<W: Write + Send>(
    g: &mut Group<'_, W>,
    t: &Trace,
    s: &Strings,
    rows: std::ops::Range<usize>,
) -> Result<(), ParquetError> {
    let f = &t.frames;
    g.repeated(&s.recording, rows.len())?;
    g.u64s(rows.clone().map(|i| i as u64))?;
    g.u64s(rows.clone().map(|i| f.frame_index[i]))?;
    let starts: Vec<i64> = rows.clone().map(|i| f.range_ns[i].0).collect();
    let ends: Vec<i64> = rows.clone().map(|i| f.range_ns[i].1).collect();
    let durations: Vec<i64> = rows
        .clone()
        .map(|i| f.duration_ns(crate::engine::model::FrameId(i as u32)))
        .collect();
    g.i64s(&starts)?;
    g.i64s(&ends)?;
    g.i64s(&durations)?;
    g.u64s(rows.map(|i| f.num_scopes[i]))
}

fn defs<W: Write + Send>(
    g: &mut Group<'_, W>,
    t: &Trace,
    s: &Strings,
    rows: std::ops::Range<usize>,
) -> Result<(), ParquetError> {
    let d = &t.defs;
    // By id, whatever order the definitions were met in.
    let mut order: Vec<usize> = (0..d.len()).collect();
    order.sort_by_key(|&i| d.raw_id[i]);
    let rows = || order[rows.clone()].iter().copied();
    g.repeated(&s.recording, rows().len())?;
    g.u32s(rows().map(|i| d.raw_id[i]))?;
    g.strings(rows().map(|i| s.get(d.name[i])).collect())?;
    g.strings(rows().map(|i| s.get(d.function[i])).collect())?;
    g.strings(rows().map(|i| s.get(d.file[i])).collect())?;
    g.u32s(rows().map(|i| d.line[i]))?;
    g.strings(
        rows()
            .map(|i| ByteArray::from(d.kind[i].as_str()))
            .collect(),
    )
}
