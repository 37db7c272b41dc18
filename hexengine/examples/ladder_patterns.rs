//! Finds and proves the ladder patterns, and prints them in the form of
//! `hexengine/data/ladder-patterns.txt` (progress on stderr):
//!
//! ```sh
//! cargo run --release -p darkhex-hexengine --example ladder_patterns > hexengine/data/ladder-patterns.txt
//! ```

use darkhex_hexengine::hexsolve::ladder_patterns::{LADDER_REACH, find_ladder_patterns};

fn main() {
    let start = std::time::Instant::now();
    let all = find_ladder_patterns(LADDER_REACH, |s| {
        eprintln!("{s} ({:.1} s)", start.elapsed().as_secs_f64())
    });
    println!(
        "# darkhex's built-in ladder patterns (see hexengine/src/hexsolve/ladder_patterns.rs)."
    );
    println!("# A line is depth;reach;carrier: a cell X `depth` rows from one of a player's sides");
    println!("# and the cell Y on the second row `reach` steps along from X are joined (a chain,");
    println!("# or both reaching that side), the opponent moving first, when the opponent has");
    println!("# none of X, Y and the carrier cells; cells are e,a (rows from the side, steps");
    println!("# along it from X). Each was proved by exhaustive play and cut down to a minimal");
    println!("# carrier. Made by:");
    println!("#   cargo run --release -p darkhex-hexengine --example ladder_patterns");
    for p in &all {
        println!("{}", p.to_line());
    }
}
