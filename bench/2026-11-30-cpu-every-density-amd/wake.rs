use rayon::prelude::*;
use std::time::{Duration, Instant};
fn main() {
    let gaps = [0u64, 50, 200, 1000, 5000];
    for &gap in &gaps {
        let mut times = Vec::new();
        for _ in 0..200 {
            // idle gap (busy-wait on this thread so the workers go idle/sleep)
            let t = Instant::now();
            while t.elapsed() < Duration::from_micros(gap) { std::hint::spin_loop(); }
            let s = Instant::now();
            let v: Vec<u64> = (0..4u64).into_par_iter().map(|i| { let t = Instant::now(); while t.elapsed() < Duration::from_micros(20) {} i }).collect();
            std::hint::black_box(v);
            times.push(s.elapsed().as_secs_f64() * 1e6);
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!("gap {gap:5} us: 4x20us items on the pool: median {:.0} us, p10 {:.0}, p90 {:.0}", times[100], times[20], times[180]);
    }
}
