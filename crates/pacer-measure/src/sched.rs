// SPDX-License-Identifier: GPL-3.0-or-later
//! What the scheduler did around a measurement: the measuring thread's own statistics (time
//! spent waiting to run, times it was preempted), read before and after a trial, and how quiet
//! the CPU was before measuring began.

use std::fs;
use std::path::Path;
use std::time::Duration;

use pacer_dbus::measurement::report::Quiet;

/// The calling thread's scheduler counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadCounters {
    /// Time spent runnable but waiting for the CPU (ns, `schedstat`'s second field).
    pub run_delay_ns: Option<u64>,
    /// Times another task took the CPU from it (`nonvoluntary_ctxt_switches`).
    pub involuntary_switches: Option<u64>,
}

impl ThreadCounters {
    /// Reads `/proc/thread-self/schedstat` and `status`.
    pub fn of_this_thread() -> ThreadCounters {
        ThreadCounters::read(Path::new("/proc/thread-self"))
    }

    fn read(dir: &Path) -> ThreadCounters {
        let run_delay_ns = fs::read_to_string(dir.join("schedstat"))
            .ok()
            .and_then(|text| text.split_whitespace().nth(1)?.parse().ok());
        let involuntary_switches = fs::read_to_string(dir.join("status"))
            .ok()
            .and_then(|text| {
                text.lines()
                    .find_map(|line| line.strip_prefix("nonvoluntary_ctxt_switches:"))?
                    .trim()
                    .parse()
                    .ok()
            });
        ThreadCounters {
            run_delay_ns,
            involuntary_switches,
        }
    }

    /// What happened between `self` (before) and `after`.
    pub fn since(self, after: ThreadCounters) -> ThreadCounters {
        let delta = |a: Option<u64>, b: Option<u64>| Some(b?.saturating_sub(a?));
        ThreadCounters {
            run_delay_ns: delta(self.run_delay_ns, after.run_delay_ns),
            involuntary_switches: delta(self.involuntary_switches, after.involuntary_switches),
        }
    }
}

/// How long the CPU's busy share is sampled before measuring.
pub const BUSY_SAMPLE: Duration = Duration::from_millis(200);

/// How quiet `cpu` is: looks at it under `/proc`, for [`BUSY_SAMPLE`].
pub fn check_quiet(cpu: u32) -> Quiet {
    check_quiet_in(Path::new("/proc"), cpu, std::process::id(), BUSY_SAMPLE)
}

fn check_quiet_in(proc: &Path, cpu: u32, own_pid: u32, busy_sample: Duration) -> Quiet {
    let ticks_before = CpuTicks::read(proc, cpu);
    std::thread::sleep(busy_sample);
    let busy_pct = CpuTicks::read(proc, cpu)
        .zip(ticks_before)
        .and_then(|(after, before)| after.busy_pct_since(before));
    let loadavg = fs::read_to_string(proc.join("loadavg")).ok();
    let load_1m = loadavg
        .as_deref()
        .and_then(|text| text.split_whitespace().next()?.parse().ok());
    // The fourth field, `running/total`: every task of the machine, seen or not.
    let tasks_total: Option<usize> = loadavg.as_deref().and_then(|text| {
        text.split_whitespace()
            .nth(3)?
            .split_once('/')?
            .1
            .parse()
            .ok()
    });
    let Ok(processes) = fs::read_dir(proc) else {
        return Quiet {
            load_1m,
            busy_pct,
            runnable_on_cpu: None,
            bound_to_cpu: None,
            all_tasks_seen: Some(false),
        };
    };
    // This process's own threads count as seen; they are not looked at below.
    let mut seen =
        fs::read_dir(proc.join(format!("{own_pid}/task"))).map_or(0, |tasks| tasks.count());
    let mut runnable = 0;
    let mut bound = 0;
    let pids = processes
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != own_pid);
    for pid in pids {
        let Ok(tasks) = fs::read_dir(proc.join(format!("{pid}/task"))) else {
            continue;
        };
        for task in tasks.flatten() {
            seen += 1;
            let dir = task.path();
            if let Some((state, last_cpu)) = fs::read_to_string(dir.join("stat"))
                .ok()
                .as_deref()
                .and_then(state_and_cpu)
            {
                runnable += usize::from(state == 'R' && last_cpu == cpu);
            }
            let only_here = fs::read_to_string(dir.join("status"))
                .ok()
                .is_some_and(|text| {
                    text.lines()
                        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
                        .is_some_and(|list| list.trim() == cpu.to_string())
                });
            bound += usize::from(only_here);
        }
    }
    Quiet {
        load_1m,
        busy_pct,
        runnable_on_cpu: Some(runnable),
        bound_to_cpu: Some(bound),
        all_tasks_seen: tasks_total.map(|total| all_seen(seen, total)),
    }
}

/// Whether `seen` tasks are every one of `total`, counted a moment apart: tasks come and go
/// meanwhile, so a few either way still count as all.
fn all_seen(seen: usize, total: usize) -> bool {
    seen + (total / 50).max(8) >= total
}

/// One CPU's time so far, in the kernel's ticks (`/proc/stat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CpuTicks {
    /// Idle and waiting for I/O.
    idle: u64,
    /// All of it: user, nice, system, idle, iowait, irq, softirq, steal (guest time is
    /// already in user's and nice's).
    total: u64,
}

impl CpuTicks {
    fn read(proc: &Path, cpu: u32) -> Option<CpuTicks> {
        let text = fs::read_to_string(proc.join("stat")).ok()?;
        CpuTicks::parse(&text, cpu)
    }

    fn parse(stat: &str, cpu: u32) -> Option<CpuTicks> {
        let label = format!("cpu{cpu}");
        let line = stat
            .lines()
            .find(|line| line.split_whitespace().next() == Some(label.as_str()))?;
        let ticks: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .take(8)
            .map(|field| field.parse().ok())
            .collect::<Option<_>>()?;
        let [_user, _nice, _system, idle, iowait, ..] = ticks[..] else {
            return None;
        };
        Some(CpuTicks {
            idle: idle.checked_add(iowait)?,
            total: ticks.iter().try_fold(0u64, |sum, &t| sum.checked_add(t))?,
        })
    }

    /// The share of the time since `before` that was not idle (%); `None` when no tick
    /// passed (or the counters went back).
    fn busy_pct_since(self, before: CpuTicks) -> Option<f64> {
        let total = self.total.checked_sub(before.total).filter(|&t| t > 0)?;
        let idle = self.idle.checked_sub(before.idle)?.min(total);
        Some(100.0 * (total - idle) as f64 / total as f64)
    }
}

/// Where the kernel groups tasks by session (`CONFIG_SCHED_AUTOGROUP`, for tasks in no CPU
/// cgroup of their own), the groups share a CPU by the group's nice level, and a thread's
/// own nice counts only within its group: a measurement at nice -20 would still share its
/// CPU half and half with a busy task of another session. So while it lasts, the measuring
/// process's group is raised to -20 too, and put back when this is dropped.
#[derive(Debug)]
pub struct AutogroupPriority {
    previous: i32,
}

const AUTOGROUP: &str = "/proc/self/autogroup";

impl AutogroupPriority {
    /// Raises this process's group to nice -20; `None` where the kernel has no autogroups
    /// or this process may not raise it (only CAP_SYS_NICE may).
    pub fn raise() -> Option<AutogroupPriority> {
        let previous = autogroup_nice()?;
        fs::write(AUTOGROUP, "-20").ok()?;
        Some(AutogroupPriority { previous })
    }
}

impl Drop for AutogroupPriority {
    fn drop(&mut self) {
        let _ = fs::write(AUTOGROUP, self.previous.to_string());
    }
}

/// This process's autogroup's nice level; `None` without autogroups, or in the root group
/// (whose file is empty: the kernel shows only groups made by setsid).
pub fn autogroup_nice() -> Option<i32> {
    parse_autogroup(&fs::read_to_string(AUTOGROUP).ok()?)
}

/// `/autogroup-123 nice -20` → -20.
fn parse_autogroup(text: &str) -> Option<i32> {
    text.split_once(" nice ")?.1.trim().parse().ok()
}

/// A task's state and the CPU it last ran on, from its `stat` line (the command, in
/// parentheses, may hold spaces and parentheses itself: the fields start after the last `)`).
fn state_and_cpu(stat: &str) -> Option<(char, u32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // `processor` is field 39 of the line; `state` is field 3.
    let cpu = fields.nth(39 - 3 - 1)?.parse().ok()?;
    Some((state, cpu))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_state_and_cpu_whatever_the_command() {
        let line = "1234 (a (weird) name) R 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 \
                    100 1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
        assert_eq!(state_and_cpu(line), Some(('R', 1)));
        assert_eq!(state_and_cpu("garbage"), None);
    }

    #[test]
    fn this_threads_counters_are_read() {
        let before = ThreadCounters::of_this_thread();
        assert!(before.run_delay_ns.is_some() && before.involuntary_switches.is_some());
        std::thread::sleep(Duration::from_millis(1));
        let delta = before.since(ThreadCounters::of_this_thread());
        assert!(delta.run_delay_ns.is_some());
    }

    #[test]
    fn a_busy_task_bound_to_the_cpu_is_seen() {
        let mut spinning = std::process::Command::new("taskset")
            .args(["-c", "1", "sh", "-c", "while :; do :; done"])
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let quiet = check_quiet(1);
        spinning.kill().unwrap();
        spinning.wait().unwrap();
        assert!(quiet.runnable_on_cpu.unwrap() >= 1, "{quiet:?}");
        assert!(quiet.busy_pct.unwrap() > 80.0, "{quiet:?}");
        assert!(quiet.bound_to_cpu.unwrap() >= 1, "{quiet:?}");
        assert!(quiet.load_1m.is_some());
    }

    const STAT: &str = "cpu  100 0 50 1000 10 0 5 0 0 0\n\
                        cpu0 60 0 30 400 5 0 3 0 0 0\n\
                        cpu1 40 0 20 600 5 0 2 0 0 0\n\
                        cpu10 1 0 1 1 0 0 0 0 0 0\n\
                        intr 12345\n";

    #[test]
    fn a_cpus_ticks_are_read_from_its_own_line() {
        assert_eq!(
            CpuTicks::parse(STAT, 1),
            Some(CpuTicks {
                idle: 605,
                total: 667
            })
        );
        // `cpu1` is not the start of `cpu10`'s line, nor the reverse.
        assert_eq!(CpuTicks::parse(STAT, 10).unwrap().total, 3);
        assert_eq!(CpuTicks::parse(STAT, 2), None);
        assert_eq!(CpuTicks::parse("cpu1 1 2 x 4 5 6 7 8\n", 1), None);
        assert_eq!(CpuTicks::parse("cpu1 1 2 3\n", 1), None);
        let overflow = format!("cpu1 {} {} 0 0 0 0 0 0\n", u64::MAX, u64::MAX);
        assert_eq!(CpuTicks::parse(&overflow, 1), None);
    }

    #[test]
    fn the_busy_share_is_the_time_not_idle() {
        let before = CpuTicks {
            idle: 600,
            total: 700,
        };
        let after = CpuTicks {
            idle: 615,
            total: 720,
        };
        assert_eq!(after.busy_pct_since(before), Some(25.0));
        assert_eq!(before.busy_pct_since(before), None);
        assert_eq!(before.busy_pct_since(after), None);
    }

    #[test]
    fn an_autogroups_nice_level_is_read() {
        assert_eq!(parse_autogroup("/autogroup-131 nice -20\n"), Some(-20));
        assert_eq!(parse_autogroup("/autogroup-1 nice 0\n"), Some(0));
        assert_eq!(parse_autogroup("/autogroup-1\n"), None);
        assert_eq!(parse_autogroup("/autogroup-1 nice x\n"), None);
    }

    #[test]
    fn tasks_hidden_from_view_are_noticed() {
        assert!(all_seen(300, 304));
        assert!(all_seen(1000, 1015));
        // A container's own dozen of the host's hundreds; a desktop's tasks hidden.
        assert!(!all_seen(12, 400));
        assert!(!all_seen(150, 900));
    }

    #[test]
    fn every_task_of_this_machine_is_seen() {
        let quiet = check_quiet_in(Path::new("/proc"), 1, std::process::id(), Duration::ZERO);
        assert_eq!(quiet.all_tasks_seen, Some(true), "{quiet:?}");
    }
}
