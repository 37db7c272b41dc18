//! darkhex-base: what the solver crates (darkhex-hexengine,
//! darkhex-algorithms) and everything above them share, below both: the
//! files darkhex writes, atomically, and reads back ([`files`]), a run cut
//! into shards and merged ([`shard`]), the memory guard every large build
//! goes through ([`memory`]) and byte counts for people ([`bytes`]).

pub mod bytes;
pub mod files;
pub mod memory;
pub mod shard;
