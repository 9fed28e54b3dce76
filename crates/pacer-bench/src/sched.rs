//! What the scheduler did around a measurement: the measuring thread's own statistics (time
//! spent waiting to run, times it was preempted), read before and after a trial, and how quiet
//! the CPU was before measuring began.

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

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

/// How quiet a CPU was just before measuring on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quiet {
    /// The one-minute load average of the whole machine.
    pub load_1m: Option<f64>,
    /// Other tasks runnable on the CPU then (not counting Pacer's own).
    pub runnable_on_cpu: Option<usize>,
    /// Other tasks that may run on that CPU alone: nothing can move them off it, so they
    /// will take it from the measurement whenever they wake.
    pub bound_to_cpu: Option<usize>,
}

impl Quiet {
    /// Looks at `cpu` under `/proc`.
    pub fn check(cpu: u32) -> Quiet {
        Quiet::check_in(Path::new("/proc"), cpu, std::process::id())
    }

    fn check_in(proc: &Path, cpu: u32, own_pid: u32) -> Quiet {
        let load_1m = fs::read_to_string(proc.join("loadavg"))
            .ok()
            .and_then(|text| text.split_whitespace().next()?.parse().ok());
        let Ok(processes) = fs::read_dir(proc) else {
            return Quiet {
                load_1m,
                runnable_on_cpu: None,
                bound_to_cpu: None,
            };
        };
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
            runnable_on_cpu: Some(runnable),
            bound_to_cpu: Some(bound),
        }
    }
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
        std::thread::sleep(std::time::Duration::from_millis(1));
        let delta = before.since(ThreadCounters::of_this_thread());
        assert!(delta.run_delay_ns.is_some());
    }

    #[test]
    fn a_busy_task_bound_to_the_cpu_is_seen() {
        let mut spinning = std::process::Command::new("taskset")
            .args(["-c", "1", "sh", "-c", "while :; do :; done"])
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(200));
        let quiet = Quiet::check(1);
        spinning.kill().unwrap();
        spinning.wait().unwrap();
        assert!(quiet.runnable_on_cpu.unwrap() >= 1, "{quiet:?}");
        assert!(quiet.bound_to_cpu.unwrap() >= 1, "{quiet:?}");
        assert!(quiet.load_1m.is_some());
    }
}
