//! The report's inline Markdown as `Report::markdown` writes it, read back
//! into runs of text for the views that draw it (the findings page's
//! blocks, the glance's lines): backslash escapes, code spans, strong and
//! italic.

/// One run of text in a block.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub text: String,
    pub code: bool,
    pub strong: bool,
    pub italic: bool,
    /// The location hash a click goes to (a code span naming a scope).
    pub link: Option<String>,
}

/// Inline Markdown as `Report::markdown` writes it: backslash escapes,
/// code spans (any fence length), `**strong**` and a line in `_italics_`.
pub fn inline(s: &str, link: &dyn Fn(&str) -> Option<String>) -> Vec<Span> {
    let (s, italic) = match s.strip_prefix('_').and_then(|x| x.strip_suffix('_')) {
        Some(inner) if !inner.contains('`') => (inner, true),
        _ => (s, false),
    };
    let chars: Vec<char> = s.chars().collect();
    let mut out: Vec<Span> = Vec::new();
    let mut text = String::new();
    let mut strong = false;
    let push_text = |out: &mut Vec<Span>, text: &mut String, strong: bool| {
        if !text.is_empty() {
            out.push(Span {
                text: std::mem::take(text),
                code: false,
                strong,
                italic,
                link: None,
            });
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && chars.get(i + 1).is_some_and(|n| n.is_ascii_punctuation()) {
            text.push(chars[i + 1]);
            i += 2;
        } else if c == '`' {
            let n = chars[i..].iter().take_while(|&&x| x == '`').count();
            // The closing fence: exactly n backticks.
            let mut j = i + n;
            let mut close = None;
            while j < chars.len() {
                if chars[j] == '`' {
                    let m = chars[j..].iter().take_while(|&&x| x == '`').count();
                    if m == n {
                        close = Some(j);
                        break;
                    }
                    j += m;
                } else {
                    j += 1;
                }
            }
            match close {
                Some(j) => {
                    push_text(&mut out, &mut text, strong);
                    let inner: String = chars[i + n..j].iter().collect();
                    let inner = match inner.strip_prefix(' ').and_then(|x| x.strip_suffix(' ')) {
                        Some(x) if !x.trim().is_empty() => x.to_owned(),
                        _ => inner,
                    };
                    out.push(Span {
                        link: link(&inner),
                        text: inner,
                        code: true,
                        strong,
                        italic,
                    });
                    i = j + n;
                }
                None => {
                    text.extend(&chars[i..i + n]);
                    i += n;
                }
            }
        } else if c == '*' && chars.get(i + 1) == Some(&'*') {
            push_text(&mut out, &mut text, strong);
            strong = !strong;
            i += 2;
        } else {
            text.push(c);
            i += 1;
        }
    }
    push_text(&mut out, &mut text, strong);
    out
}
