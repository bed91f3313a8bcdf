//! C's `%g` number formatting, so our statistics block reads exactly like
//! the reference's `printf("%g")` / `printf("%.11g")` output.
//!
//! `%.Pg` (P significant digits, 0 meaning 1): let X be the decimal
//! exponent of the value after rounding to P significant digits. If
//! `-4 <= X < P` the value is printed in fixed notation with `P - 1 - X`
//! decimals, otherwise in exponent notation with `P - 1` decimals and an
//! exponent of at least two digits (`e+06`, `e-05`). Trailing zeros of the
//! fraction, and a trailing decimal point, are then removed.

/// `printf("%g", x)`: 6 significant digits.
pub fn g(x: f64) -> String {
    g_prec(x, 6)
}

/// `printf("%.{precision}g", x)`.
pub fn g_prec(x: f64, precision: usize) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let p = precision.max(1);
    // Rust's `{:e}` rounds correctly to the requested digits, like glibc;
    // its exponent is that of the rounded value.
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci
        .split_once('e')
        .expect("`{:e}` output always has an exponent");
    let exp: i64 = exp.parse().expect("`{:e}` exponent is an integer");
    if exp < -4 || exp >= p as i64 {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.unsigned_abs())
    } else {
        let decimals = (p as i64 - 1 - exp) as usize;
        strip_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

/// Drops trailing fractional zeros and a trailing point: "1.500" -> "1.5", "2.0" -> "2".
fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_notation_in_range() {
        assert_eq!(g(0.0), "0");
        assert_eq!(g(-0.0), "-0");
        assert_eq!(g(1.0), "1");
        assert_eq!(g(0.5), "0.5");
        assert_eq!(g(123456.0), "123456");
        assert_eq!(g(12345.67), "12345.7");
        assert_eq!(g(0.0001), "0.0001");
        assert_eq!(g(0.000123456789), "0.000123457");
        assert_eq!(g(-2.5), "-2.5");
        assert_eq!(g(1.23456789), "1.23457");
        assert_eq!(g(100.0), "100");
    }

    #[test]
    fn exponent_notation_out_of_range() {
        assert_eq!(g(1234567.0), "1.23457e+06");
        assert_eq!(g(1e6), "1e+06");
        assert_eq!(g(0.00001), "1e-05");
        assert_eq!(g(0.0000123456), "1.23456e-05");
        assert_eq!(g(1.5e100), "1.5e+100");
        assert_eq!(g(2.2250738585072014e-308), "2.22507e-308");
        assert_eq!(g(-4.2e-7), "-4.2e-07");
        assert_eq!(g(155_000_000.0), "1.55e+08");
    }

    #[test]
    fn rounding_can_move_the_exponent() {
        // 999999.5 rounds to 1e+06 at 6 digits: the exponent after rounding decides.
        assert_eq!(g(999999.5), "1e+06");
        assert_eq!(g(999999.4), "999999");
        assert_eq!(g(0.000099999995), "0.0001");
        assert_eq!(g(9.9999996e-5), "0.0001");
    }

    #[test]
    fn precision_11_like_nedge() {
        assert_eq!(g_prec(65327.0, 11), "65327");
        assert_eq!(g_prec(1073741824.0, 11), "1073741824");
        assert_eq!(g_prec(274877906944.0, 11), "2.7487790694e+11");
        assert_eq!(g_prec(16239.25, 11), "16239.25");
        assert_eq!(g_prec(0.0, 11), "0");
        assert_eq!(g_prec(1.0 / 3.0, 11), "0.33333333333");
    }

    #[test]
    fn precision_zero_means_one_and_specials() {
        assert_eq!(g_prec(2.7, 0), "3");
        assert_eq!(g_prec(25.0, 1), "2e+01"); // exact tie: to even, as glibc
        assert_eq!(g(f64::INFINITY), "inf");
        assert_eq!(g(f64::NEG_INFINITY), "-inf");
        assert_eq!(g(f64::NAN), "nan");
    }
}
