//! How durations and strings are shown to people (CLI tables and the app).

/// Nanoseconds as milliseconds with 3 decimals.
pub fn ms(ns: i64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

/// Float nanoseconds as milliseconds with 3 decimals.
pub fn ms_f(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

/// A point in time for people, given as milliseconds since the
/// recording's start (`engine::reltime::rel_ms`): 3 decimals, the whole
/// milliseconds grouped by thousands: `1,234.567`.
pub fn at_ms(v: f64) -> String {
    let text = format!("{:.3}", v.abs());
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    let sign = if v < 0.0 && text.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        "-"
    } else {
        ""
    };
    format!("{sign}{}.{frac}", count(whole.parse().unwrap_or(0)))
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

/// A count for people, digits grouped by thousands: `150,000,000`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// A byte count for people: `512 B`, `43.1 KiB`, `12.3 MiB`, `1.2 GiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
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
}
