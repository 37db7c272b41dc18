//! The number type of the streaming solvers' large arrays (regrets,
//! average weights, predictions): f64, or f32 at half the memory. The
//! arithmetic is always f64; only what is stored is rounded.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Names [`Precision::parse`] accepts.
pub const PRECISION_NAMES: [&str; 2] = ["f32", "f64"];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Precision {
    F32,
    #[default]
    F64,
}

impl Precision {
    pub fn parse(name: &str) -> Option<Precision> {
        match name {
            "f32" => Some(Precision::F32),
            "f64" => Some(Precision::F64),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }

    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }
}

/// A stored number: f32 or f64.
pub trait Real:
    Copy + Default + PartialEq + Send + Sync + std::fmt::Debug + Serialize + DeserializeOwned + 'static
{
    const PRECISION: Precision;
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
}

impl Real for f64 {
    const PRECISION: Precision = Precision::F64;
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x
    }
}

impl Real for f32 {
    const PRECISION: Precision = Precision::F32;
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}
