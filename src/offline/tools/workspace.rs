//! `recent_files`, `daily_note` (read only) and `batch` (plugin: `src/tools/workspace.ts`, `src/tools/batch.ts`,
//! `src/vault/daily.ts`). Daily-note settings are read from the config folder the way Obsidian's core plugin keeps
//! them (`daily-notes.json`, `core-plugins.json`); "recently opened" comes from `workspace.json`, where Obsidian
//! saves its last open files.

use serde_json::{Map, Value, json};

use super::super::paths::{ToolError, is_in_config_dir, quote};
use super::super::text::{cut_chars, split_lines, utf16_len};
use super::super::vault::js_cmp;
use super::read::render_read;
use super::{Args, Context, Output, civil_from_days, iso_time};

pub(super) fn recent_files(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let source = args.choice("source", &["modified", "opened"], "modified")?;
    let limit = args.limit(20)?;
    if source == "opened" {
        let files: Vec<Value> = last_open_files(ctx)
            .iter()
            .filter_map(|path| ctx.file(path))
            .filter(|file| !is_in_config_dir(&file.path, ctx.config_dir))
            .take(limit)
            .map(|file| json!({"path": file.path, "mtime": iso_time(file.mtime)}))
            .collect();
        return Ok(Output::Json(json!({"source": "opened", "files": files})));
    }
    let mut notes: Vec<&super::super::vault::FileEntry> = ctx
        .snapshot
        .markdown_files()
        .filter(|file| !is_in_config_dir(&file.path, ctx.config_dir))
        .collect();
    notes.sort_by(|a, b| b.mtime.cmp(&a.mtime).then_with(|| js_cmp(&a.path, &b.path)));
    let files: Vec<Value> = notes
        .iter()
        .take(limit)
        .map(|file| json!({"path": file.path, "mtime": iso_time(file.mtime)}))
        .collect();
    Ok(Output::Json(json!({
        "truncated": notes.len() > limit,
        "source": "modified",
        "files": files,
        "total": notes.len(),
    })))
}

/// Obsidian's recently opened files, as it saves them in `<config>/workspace.json`.
fn last_open_files(ctx: &Context<'_>) -> Vec<String> {
    let text = std::fs::read_to_string(ctx.root.join(ctx.config_dir).join("workspace.json"))
        .unwrap_or_default();
    let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    value["lastOpenFiles"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The Daily notes core plugin's settings, Obsidian's defaults filled in.
pub(crate) struct DailySettings {
    enabled: bool,
    format: String,
    folder: String,
    template: String,
}

impl DailySettings {
    pub(crate) fn to_json(&self) -> Value {
        json!({"enabled": self.enabled, "format": self.format, "folder": self.folder, "template": self.template})
    }
}

fn read_config_json(ctx: &Context<'_>, name: &str) -> Value {
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

/// A calendar day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Day {
    year: i64,
    month: u32,
    day: u32,
}

impl Day {
    fn days(self) -> i64 {
        let (y, m, d) = (
            self.year - i64::from(self.month <= 2),
            i64::from(self.month),
            i64::from(self.day),
        );
        let era = y.div_euclid(400);
        let yoe = y.rem_euclid(400);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    fn from_days(days: i64) -> Day {
        let (year, month, day) = civil_from_days(days);
        Day { year, month, day }
    }

    fn weekday(self) -> i64 {
        (self.days() + 4).rem_euclid(7)
    }

    fn day_of_year(self) -> i64 {
        self.days()
            - Day {
                year: self.year,
                month: 1,
                day: 1,
            }
            .days()
            + 1
    }
}

/// Today in the local time zone (moment's default).
fn today() -> Day {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    Day::from_days((now + local_offset_seconds(now)).div_euclid(86_400))
}

#[cfg(unix)]
fn local_offset_seconds(now: i64) -> i64 {
    // SAFETY: localtime_r writes into the `tm` we own and reads the time value we pass.
    unsafe {
        let time: libc::time_t = now as libc::time_t;
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&time, &mut tm).is_null() {
            return 0;
        }
        tm.tm_gmtoff as i64
    }
}

#[cfg(not(unix))]
fn local_offset_seconds(_now: i64) -> i64 {
    0
}

/// `parseDailyDate`: today, yesterday, tomorrow or a strict YYYY-MM-DD.
fn parse_daily_date(date: &str) -> Result<Day, ToolError> {
    let word = super::super::text::js_trim(date).to_lowercase();
    let today = today();
    match word.as_str() {
        "" | "today" => return Ok(today),
        "yesterday" => return Ok(Day::from_days(today.days() - 1)),
        "tomorrow" => return Ok(Day::from_days(today.days() + 1)),
        _ => {}
    }
    let invalid = || {
        ToolError(format!(
            "date {} is not YYYY-MM-DD, today, yesterday or tomorrow",
            quote(date)
        ))
    };
    let text = super::super::text::js_trim(date);
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return Err(invalid());
    }
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = &text[range];
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
        return Err(invalid());
    };
    let candidate = Day {
        year,
        month: month as u32,
        day: day as u32,
    };
    if !(1..=12).contains(&month) || day < 1 || Day::from_days(candidate.days()) != candidate {
        return Err(invalid());
    }
    Ok(candidate)
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

/// ISO week number and week-year.
fn iso_week(day: Day) -> (i64, i64) {
    let weekday = (day.weekday() + 6) % 7; // Monday = 0
    let thursday = Day::from_days(day.days() - weekday + 3);
    ((thursday.day_of_year() - 1) / 7 + 1, thursday.year)
}

/// Locale week (moment's default `en`: weeks start on Sunday, the week holding January 1st is week 1).
fn locale_week(day: Day) -> (i64, i64) {
    let saturday = Day::from_days(day.days() - day.weekday() + 6);
    ((saturday.day_of_year() - 1) / 7 + 1, saturday.year)
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
fn format_day(day: Day, format: &str) -> String {
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
        let (week, _) = locale_week(day);
        let (iso, iso_year) = iso_week(day);
        let month = i64::from(day.month);
        let value = match *token {
            "YYYYYY" => format!(
                "{}{:06}",
                if day.year < 0 { "-" } else { "+" },
                day.year.abs()
            ),
            "YYYY" => format!("{:04}", day.year),
            "YY" => format!("{:02}", day.year.rem_euclid(100)),
            "Y" => day.year.to_string(),
            "Q" => ((month - 1) / 3 + 1).to_string(),
            "Qo" => ordinal((month - 1) / 3 + 1),
            "MMMM" => MONTHS[day.month as usize - 1].to_string(),
            "MMM" => MONTHS[day.month as usize - 1][..3].to_string(),
            "Mo" => ordinal(month),
            "MM" => format!("{month:02}"),
            "M" => month.to_string(),
            "DDDD" => format!("{:03}", day.day_of_year()),
            "DDDo" => ordinal(day.day_of_year()),
            "DDD" => day.day_of_year().to_string(),
            "Do" => ordinal(i64::from(day.day)),
            "DD" => format!("{:02}", day.day),
            "D" => day.day.to_string(),
            "dddd" => WEEKDAYS[day.weekday() as usize].to_string(),
            "ddd" => WEEKDAYS[day.weekday() as usize][..3].to_string(),
            "dd" => WEEKDAYS[day.weekday() as usize][..2].to_string(),
            "do" => ordinal(day.weekday()),
            "d" | "e" => day.weekday().to_string(),
            "E" => ((day.weekday() + 6) % 7 + 1).to_string(),
            "GGGG" => format!("{iso_year:04}"),
            "gggg" => format!("{:04}", locale_week(day).1),
            "WW" => format!("{iso:02}"),
            "Wo" => ordinal(iso),
            "W" => iso.to_string(),
            "ww" => format!("{week:02}"),
            "wo" => ordinal(week),
            "w" => week.to_string(),
            "X" => (day.days() * 86_400).to_string(),
            _ => String::new(),
        };
        out.push_str(&value);
        rest = &rest[token.len()..];
    }
    out
}

pub(super) fn daily_note(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let date = args.string("date", "today", 0, 40)?;
    let max_chars = args.max_chars()?;
    let settings = daily_note_settings(ctx);
    let day = parse_daily_date(&date)?;
    let name = format_day(day, &settings.format);
    let raw = if settings.folder.is_empty() {
        format!("{name}.md")
    } else {
        format!("{}/{name}.md", settings.folder)
    };
    let path = new_note_path(ctx, &raw, "daily note path")?;
    if ctx.snapshot.is_folder(&path) {
        return Err(ToolError(format!("{path} is a folder, not a daily note")));
    }
    let Some(file) = ctx.file(&path) else {
        return Err(ToolError(format!(
            "no daily note for {} (it would be {}); create_daily_note creates it",
            format_day(day, "YYYY-MM-DD"),
            quote(&path)
        )));
    };
    let text = ctx.text_of(file)?;
    let lines = split_lines(&text).len();
    Ok(render_read(&file.path, &text, 0, lines, max_chars, None))
}

/// `newNotePath`: a vault path for a note about to exist.
fn new_note_path(ctx: &Context<'_>, raw: &str, what: &str) -> Result<String, ToolError> {
    if super::super::text::js_trim(raw).ends_with('/') {
        return Err(ToolError(format!(
            "{what} {} ends with \"/\": give the note's file name",
            quote(raw)
        )));
    }
    let mut path = ctx.clean(super::super::text::js_trim(raw), what)?;
    if path.is_empty() {
        return Err(ToolError(format!("{what} is empty")));
    }
    if !path.to_lowercase().ends_with(".md") {
        path.push_str(".md");
    }
    if path.contains(['*', '"', '<', '>', ':', '|', '?']) {
        return Err(ToolError(format!(
            "{what} {}: Obsidian file and folder names cannot contain * \" < > : | ?",
            quote(raw)
        )));
    }
    let name = path.rsplit('/').next().unwrap_or(&path);
    if name.contains(['[', ']', '#', '^']) {
        return Err(ToolError(format!(
            "{what} {}: a note name cannot contain [ ] # ^ (links could not reach it)",
            quote(raw)
        )));
    }
    if is_in_config_dir(&path, ctx.config_dir) {
        return Err(ToolError(format!(
            "{what} {} is inside the config folder",
            quote(raw)
        )));
    }
    ctx.assert_inside(&path)?;
    Ok(path)
}

const MAX_BATCH_CALLS: usize = 8;
const MIN_CALL_BUDGET: usize = 100;
/// Room left for a result's own framing (read header, JSON envelope) when a call's max_chars is lowered.
const FRAMING_RESERVE: usize = 600;
/// The plugin's batchable tools: the read-only tools of these groups, in its order.
const BATCHABLE: [&str; 15] = [
    "vault_info",
    "list_files",
    "read_note",
    "note_metadata",
    "outline",
    "search",
    "backlinks",
    "outgoing_links",
    "unresolved_links",
    "orphans",
    "tags",
    "files_by_tag",
    "active_note",
    "recent_files",
    "daily_note",
];

pub(super) fn batch(ctx: &Context<'_>, args: &Args<'_>) -> Result<Output, ToolError> {
    let max_chars = args.max_chars()?;
    let calls = match args.raw("calls") {
        Some(Value::Array(calls)) if (1..=MAX_BATCH_CALLS).contains(&calls.len()) => calls.clone(),
        Some(Value::Array(calls)) if calls.is_empty() => {
            return Err(invalid_batch(
                "calls",
                "Too small: expected array to have >=1 items",
            ));
        }
        Some(Value::Array(_)) => {
            return Err(invalid_batch(
                "calls",
                "Too big: expected array to have <=8 items",
            ));
        }
        Some(other) => {
            return Err(invalid_batch(
                "calls",
                &super::args::expected("array", other),
            ));
        }
        None => {
            return Err(invalid_batch(
                "calls",
                "Invalid input: expected array, received undefined",
            ));
        }
    };
    let mut parsed = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        let tool = match call.get("tool") {
            Some(Value::String(tool)) if !tool.is_empty() => tool.clone(),
            Some(Value::String(_)) => {
                return Err(invalid_batch(
                    &format!("calls.{index}.tool"),
                    "Too small: expected string to have >=1 characters",
                ));
            }
            other => {
                return Err(invalid_batch(
                    &format!("calls.{index}.tool"),
                    &super::args::expected("string", other.unwrap_or(&Value::Null)),
                ));
            }
        };
        let arguments = match call.get("arguments") {
            None => json!({}),
            Some(Value::Object(map)) => Value::Object(map.clone()),
            Some(other) => {
                return Err(invalid_batch(
                    &format!("calls.{index}.arguments"),
                    &super::args::expected("record", other),
                ));
            }
        };
        parsed.push((tool, arguments));
    }
    let mut results = Vec::new();
    let mut not_run = Vec::new();
    let mut used = 0;
    let mut truncated = false;
    for (tool, mut arguments) in parsed {
        let remaining = max_chars.saturating_sub(used);
        if remaining < MIN_CALL_BUDGET {
            results.push(json!({"tool": tool, "ok": false, "error": "not run: the batch's max_chars budget is used up"}));
            not_run.push(json!({"tool": tool, "arguments": arguments}));
            truncated = true;
            continue;
        }
        if !BATCHABLE.contains(&tool.as_str()) {
            let reason = if tool == "batch" {
                "batch cannot be nested".to_string()
            } else {
                format!(
                    "{} is not a read-only tool (batch runs only: {})",
                    quote(&tool),
                    BATCHABLE.join(", ")
                )
            };
            results.push(json!({"tool": tool, "ok": false, "error": reason}));
            continue;
        }
        let takes_max_chars = matches!(
            tool.as_str(),
            "list_files"
                | "read_note"
                | "search"
                | "backlinks"
                | "files_by_tag"
                | "active_note"
                | "daily_note"
        );
        if takes_max_chars {
            let asked = match arguments.get("max_chars") {
                None => Some(20_000),
                Some(value) => value
                    .as_u64()
                    .filter(|n| (100..=200_000).contains(n))
                    .map(|n| n as usize),
            };
            if let Some(asked) = asked {
                arguments["max_chars"] = json!(
                    asked
                        .min(remaining.saturating_sub(FRAMING_RESERVE))
                        .max(MIN_CALL_BUDGET)
                );
            }
        }
        let outcome = if tool == "active_note" {
            Err(ToolError(super::needs_obsidian(&tool)))
        } else {
            super::run(ctx, &tool, arguments)
        };
        match outcome {
            Ok(output) => {
                let text = output.text();
                let length = utf16_len(&text);
                let cut = length > remaining;
                if cut {
                    results.push(json!({"tool": tool, "ok": true, "text": cut_chars(&text, remaining), "truncated": true}));
                } else {
                    results.push(json!({"tool": tool, "ok": true, "text": text}));
                }
                used += length.min(remaining);
                truncated |= cut;
            }
            Err(ToolError(message)) => {
                let message = super::args::as_batch_message(&message).unwrap_or(message);
                results.push(json!({"tool": tool, "ok": false, "error": message}));
            }
        }
    }
    // The calls left out lead the result as the batch that runs them, so that a client cutting its end still shows it.
    let mut head = Map::new();
    head.insert("truncated".into(), Value::Bool(truncated));
    if !not_run.is_empty() {
        head.insert(
            "continue_with".into(),
            args.next_call(vec![("calls", Value::Array(not_run))], &[]),
        );
    }
    Ok(Output::Json(super::led_by(
        head,
        json!({"results": results}),
    )))
}

fn invalid_batch(key: &str, problem: &str) -> ToolError {
    super::args::invalid("batch", key, problem)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> Day {
        parse_daily_date(text).unwrap()
    }

    #[test]
    fn dates_are_strict() {
        assert_eq!(
            day("2024-02-29"),
            Day {
                year: 2024,
                month: 2,
                day: 29
            }
        );
        assert!(parse_daily_date("2023-02-29").is_err());
        assert!(parse_daily_date("2024-2-9").is_err());
        assert!(
            parse_daily_date("someday")
                .unwrap_err()
                .0
                .contains("is not YYYY-MM-DD")
        );
        assert_eq!(Day::from_days(day("today").days() - 1), day("yesterday"));
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
    }
}
