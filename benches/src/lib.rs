//! darkhex-benches: criterion benchmarks (`cargo bench -p darkhex-benches`)
//! and the helpers they share.

use darkhex_games::Geometry;
use darkhex_hexengine::hexsolve::Position;

/// This process's peak resident memory in MB (VmHWM; Linux only).
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// This process's user and system CPU seconds (Linux; 0 elsewhere).
pub fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name, which ends with ')'.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    // utime and stime are fields 14 and 15 of the line, 12 and 13 here.
    ticks(11).unwrap_or(0.0) / 100.0 + ticks(12).unwrap_or(0.0) / 100.0
}

/// A mid-game 11x11 position: 20 stones of a game between two players.
pub const MID_11: &str = "f6,e7,d9,g5,c8,h4,e5,d6,f4,g3,i3,h2,c10,b9,j2,i1,d5,c6,b8,e8";

/// The position after `moves` (comma-separated cell names, Black first).
pub fn position<const W: usize>(geom: &Geometry<W>, moves: &str) -> Position<W> {
    let mut pos = Position::empty(geom);
    for m in moves.split(',') {
        pos = pos.play(geom, geom.dims().parse_cell(m).expect("a cell"));
    }
    pos
}
