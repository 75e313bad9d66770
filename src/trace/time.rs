//! Clock values as agents write them: epoch integers (nanoseconds in `OTel`,
//! anything from seconds to nanoseconds elsewhere), decimal strings, RFC
//! 3339 / ISO-8601 timestamps and ISO-8601 durations (`PT1.5S`). Everything
//! becomes Unix epoch nanoseconds. No panics, no overflow: out-of-range
//! values are `None`.

use serde_json::Value;

const NANOS_PER_SECOND: i128 = 1_000_000_000;

/// How to read a bare number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Numeric {
    /// Always nanoseconds (OTLP, `OTel` SDK dumps).
    Nanos,
    /// Guess seconds, milliseconds, microseconds or nanoseconds by magnitude.
    Guess,
}

/// A clock value in JSON: number, decimal string or ISO-8601 string.
pub(crate) fn time_ns(value: &Value, numeric: Numeric) -> Option<u64> {
    match value {
        Value::Number(n) => match (n.as_u64(), numeric) {
            (Some(v), Numeric::Nanos) => Some(v),
            _ => n.as_f64().and_then(|f| number_ns(f, numeric)),
        },
        Value::String(s) => {
            let t = s.trim();
            if let Ok(v) = t.parse::<u64>() {
                return match numeric {
                    Numeric::Nanos => Some(v),
                    Numeric::Guess => number_ns(v as f64, numeric),
                };
            }
            if let Ok(f) = t.parse::<f64>() {
                return number_ns(f, numeric);
            }
            parse_timestamp(t)
        }
        _ => None,
    }
}

fn number_ns(f: f64, numeric: Numeric) -> Option<u64> {
    if !f.is_finite() || f < 0.0 {
        return None;
    }
    let factor = match numeric {
        Numeric::Nanos => 1.0,
        Numeric::Guess if f >= 1e17 => 1.0,
        Numeric::Guess if f >= 1e14 => 1e3,
        Numeric::Guess if f >= 1e11 => 1e6,
        Numeric::Guess => 1e9,
    };
    // Whole and fractional parts apart, so `1748855650.25` s is exact.
    let whole = f.trunc() * factor;
    let fraction = (f.fract() * factor).round();
    (whole + fraction < 1.8e19).then(|| whole as u64 + fraction as u64)
}

/// Parse `YYYY-MM-DD[THH:MM[:SS[.fff…]]][Z|±HH[:MM]]` (also with a space
/// instead of `T`). A timestamp without a zone is taken as UTC.
pub(crate) fn parse_timestamp(s: &str) -> Option<u64> {
    let b = s.trim().as_bytes();
    let year = digits(b, 0, 4)?;
    expect(b, 4, b'-')?;
    let month = digits(b, 5, 2)?;
    expect(b, 7, b'-')?;
    let day = digits(b, 8, 2)?;
    if !(1..=12).contains(&month) || !(1..=days_in_month(year, month)).contains(&day) {
        return None;
    }
    let mut seconds = days_from_civil(year, month, day) * 86_400;
    let mut nanos: i128 = 0;
    let mut i = 10;
    if i < b.len() && matches!(b[i], b'T' | b't' | b' ') {
        let hour = digits(b, i + 1, 2)?;
        expect(b, i + 3, b':')?;
        let minute = digits(b, i + 4, 2)?;
        i += 6;
        let mut second = 0;
        if b.get(i) == Some(&b':') {
            second = digits(b, i + 1, 2)?;
            i += 3;
            if b.get(i) == Some(&b'.') || b.get(i) == Some(&b',') {
                let start = i + 1;
                let end = start + b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
                nanos = fraction_nanos(&b[start..end])?;
                i = end;
            }
        }
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        seconds += hour * 3600 + minute * 60 + second;
    }
    match b.get(i) {
        None => {}
        Some(b'Z' | b'z') if i + 1 == b.len() => {}
        Some(sign @ (b'+' | b'-')) => {
            let hours = digits(b, i + 1, 2)?;
            let rest = &b[i + 3..];
            let minutes = match rest {
                [] => 0,
                [b':', ..] if rest.len() == 3 => digits(rest, 1, 2)?,
                _ if rest.len() == 2 => digits(rest, 0, 2)?,
                _ => return None,
            };
            let offset = hours * 3600 + minutes * 60;
            seconds += if *sign == b'+' { -offset } else { offset };
        }
        Some(_) => return None,
    }
    let total = i128::from(seconds) * NANOS_PER_SECOND + nanos;
    u64::try_from(total).ok()
}

/// Parse an ISO-8601 duration (`PT1.532S`, `PT2M3S`, `P1DT2H`, `P1W`) into
/// nanoseconds. Years and months have no fixed length and are rejected.
pub(crate) fn parse_duration(s: &str) -> Option<u64> {
    let rest = s.trim().strip_prefix(['P', 'p'])?;
    let mut total: u128 = 0;
    let mut in_time = false;
    let mut number = String::new();
    let mut any = false;
    for c in rest.chars() {
        match c.to_ascii_uppercase() {
            'T' if number.is_empty() && !in_time => in_time = true,
            '0'..='9' | '.' | ',' => number.push(if c == ',' { '.' } else { c }),
            unit => {
                let unit_ns: u128 = match (unit, in_time) {
                    ('W', false) => 7 * 86_400 * 1_000_000_000,
                    ('D', false) => 86_400 * 1_000_000_000,
                    ('H', true) => 3_600 * 1_000_000_000,
                    ('M', true) => 60 * 1_000_000_000,
                    ('S', true) => 1_000_000_000,
                    _ => return None,
                };
                total = total.checked_add(decimal_times(&number, unit_ns)?)?;
                number.clear();
                any = true;
            }
        }
    }
    if !number.is_empty() || !any {
        return None;
    }
    u64::try_from(total).ok()
}

/// `number × unit` for a decimal number, exact to the nanosecond.
fn decimal_times(number: &str, unit: u128) -> Option<u128> {
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let int: u128 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut value = int.checked_mul(unit)?;
    let frac = &frac[..frac.len().min(18)];
    if !frac.is_empty() {
        let f: u128 = frac.parse().ok()?;
        value = value.checked_add(f.checked_mul(unit)? / 10u128.pow(frac.len() as u32))?;
    }
    Some(value)
}

fn fraction_nanos(digits: &[u8]) -> Option<i128> {
    if digits.is_empty() {
        return None;
    }
    let mut nanos: i128 = 0;
    for (i, d) in digits.iter().take(9).enumerate() {
        nanos += i128::from(d - b'0') * 10i128.pow(8 - i as u32);
    }
    Some(nanos)
}

fn digits(b: &[u8], start: usize, len: usize) -> Option<i64> {
    let slice = b.get(start..start + len)?;
    slice.iter().try_fold(0i64, |acc, c| {
        c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
    })
}

fn expect(b: &[u8], at: usize, c: u8) -> Option<()> {
    (b.get(at) == Some(&c)).then_some(())
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn timestamps_parse_to_epoch_nanos() {
        assert_eq!(parse_timestamp("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(
            parse_timestamp("2024-05-08T21:46:11.480777Z"),
            Some(1_715_204_771_480_777_000)
        );
        assert_eq!(
            parse_timestamp("2024-05-08 23:46:11.480777+02:00"),
            Some(1_715_204_771_480_777_000)
        );
        assert_eq!(
            parse_timestamp("2024-05-08T21:46:11.480777"),
            Some(1_715_204_771_480_777_000)
        );
        assert_eq!(parse_timestamp("2000-02-29"), Some(951_782_400_000_000_000));
        assert_eq!(parse_timestamp("2001-02-29"), None);
        assert_eq!(parse_timestamp("1969-12-31T23:59:59Z"), None);
        assert_eq!(parse_timestamp("2024-05-08T25:00:00Z"), None);
        assert_eq!(parse_timestamp("2024-05-08T21:46:11Zjunk"), None);
    }

    #[test]
    fn durations_parse_exactly() {
        assert_eq!(parse_duration("PT1.532S"), Some(1_532_000_000));
        assert_eq!(parse_duration("PT2M3.000000001S"), Some(123_000_000_001));
        assert_eq!(parse_duration("P1DT1H"), Some(90_000_000_000_000));
        assert_eq!(parse_duration("PT0S"), Some(0));
        assert_eq!(parse_duration("P1M"), None);
        assert_eq!(parse_duration("PT"), None);
        assert_eq!(parse_duration("1.5"), None);
    }

    #[test]
    fn numbers_are_nanos_in_otel_and_guessed_elsewhere() {
        assert_eq!(
            time_ns(&json!(1_758_026_586_341_103_000_u64), Numeric::Nanos),
            Some(1_758_026_586_341_103_000)
        );
        assert_eq!(
            time_ns(&json!("1544712660000000000"), Numeric::Nanos),
            Some(1_544_712_660_000_000_000)
        );
        assert_eq!(
            time_ns(&json!(1_758_026_586.5), Numeric::Guess),
            Some(1_758_026_586_500_000_000)
        );
        assert_eq!(
            time_ns(&json!(1_748_855_650.25), Numeric::Guess),
            Some(1_748_855_650_250_000_000)
        );
        assert_eq!(
            time_ns(&json!(1_758_026_586_500_u64), Numeric::Guess),
            Some(1_758_026_586_500_000_000)
        );
        assert_eq!(
            time_ns(&json!("2025-09-16T12:43:06Z"), Numeric::Guess),
            Some(1_758_026_586_000_000_000)
        );
        assert_eq!(time_ns(&json!(-5), Numeric::Guess), None);
        assert_eq!(time_ns(&json!(true), Numeric::Guess), None);
    }
}
