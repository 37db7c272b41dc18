//! Amounts of memory as messages print them. Estimates of games far too
//! large to build reach 10^40 bytes and more: printed with a fixed number
//! of decimals they become 40-digit numbers nobody can read, so past a
//! petabyte the figure goes to scientific notation.

/// `bytes` as "512.0 MB", "8.6 GB", "12.0 TB", or "4.2e17 GB" past a
/// petabyte.
pub fn readable_bytes(bytes: f64) -> String {
    if !bytes.is_finite() {
        return "more bytes than a number holds".to_string();
    }
    if bytes < 1e9 {
        format!("{:.1} MB", bytes / 1e6)
    } else if bytes < 1e12 {
        format!("{:.1} GB", bytes / 1e9)
    } else if bytes < 1e15 {
        format!("{:.1} TB", bytes / 1e12)
    } else {
        format!("{:.1e} GB", bytes / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_their_unit_and_huge_ones_in_scientific_notation() {
        assert_eq!(readable_bytes(1.5e6), "1.5 MB");
        assert_eq!(readable_bytes(8.6e9), "8.6 GB");
        assert_eq!(readable_bytes(999.9e9), "999.9 GB");
        assert_eq!(readable_bytes(2.5e12), "2.5 TB");
        // The estimate of 5x5 Dark Hex's compiled tree.
        assert_eq!(readable_bytes(3.2727787813606e49), "3.3e40 GB");
        assert_eq!(readable_bytes(4.217077509855866e26), "4.2e17 GB");
        assert_eq!(
            readable_bytes(f64::INFINITY),
            "more bytes than a number holds"
        );
    }
}
