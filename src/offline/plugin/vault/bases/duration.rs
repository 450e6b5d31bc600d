//! Date arithmetic in Bases expressions (`vault/bases-duration.ts`, rules at its top): a date plus or minus a
//! duration string such as `"1M"`, `"4h"`, `"1 day"` or `"2w 3d"`. Years and months move the UTC calendar, the day
//! held to the last day of a shorter month; weeks and smaller units are fixed lengths of time.

const DAY_MS: i64 = 86_400_000;

/// `Duration`: whole months, then milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Duration {
    months: i64,
    ms: f64,
}

/// Each unit as written and its letter, longest spellings first (`PIECE`'s alternation order).
const UNITS: [(&str, char); 21] = [
    ("years", 'y'),
    ("year", 'y'),
    ("y", 'y'),
    ("months", 'M'),
    ("month", 'M'),
    ("M", 'M'),
    ("weeks", 'w'),
    ("week", 'w'),
    ("w", 'w'),
    ("days", 'd'),
    ("day", 'd'),
    ("d", 'd'),
    ("hours", 'h'),
    ("hour", 'h'),
    ("h", 'h'),
    ("minutes", 'm'),
    ("minute", 'm'),
    ("m", 'm'),
    ("seconds", 's'),
    ("second", 's'),
    ("s", 's'),
];

fn unit_at(rest: &str) -> Option<(char, usize)> {
    UNITS
        .iter()
        .find(|(written, _)| {
            rest.starts_with(written)
                && !rest[written.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic())
        })
        .map(|(written, unit)| (*unit, written.len()))
}

/// `parseDuration`: the duration `text` writes, or `None` when it is not one.
pub(crate) fn parse_duration(text: &str) -> Option<Duration> {
    let mut duration = Duration { months: 0, ms: 0.0 };
    let mut rest = text;
    let mut pieces = 0;
    loop {
        rest = rest.trim_start_matches([' ', '\t']);
        if rest.is_empty() {
            break;
        }
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            // JavaScript's `trim` ends a duration at any whitespace; anything else means it is not one.
            return crate::offline::js::js_trim(rest)
                .is_empty()
                .then_some(duration)
                .filter(|_| pieces > 0);
        }
        let count: f64 = rest[..digits].parse().ok()?;
        rest = rest[digits..].trim_start_matches([' ', '\t']);
        let (unit, length) = unit_at(rest)?;
        rest = &rest[length..];
        match unit {
            'y' => duration.months += count as i64 * 12,
            'M' => duration.months += count as i64,
            'w' => duration.ms += count * 604_800_000.0,
            'd' => duration.ms += count * 86_400_000.0,
            'h' => duration.ms += count * 3_600_000.0,
            'm' => duration.ms += count * 60_000.0,
            _ => duration.ms += count * 1000.0,
        }
        pieces += 1;
    }
    (pieces > 0).then_some(duration)
}

/// `shiftDate`: `ms` (a UTC time) moved by `duration`, forward for `sign` 1 and back for -1.
pub(crate) fn shift_date(ms: f64, duration: Duration, sign: i64) -> f64 {
    let mut shifted = ms;
    if duration.months != 0 {
        let whole = ms as i64;
        let days = whole.div_euclid(DAY_MS);
        let time_of_day = whole.rem_euclid(DAY_MS);
        let (year, month, day) = civil_from_days(days);
        let total = year * 12 + (month - 1) + sign * duration.months;
        let (year, month) = (total.div_euclid(12), total.rem_euclid(12) + 1);
        let day = day.min(days_in_month(year, month));
        shifted = (days_from_civil(year, month, day) * DAY_MS + time_of_day) as f64;
    }
    shifted + sign as f64 * duration.ms
}

fn days_in_month(year: i64, month: i64) -> i64 {
    let next = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    days_from_civil(next.0, next.1, 1) - days_from_civil(year, month, 1)
}

/// Days from 1970-01-01 (Howard Hinnant's `days_from_civil`); `month` 1-12.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The year, month (1-12) and day of a day count from 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEC_1_2024: f64 = 1_733_011_200_000.0;

    #[test]
    fn durations_parse_in_every_documented_spelling() {
        let day = Some(Duration {
            months: 0,
            ms: 86_400_000.0,
        });
        assert_eq!(parse_duration("1d"), day);
        assert_eq!(parse_duration("1 day"), day);
        assert_eq!(parse_duration(" 1 days "), day);
        assert_eq!(parse_duration("1M"), Some(Duration { months: 1, ms: 0.0 }));
        assert_eq!(
            parse_duration("1m"),
            Some(Duration {
                months: 0,
                ms: 60_000.0
            })
        );
        assert_eq!(
            parse_duration("2y 3M"),
            Some(Duration {
                months: 27,
                ms: 0.0
            })
        );
        assert_eq!(
            parse_duration("1 second"),
            Some(Duration {
                months: 0,
                ms: 1000.0
            })
        );
        for not in ["", "d", "1", "1 dayz", "one day", "1d x"] {
            assert_eq!(parse_duration(not), None, "{not:?}");
        }
    }

    #[test]
    fn months_keep_the_day_within_the_month() {
        let dec_1 = DEC_1_2024;
        let jan_1_2025 = dec_1 + 31.0 * 86_400_000.0;
        assert_eq!(
            shift_date(dec_1, parse_duration("1M").unwrap(), 1),
            jan_1_2025
        );
        assert_eq!(
            shift_date(jan_1_2025, parse_duration("1M").unwrap(), -1),
            dec_1
        );
        // 2024-01-31 + 1M is 2024-02-29 (a leap year), at the same time of day.
        let jan_31 = (days_from_civil(2024, 1, 31) * DAY_MS + 3_600_000) as f64;
        let feb_29 = (days_from_civil(2024, 2, 29) * DAY_MS + 3_600_000) as f64;
        assert_eq!(
            shift_date(jan_31, parse_duration("1 month").unwrap(), 1),
            feb_29
        );
        assert_eq!(
            civil_from_days(days_from_civil(1969, 12, 31)),
            (1969, 12, 31)
        );
    }
}
