//! The distance evaluations of Honjo et al. (2010) over both players'
//! position networks (Black's N_B, White's N_W):
//!
//! - E = d_W(s, t) / d_B(s, t) (+ a small random r the player adds to break
//!   ties): infinity when Black has won (White has no path), 0 when White
//!   has; Black wants it high, White low.
//! - E_k = E_kW / E_kB with E_kP = d_P(s, t) - sum_{i=0..k} x^(i+1) n_iP,
//!   n_iP = |S_i| in N_P: among positions at the same distances, more short
//!   paths (more ways to connect) make a player's part smaller.
//!
//! x is read from its decimal text as an exact fraction, and E_k is compared
//! as an exact fraction of big integers ([`Exact`]): with the paper's
//! x = 0.00001 the term of S_2 is 1e-15 a path, at the edge of what an `f64`
//! near 1 resolves, so float comparisons would turn on rounding.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use darkhex_games::board::{BLACK, WHITE};
use num_bigint::{BigInt, BigUint};
use num_traits::{One, Signed, ToPrimitive, Zero};
use thiserror::Error;

use super::paths::PathSets;

/// The largest power of ten a weight may carry.
const MAX_EXPONENT: i32 = 60;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error(
    "'{}' is not a valid weight x: accepted are decimal numbers with 0 < x <= 1, such as 0.00001 or 1e-5",
    darkhex_games::one_line(.0)
)]
pub struct WeightError(pub String);

/// The worth x of a path one link longer relative to one path, as the exact
/// fraction `num / den` of its decimal text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weight {
    num: BigUint,
    den: BigUint,
    text: String,
}

impl Weight {
    /// The paper's x = 0.00001.
    pub fn paper() -> Self {
        "0.00001".parse().expect("a valid weight")
    }

    pub fn to_f64(&self) -> f64 {
        let (n, d) = (self.num.to_f64(), self.den.to_f64());
        n.unwrap_or(0.0) / d.unwrap_or(1.0)
    }
}

impl fmt::Display for Weight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for Weight {
    type Err = WeightError;

    fn from_str(text: &str) -> Result<Self, WeightError> {
        let bad = || WeightError(text.to_string());
        let t = text.trim();
        let (mantissa, exponent) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i32>().map_err(|_| bad())?),
            None => (t, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = format!("{whole}{fraction}");
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let scale = exponent - fraction.len() as i32;
        if scale.abs() > MAX_EXPONENT + 40 {
            return Err(bad());
        }
        let mut num: BigUint = digits.parse().map_err(|_| bad())?;
        let mut den = BigUint::one();
        let ten = BigUint::from(10u32).pow(scale.unsigned_abs());
        if scale >= 0 {
            num *= ten;
        } else {
            den = ten;
        }
        if num.is_zero() || num > den || den.bits() > (MAX_EXPONENT as u64) * 4 {
            return Err(bad());
        }
        Ok(Weight {
            num,
            den,
            text: t.to_string(),
        })
    }
}

/// An evaluation as an exact fraction: 0 (White has won), `num / den`
/// (`den` > 0), or infinity (Black has won).
#[derive(Clone, Debug)]
pub enum Exact {
    Finite { num: BigInt, den: BigInt },
    Infinite,
}

impl Exact {
    fn zero() -> Self {
        Exact::Finite {
            num: BigInt::zero(),
            den: BigInt::one(),
        }
    }

    /// `num / den` with the sign on the numerator; a zero denominator (an
    /// E_kB pushed to 0 by too large an x) counts as infinite.
    fn fraction(num: BigInt, den: BigInt) -> Self {
        match den.sign() {
            num_bigint::Sign::NoSign => Exact::Infinite,
            num_bigint::Sign::Minus => Exact::Finite {
                num: -num,
                den: -den,
            },
            num_bigint::Sign::Plus => Exact::Finite { num, den },
        }
    }

    pub fn to_f64(&self) -> f64 {
        match self {
            Exact::Infinite => f64::INFINITY,
            Exact::Finite { num, den } => {
                // Scale both down to keep the quotient within range.
                let shift = den.bits().max(num.bits()).saturating_sub(900);
                let part = |x: &BigInt| (x >> shift).to_f64().unwrap_or(0.0);
                part(num) / part(den)
            }
        }
    }
}

impl PartialEq for Exact {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Exact {}

impl PartialOrd for Exact {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Exact {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Exact::Infinite, Exact::Infinite) => Ordering::Equal,
            (Exact::Infinite, _) => Ordering::Greater,
            (_, Exact::Infinite) => Ordering::Less,
            (Exact::Finite { num: a, den: b }, Exact::Finite { num: c, den: d }) => {
                (a * d).cmp(&(c * b))
            }
        }
    }
}

/// Both players' path sets, Black's first: everything E and E_k need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkValue {
    pub sides: [PathSets; 2],
}

impl NetworkValue {
    /// E = d_W / d_B without the random tie-breaker.
    pub fn e(&self) -> Exact {
        let [b, w] = [&self.sides[BLACK], &self.sides[WHITE]];
        match (b.distance, w.distance) {
            (_, None) => Exact::Infinite,
            (None, _) => Exact::zero(),
            (Some(db), Some(dw)) => Exact::fraction(BigInt::from(dw), BigInt::from(db)),
        }
    }

    /// E_kP times den^(k+1), an integer: d den^(k+1) - sum n_i num^(i+1) den^(k-i).
    fn scaled_part(&self, player: usize, k: usize, x: &Weight) -> Option<BigInt> {
        let side = &self.sides[player];
        let d = side.distance?;
        let mut total = BigInt::from(d) * BigInt::from(x.den.pow(k as u32 + 1));
        for (i, n) in side.counts.iter().enumerate().take(k + 1) {
            let term = n * x.num.pow(i as u32 + 1) * x.den.pow((k - i) as u32);
            total -= BigInt::from(term);
        }
        Some(total)
    }

    /// E_kP of one player (`None`: that player's terminals are cut apart).
    pub fn part(&self, player: usize, k: usize, x: &Weight) -> Option<f64> {
        let scaled = self.scaled_part(player, k, x)?;
        let den = BigInt::from(x.den.pow(k as u32 + 1));
        Some(Exact::fraction(scaled, den).to_f64())
    }

    /// E_k = E_kW / E_kB, exactly.
    pub fn ek(&self, k: usize, x: &Weight) -> Exact {
        match (self.scaled_part(BLACK, k, x), self.scaled_part(WHITE, k, x)) {
            (_, None) => Exact::Infinite,
            (None, _) => Exact::zero(),
            (Some(b), Some(w)) => Exact::fraction(w, b),
        }
    }

    /// Whether every path set was enumerated within its budget.
    pub fn complete(&self) -> bool {
        self.sides.iter().all(|s| s.complete)
    }

    /// Whether some E_kP is not positive: x is too large for these counts.
    pub fn weight_too_large(&self, k: usize, x: &Weight) -> bool {
        [BLACK, WHITE]
            .into_iter()
            .any(|p| self.scaled_part(p, k, x).is_some_and(|v| !v.is_positive()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(d: Option<u32>, counts: &[u64]) -> PathSets {
        PathSets {
            distance: d,
            counts: counts.iter().map(|&c| BigUint::from(c)).collect(),
            complete: true,
            through: Vec::new(),
        }
    }

    #[test]
    fn weights_are_exact_decimal_fractions() {
        let x: Weight = "0.00001".parse().unwrap();
        assert_eq!(
            (x.num.clone(), x.den.clone()),
            (1u32.into(), 100_000u32.into())
        );
        let y: Weight = "1e-5".parse().unwrap();
        assert_eq!(x.num * &y.den, y.num * &x.den);
        assert_eq!("0.25".parse::<Weight>().unwrap().to_f64(), 0.25);
        assert_eq!("1".parse::<Weight>().unwrap().to_f64(), 1.0);
        for bad in ["0", "2", "-0.1", "x", "", "1e-999", "0.1.2", "1e"] {
            assert!(bad.parse::<Weight>().is_err(), "{bad}");
        }
    }

    #[test]
    fn e_and_ek_follow_the_formulas() {
        let v = NetworkValue {
            sides: [side(Some(3), &[2, 10]), side(Some(4), &[5, 7])],
        };
        assert_eq!(v.e().to_f64(), 4.0 / 3.0);
        let x: Weight = "0.1".parse().unwrap();
        // E_1B = 3 - 0.1*2 - 0.01*10 = 2.7; E_1W = 4 - 0.5 - 0.07 = 3.43.
        assert!((v.part(BLACK, 1, &x).unwrap() - 2.7).abs() < 1e-12);
        assert!((v.part(WHITE, 1, &x).unwrap() - 3.43).abs() < 1e-12);
        assert!((v.ek(1, &x).to_f64() - 3.43 / 2.7).abs() < 1e-12);
        // E_0 uses n_0 only.
        assert!((v.ek(0, &x).to_f64() - 3.5 / 2.8).abs() < 1e-12);
        // One more path of S_2 at x = 1e-5 is a difference of 1e-15: still seen.
        let x = Weight::paper();
        let a = NetworkValue {
            sides: [side(Some(3), &[4, 9, 100]), side(Some(3), &[4, 9, 100])],
        };
        let mut b = a.clone();
        b.sides[BLACK].counts[2] += 1u32;
        assert!(b.ek(2, &x) > a.ek(2, &x));
        assert_eq!(a.ek(2, &x), a.ek(2, &x));
        assert_eq!(a.ek(2, &x).to_f64(), 1.0);
    }

    #[test]
    fn finished_games_are_infinite_or_zero() {
        let black_won = NetworkValue {
            sides: [side(Some(1), &[1, 0]), side(None, &[0, 0])],
        };
        assert!(matches!(black_won.e(), Exact::Infinite));
        assert_eq!(black_won.ek(1, &Weight::paper()).to_f64(), f64::INFINITY);
        let white_won = NetworkValue {
            sides: [side(None, &[0, 0]), side(Some(1), &[1, 0])],
        };
        assert_eq!(white_won.e().to_f64(), 0.0);
        assert_eq!(white_won.ek(1, &Weight::paper()).to_f64(), 0.0);
        assert!(white_won.e() < black_won.e());
        // Too large an x drives a part below zero.
        let v = NetworkValue {
            sides: [side(Some(2), &[30]), side(Some(2), &[1])],
        };
        assert!(v.weight_too_large(0, &"0.1".parse().unwrap()));
        assert!(!v.weight_too_large(0, &Weight::paper()));
    }
}
