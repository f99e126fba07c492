#![allow(missing_docs)]
use ccl_core::{Analyzer, Connectivity};
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let side: usize = args[1].parse().unwrap();
    let c = if args[2] == "4" {
        Connectivity::Four
    } else {
        Connectivity::Eight
    };
    let g: u32 = args[3].parse().unwrap();
    let reps: usize = args.get(5).map(|s| s.parse().unwrap()).unwrap_or(21);
    for d in args[4].split(',') {
        let d: u32 = d.parse().unwrap();
        let image = ccl_testdata::random_image(side, side, d, g, 0).unwrap();
        let mut l = if std::env::var("ONE").is_ok() {
            ccl_cpu::RunLabeler::single_threaded()
        } else {
            ccl_cpu::RunLabeler::parallel()
        };
        let mut times = Vec::new();
        let mut n = 0;
        let mut keep = Vec::new();
        let mut buf = vec![1u32; side * side];
        for _ in 0..reps {
            if std::env::var("LABEL").is_ok() {
                use ccl_core::Labeler;
                let t = Instant::now();
                n = l.label_into(&image.view(), c, &mut buf).unwrap();
                times.push(t.elapsed().as_secs_f64() * 1e3);
                std::hint::black_box(&buf);
            } else if std::env::var("REUSE").is_ok() {
                let t = Instant::now();
                l.analyze_into(&image.view(), c, &mut keep).unwrap();
                times.push(t.elapsed().as_secs_f64() * 1e3);
                n = keep.len();
            } else {
                let t = Instant::now();
                let s = l.analyze(&image.view(), c).unwrap();
                times.push(t.elapsed().as_secs_f64() * 1e3);
                n = s.len();
                keep = s; // dropped at next assignment (after the clock)
            }
        }
        drop(keep);
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "d={d} n={n} median {:.2} min {:.2} ms",
            times[reps / 2],
            times[0]
        );
    }
}
