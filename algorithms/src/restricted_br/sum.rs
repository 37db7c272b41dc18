//! Compensated summation (Neumaier's variant of Kahan's): a best
//! response adds up to billions of reach-weighted utilities of both
//! signs, and the values are reported to 1e-12.

#[derive(Clone, Copy, Debug, Default)]
pub struct Sum {
    sum: f64,
    compensation: f64,
}

impl Sum {
    pub fn add(&mut self, x: f64) {
        let t = self.sum + x;
        // The low-order bits lost by `t`, from whichever term is smaller.
        if self.sum.abs() >= x.abs() {
            self.compensation += (self.sum - t) + x;
        } else {
            self.compensation += (x - t) + self.sum;
        }
        self.sum = t;
    }

    pub fn value(&self) -> f64 {
        self.sum + self.compensation
    }
}

#[cfg(test)]
mod tests {
    use super::Sum;

    #[test]
    fn small_terms_beside_large_ones_are_kept() {
        let mut s = Sum::default();
        for x in [1.0, 1e100, 1.0, -1e100] {
            s.add(x);
        }
        assert_eq!(s.value(), 2.0);
        let naive: f64 = [1.0, 1e100, 1.0, -1e100].iter().sum();
        assert_eq!(naive, 0.0);
    }
}
