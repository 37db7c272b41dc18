//! Shards: one of `N` parts of a fixed list of jobs (a league's games, the
//! openings of a board), run by a scheduler without darkhex's help (a Slurm
//! array, a Kubernetes indexed Job) and merged afterwards. A job belongs to
//! a shard by its position in the list, never by who ran it or when it
//! finished, so the merge of every shard equals the run in one piece.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Shard `index` of `count` (1-based, as `--shard I/N` and Slurm array ids
/// are written): the jobs at positions `index - 1`, `index - 1 + count`, ...
/// Interleaving spreads every kind of job over all shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ShardError {
    #[error(
        "shard '{0}' is not I/N with I from 1 to N, e.g. 3/8 (Kubernetes' indices start at 0: use $((JOB_COMPLETION_INDEX + 1))/N)"
    )]
    Malformed(String),
    #[error("nothing to merge: give every shard's output")]
    Nothing,
    #[error(
        "{first} is a shard of {count_a} and {second} a shard of {count_b}: shards of one run have the same N"
    )]
    Counts {
        first: String,
        count_a: u32,
        second: String,
        count_b: u32,
    },
    #[error("shard {shard} is given twice, as {first} and {second}")]
    Twice {
        shard: Shard,
        first: String,
        second: String,
    },
    #[error("shard{} {} missing: run {} and merge again", if .0.len() > 1 { "s" } else { "" }, list(.0), if .0.len() > 1 { "them" } else { "it" })]
    Missing(Vec<Shard>),
}

fn list(shards: &[Shard]) -> String {
    let names: Vec<String> = shards.iter().map(Shard::to_string).collect();
    let verb = if names.len() > 1 { "are" } else { "is" };
    format!("{} {verb}", names.join(", "))
}

impl Shard {
    /// Whether the job at `position` (0-based) of the list is this shard's.
    pub fn holds(&self, position: usize) -> bool {
        position % self.count as usize == (self.index - 1) as usize
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;
    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError::Malformed(text.to_string());
        let (i, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// Checks that `shards`, each with the name of where it came from, are every
/// shard of one run exactly once; returns their count.
pub fn check_complete(shards: &[(Shard, String)]) -> Result<u32, ShardError> {
    let (first, first_name) = shards.first().ok_or(ShardError::Nothing)?;
    let mut seen: Vec<Option<&str>> = vec![None; first.count as usize];
    for (shard, name) in shards {
        if shard.count != first.count {
            return Err(ShardError::Counts {
                first: first_name.clone(),
                count_a: first.count,
                second: name.clone(),
                count_b: shard.count,
            });
        }
        let slot = &mut seen[(shard.index - 1) as usize];
        if let Some(earlier) = slot {
            return Err(ShardError::Twice {
                shard: *shard,
                first: earlier.to_string(),
                second: name.clone(),
            });
        }
        *slot = Some(name);
    }
    let missing: Vec<Shard> = (1..=first.count)
        .filter(|&i| seen[(i - 1) as usize].is_none())
        .map(|index| Shard {
            index,
            count: first.count,
        })
        .collect();
    if !missing.is_empty() {
        return Err(ShardError::Missing(missing));
    }
    Ok(first.count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_split_positions_between_them() {
        let s: Shard = "2/3".parse().unwrap();
        assert_eq!(s, Shard { index: 2, count: 3 });
        assert_eq!(s.to_string(), "2/3");
        let held: Vec<usize> = (0..8).filter(|&p| s.holds(p)).collect();
        assert_eq!(held, [1, 4, 7]);
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", ""] {
            let e = bad.parse::<Shard>().unwrap_err().to_string();
            assert!(e.contains("I from 1 to N"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_merge_needs_every_shard_once() {
        let s = |i, n, name: &str| (Shard { index: i, count: n }, name.to_string());
        assert_eq!(check_complete(&[s(2, 2, "b"), s(1, 2, "a")]), Ok(2));
        let e = check_complete(&[s(1, 3, "a"), s(3, 3, "c")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "shard 2/3 is missing: run it and merge again"
        );
        let e = check_complete(&[s(1, 4, "a")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "shards 2/4, 3/4, 4/4 are missing: run them and merge again"
        );
        let e = check_complete(&[s(1, 2, "a"), s(1, 2, "a2"), s(2, 2, "b")]).unwrap_err();
        assert_eq!(e.to_string(), "shard 1/2 is given twice, as a and a2");
        let e = check_complete(&[s(1, 2, "a"), s(2, 3, "b")]).unwrap_err();
        assert!(e.to_string().contains("same N"), "{e}");
        assert_eq!(check_complete(&[]), Err(ShardError::Nothing));
    }
}
