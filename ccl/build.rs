//! Links every dependency of the facade: an algorithm crate registers its
//! variants through `inventory`, which only a crate the program references
//! gets linked with. Writes `use <crate> as _;` for each dependency named
//! in `Cargo.toml`'s `[dependencies]` table, so that adding a crate there
//! is all it takes.

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=Cargo.toml");
    let manifest = std::fs::read_to_string("Cargo.toml").expect("the facade's Cargo.toml");
    let mut links = String::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if !in_dependencies || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let name = line
            .split(['=', '.'])
            .next()
            .expect("a dependency line")
            .trim();
        links.push_str(&format!("use {} as _;\n", name.replace('-', "_")));
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("linked_crates.rs"), links).expect("OUT_DIR is writable");
}
