//! The report as one self-contained HTML page ([`Report::html`]): the
//! Markdown rendered, with inline SVG charts where it marks them.

use super::Report;
use super::svg::{calls_svg, frames_svg, gaps_svg};
use crate::engine::write::escape;

impl Report {
    /// One self-contained page (no external requests): the Markdown's
    /// sections plus inline SVG charts (frame times, the gaps, the calls of
    /// each outlier).
    pub fn html(&self) -> String {
        use pulldown_cmark::{Options, Parser, html};
        let md = self.render_md(true);
        let mut body = String::new();
        html::push_html(
            &mut body,
            Parser::new_ext(&md, Options::ENABLE_TABLES | Options::ENABLE_GFM),
        );
        let mut out = String::with_capacity(body.len() + 4096);
        let mut rest = body.as_str();
        while let Some(at) = rest.find("<!--chart:") {
            out.push_str(&rest[..at]);
            let end = rest[at..].find("-->").map_or(rest.len(), |e| at + e + 3);
            let spec: Vec<&str> = rest[at + 10..end.saturating_sub(3)].split(':').collect();
            if let (["waterfall", ..], Some(c)) = (spec.as_slice(), &self.comparison) {
                out.push_str(&super::svg::waterfall_svg(&c.glance));
            } else if let [kind, r, j] = spec.as_slice() {
                let r = r.parse::<usize>().ok().and_then(|r| self.recordings.get(r));
                let j = j.parse::<usize>().unwrap_or(0);
                if let Some(r) = r {
                    out.push_str(&match *kind {
                        "frames" => frames_svg(r),
                        "gaps" => gaps_svg(r, "gaps"),
                        "recurring" => gaps_svg(r, "recurring"),
                        "calls" => r.outliers.get(j).map(calls_svg).unwrap_or_default(),
                        _ => String::new(),
                    });
                }
            }
            rest = &rest[end..];
        }
        out.push_str(rest);
        let title = self
            .recordings
            .iter()
            .map(|r| r.summary.file.as_str())
            .collect::<Vec<_>>()
            .join(" vs ");
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>puffin-lens report: {}</title><style>{CSS}</style></head>\n<body>\n{out}</body></html>\n",
            escape::html(&title)
        )
    }
}

const CSS: &str = "body{font:14px/1.45 system-ui,sans-serif;max-width:1100px;margin:24px auto;padding:0 16px;color:#222}\
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ccc;padding:3px 8px}\
th{background:#f3f3f3}td{font-variant-numeric:tabular-nums}code{background:#f3f3f3;padding:0 3px}\
blockquote{border-left:4px solid #d9822b;background:#fff5e6;margin:8px 0;padding:6px 12px}\
svg{display:block;margin:8px 0}h2{border-bottom:1px solid #ddd;margin-top:32px}";
