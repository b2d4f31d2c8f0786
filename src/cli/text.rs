//! Aligned text tables for the human-readable output.

pub use puffin_lens::units::{ms, ms_f};

/// Shows control and reordering characters visibly: a table stays one line
/// per row, and a recording cannot send the terminal an escape sequence.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    puffin_lens::engine::write::escape::visible(s)
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table: headers, then rows of cells; columns align to their widest cell.
pub struct Table {
    /// Owned: a header may be made from the data (`NAME data`).
    headers: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[(&str, Align)]) -> Self {
        Self {
            headers: headers.iter().map(|&(h, a)| (h.to_owned(), a)).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        let cells = cells.into_iter().map(|c| cell(&c)).collect();
        self.rows.push(cells);
    }

    pub fn render(&self, out: &mut String) {
        let mut widths: Vec<usize> = self
            .headers
            .iter()
            .map(|(h, _)| h.chars().count())
            .collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let headers: Vec<(&str, Align)> =
            self.headers.iter().map(|(h, a)| (h.as_str(), *a)).collect();
        line(&headers, &widths, headers.iter().map(|(h, _)| *h), out);
        for row in &self.rows {
            line(&headers, &widths, row.iter().map(String::as_str), out);
        }
    }
}

/// One line of a table: cells padded to `widths`, two spaces apart,
/// without trailing spaces.
fn line<'c>(
    headers: &[(&str, Align)],
    widths: &[usize],
    cells: impl Iterator<Item = &'c str>,
    out: &mut String,
) {
    let start = out.len();
    for (i, cell) in cells.enumerate() {
        let (_, align) = headers[i];
        let pad = widths[i].saturating_sub(cell.chars().count());
        if i > 0 {
            out.push_str("  ");
        }
        if align == Align::Right {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(cell);
        } else {
            out.push_str(cell);
            out.extend(std::iter::repeat_n(' ', pad));
        }
    }
    let end = out[start..].trim_end().len();
    out.truncate(start + end);
    out.push('\n');
}

/// A [`Table`] whose rows are made twice, measured then written, instead of
/// held: for tables of millions of rows (a tree), streamed to the output.
/// Cells are given as the table shows them (see [`cell`]).
struct Columns {
    headers: Vec<(&'static str, Align)>,
    widths: Vec<usize>,
    line: String,
}

impl Columns {
    pub fn new(headers: &[(&'static str, Align)]) -> Self {
        Self {
            headers: headers.to_vec(),
            widths: headers.iter().map(|(h, _)| h.chars().count()).collect(),
            line: String::new(),
        }
    }

    /// Widens the columns to a row's cells.
    pub fn measure(&mut self, cells: &[&str]) {
        for (w, c) in self.widths.iter_mut().zip(cells) {
            *w = (*w).max(c.chars().count());
        }
    }

    /// Writes the header line.
    pub fn write_header(&mut self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let headers: Vec<&str> = self.headers.iter().map(|(h, _)| *h).collect();
        self.write_row(out, &headers)
    }

    pub fn write_row(
        &mut self,
        out: &mut impl std::io::Write,
        cells: &[&str],
    ) -> std::io::Result<()> {
        self.line.clear();
        line(
            &self.headers,
            &self.widths,
            cells.iter().copied(),
            &mut self.line,
        );
        out.write_all(self.line.as_bytes())
    }
}

/// Writes a table of `N` columns whose rows `rows()` makes (twice: the
/// columns' widths, then the lines), `fill` turning a row into its cells.
pub fn write_columns<const N: usize, R, I: Iterator<Item = R>>(
    out: &mut impl std::io::Write,
    headers: &[(&'static str, Align); N],
    rows: impl Fn() -> I,
    mut fill: impl FnMut(&mut [String; N], &R),
) -> std::io::Result<()> {
    let mut t = Columns::new(headers);
    let mut cells: [String; N] = std::array::from_fn(|_| String::new());
    for r in rows() {
        cells.iter_mut().for_each(String::clear);
        fill(&mut cells, &r);
        t.measure(&cells.each_ref().map(String::as_str));
    }
    t.write_header(out)?;
    for r in rows() {
        cells.iter_mut().for_each(String::clear);
        fill(&mut cells, &r);
        t.write_row(out, &cells.each_ref().map(String::as_str))?;
    }
    Ok(())
}

/// A cell as [`Table::row`] shows it: control characters visible, never
/// elided (a name in a table is pasted into the next command: `calls`,
/// `children`, `--filter`).
pub fn cell(s: &str) -> String {
    printable(s).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_columns() {
        let mut t = Table::new(&[("name", Align::Left), ("ms", Align::Right)]);
        t.row(vec!["a".into(), "1.000".into()]);
        t.row(vec!["long name".into(), "12.500".into()]);
        let mut out = String::new();
        t.render(&mut out);
        assert_eq!(
            out,
            "name           ms\na           1.000\nlong name  12.500\n"
        );
    }
}
