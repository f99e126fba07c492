//! The SVG backend: a document written as a string. Its text is left to the
//! viewer's sans-serif, which keeps the file small and its text text.

use std::fmt::Write;

use super::{Canvas, HAlign, Paint, Point, Rgb, Stroke, TextStyle, font};

/// An SVG document being drawn.
pub(crate) struct Svg {
    out: String,
    width: u32,
    height: u32,
}

impl Svg {
    /// An empty (transparent) document `width` × `height` pixels large.
    pub(crate) fn new(width: u32, height: u32) -> Self {
        let out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\">\n"
        );
        Svg { out, width, height }
    }

    /// The finished document.
    pub(crate) fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }

    /// Appends `args` to the document. Writing into a `String` cannot fail.
    fn write(&mut self, args: std::fmt::Arguments) {
        let _ = self.out.write_fmt(args);
    }
}

impl Canvas for Svg {
    fn fill(&mut self, colour: Rgb) {
        let (width, height) = (self.width, self.height);
        self.write(format_args!(
            "<rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"{}\"/>\n",
            hex(colour)
        ));
    }

    fn polyline(&mut self, points: &[Point], stroke: Stroke) {
        let points: Vec<String> = points
            .iter()
            .map(|&(x, y)| format!("{},{}", number(x), number(y)))
            .collect();
        self.write(format_args!(
            "<polyline points=\"{}\" fill=\"none\" {}/>\n",
            points.join(" "),
            stroked(stroke)
        ));
    }

    fn circle(&mut self, (x, y): Point, radius: f64, colour: Rgb) {
        self.write(format_args!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"/>\n",
            number(x),
            number(y),
            number(radius),
            hex(colour)
        ));
    }

    fn rectangle(&mut self, (x0, y0): Point, (x1, y1): Point, paint: Paint) {
        let paint = match paint {
            Paint::Fill(colour) => format!("fill=\"{}\"", hex(colour)),
            Paint::Outline(stroke) => format!("fill=\"none\" {}", stroked(stroke)),
        };
        self.write(format_args!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {paint}/>\n",
            number(x0.min(x1)),
            number(y0.min(y1)),
            number((x1 - x0).abs()),
            number((y1 - y0).abs())
        ));
    }

    fn text(&mut self, (x, y): Point, text: &str, style: TextStyle) {
        let anchor = match style.horizontal {
            HAlign::Left => "start",
            HAlign::Centre => "middle",
            HAlign::Right => "end",
        };
        // The baseline is placed from the embedded font's metrics, not left
        // to `dominant-baseline`, which viewers follow unevenly. An upward
        // text is set level about its anchor, then turned.
        let baseline = y + font::baseline(style.vertical, style.size);
        let turn = if style.upward {
            format!(" transform=\"rotate(270 {} {})\"", number(x), number(y))
        } else {
            String::new()
        };
        self.write(format_args!(
            "<text x=\"{}\" y=\"{}\" font-family=\"sans-serif\" font-size=\"{}\" \
             text-anchor=\"{anchor}\"{turn}>{}</text>\n",
            number(x),
            number(baseline),
            number(style.size),
            escape(text)
        ));
    }
}

/// The attributes of a stroke.
fn stroked(stroke: Stroke) -> String {
    format!(
        "stroke=\"{}\" stroke-width=\"{}\" stroke-linecap=\"round\" stroke-linejoin=\"round\"",
        hex(stroke.colour),
        number(stroke.width)
    )
}

/// `colour` as `#RRGGBB`.
fn hex(Rgb(r, g, b): Rgb) -> String {
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// A coordinate: two decimals at most (a hundredth of a pixel), no
/// trailing zeros, which keeps the document short.
fn number(value: f64) -> String {
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" { "0" } else { text }.to_string()
}

/// `text` with the characters that XML reserves escaped.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{BLACK, VAlign, WHITE};

    #[test]
    fn numbers_are_short() {
        assert_eq!(number(12.0), "12");
        assert_eq!(number(12.5), "12.5");
        assert_eq!(number(1.0 / 3.0), "0.33");
        assert_eq!(number(-0.001), "0");
    }

    #[test]
    fn a_small_figure_has_its_elements_and_escaped_text() {
        let mut svg = Svg::new(200, 100);
        svg.fill(WHITE);
        svg.polyline(
            &[(10.0, 90.0), (50.0, 10.5), (90.0, 50.0)],
            Stroke::new(Rgb(31, 119, 180), 2.0),
        );
        svg.dashed(
            &[(0.0, 50.0), (200.0, 50.0)],
            6.0,
            4.0,
            Stroke::new(BLACK, 1.0),
        );
        svg.circle((50.0, 10.5), 3.0, Rgb(255, 127, 14));
        svg.rectangle((120.0, 90.0), (110.0, 60.0), Paint::Fill(BLACK));
        svg.text(
            (100.0, 5.0),
            "a < b & \"c\"",
            TextStyle::new(18.0, HAlign::Centre, VAlign::Top),
        );
        svg.text(
            (10.0, 50.0),
            "up",
            TextStyle::new(12.0, HAlign::Centre, VAlign::Top).upward(),
        );
        let svg = svg.finish();
        assert!(
            svg.starts_with("<svg ") && svg.ends_with("</svg>\n"),
            "{svg}"
        );
        assert!(svg.contains("width=\"200\" height=\"100\""));
        assert!(svg.contains("<polyline points=\"10,90 50,10.5 90,50\" fill=\"none\" stroke=\"#1F77B4\" stroke-width=\"2\""));
        // 200 pixels of 6 drawn and 4 left out: 20 dashes.
        assert_eq!(svg.matches("stroke=\"#000000\"").count(), 20);
        assert!(svg.contains("<circle cx=\"50\" cy=\"10.5\" r=\"3\" fill=\"#FF7F0E\"/>"));
        assert!(
            svg.contains("<rect x=\"110\" y=\"60\" width=\"10\" height=\"30\" fill=\"#000000\"/>")
        );
        assert!(svg.contains(">a &lt; b &amp; &quot;c&quot;</text>"));
        assert!(svg.contains("text-anchor=\"middle\""));
        assert!(svg.contains("font-family=\"sans-serif\""));
        assert!(svg.contains("transform=\"rotate(270 10 50)\">up</text>"));
    }
}
