//! Clock values as agents write them: epoch integers (nanoseconds in `OTel`,
//! anything from seconds to nanoseconds elsewhere), decimal strings, RFC
//! 3339 / ISO-8601 timestamps (parsed by chrono) and ISO-8601 durations
//! (`PT1.5S`; chrono has no duration parser, so that one is ours). Everything
//! becomes Unix epoch nanoseconds. No panics, no overflow: out-of-range
//! values are `None`.

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use serde_json::Value;

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

/// Offsets written `+02:00`, `+0200` or `+02` (`%#z`), after `T` or a space.
const WITH_OFFSET: [&str; 4] = [
    "%Y-%m-%dT%H:%M:%S%.f%#z",
    "%Y-%m-%d %H:%M:%S%.f%#z",
    "%Y-%m-%dT%H:%M%#z",
    "%Y-%m-%d %H:%M%#z",
];
/// No zone: taken as UTC.
const NAIVE: [&str; 4] = [
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M",
];

/// Parse an RFC 3339 / ISO-8601 timestamp with chrono:
/// `YYYY-MM-DD[THH:MM[:SS[.fff…]]][Z|±HH[:MM]]`, also with a space instead
/// of `T` and a comma before the fraction. A timestamp without a zone is
/// taken as UTC; one before 1970 is `None`.
pub(crate) fn parse_timestamp(s: &str) -> Option<u64> {
    let s = s.trim();
    // ISO 8601 allows `,` as the decimal sign (`12:00:00,5`); chrono wants `.`.
    let dotted;
    let s = match s.find(',') {
        Some(i) if i > 16 => {
            dotted = format!("{}.{}", &s[..i], &s[i + 1..]);
            dotted.as_str()
        }
        _ => s,
    };
    let utc = if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        t.to_utc()
    } else if let Some(t) = WITH_OFFSET
        .iter()
        .find_map(|f| DateTime::parse_from_str(s, f).ok())
    {
        t.to_utc()
    } else if let Some(t) = NAIVE
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
    {
        t.and_utc()
    } else {
        NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .ok()?
            .and_hms_opt(0, 0, 0)?
            .and_utc()
    };
    u64::try_from(utc.timestamp_nanos_opt()?).ok()
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
        // Offsets without a colon or without minutes, a comma fraction,
        // nanoseconds, a leap second, lowercase `t`/`z`.
        assert_eq!(
            parse_timestamp("2024-05-08T23:46:11.480777+0200"),
            Some(1_715_204_771_480_777_000)
        );
        assert_eq!(
            parse_timestamp("2024-05-08T23:46:11.480777+02"),
            Some(1_715_204_771_480_777_000)
        );
        assert_eq!(
            parse_timestamp("2024-05-08T21:46:11,5Z"),
            Some(1_715_204_771_500_000_000)
        );
        assert_eq!(
            parse_timestamp("2024-05-08t21:46:11.000000001z"),
            Some(1_715_204_771_000_000_001)
        );
        assert_eq!(
            parse_timestamp("2016-12-31T23:59:60Z"),
            Some(1_483_228_800_000_000_000)
        );
        assert_eq!(
            parse_timestamp("2024-05-08T21:46"),
            Some(1_715_204_760_000_000_000)
        );
        assert_eq!(parse_timestamp("2024-13-08"), None);
        assert_eq!(parse_timestamp(""), None);
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
