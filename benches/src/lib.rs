//! darkhex-benches: criterion benchmarks (`cargo bench -p darkhex-benches`)
//! and the helpers they share.
