//! `tiles`' own volume features where a tile has more parts than its
//! tables and its share of the scratch hold: the passes over windows of
//! keys and the second pass that gathers an overflowing tile again, against
//! the CPU reference. Skips where no GPU can be used.

use ccl_core::{BinaryVolume, Connectivity};
// The reference, `cpu-uf`, registers there.
use ccl_cpu as _;
use ccl_cuda_tiles as _;

#[test]
fn a_tile_of_thousands_of_parts_analyzes_as_the_reference() {
    // 3 x 3 x 3 tiles of 32 x 16 x 16: the middle one a checkerboard, all
    // else foreground. In 6-connectivity its 4096 voxels are 4096 keys
    // (windows of 512 and 256 parts), and the 1156 of its shell each join
    // the outside's component apart: more parts without their root than
    // a tile's share of the scratch holds (585), so it is gathered again.
    let (width, height, depth) = (96, 48, 48);
    let mut voxels = vec![1u8; width * height * depth];
    for z in 16..32 {
        for y in 16..32 {
            for x in 32..64 {
                voxels[(z * height + y) * width + x] = ((x + y + z) % 2 == 0) as u8;
            }
        }
    }
    let volume = BinaryVolume::new(&voxels, width, height, depth).unwrap();
    let mut reference = ccl_core::find("cpu-uf").unwrap().analyzer().unwrap();
    let expected: Vec<_> = Connectivity::VOLUME
        .into_iter()
        .map(|c| (c, reference.analyze_volume(&volume, c).unwrap()))
        .collect();
    // 6-connectivity: the outside with the shell, and the 2940 voxels
    // within it.
    assert_eq!(expected[0].1.len(), 1 + 2940);
    let mut tiles = match ccl_core::find("tiles").unwrap().analyzer() {
        Ok(analyzer) => analyzer,
        Err(reason) => {
            println!("skipped: {reason}");
            return;
        }
    };
    for (connectivity, expected) in expected {
        let stats = tiles.analyze_volume(&volume, connectivity).unwrap();
        assert_eq!(stats.len(), expected.len(), "{connectivity}-connectivity");
        assert!(
            stats == expected,
            "{connectivity}-connectivity: the features differ"
        );
    }
}
