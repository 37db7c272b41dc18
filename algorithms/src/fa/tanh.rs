//! The hyperbolic tangent of the reinforcement-learning networks, as a
//! candle operation that the compiler vectorises: candle's own calls
//! libm's `tanhf` element by element, which took a third of a PPO run on
//! the benchmark's towers (three layers of 512 units a tower, two towers,
//! each row of each minibatch).
//!
//! Accurate to a few units in the last place of an f32: below 0.4 in
//! magnitude the Taylor series to x^13 (the next term is under 2e-9 of
//! the value there), above it (1 − e)/(1 + e) with e = exp(−2|x|) by
//! Cody and Waite's reduction and a degree-6 polynomial; past 9 the value
//! is ±1 in f32 anyway. Branch-free, so both forms are computed and one
//! kept. The gradient is 1 − tanh², from the result.

use candle_core::{CpuStorage, CustomOp1, Layout, Result, Shape, Tensor};

struct Tanh;

/// `tanh` of every element of `t` (an f32 tensor), differentiable.
pub fn tanh(t: &Tensor) -> Result<Tensor> {
    t.apply_op1(Tanh)
}

impl CustomOp1 for Tanh {
    fn name(&self) -> &'static str {
        "vectorised-tanh"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let CpuStorage::F32(data) = storage else {
            candle_core::bail!("{} takes f32 tensors", self.name());
        };
        // The layers' products are contiguous; anything else is refused
        // rather than read wrong.
        let Some((start, end)) = layout.contiguous_offsets() else {
            candle_core::bail!("{} takes contiguous tensors", self.name());
        };
        let mut out = data[start..end].to_vec();
        tanh_in_place(&mut out);
        Ok((CpuStorage::F32(out), layout.shape().clone()))
    }

    fn bwd(&self, _arg: &Tensor, res: &Tensor, grad_res: &Tensor) -> Result<Option<Tensor>> {
        let slope = res.sqr()?.affine(-1.0, 1.0)?;
        Ok(Some(grad_res.mul(&slope)?))
    }
}

/// `tanh` of every element, in place (the rollouts' own forward pass).
pub(crate) fn tanh_in_place(values: &mut [f32]) {
    for x in values {
        *x = tanh_f32(*x);
    }
}

/// exp(y) for y in [-87, 0]: y = n ln 2 + r with |r| ≤ ln 2 / 2, exp(r)
/// by its Taylor polynomial to r^6 (relative error under 2e-7), times 2^n
/// built in the exponent bits.
#[inline(always)]
fn exp_nonpositive(y: f32) -> f32 {
    // Adding and taking away 1.5 * 2^23 rounds to an integer.
    const ROUND: f32 = 12_582_912.0;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let shifted = y * std::f32::consts::LOG2_E + ROUND;
    let n = shifted - ROUND;
    let r = (y - n * LN2_HI) - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    let k = shifted.to_bits() as i32 - ROUND.to_bits() as i32;
    p * f32::from_bits(((k + 127) << 23) as u32)
}

#[inline(always)]
fn tanh_f32(x: f32) -> f32 {
    // Not `min`, which would take 9 for a NaN.
    let a = x.abs();
    let a = if a > 9.0 { 9.0 } else { a };
    let a2 = a * a;
    // tanh a = a − a³/3 + 2a⁵/15 − 17a⁷/315 + 62a⁹/2835 − 1382a¹¹/155925 + 21844a¹³/6081075.
    let series = a
        * (1.0
            + a2 * (-1.0 / 3.0
                + a2 * (2.0 / 15.0
                    + a2 * (-17.0 / 315.0
                        + a2 * (62.0 / 2835.0
                            + a2 * (-1382.0 / 155_925.0 + a2 * (21844.0 / 6_081_075.0)))))));
    let e = exp_nonpositive(-2.0 * a);
    let closed = (1.0 - e) / (1.0 + e);
    let t = if a < 0.4 { series } else { closed };
    t.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tangent_is_libms_to_a_few_units_in_the_last_place() {
        let mut worst = 0.0f64;
        let mut x = -12.0f32;
        while x < 12.0 {
            let want = f64::from(x).tanh();
            let got = f64::from(tanh_f32(x));
            let ulp = (want.abs() as f32).max(f32::MIN_POSITIVE);
            let ulp = f64::from(f32::from_bits(ulp.to_bits() + 1) - ulp);
            worst = worst.max((got - want).abs() / ulp);
            x += 1.0e-4;
        }
        assert!(worst < 4.0, "{worst} units in the last place");
        assert_eq!(tanh_f32(0.0), 0.0);
        assert_eq!(tanh_f32(100.0), 1.0);
        assert_eq!(tanh_f32(-100.0), -1.0);
        assert!(tanh_f32(f32::NAN).is_nan());
    }
}
