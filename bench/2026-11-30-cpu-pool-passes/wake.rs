use rayon::prelude::*;
use std::time::{Duration, Instant};
fn spin(us: u64) { let t = Instant::now(); while t.elapsed() < Duration::from_micros(us) { std::hint::spin_loop(); } }
fn phases(item: u64, serial: u64) {
    for _ in 0..3 {
        let v: Vec<u64> = (0..4u64).into_par_iter().map(|i| { spin(item); i }).collect();
        std::hint::black_box(v);
        spin(serial);
    }
}
fn main() {
    for &(item, serial) in &[(20u64, 30u64), (40, 30), (80, 30), (150, 50)] {
        for wrapped in [false, true] {
            let mut times = Vec::new();
            for _ in 0..300 {
                spin(2000); // the caller's own work between calls: the workers fall asleep
                let s = Instant::now();
                if wrapped { rayon::scope(|_| phases(item, serial)); } else { phases(item, serial); }
                times.push(s.elapsed().as_secs_f64() * 1e6);
            }
            times.sort_by(|a, b| a.partial_cmp(b).unwrap());
            println!("items 4x{item} us x3 phases, serial {serial} us, wrapped {wrapped}: median {:.0} us (p10 {:.0}, p90 {:.0}); one thread {} us",
                times[150], times[30], times[270], 3 * (4 * item + serial));
        }
    }
}
