//! The Lua sandbox customizations run in, and the conversion of objects into
//! and out of it (karmada-semantics §f). The only code (with `kube` and
//! `convert`) that imports mlua.
//!
//! Every call gets a fresh Lua 5.1 state, so the interpreter holds only
//! script text and is `Sync`; no state leaks between calls or threads.
//!
//! The sandbox follows Karmada's `luavm`: the base library with `dofile`,
//! `loadfile`, `load`, `loadstring`, `getfenv`, `setfenv`, `getmetatable`,
//! `setmetatable`, `rawget`, `rawset`, `rawequal`, `collectgarbage`, `module`
//! and `newproxy` replaced by functions that raise an error; `table`,
//! `string` (without `dump`), `math`; `require("kube")`; and an `os` with
//! only `time` and `date`. Unlike Karmada, those two never read the clock:
//! `os.time()` and `os.date()` without an explicit time raise an error, and
//! given one they work in UTC, so a render never depends on when or where it
//! runs. There is no `io`, `debug`, `package`, `coroutine`, and `print`
//! does nothing. Binary chunks are refused.
//!
//! Limits: 64 MiB of memory per state, and per call a budget of
//! instructions plus a wall-clock limit (1 s, Karmada's timeout), enforced
//! by a hook. Once either is spent the hook fails on every later check and
//! the call is failed when it returns even if the script caught the error
//! with `pcall`; `pcall` and `xpcall` themselves pass the error on once a
//! limit is spent, so a loop around a protected call ends too. A long-running C function (one huge `string.rep`) is
//! bounded by the memory limit instead.
//!
//! Lua tables have no key order and cannot tell `{}` from `[]`. Results are
//! converted as Karmada converts them: an empty table becomes `{}` or `[]`
//! when the input object had an empty object or array at the same path
//! (array indices ignored), and is dropped otherwise; garrison also puts
//! the keys back in the input object's order, new keys after them in sorted
//! order, so output stays deterministic.

use mlua::chunk::ChunkMode;
use mlua::{HookTriggers, Lua, LuaOptions, StdLib, Table, Value as LuaValue, VmState};
use serde_json::Value;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use super::convert::{describe, from_lua, to_json, to_lua, ConvertError, Empties, Returned};

/// How much one state may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub memory_bytes: usize,
    /// Lua VM instructions per call (counted in steps of [`HOOK_STEP`]).
    pub instructions: u64,
    pub wall_clock: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_bytes: 64 << 20,
            instructions: 50_000_000,
            wall_clock: Duration::from_secs(1),
        }
    }
}

const HOOK_STEP: u32 = 1000;
/// Base functions Karmada replaces with ones that raise an error.
const FORBIDDEN: &[&str] = &[
    "collectgarbage",
    "dofile",
    "getfenv",
    "getmetatable",
    "load",
    "loadfile",
    "loadstring",
    "rawequal",
    "rawget",
    "rawset",
    "setfenv",
    "setmetatable",
    "module",
    "newproxy",
];

/// What went wrong in Lua. The texts of `Load` and `Call` are Lua's own
/// error messages (chunk, line and what the script raised).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Fault {
    /// The script does not compile or fails while defining its functions.
    #[error("{0}")]
    Load(String),
    #[error("the script does not define function `{function}`")]
    Undefined { function: String },
    #[error("`{function}` is a {found}, not a function")]
    NotAFunction {
        function: String,
        found: &'static str,
    },
    /// The function raised an error.
    #[error("{0}")]
    Call(String),
    /// The function returned a value JSON cannot hold.
    #[error(transparent)]
    Convert(#[from] ConvertError),
    #[error(transparent)]
    Limit(#[from] Limit),
}

/// The limit a script hit (see [`Limits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Limit {
    #[error("the script ran more than {instructions} instructions (runaway loop?)")]
    Instructions { instructions: u64 },
    #[error("the script ran longer than {millis} ms")]
    Time { millis: u128 },
    #[error("the script used more than the memory limit")]
    Memory,
}

/// An argument passed to a Lua function.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    Json(&'a Value),
    Number(f64),
}

/// Which limit the hook found spent (0 = none).
struct Spent(AtomicU8);

const SPENT_INSTRUCTIONS: u8 = 1;
const SPENT_TIME: u8 = 2;

impl Spent {
    fn fault(&self, limits: &Limits) -> Option<Fault> {
        match self.0.load(Ordering::SeqCst) {
            SPENT_INSTRUCTIONS => Some(Fault::Limit(Limit::Instructions {
                instructions: limits.instructions,
            })),
            SPENT_TIME => Some(Fault::Limit(Limit::Time {
                millis: limits.wall_clock.as_millis(),
            })),
            _ => None,
        }
    }
}

/// Load `script` (named `chunk` in messages) into a fresh sandbox and call
/// its global `function` with `args`; `returns` values come back.
pub fn call(
    chunk: &str,
    script: &str,
    function: &str,
    args: &[Arg<'_>],
    returns: usize,
    limits: &Limits,
) -> Result<Vec<Returned>, Fault> {
    let lua = sandbox(limits).map_err(|e| Fault::Load(describe(&e)))?;
    let spent = Arc::new(Spent(AtomicU8::new(0)));
    arm(&lua, limits, &spent).map_err(|e| Fault::Load(describe(&e)))?;
    guard_pcall(&lua, &spent).map_err(|e| Fault::Load(describe(&e)))?;
    let result = load(&lua, chunk, script, function).and_then(|f| {
        let values = args
            .iter()
            .map(|arg| match arg {
                Arg::Json(value) => to_lua(&lua, value, 0),
                Arg::Number(n) => Ok(LuaValue::Number(*n)),
            })
            .collect::<mlua::Result<Vec<_>>>()
            .map_err(|e| Fault::Call(describe(&e)))?;
        let results: mlua::MultiValue = f
            .call(mlua::MultiValue::from(values))
            .map_err(|e| classify(&e))?;
        let mut results = results.into_vec();
        results.resize(returns, LuaValue::Nil);
        results
            .iter()
            .map(|v| from_lua(v, 0))
            .collect::<Result<Vec<_>, ConvertError>>()
            .map_err(Fault::Convert)
    });
    lua.remove_hook();
    if let Some(fault) = spent.fault(limits) {
        return Err(fault);
    }
    result
}

/// Compile and run the script's top level, and check that it defines the
/// function; used to validate customizations before any render.
pub fn check(chunk: &str, script: &str, function: &str, limits: &Limits) -> Result<(), Fault> {
    let lua = sandbox(limits).map_err(|e| Fault::Load(describe(&e)))?;
    let spent = Arc::new(Spent(AtomicU8::new(0)));
    arm(&lua, limits, &spent).map_err(|e| Fault::Load(describe(&e)))?;
    guard_pcall(&lua, &spent).map_err(|e| Fault::Load(describe(&e)))?;
    let result = load(&lua, chunk, script, function).map(|_| ());
    lua.remove_hook();
    if let Some(fault) = spent.fault(limits) {
        return Err(fault);
    }
    result
}

fn load(lua: &Lua, chunk: &str, script: &str, function: &str) -> Result<mlua::Function, Fault> {
    lua.load(script)
        .set_name(format!("={chunk}"))
        .set_mode(ChunkMode::Text)
        .exec()
        .map_err(|e| match classify(&e) {
            Fault::Call(m) => Fault::Load(m),
            other => other,
        })?;
    match lua.globals().raw_get::<LuaValue>(function) {
        Ok(LuaValue::Function(f)) => Ok(f),
        Ok(LuaValue::Nil) => Err(Fault::Undefined {
            function: function.to_string(),
        }),
        Ok(other) => Err(Fault::NotAFunction {
            function: function.to_string(),
            found: other.type_name(),
        }),
        Err(e) => Err(Fault::Load(describe(&e))),
    }
}

/// The instruction and time budget, checked every [`HOOK_STEP`] instructions.
fn arm(lua: &Lua, limits: &Limits, spent: &Arc<Spent>) -> mlua::Result<()> {
    let started = Instant::now();
    let steps = std::sync::atomic::AtomicU64::new(0);
    let budget = limits.instructions / u64::from(HOOK_STEP);
    let wall_clock = limits.wall_clock;
    let spent = Arc::clone(spent);
    lua.set_hook(
        HookTriggers::new().every_nth_instruction(HOOK_STEP),
        move |_, _| {
            let step = steps.fetch_add(1, Ordering::SeqCst) + 1;
            if spent.0.load(Ordering::SeqCst) == 0 {
                if step > budget {
                    spent.0.store(SPENT_INSTRUCTIONS, Ordering::SeqCst);
                } else if started.elapsed() > wall_clock {
                    spent.0.store(SPENT_TIME, Ordering::SeqCst);
                }
            }
            if spent.0.load(Ordering::SeqCst) != 0 {
                return Err(mlua::Error::runtime("garrison: Lua limit exceeded"));
            }
            Ok(VmState::Continue)
        },
    )
}

/// `pcall` and `xpcall` that pass an error on once a limit is spent, so a
/// script cannot catch the hook's error and loop on forever (the hook
/// always fires inside the innermost protected call of a tight loop).
fn guard_pcall(lua: &Lua, spent: &Arc<Spent>) -> mlua::Result<()> {
    let spent = Arc::clone(spent);
    let is_spent = lua.create_function(move |_, ()| Ok(spent.0.load(Ordering::SeqCst) != 0))?;
    let wrap: mlua::Function = lua
        .load(
            r#"
            local spent, raw_pcall, raw_xpcall, error = ...
            local function finish(ok, ...)
              if not ok and spent() then error((...), 0) end
              return ok, ...
            end
            return function(...) return finish(raw_pcall(...)) end,
                   function(...) return finish(raw_xpcall(...)) end
            "#,
        )
        .set_name("=garrison")
        .set_mode(ChunkMode::Text)
        .into_function()?;
    let globals = lua.globals();
    let (pcall, xpcall): (mlua::Function, mlua::Function) = wrap.call((
        is_spent,
        globals.raw_get::<mlua::Function>("pcall")?,
        globals.raw_get::<mlua::Function>("xpcall")?,
        globals.raw_get::<mlua::Function>("error")?,
    ))?;
    globals.raw_set("pcall", pcall)?;
    globals.raw_set("xpcall", xpcall)
}

/// A fresh Lua 5.1 state with only what customizations may use.
fn sandbox(limits: &Limits) -> mlua::Result<Lua> {
    let lua = Lua::new_with(
        StdLib::TABLE | StdLib::STRING | StdLib::MATH,
        LuaOptions::new(),
    )?;
    lua.set_memory_limit(limits.memory_bytes)?;
    let globals = lua.globals();
    for name in FORBIDDEN {
        let message = format!(
            "call function {name} is not supported in karmada customized resourceinterpreter."
        );
        let stub = lua.create_function(move |_, ()| -> mlua::Result<()> {
            Err(mlua::Error::runtime(message.clone()))
        })?;
        globals.raw_set(*name, stub)?;
    }
    for name in ["coroutine", "gcinfo", "package", "io", "debug"] {
        globals.raw_set(name, LuaValue::Nil)?;
    }
    globals.raw_set(
        "print",
        lua.create_function(|_, _: mlua::MultiValue| Ok(()))?,
    )?;
    if let Ok(string) = globals.raw_get::<Table>("string") {
        string.raw_set("dump", LuaValue::Nil)?;
    }
    globals.raw_set("os", safe_os(&lua)?)?;
    let kube = super::kube::library(&lua)?;
    globals.raw_set(
        "require",
        lua.create_function(move |_, name: String| {
            if name == "kube" {
                Ok(kube.clone())
            } else {
                Err(mlua::Error::runtime(format!(
                    "module '{name}' not found: only \"kube\" can be required"
                )))
            }
        })?,
    )?;
    Ok(lua)
}

/// `os.time` and `os.date` that never read the clock and work in UTC.
fn safe_os(lua: &Lua) -> mlua::Result<Table> {
    let os = lua.create_table()?;
    os.raw_set("time", lua.create_function(os_time)?)?;
    os.raw_set("date", lua.create_function(os_date)?)?;
    Ok(os)
}

/// `os.time(t)`: the UTC seconds of a date table (hour defaults to 12, as in
/// Lua), or `nil` for a date no time value can hold, as Lua 5.1 answers when
/// `mktime` fails. Without a table it would read the clock, so that is an
/// error.
fn os_time(_: &Lua, fields: Option<Table>) -> mlua::Result<Option<i64>> {
    let Some(fields) = fields else {
        return Err(mlua::Error::runtime(
            "os.time() reads the clock, which would make renders differ; pass a date table",
        ));
    };
    let get = |key: &str, default: Option<i64>| -> mlua::Result<i64> {
        match fields.raw_get::<Option<f64>>(key)? {
            Some(v) => Ok(v.floor() as i64),
            None => default.ok_or_else(|| {
                mlua::Error::runtime(format!("field '{key}' missing in date table"))
            }),
        }
    };
    let days = days_from_civil(get("year", None)?, get("month", None)?, get("day", None)?);
    let seconds = days * 86_400
        + i128::from(get("hour", Some(12))?) * 3600
        + i128::from(get("min", Some(0))?) * 60
        + i128::from(get("sec", Some(0))?);
    Ok(i64::try_from(seconds).ok())
}

/// `os.date(format, time)` in UTC (a leading `!` changes nothing). Without a
/// time it would read the clock, so that is an error.
fn os_date(lua: &Lua, (format, time): (Option<String>, Option<f64>)) -> mlua::Result<LuaValue> {
    let Some(time) = time else {
        return Err(mlua::Error::runtime(
            "os.date() without a time reads the clock, which would make renders differ; pass a time",
        ));
    };
    let format = format.unwrap_or_else(|| "%c".to_string());
    let format = format.strip_prefix('!').unwrap_or(&format);
    let moment = UtcMoment::at(time.floor() as i64);
    if format == "*t" {
        return Ok(LuaValue::Table(moment.table(lua)?));
    }
    Ok(LuaValue::String(lua.create_string(moment.format(format)?)?))
}

/// A time broken into its UTC calendar fields, which is all `os.date` shows.
struct UtcMoment {
    /// Days since 1970-01-01.
    days: i64,
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    min: i64,
    sec: i64,
}

impl UtcMoment {
    /// Split seconds since the epoch into date and time of day.
    fn at(time: i64) -> UtcMoment {
        let days = time.div_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        let seconds = time.rem_euclid(86_400);
        UtcMoment {
            days,
            year,
            month,
            day,
            hour: seconds / 3600,
            min: seconds / 60 % 60,
            sec: seconds % 60,
        }
    }

    /// 1 for January 1st (always within 1 to 366).
    fn day_of_year(&self) -> i64 {
        let day = i128::from(self.days) - days_from_civil(self.year, 1, 1) + 1;
        i64::try_from(day).unwrap_or_default()
    }

    /// `os.date("*t")`: the fields as Lua's date table (wday 1 is Sunday,
    /// yday 1 is January 1st; never daylight saving time).
    fn table(&self, lua: &Lua) -> mlua::Result<Table> {
        let t = lua.create_table()?;
        for (key, value) in [
            ("year", self.year),
            ("month", self.month),
            ("day", self.day),
            ("hour", self.hour),
            ("min", self.min),
            ("sec", self.sec),
            ("wday", (self.days + 4).rem_euclid(7) + 1),
            ("yday", self.day_of_year()),
        ] {
            t.raw_set(key, value)?;
        }
        t.raw_set("isdst", false)?;
        Ok(t)
    }

    /// `os.date(format)` for the conversions renders need; any other is an
    /// error rather than a platform-dependent strftime result.
    fn format(&self, format: &str) -> mlua::Result<String> {
        let UtcMoment {
            year,
            month,
            day,
            hour,
            min,
            sec,
            ..
        } = self;
        let mut out = String::new();
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('Y') => out.push_str(&format!("{year:04}")),
                Some('y') => out.push_str(&format!("{:02}", year.rem_euclid(100))),
                Some('m') => out.push_str(&format!("{month:02}")),
                Some('d') => out.push_str(&format!("{day:02}")),
                Some('H') => out.push_str(&format!("{hour:02}")),
                Some('M') => out.push_str(&format!("{min:02}")),
                Some('S') => out.push_str(&format!("{sec:02}")),
                Some('c') => out.push_str(&format!(
                    "{year:04}-{month:02}-{day:02} {hour:02}:{min:02}:{sec:02}"
                )),
                Some('%') => out.push('%'),
                other => {
                    return Err(mlua::Error::runtime(format!(
                    "os.date: conversion `%{}` is not supported (use %Y %y %m %d %H %M %S %c %%)",
                    other.map(String::from).unwrap_or_default()
                )))
                }
            }
        }
        Ok(out)
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (months may
/// overflow), in 128 bits: a script may pass any 64-bit year.
fn days_from_civil(year: i64, month: i64, day: i64) -> i128 {
    let (year, month, day) = (i128::from(year), i128::from(month), i128::from(day));
    let year = year + (month - 1).div_euclid(12);
    let month = (month - 1).rem_euclid(12) + 1;
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

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

/// A limit error, a load error or a runtime error, from mlua's error.
fn classify(error: &mlua::Error) -> Fault {
    match error {
        mlua::Error::MemoryError(_) => Fault::Limit(Limit::Memory),
        mlua::Error::CallbackError { cause, .. } => classify(cause),
        mlua::Error::WithContext { cause, .. } => classify(cause),
        _ => Fault::Call(describe(error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(script: &str, function: &str, args: &[Arg<'_>]) -> Result<Vec<Returned>, Fault> {
        call("test", script, function, args, 1, &Limits::default())
    }

    fn text(value: &Value) -> String {
        serde_json::to_string(value).unwrap_or_default()
    }

    #[test]
    fn runaway_loop_is_stopped() {
        let fault = run("function F() while true do end end", "F", &[]);
        assert!(matches!(fault, Err(Fault::Limit(_))), "{fault:?}");
    }

    #[test]
    fn loop_inside_pcall_cannot_swallow_the_limit() {
        for script in [
            "function F() for i = 1, 100 do pcall(function() while true do end end) end return 'survived' end",
            "function F() while true do pcall(function() while true do end end) end end",
            "function F() while true do xpcall(function() while true do end end, function(e) return e end) end end",
            "function F() while true do pcall(pcall, function() while true do end end) end end",
        ] {
            let fault = run(script, "F", &[]);
            assert!(matches!(fault, Err(Fault::Limit(_))), "{script}: {fault:?}");
        }
        let caught = "function F() local ok, e = pcall(error, 'x', 0) return tostring(ok) .. e end";
        assert_eq!(
            run(caught, "F", &[]),
            Ok(vec![Returned::String("falsex".into())])
        );
    }

    #[test]
    fn wall_clock_limit_stops_a_slow_script() {
        let limits = Limits {
            instructions: u64::MAX,
            wall_clock: Duration::from_millis(50),
            ..Limits::default()
        };
        let fault = call(
            "test",
            "function F() while true do end end",
            "F",
            &[],
            1,
            &limits,
        );
        assert_eq!(fault, Err(Fault::Limit(Limit::Time { millis: 50 })));
        assert_eq!(
            Limit::Time { millis: 50 }.to_string(),
            "the script ran longer than 50 ms"
        );
    }

    #[test]
    fn memory_bomb_is_stopped() {
        let script = "function F() local s = 'xxxxxxxx' while true do s = string.rep(s, 2) end end";
        let fault = run(script, "F", &[]);
        assert!(matches!(fault, Err(Fault::Limit(_))), "{fault:?}");
        let script = "function F() return string.rep('x', 1e9) end";
        assert!(matches!(run(script, "F", &[]), Err(Fault::Limit(_))));
    }

    #[test]
    fn top_level_runaway_is_a_limit_not_a_hang() {
        let fault = check("test", "while true do end", "F", &Limits::default());
        assert!(matches!(fault, Err(Fault::Limit(_))), "{fault:?}");
    }

    #[test]
    fn dangerous_functions_are_unavailable() {
        for (script, needle) in [
            (
                "function F() return dofile('/etc/passwd') end",
                "dofile is not supported",
            ),
            (
                "function F() return loadstring('return 1')() end",
                "loadstring is not supported",
            ),
            (
                "function F() return setmetatable({}, {}) end",
                "setmetatable is not supported",
            ),
            ("function F() return io.open('/etc/passwd') end", "io"),
            ("function F() return os.execute('true') end", "execute"),
            ("function F() return os.getenv('HOME') end", "getenv"),
            ("function F() return require('os') end", "only \"kube\""),
            ("function F() return debug.getinfo(1) end", "debug"),
            ("function F() return string.dump(F) end", "dump"),
            ("function F() return coroutine.create(F) end", "coroutine"),
            ("function F() return os.time() end", "reads the clock"),
            ("function F() return os.date('%Y') end", "reads the clock"),
        ] {
            match run(script, "F", &[]) {
                Err(Fault::Call(message)) => {
                    assert!(message.contains(needle), "{script}: {message}")
                }
                other => panic!("{script}: {other:?}"),
            }
        }
    }

    #[test]
    fn os_time_and_date_are_utc_and_explicit() {
        let script = "function F() local t = os.time({year=2024, month=3, day=1, hour=10}) return os.date('!%Y-%m-%dT%H:%M:%SZ', t) .. ' ' .. t end";
        assert_eq!(
            run(script, "F", &[]),
            Ok(vec![Returned::String(
                "2024-03-01T10:00:00Z 1709287200".into()
            )])
        );
    }

    #[test]
    fn a_date_no_time_value_holds_is_nil_as_in_lua() {
        let script = "function F() return os.time({year=1e17, month=1, day=1}) == nil and os.time({year=-1e18, month=13, day=1e15}) == nil and os.time({year=2024, month=1, day=1}) ~= nil end";
        assert_eq!(run(script, "F", &[]), Ok(vec![Returned::Bool(true)]));
    }

    #[test]
    fn syntax_errors_and_missing_functions_are_load_faults() {
        assert!(matches!(
            check("t", "function F(", "F", &Limits::default()),
            Err(Fault::Load(_))
        ));
        let missing = check("t", "function G() end", "F", &Limits::default());
        assert_eq!(
            missing,
            Err(Fault::Undefined {
                function: "F".into()
            })
        );
        assert_eq!(
            missing.map_err(|f| f.to_string()),
            Err("the script does not define function `F`".to_string())
        );
    }

    #[test]
    fn errors_name_the_chunk_and_line() {
        let fault = run(
            "function F(obj)\n  return obj.spec.missing.field\nend",
            "F",
            &[Arg::Json(&json!({"spec": {}}))],
        );
        match fault {
            Err(Fault::Call(message)) => assert!(message.starts_with("test:2:"), "{message}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn key_order_is_kept_and_new_keys_sorted() {
        let input = json!({"spec": {"zeta": 1, "replicas": 3, "alpha": [1, 2]}, "metadata": {"name": "x"}, "apiVersion": "v1"});
        let script = "function F(obj) obj.spec.replicas = 5 obj.spec.new2 = true obj.spec.new1 = 'a' return obj end";
        let returned = run(script, "F", &[Arg::Json(&input)]).unwrap_or_default();
        let value = to_json(&returned[0], Some(&input), &Empties::of(&[&input]));
        assert_eq!(
            value.map(|v| text(&v)),
            Ok(r#"{"spec":{"zeta":1,"replicas":5,"alpha":[1,2],"new1":"a","new2":true},"metadata":{"name":"x"},"apiVersion":"v1"}"#.to_string())
        );
    }

    #[test]
    fn empty_tables_follow_the_input_or_are_dropped() {
        let input = json!({"spec": {"selector": {}, "ports": [], "rules": [{"hosts": []}]}});
        let script =
            "function F(obj) obj.spec.extra = {} obj.spec.rules[2] = {hosts = {}} return obj end";
        let returned = run(script, "F", &[Arg::Json(&input)]).unwrap_or_default();
        let value = to_json(&returned[0], Some(&input), &Empties::of(&[&input]));
        assert_eq!(
            value.map(|v| text(&v)),
            Ok(
                r#"{"spec":{"selector":{},"ports":[],"rules":[{"hosts":[]},{"hosts":[]}]}}"#
                    .to_string()
            )
        );
    }

    /// Karmada deletes an empty table it cannot type by its dotted path,
    /// and its JSON path library refuses a path with a pattern character
    /// in a key (`sjson`: "cannot delete value from a complex path"): the
    /// conversion fails there. An empty table the input had is typed, not
    /// deleted, and converts whatever its key.
    #[test]
    fn an_empty_table_below_a_pattern_key_cannot_be_dropped() {
        let input = json!({"spec": {"routes": {"/api/*": {}}}});
        for key in ["/v2/*", "x|y", "@meta", "n#", "q?"] {
            let script = format!("function F(obj) obj.spec.routes['{key}'] = {{}} return obj end");
            let returned = run(&script, "F", &[Arg::Json(&input)]).unwrap_or_default();
            let value = to_json(&returned[0], Some(&input), &Empties::of(&[&input]));
            assert_eq!(
                value,
                Err(ConvertError::UndroppableEmpty {
                    path: format!("spec.routes.{key}")
                }),
                "{key}"
            );
        }
        let script = "function F(obj) obj.spec.extra = {} return obj end";
        let returned = run(script, "F", &[Arg::Json(&input)]).unwrap_or_default();
        let value = to_json(&returned[0], Some(&input), &Empties::of(&[&input]));
        assert_eq!(
            value.map(|v| text(&v)),
            Ok(r#"{"spec":{"routes":{"/api/*":{}}}}"#.to_string())
        );
        // Typing it back as `{}` looks the path up, where `|` is a pipe:
        // Karmada finds nothing and leaves the `[]` Lua encoded.
        let input = json!({"spec": {"routes": {"x|y": {}}}});
        let script = "function F(obj) return obj end";
        let returned = run(script, "F", &[Arg::Json(&input)]).unwrap_or_default();
        let value = to_json(&returned[0], Some(&input), &Empties::of(&[&input]));
        assert_eq!(
            value.map(|v| text(&v)),
            Ok(r#"{"spec":{"routes":{"x|y":[]}}}"#.to_string())
        );
    }

    #[test]
    fn null_is_nil_and_numbers_stay_integers() {
        let input = json!({"a": null, "n": 2, "f": 1.5});
        let script = "function F(obj) return {isnil = obj.a == nil, n = obj.n * 2, f = obj.f} end";
        let returned = run(script, "F", &[Arg::Json(&input)]).unwrap_or_default();
        let value = to_json(&returned[0], None, &Empties::default());
        assert_eq!(
            value.map(|v| text(&v)),
            Ok(r#"{"f":1.5,"isnil":true,"n":4}"#.to_string())
        );
    }

    #[test]
    fn unconvertible_results_are_conversion_faults() {
        assert_eq!(
            run("function F() return {f = F} end", "F", &[]),
            Err(Fault::Convert(ConvertError::ValueType {
                found: "function"
            }))
        );
        assert_eq!(
            run(
                "function F() local t = {} t.self = t return t end",
                "F",
                &[]
            ),
            Err(Fault::Convert(ConvertError::TooDeep))
        );
        let returned = run("function F() return {1, nil, 3} end", "F", &[]).unwrap_or_default();
        let holes = to_json(&returned[0], None, &Empties::default());
        assert_eq!(
            holes,
            Err(ConvertError::ArrayHoles {
                path: String::new()
            })
        );
        assert_eq!(
            holes.map_err(|e| e.to_string()),
            Err("the array at `.` has holes (nil items)".to_string())
        );
    }

    #[test]
    fn civil_dates_round_trip() {
        for days in [-800_000, -1, 0, 59, 11_016, 19_783, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), i128::from(days));
        }
    }
}
