//! The date a chat template's `strftime_now` reads: today (UTC, as a server's clock gives it)
//! or a date the caller fixes so snapshots and frozen records stay stable; formatted as
//! Python's `datetime.strftime` does in the C locale.

use std::fmt::Write;

/// A moment, to the second, in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChatDate {
    year: i32,
    month: u32,
    day: u32,
    seconds: u32,
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
const DAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

impl ChatDate {
    /// Now, from the system clock (UTC).
    pub fn now() -> ChatDate {
        let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
        let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
        let (year, month, day) = civil(days);
        ChatDate { year, month, day, seconds: rem as u32 }
    }

    /// Midnight of a date written `YYYY-MM-DD`.
    pub fn parse(s: &str) -> Option<ChatDate> {
        let mut parts = s.split('-');
        let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return None;
        }
        let (year, month, day): (i32, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
        let valid = (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month) && year >= 1;
        valid.then_some(ChatDate { year, month, day, seconds: 0 })
    }

    /// A moment another session could have: one whose every field `strftime` prints — year,
    /// month and day as numbers and names, weekday, day of the year, hour, minute, second —
    /// differs from this one's at its first character, so a text made with it parts from one
    /// made with `self` where the first of them is printed, whatever the format.
    pub fn other_session(&self) -> ChatDate {
        let first = |s: String| s.chars().next();
        // A year of the other millennium whose last two digits (`%y`) differ in their first
        // too: `2026` → `1076`, `1999` → `2049`.
        let millennium = if self.year >= 2000 { 1000 } else { 2000 };
        let year = millennium + (self.year.rem_euclid(100) + 50) % 100;
        let (h, mi, s) = (self.seconds / 3600, self.seconds / 60 % 60, self.seconds % 60);
        // 00–09, 10–19, 20–23: another first digit.
        let hour = if h < 10 { 13 } else { 4 };
        let (minute, second) = (if mi < 10 { 37 } else { 4 }, if s < 10 { 37 } else { 4 });
        let seconds = hour * 3600 + minute * 60 + second;
        let fields =
            |d: &ChatDate| ["%m", "%B", "%d", "%e", "%A", "%j", "%y"].map(|f| d.strftime(f).ok().and_then(first));
        let mine = fields(self);
        let candidates = (1..=12).flat_map(|month| (1..=28).map(move |day| ChatDate { year, month, day, seconds }));
        let mut best = (0, ChatDate { year, month: 1, day: 1, seconds });
        for c in candidates {
            let differ = fields(&c).iter().zip(&mine).filter(|(a, b)| a != b).count();
            if differ > best.0 {
                best = (differ, c);
            }
        }
        best.1
    }

    /// The date as `YYYY-MM-DD` (what metadata records).
    pub fn ymd(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// Days since 1970-01-01.
    fn days(&self) -> i64 {
        days_from_civil(self.year, self.month, self.day)
    }

    /// Monday = 0.
    fn weekday(&self) -> usize {
        (self.days() + 3).rem_euclid(7) as usize
    }

    fn yday(&self) -> u32 {
        (self.days() - days_from_civil(self.year, 1, 1)) as u32 + 1
    }

    /// `datetime.strftime(format)` in the C locale. `None` names a directive this does not
    /// know (Python passes unknown ones to the C library, whose answer differs by platform).
    pub fn strftime(&self, format: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut chars = format.chars();
        let (h, mi, s) = (self.seconds / 3600, self.seconds / 60 % 60, self.seconds % 60);
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            // glibc's `%-d`: no padding.
            let mut pad = true;
            let mut d = chars.next().ok_or("a format ending in a lone `%`")?;
            if d == '-' {
                pad = false;
                d = chars.next().ok_or("a format ending in `%-`")?;
            }
            let num = |out: &mut String, n: u32, w: usize| {
                let _ = if pad { write!(out, "{n:0w$}") } else { write!(out, "{n}") };
            };
            match d {
                'Y' => {
                    let _ = write!(out, "{}", self.year);
                }
                'y' => num(&mut out, (self.year % 100) as u32, 2),
                'm' => num(&mut out, self.month, 2),
                'd' => num(&mut out, self.day, 2),
                'e' => {
                    let _ = write!(out, "{:2}", self.day);
                }
                'j' => num(&mut out, self.yday(), 3),
                'H' => num(&mut out, h, 2),
                'I' => num(&mut out, if h % 12 == 0 { 12 } else { h % 12 }, 2),
                'M' => num(&mut out, mi, 2),
                'S' => num(&mut out, s, 2),
                'f' => out.push_str("000000"),
                'p' => out.push_str(if h < 12 { "AM" } else { "PM" }),
                'B' => out.push_str(MONTHS[self.month as usize - 1]),
                'b' | 'h' => out.push_str(&MONTHS[self.month as usize - 1][..3]),
                'A' => out.push_str(DAYS[self.weekday()]),
                'a' => out.push_str(&DAYS[self.weekday()][..3]),
                'w' => num(&mut out, ((self.weekday() + 1) % 7) as u32, 1),
                'u' => num(&mut out, self.weekday() as u32 + 1, 1),
                'F' => out.push_str(&self.ymd()),
                'D' | 'x' => {
                    let _ = write!(out, "{:02}/{:02}/{:02}", self.month, self.day, self.year % 100);
                }
                'T' | 'X' => {
                    let _ = write!(out, "{h:02}:{mi:02}:{s:02}");
                }
                'R' => {
                    let _ = write!(out, "{h:02}:{mi:02}");
                }
                'c' => {
                    let _ = write!(
                        out,
                        "{} {} {:2} {h:02}:{mi:02}:{s:02} {}",
                        &DAYS[self.weekday()][..3],
                        &MONTHS[self.month as usize - 1][..3],
                        self.day,
                        self.year
                    );
                }
                'z' | 'Z' => {}
                '%' => out.push('%'),
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => return Err(format!("the strftime directive `%{other}` is not supported")),
            }
        }
        Ok(out)
    }
}

fn leap(y: i32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i32, m: u32) -> u32 {
    match m {
        2 if leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i32, m: u32, d: u32) -> i64 {
    let y = i64::from(y) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01.
fn civil(days: i64) -> (i32, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    ((yoe + era * 400 + i64::from(m <= 2)) as i32, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_sessions_date_differs_at_the_first_character_of_every_field() {
        for ymd in ["2026-12-07", "2024-07-26", "1999-01-01", "2000-02-29", "2031-10-19"] {
            let date = ChatDate::parse(ymd).unwrap();
            let other = date.other_session();
            for f in ["%Y", "%y", "%m", "%d", "%B", "%b", "%A", "%a", "%j", "%H", "%M", "%S", "%e"] {
                let (a, b) = (date.strftime(f).unwrap(), other.strftime(f).unwrap());
                assert_ne!(a.chars().next(), b.chars().next(), "{ymd} {f}: {a} / {b}");
            }
        }
    }

    #[test]
    fn dates_round_trip_and_format_like_python() {
        let d = ChatDate::parse("2024-07-26").unwrap();
        assert_eq!(d.strftime("%d %b %Y").unwrap(), "26 Jul 2024");
        assert_eq!(d.strftime("%B %d, %Y").unwrap(), "July 26, 2024");
        assert_eq!(d.strftime("%Y-%m-%d %A %a %j %H:%M:%S %p %%").unwrap(), "2024-07-26 Friday Fri 208 00:00:00 AM %");
        assert_eq!(d.strftime("%-d/%-m %e").unwrap(), "26/7 26");
        assert_eq!(ChatDate::parse("2000-02-29").unwrap().strftime("%a %j").unwrap(), "Tue 060");
        assert_eq!(civil(days_from_civil(1999, 12, 31)), (1999, 12, 31));
        assert_eq!(civil(0), (1970, 1, 1));
        assert!(ChatDate::parse("2023-02-29").is_none());
        assert!(ChatDate::parse("2024-13-01").is_none());
        assert!(ChatDate::parse("24-01-01").is_none());
        assert!(d.strftime("%Q").is_err());
        assert!(d.strftime("50%").is_err());
    }

    #[test]
    fn now_is_a_real_date() {
        let now = ChatDate::now();
        assert!(now.year >= 2024 && ChatDate::parse(&now.ymd()).is_some());
    }
}
