//! Aligned text tables for the human-readable output.

/// Widest a text cell gets before it is elided in the middle.
const MAX_CELL_CHARS: usize = 48;

pub use puffin_lens::units::{elide, ms, ms_f};

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
    headers: Vec<(&'static str, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(headers: &[(&'static str, Align)]) -> Self {
        Self {
            headers: headers.to_vec(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        let cells = cells
            .into_iter()
            .map(|c| elide(&printable(&c), MAX_CELL_CHARS))
            .collect();
        self.rows.push(cells);
    }

    /// A row whose first cell keeps its leading indentation (a tree):
    /// only the text after it is elided.
    pub fn row_unelided(&mut self, mut cells: Vec<String>) {
        let first = cells.first().cloned().unwrap_or_default();
        let text = first.trim_start_matches(' ');
        let indent = first.len() - text.len();
        let rest = cells.split_off(1.min(cells.len()));
        self.row(rest);
        let row = self.rows.last_mut().expect("just pushed");
        row.insert(
            0,
            format!(
                "{}{}",
                " ".repeat(indent),
                elide(&printable(text), MAX_CELL_CHARS)
            ),
        );
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
        let line = |out: &mut String, cells: &mut dyn Iterator<Item = &str>| {
            let mut text = String::new();
            for (i, cell) in cells.enumerate() {
                let (_, align) = self.headers[i];
                let pad = widths[i].saturating_sub(cell.chars().count());
                if i > 0 {
                    text.push_str("  ");
                }
                if align == Align::Right {
                    text.extend(std::iter::repeat_n(' ', pad));
                    text.push_str(cell);
                } else {
                    text.push_str(cell);
                    text.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push_str(text.trim_end());
            out.push('\n');
        };
        line(out, &mut self.headers.iter().map(|(h, _)| *h));
        for row in &self.rows {
            line(out, &mut row.iter().map(String::as_str));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elides_in_the_middle() {
        assert_eq!(elide("abcdef", 10), "abcdef");
        assert_eq!(elide("abcdefghij", 5), "ab…ij");
        assert_eq!(elide("ééééééé", 4), "éé…é");
    }

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
