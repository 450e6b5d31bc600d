//! Periodic notes (`vault/daily.ts`): the core Daily notes plugin's and the Periodic Notes plugin's settings, the
//! date a call names and the start of its period, and the note's path in moment.js's format tokens.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Span, ZonedDateTime};
use serde_json::{Value, json};

use crate::offline::js::js_trim;
use crate::offline::plugin::tools::{Context, ToolError};
use crate::offline::plugin::vault::paths::quote;

/// The Daily notes core plugin's settings, Obsidian's defaults filled in.
pub(crate) struct DailySettings {
    pub(crate) enabled: bool,
    pub(crate) format: String,
    pub(crate) folder: String,
    pub(crate) template: String,
}

impl DailySettings {
    pub(crate) fn to_json(&self) -> Value {
        json!({"enabled": self.enabled, "format": self.format, "folder": self.folder, "template": self.template})
    }
}

pub(crate) fn read_config_json(ctx: &Context<'_>, name: &str) -> Value {
    std::fs::read_to_string(ctx.root.join(ctx.config_dir).join(name))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null)
}

/// `dailyNoteSettings`.
pub(crate) fn daily_note_settings(ctx: &Context<'_>) -> DailySettings {
    let enabled = match read_config_json(ctx, "core-plugins.json") {
        Value::Array(ids) => ids.iter().any(|id| id == "daily-notes"),
        Value::Object(map) => map.get("daily-notes") == Some(&Value::Bool(true)),
        _ => true,
    };
    let options = read_config_json(ctx, "daily-notes.json");
    let option = |key: &str| {
        options
            .get(key)
            .and_then(Value::as_str)
            .map(|s| s.trim().to_string())
    };
    let format = option("format")
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| "YYYY-MM-DD".to_string());
    let folder = option("folder")
        .unwrap_or_default()
        .trim_matches('/')
        .to_string();
    DailySettings {
        enabled,
        format,
        folder,
        template: option("template").unwrap_or_default(),
    }
}

/// `PERIOD_SETTINGS`: for each period, Periodic Notes' key, its default format and the word messages use.
fn period_settings(period: &str) -> (&'static str, &'static str, &'static str) {
    match period {
        "week" => ("weekly", "gggg-[W]ww", "weekly"),
        "month" => ("monthly", "YYYY-MM", "monthly"),
        "quarter" => ("quarterly", "YYYY-[Q]Q", "quarterly"),
        "year" => ("yearly", "YYYY", "yearly"),
        _ => ("daily", "YYYY-MM-DD", "daily"),
    }
}

/// The periods a periodic note can cover (`PERIODS`).
pub(crate) const PERIODS: [&str; 5] = ["day", "week", "month", "quarter", "year"];

/// `periodicSettings`: Periodic Notes' settings when it is enabled and has the period turned on; the core Daily
/// notes settings for days; else its defaults. The word for the note ("daily", "weekly", …) comes with them.
pub(crate) fn periodic_settings(ctx: &Context<'_>, period: &str) -> (DailySettings, &'static str) {
    let (key, format, noun) = period_settings(period);
    let enabled = read_config_json(ctx, "community-plugins.json");
    if enabled
        .as_array()
        .is_some_and(|ids| ids.iter().any(|id| id == "periodic-notes"))
    {
        let saved = read_config_json(ctx, "plugins/periodic-notes/data.json");
        let options = &saved[key];
        if options.get("enabled") == Some(&Value::Bool(true)) {
            let text = |key: &str| {
                options
                    .get(key)
                    .and_then(Value::as_str)
                    .map(js_trim)
                    .unwrap_or("")
                    .to_string()
            };
            let chosen = text("format");
            return (
                DailySettings {
                    enabled: true,
                    format: if chosen.is_empty() {
                        format.to_string()
                    } else {
                        chosen
                    },
                    folder: text("folder").trim_matches('/').to_string(),
                    template: text("template"),
                },
                noun,
            );
        }
    }
    if period == "day" {
        return (daily_note_settings(ctx), noun);
    }
    let settings = DailySettings {
        enabled: false,
        format: format.to_string(),
        folder: String::new(),
        template: String::new(),
    };
    (settings, noun)
}

/// `periodStart`: the first day of the period holding `day` (weeks start on Sunday, moment's default locale).
pub(crate) fn period_start(day: Day, period: &str) -> Day {
    let first = |month: i8| Date::new(day.year(), month, 1).unwrap_or(day);
    match period {
        "week" => shifted(day, -weekday(day)),
        "month" => first(day.month()),
        "quarter" => first((day.month() - 1) / 3 * 3 + 1),
        "year" => first(1),
        _ => day,
    }
}

/// A calendar day, as moment holds one at local midnight.
pub(crate) type Day = Date;

/// Today in the local time zone (moment's default), on every OS.
fn today() -> Day {
    ZonedDateTime::now().date()
}

/// `day` moved by `days` (the dates a daily note can name are far from the calendar's ends).
fn shifted(day: Day, days: i64) -> Day {
    day.checked_add(Span::new().days(days)).unwrap_or(day)
}

/// `parseDailyDate`: today, yesterday, tomorrow or a strict YYYY-MM-DD.
pub(crate) fn parse_daily_date(date: &str) -> Result<Day, ToolError> {
    let text = js_trim(date);
    let today = today();
    match text.to_lowercase().as_str() {
        "" | "today" => return Ok(today),
        "yesterday" => return Ok(shifted(today, -1)),
        "tomorrow" => return Ok(shifted(today, 1)),
        _ => {}
    }
    let invalid = || {
        ToolError(format!(
            "date {} is not YYYY-MM-DD, today, yesterday or tomorrow",
            quote(date)
        ))
    };
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return Err(invalid());
    }
    let number = |range: std::ops::Range<usize>| -> Option<i16> {
        let part = &text[range];
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return Err(invalid());
    };
    let (Ok(month), Ok(day)) = (i8::try_from(month), i8::try_from(day)) else {
        return Err(invalid());
    };
    Date::new(year, month, day).map_err(|_| invalid())
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Sunday = 0, as moment's `d`.
fn weekday(day: Day) -> i64 {
    i64::from(day.weekday().to_sunday_zero_offset())
}

/// Locale week (moment's default `en`: weeks start on Sunday, the week holding January 1st is week 1).
fn locale_week(day: Day) -> (i64, i64) {
    let saturday = shifted(day, 6 - weekday(day));
    (
        (i64::from(saturday.day_of_year()) - 1) / 7 + 1,
        i64::from(saturday.year()),
    )
}

fn ordinal(n: i64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Formats a day with moment.js tokens (the date tokens a daily-note format uses; `[…]` is literal text).
pub(crate) fn format_day(day: Day, format: &str) -> String {
    const TOKENS: [&str; 27] = [
        "YYYYYY", "YYYY", "YY", "Y", "Qo", "Q", "MMMM", "MMM", "Mo", "MM", "M", "DDDD", "DDDo",
        "DDD", "Do", "DD", "D", "dddd", "ddd", "do", "dd", "d", "E", "e", "GGGG", "gggg", "WW",
    ];
    const MORE: [&str; 6] = ["Wo", "W", "ww", "wo", "w", "X"];
    let mut out = String::new();
    let mut rest = format;
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('[')
            && let Some(close) = inner.find(']')
        {
            out.push_str(&inner[..close]);
            rest = &inner[close + 1..];
            continue;
        }
        let token = TOKENS
            .iter()
            .chain(MORE.iter())
            .find(|token| rest.starts_with(**token));
        let Some(token) = token else {
            let c = rest.chars().next().expect("rest is not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        };
        let (week, week_year) = locale_week(day);
        let iso_week = day.iso_week_date();
        let (iso, iso_year) = (i64::from(iso_week.week()), iso_week.year());
        let (year, month, day_of_month) = (
            i64::from(day.year()),
            i64::from(day.month()),
            i64::from(day.day()),
        );
        let (day_of_year, weekday) = (i64::from(day.day_of_year()), weekday(day));
        let value = match *token {
            "YYYYYY" => format!("{}{:06}", if year < 0 { "-" } else { "+" }, year.abs()),
            "YYYY" => format!("{year:04}"),
            "YY" => format!("{:02}", year.rem_euclid(100)),
            "Y" => year.to_string(),
            "Q" => ((month - 1) / 3 + 1).to_string(),
            "Qo" => ordinal((month - 1) / 3 + 1),
            "MMMM" => MONTHS[month as usize - 1].to_string(),
            "MMM" => MONTHS[month as usize - 1][..3].to_string(),
            "Mo" => ordinal(month),
            "MM" => format!("{month:02}"),
            "M" => month.to_string(),
            "DDDD" => format!("{day_of_year:03}"),
            "DDDo" => ordinal(day_of_year),
            "DDD" => day_of_year.to_string(),
            "Do" => ordinal(day_of_month),
            "DD" => format!("{day_of_month:02}"),
            "D" => day_of_month.to_string(),
            "dddd" => WEEKDAYS[weekday as usize].to_string(),
            "ddd" => WEEKDAYS[weekday as usize][..3].to_string(),
            "dd" => WEEKDAYS[weekday as usize][..2].to_string(),
            "do" => ordinal(weekday),
            "d" | "e" => weekday.to_string(),
            "E" => ((weekday + 6) % 7 + 1).to_string(),
            "GGGG" => format!("{iso_year:04}"),
            "gggg" => format!("{week_year:04}"),
            "WW" => format!("{iso:02}"),
            "Wo" => ordinal(iso),
            "W" => iso.to_string(),
            "ww" => format!("{week:02}"),
            "wo" => ordinal(week),
            "w" => week.to_string(),
            // moment's `X` is the local midnight that starts the day, in seconds.
            "X" => day.to_zoned_datetime(TimeZone::system()).map_or_else(
                |_| String::new(),
                |midnight| midnight.timestamp().as_second().to_string(),
            ),
            _ => String::new(),
        };
        out.push_str(&value);
        rest = &rest[token.len()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> Day {
        parse_daily_date(text).unwrap()
    }

    #[test]
    fn dates_are_strict() {
        assert_eq!(day("2024-02-29"), Date::constant(2024, 2, 29));
        assert!(parse_daily_date("2023-02-29").is_err());
        assert!(parse_daily_date("2024-2-9").is_err());
        assert!(
            parse_daily_date("someday")
                .unwrap_err()
                .0
                .contains("is not YYYY-MM-DD")
        );
        assert_eq!(shifted(day("today"), -1), day("yesterday"));
        assert_eq!(shifted(day("today"), 1), day("tomorrow"));
        assert_eq!(day("  TODAY "), ZonedDateTime::now().date());
    }

    #[test]
    fn periods_start_as_moment_starts_them() {
        assert_eq!(period_start(day("2026-12-01"), "week"), day("2026-11-29"));
        assert_eq!(period_start(day("2026-11-29"), "week"), day("2026-11-29"));
        assert_eq!(period_start(day("2026-12-01"), "month"), day("2026-12-01"));
        assert_eq!(
            period_start(day("2026-08-31"), "quarter"),
            day("2026-07-01")
        );
        assert_eq!(period_start(day("2026-08-31"), "year"), day("2026-01-01"));
        assert_eq!(period_start(day("2026-08-31"), "day"), day("2026-08-31"));
        assert_eq!(
            format_day(period_start(day("2027-01-01"), "week"), "gggg-[W]ww"),
            "2027-W01"
        );
    }

    #[test]
    fn moment_tokens() {
        let d = day("2026-03-14");
        assert_eq!(format_day(d, "YYYY-MM-DD"), "2026-03-14");
        assert_eq!(
            format_day(d, "dddd, MMMM Do YYYY"),
            "Saturday, March 14th 2026"
        );
        assert_eq!(
            format_day(d, "[Week] WW gggg-[W]ww ddd D/M/YY"),
            "Week 11 2026-W11 Sat 14/3/26"
        );
        assert_eq!(format_day(day("2027-01-01"), "GGGG-[W]WW"), "2026-W53");
        assert_eq!(format_day(d, "DDDD Qo"), "073 1st");
        assert_eq!(format_day(day("2026-01-01"), "gggg-ww e E"), "2026-01 4 4");
        assert_eq!(
            format_day(day("2021-01-02"), "gggg-[W]ww GGGG-[W]WW"),
            "2021-W01 2020-W53"
        );
    }
}
