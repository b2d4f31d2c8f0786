//! Text from a recording, made safe for where it lands: one function per
//! target, used everywhere that target is written.
//!
//! Every string a recording carries (scope names, data, thread names, file
//! paths, the file's own name) is untrusted: a recording may come from a CI
//! artifact of a forked pull request or a bug report. What we write around
//! it must never let it become markup, script, a link or a terminal command:
//!
//! - [`html`]: HTML text and attribute values, SVG and XML alike
//!   (`&`, `<`, `>`, `"`, `'` as entities);
//! - [`markdown`]: GitHub-flavoured Markdown rendered literally by GitHub,
//!   GitLab and pulldown-cmark, in running text and in table cells (every
//!   character with a meaning backslash-escaped, line breaks as spaces);
//! - [`visible`]: a terminal or any plain text (control characters and
//!   invisible reordering characters shown as `\u{…}` escapes, so that
//!   neither an ANSI sequence nor a bidi override reaches the reader).
//!
//! [`html`] and [`markdown`] apply [`visible`] first.

use std::borrow::Cow;

/// Characters that change how the text around them displays without
/// showing themselves: the bidirectional controls ("Trojan Source"),
/// zero-width spaces and the Unicode line and paragraph separators.
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{200B}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

fn needs_visible(c: char) -> bool {
    c.is_control() || is_invisible_format(c)
}

/// `s` with control characters (ANSI escapes, line breaks, NUL…) and
/// invisible reordering characters written as Rust-style `\u{1b}` escapes
/// (`\n`, `\r`, `\t` as themselves); everything else unchanged. One line, and
/// what the reader sees is the order the text has.
pub fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_visible) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_visible(c) => {
                use std::fmt::Write as _;
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `s` for HTML, SVG or XML, as text or inside a quoted attribute value
/// (either quote).
pub fn html(s: &str) -> Cow<'_, str> {
    let s = visible(s);
    if !s.contains(['&', '<', '>', '"', '\'']) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Characters with a meaning anywhere in a line of GitHub-flavoured
/// Markdown (or GitHub's math): emphasis and strikethrough, code spans,
/// links and images, HTML and entities, table cells. CommonMark lets a
/// backslash escape any ASCII punctuation.
fn is_markdown_special(c: char) -> bool {
    matches!(
        c,
        '\\' | '`' | '*' | '_' | '~' | '[' | ']' | '<' | '>' | '&' | '|' | '!' | '$'
    )
}

/// The length of a prefix that would start a block at the beginning of a
/// line (a heading, a list item, a setext underline, a quote): its last
/// character is the one to escape.
fn block_marker_end(s: &str) -> Option<usize> {
    let first = s.chars().next()?;
    if matches!(first, '#' | '-' | '+' | '=' | '>') {
        return Some(1);
    }
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0 && matches!(s.as_bytes().get(digits), Some(b'.' | b')'))).then_some(digits + 1)
}

/// `s` as literal Markdown text, in running text, a table cell or at the
/// start of a line (never put it in a code span: backslashes do not escape
/// there). It stays on one line.
pub fn markdown(s: &str) -> Cow<'_, str> {
    let s = visible(s);
    let marker = block_marker_end(&s);
    if marker.is_none() && !s.chars().any(is_markdown_special) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut prev = None;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        // An underscore between two letters or digits (`frame_body`) can
        // neither open nor close emphasis: left as it is, for legibility.
        let intraword = c == '_'
            && prev.is_some_and(char::is_alphanumeric)
            && chars.peek().is_some_and(|&(_, n)| n.is_alphanumeric());
        if (is_markdown_special(c) && !intraword) || marker == Some(i + 1) {
            out.push('\\');
        }
        out.push(c);
        prev = Some(c);
    }
    Cow::Owned(out)
}

/// `s` as a Markdown code span (backticks included): shown literally in a
/// monospace font. The delimiters are one backtick longer than the longest
/// run inside, padded with a space where `s` starts or ends with a backtick
/// or a space (CommonMark strips one from each side). Not for table cells:
/// GitHub splits a cell at a `|` even inside a code span; use [`markdown`].
pub fn markdown_code(s: &str) -> String {
    if s.is_empty() {
        return "` `".to_owned();
    }
    let s = visible(s);
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with(['`', ' ']) || s.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(visible("App::update"), Cow::Borrowed(_)));
        assert!(matches!(html("App::update"), Cow::Borrowed(_)));
        assert!(matches!(markdown("App update 12"), Cow::Borrowed(_)));
    }

    #[test]
    fn visible_shows_controls_and_reordering() {
        assert_eq!(
            visible("a\u{1b}[2Jb\n\u{202e}c"),
            "a\\u{1b}[2Jb\\n\\u{202e}c"
        );
        assert_eq!(visible("tab\there"), "tab\\there");
        assert_eq!(visible("日本語 ok"), "日本語 ok");
    }

    #[test]
    fn html_escapes_markup_and_quotes() {
        assert_eq!(
            html("<img src=x onerror=\"a('b')\">&"),
            "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;"
        );
    }

    #[test]
    fn markdown_escapes_every_special_character() {
        assert_eq!(markdown("a|b"), "a\\|b");
        assert_eq!(
            markdown("frame_body _em_ a__b"),
            "frame_body \\_em\\_ a\\_\\_b"
        );
        assert_eq!(markdown("[x](javascript:y)"), "\\[x\\](javascript:y)");
        assert_eq!(markdown("# h"), "\\# h");
        assert_eq!(markdown("12. x-y"), "12\\. x-y");
        assert_eq!(markdown("a - b"), "a - b");
        assert_eq!(markdown("<b>"), "\\<b\\>");
        assert_eq!(markdown("two\nlines"), "two\\\\nlines");
    }

    #[test]
    fn code_spans_outlast_the_backticks_inside() {
        assert_eq!(markdown_code("App::ui"), "`App::ui`");
        assert_eq!(markdown_code("a``b"), "```a``b```");
        assert_eq!(markdown_code("`x"), "`` `x ``");
        assert_eq!(markdown_code(""), "` `");
    }
}
