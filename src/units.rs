//! How durations and strings are shown to people (CLI tables and the app).

/// Nanoseconds as milliseconds with 3 decimals.
pub fn ms(ns: i64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

/// Float nanoseconds as milliseconds with 3 decimals.
pub fn ms_f(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

/// `s` shortened to `max` characters by replacing its middle with `…`.
pub fn elide(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_owned();
    }
    let keep = max.saturating_sub(1);
    let head = keep.div_ceil(2);
    let tail = keep / 2;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

/// A thread name for display (`(unnamed)` for the empty name).
pub fn thread_label(name: &str) -> &str {
    if name.is_empty() { "(unnamed)" } else { name }
}
