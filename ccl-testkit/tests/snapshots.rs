//! Snapshots of the canonical labelings of every pattern kind at a small
//! size, rendered as text. One snapshot per pattern and connectivity, shared
//! by every variant: each variant's labels must render to the same text.

use ccl as _;
use ccl_core::{Connectivity, LabelImage};

/// The size every pattern is drawn at: small enough to read, odd so that
/// no pattern happens to fit its period.
const SIZE: (usize, usize) = (15, 11);

/// The characters of labels 1, 2, …, reused cyclically past the last.
const LABEL_CHARS: &[u8] = b"123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// A first line `components: N`, then one character per pixel:
/// `.` for background, then `1`–`9`, `a`–`z`, `A`–`Z`, cycling.
fn render(labels: &LabelImage) -> String {
    let canonical = labels.canonical();
    let mut text = format!("components: {}\n", canonical.component_count());
    for y in 0..canonical.height() {
        for x in 0..canonical.width() {
            text.push(match canonical.get(x, y) {
                0 => '.',
                label => LABEL_CHARS[(label as usize - 1) % LABEL_CHARS.len()] as char,
            });
        }
        text.push('\n');
    }
    text
}

#[test]
fn render_cycles_label_characters() {
    // Background, then labels 1..=62: the 62nd wraps around to `1`.
    let labels = LabelImage::new(63, 1, (0..63).collect()).unwrap();
    let expected = format!(".{}1\n", std::str::from_utf8(LABEL_CHARS).unwrap());
    assert_eq!(render(&labels), format!("components: 62\n{expected}"));
}

#[test]
fn pattern_labelings() {
    let variants: Vec<_> = ccl_testkit::policy::testable_variants()
        .into_iter()
        .filter(|a| a.labeler.is_some())
        .collect();
    assert!(!variants.is_empty(), "no variant labels");
    let (width, height) = SIZE;
    for &kind in ccl_testdata::pattern_kinds() {
        let image = ccl_testdata::pattern(kind, width, height).unwrap();
        for connectivity in Connectivity::PLANE {
            let name = format!("{kind}-{width}x{height}-{connectivity}");
            for algorithm in variants.iter().filter(|a| a.supports(connectivity)) {
                let labels = algorithm
                    .labeler()
                    .and_then(|mut l| l.label(&image.view(), connectivity))
                    .unwrap_or_else(|e| panic!("{} on {name}: {e}", algorithm.name));
                // The snapshot is shared, so it does not name the variant;
                // this line, shown with a failure, does.
                println!("{} on {name}", algorithm.name);
                insta::assert_snapshot!(name.clone(), render(&labels), &name);
            }
        }
    }
}
