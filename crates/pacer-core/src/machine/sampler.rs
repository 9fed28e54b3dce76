//! Reading each CPU's current frequency many times a second, for a live plot.
//!
//! A full [`Snapshot`](super::Snapshot) reads every attribute; a plot at 10 Hz needs only
//! `scaling_cur_freq`, once per policy (the CPUs of a policy share it). Each policy's
//! directory is opened once and the file opened relative to it at every sample: files of a
//! simulated machine are replaced rather than rewritten, so a kept file descriptor would go
//! stale.

use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;

use rustix::fs::{Mode, OFlags};

use super::{Snapshot, CPUFREQ_DIR};
use crate::sysfs::SysRoot;

/// Samples the current frequency of a fixed list of CPUs.
#[derive(Debug)]
pub struct FrequencySampler {
    /// One entry per policy read: its directory, or `None` when it could not be opened.
    policies: Vec<Option<OwnedFd>>,
    /// For each CPU, in the order given, the index of its policy in `policies`.
    cpu_policy: Vec<Option<usize>>,
}

impl FrequencySampler {
    /// A sampler for `cpus` (in that order), with the policies `snapshot` assigns them.
    pub fn new(root: &SysRoot, snapshot: &Snapshot, cpus: &[u32]) -> FrequencySampler {
        let mut policy_ids: Vec<u32> = Vec::new();
        let cpu_policy = cpus
            .iter()
            .map(|&id| {
                let policy = snapshot.cpu(id)?.policy?;
                Some(match policy_ids.iter().position(|&p| p == policy) {
                    Some(index) => index,
                    None => {
                        policy_ids.push(policy);
                        policy_ids.len() - 1
                    }
                })
            })
            .collect();
        let policies = policy_ids
            .iter()
            .map(|id| {
                let dir = root.path(&format!("{CPUFREQ_DIR}/policy{id}"));
                let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
                rustix::fs::open(dir, flags, Mode::empty()).ok()
            })
            .collect();
        FrequencySampler {
            policies,
            cpu_policy,
        }
    }

    /// The current frequency of each CPU in kHz, in the order given at construction;
    /// `None` where it cannot be read (an offline CPU, a policy gone, garbled text).
    pub fn sample(&mut self) -> Vec<Option<u32>> {
        let per_policy: Vec<Option<u32>> = (0..self.policies.len())
            .map(|index| self.read_policy(index))
            .collect();
        self.cpu_policy
            .iter()
            .map(|index| index.and_then(|index| per_policy[index]))
            .collect()
    }

    fn read_policy(&mut self, index: usize) -> Option<u32> {
        let dir = self.policies.get(index)?.as_ref()?;
        let flags = OFlags::RDONLY | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(dir, "scaling_cur_freq", flags, Mode::empty()).ok()?;
        // One read: sysfs hands out the whole value at once (a kHz figure and a newline),
        // and so does a simulated machine's file, shorter than the buffer.
        let mut buffer = [0u8; 32];
        let read = File::from(fd).read(&mut buffer).ok()?;
        std::str::from_utf8(buffer.get(..read)?)
            .ok()?
            .trim()
            .parse()
            .ok()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::sim::SimDir;

    #[test]
    fn samples_follow_the_files_and_tolerate_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let sim = SimDir::open_or_create(dir.path(), "arm-rk3588").unwrap();
        let root = SysRoot::new(sim.root());
        let snapshot = Snapshot::read(&root).unwrap();
        // CPUs 0–3 share policy 0; 99 does not exist.
        let mut sampler = FrequencySampler::new(&root, &snapshot, &[0, 3, 4, 99]);
        let file = root.path(&format!("{CPUFREQ_DIR}/policy0/scaling_cur_freq"));
        std::fs::write(&file, "1200000\n").unwrap();
        let first = sampler.sample();
        assert_eq!(first[0], Some(1_200_000));
        assert_eq!(first[1], Some(1_200_000));
        assert!(first[2].is_some());
        assert_eq!(first[3], None);
        // A replaced file is read afresh.
        std::fs::remove_file(&file).unwrap();
        std::fs::write(&file, "408000\n").unwrap();
        assert_eq!(sampler.sample()[0], Some(408_000));
        std::fs::write(&file, "garbled\n").unwrap();
        assert_eq!(sampler.sample()[0], None);
    }
}
