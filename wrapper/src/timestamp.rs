//! ISO 8601 timestamps to and from unix milliseconds, as transcripts write
//! them (`2025-01-31T12:00:00.123Z`) and as the command line accepts them.
//!
//! A small parser rather than a date crate: transcripts only use the
//! calendar-date form, in UTC or with a numeric offset.

use crate::{Error, Result};

/// Parses an ISO 8601 date or date-time into unix milliseconds.
///
/// Accepted: `YYYY-MM-DD`, then optionally `T` (or a space) and `HH:MM`,
/// `:SS`, a fraction of any length (cut to milliseconds), and `Z`, `±HH:MM`
/// or `±HHMM`. Without an offset the time is UTC; a date alone is its
/// midnight.
///
/// # Example
///
/// ```
/// use session_search::timestamp::parse_iso8601;
///
/// assert_eq!(parse_iso8601("1970-01-02")?, 86_400_000);
/// assert_eq!(parse_iso8601("2023-11-14T22:13:20.001Z")?, 1_700_000_000_001);
/// assert_eq!(parse_iso8601("2023-11-15T00:13:20+02:00")?, 1_700_000_000_000);
/// assert!(parse_iso8601("2023-02-30").is_err());
/// # Ok::<(), session_search::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::InvalidTimestamp`] naming the text when it is not such a date.
pub fn parse_iso8601(text: &str) -> Result<i64> {
    parse(text.trim()).ok_or_else(|| Error::InvalidTimestamp(text.to_owned()))
}

/// Formats unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).
///
/// # Example
///
/// ```
/// use session_search::timestamp::format_iso8601;
///
/// assert_eq!(format_iso8601(1_700_000_000_001), "2023-11-14T22:13:20.001Z");
/// assert_eq!(format_iso8601(-1), "1969-12-31T23:59:59.999Z");
/// ```
pub fn format_iso8601(unix_ms: i64) -> String {
    let days = unix_ms.div_euclid(MS_PER_DAY);
    let ms = unix_ms.rem_euclid(MS_PER_DAY);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

const MS_PER_DAY: i64 = 86_400_000;

/// A cursor over ASCII text that reads fixed-width numbers.
struct Cursor<'a> {
    rest: &'a [u8],
}

impl Cursor<'_> {
    fn digits(&mut self, width: usize) -> Option<i64> {
        let (head, rest) = self.rest.split_at_checked(width)?;
        if !head.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.rest = rest;
        Some(head.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
    }

    fn eat(&mut self, byte: u8) -> bool {
        match self.rest.split_first() {
            Some((&b, rest)) if b == byte => {
                self.rest = rest;
                true
            }
            _ => false,
        }
    }
}

fn parse(text: &str) -> Option<i64> {
    let mut c = Cursor {
        rest: text.as_bytes(),
    };
    let year = c.digits(4)?;
    c.eat(b'-').then_some(())?;
    let month = c.digits(2)?;
    c.eat(b'-').then_some(())?;
    let day = c.digits(2)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut ms = days_from_civil(year, month, day) * MS_PER_DAY;
    if c.rest.is_empty() {
        return Some(ms);
    }
    if !(c.eat(b'T') || c.eat(b't') || c.eat(b' ')) {
        return None;
    }
    let hour = c.digits(2)?;
    c.eat(b':').then_some(())?;
    let minute = c.digits(2)?;
    let second = if c.eat(b':') { c.digits(2)? } else { 0 };
    // A leap second (60) counts as the last second of its minute.
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    ms += (hour * 3600 + minute * 60 + second.min(59)) * 1000;
    if c.eat(b'.') || c.eat(b',') {
        let digits = c.rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        let (fraction, rest) = c.rest.split_at(digits);
        ms += fraction
            .iter()
            .chain(std::iter::repeat(&b'0'))
            .take(3)
            .fold(0, |n, d| n * 10 + i64::from(d - b'0'));
        c.rest = rest;
    }
    let sign = match c.rest.first() {
        None => return Some(ms),
        Some(b'Z' | b'z') if c.rest.len() == 1 => return Some(ms),
        Some(b'+') => -1,
        Some(b'-') => 1,
        Some(_) => return None,
    };
    c.rest = &c.rest[1..];
    let offset_hours = c.digits(2)?;
    c.eat(b':');
    let offset_minutes = c.digits(2)?;
    if !c.rest.is_empty() || offset_hours > 23 || offset_minutes > 59 {
        return None;
    }
    Some(ms + sign * (offset_hours * 60 + offset_minutes) * 60_000)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date. Years are counted
/// from March so that the leap day ends the year; 400-year eras repeat.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The inverse of [`days_from_civil`].
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = (shifted_month + 2) % 12 + 1;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_of_the_same_instant() {
        for text in [
            "2026-01-21T20:53:24.199Z",
            "2026-01-21T20:53:24.199",
            "2026-01-21 20:53:24.1994Z",
            "2026-01-21T21:53:24.199+01:00",
            "2026-01-21T19:23:24.199-0130",
            "2026-01-21t20:53:24,199z",
        ] {
            assert_eq!(parse_iso8601(text).unwrap(), 1_769_028_804_199, "{text}");
        }
        assert_eq!(
            parse_iso8601("2026-01-21T20:53Z").unwrap(),
            1_769_028_780_000
        );
    }

    #[test]
    fn round_trips_over_four_centuries_of_days() {
        for days in (-146_097 * 2..146_097 * 2).step_by(37) {
            let ms = days * MS_PER_DAY + 45_296_789;
            let text = format_iso8601(ms);
            assert_eq!(parse_iso8601(&text).unwrap(), ms, "{text}");
        }
    }

    #[test]
    fn calendar_rules() {
        assert!(parse_iso8601("2024-02-29").is_ok());
        assert!(parse_iso8601("2000-02-29").is_ok());
        assert!(parse_iso8601("1900-02-29").is_err());
        assert!(parse_iso8601("2023-02-29").is_err());
        assert!(parse_iso8601("2023-04-31").is_err());
        assert_eq!(
            parse_iso8601("2016-12-31T23:59:60Z").unwrap(),
            parse_iso8601("2016-12-31T23:59:59Z").unwrap()
        );
    }

    #[test]
    fn rejects_what_is_not_a_date() {
        for text in [
            "",
            "yesterday",
            "2023",
            "2023-1-01",
            "2023-13-01",
            "2023-00-10",
            "2023-01-01T24:00",
            "2023-01-01T12",
            "2023-01-01T12:00:00.",
            "2023-01-01T12:00:00Zjunk",
            "2023-01-01T12:00:00+1",
            "2023-01-01T12:00:00+25:00",
            "２０２３-01-01",
            "2023-01-01T12:00:00\u{0}",
        ] {
            let err = parse_iso8601(text).unwrap_err();
            assert!(err.to_string().contains(&format!("{text:?}")), "{err}");
        }
    }
}
