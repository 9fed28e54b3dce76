// SPDX-License-Identifier: GPL-3.0-or-later
//! Reading each CPU's current frequency many times a second, for a live plot.
//!
//! A full [`Snapshot`](super::Snapshot) reads every attribute; a plot at 10 Hz needs only
//! `scaling_cur_freq`, once per policy (the CPUs of a policy share it). Each policy's file
//! is opened once and read again from its start at every sample, as sysfs allows (it
//! renders the value afresh for a read at offset 0): at 256 CPUs and 10 Hz, opening each
//! file anew was most of the window's sampling. A simulated machine's files are replaced
//! rather than rewritten, which leaves the kept descriptor on a file with no name: such a
//! file (no links left) is opened again, relative to its policy's directory, kept open too.
//! Sysfs never replaces a file under its name (a policy that goes away takes its files with
//! it, and reading them fails), so a file on sysfs is not checked for links: at 256 CPUs and
//! 10 Hz that check was half the sampling's system calls. At most [`KEPT_FILES`] are kept
//! open, so that a machine with thousands of policies does not use up the process's file
//! descriptors; the others are opened at each sample.

use std::os::fd::OwnedFd;

use rustix::fs::{Mode, OFlags};

use super::{Snapshot, CPUFREQ_DIR};
use crate::sysfs::{KeptFile, SysRoot};

/// How many policies' files stay open between samples (a quarter of the usual soft limit
/// of 1024 descriptors).
const KEPT_FILES: usize = 256;

/// A policy's directory, and its `scaling_cur_freq` while it is open.
#[derive(Debug)]
struct PolicyFile {
    dir: OwnedFd,
    current: Option<KeptFile>,
}

/// Samples the current frequency of a fixed list of CPUs.
#[derive(Debug)]
pub struct FrequencySampler {
    /// One entry per policy read: its directory and `scaling_cur_freq` once opened, or
    /// `None` when the directory could not be opened.
    policies: Vec<Option<PolicyFile>>,
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
                let dir = rustix::fs::open(dir, flags, Mode::empty()).ok()?;
                Some(PolicyFile { dir, current: None })
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
        let policy = self.policies.get_mut(index)?.as_mut()?;
        // A file that was replaced (no links left) or could not be read is opened again.
        let file = match policy.current.take().filter(KeptFile::still_named) {
            Some(file) => file,
            None => KeptFile::open_at(&policy.dir, "scaling_cur_freq").ok()?,
        };
        // One read from the start: sysfs hands out the whole value at once (a kHz figure
        // and a newline), and so does a simulated machine's file, shorter than the buffer.
        let mut buffer = [0u8; 32];
        let read = file.read_start(&mut buffer).ok()?;
        if index < KEPT_FILES {
            policy.current = Some(file);
        }
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

    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

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
        // Read-only, as in sysfs, where root alone writes through that: made writable, and
        // written in place, as the kernel changes it under the open file.
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
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
        // Rewritten in place, as sysfs renders it: read again from the start.
        std::fs::write(&file, "1800000\n").unwrap();
        assert_eq!(sampler.sample()[0], Some(1_800_000));
        std::fs::write(&file, "garbled\n").unwrap();
        assert_eq!(sampler.sample()[0], None);
        // A file gone is no value, and one back is read again.
        std::fs::remove_file(&file).unwrap();
        assert_eq!(sampler.sample()[0], None);
        std::fs::write(&file, "600000\n").unwrap();
        assert_eq!(sampler.sample()[0], Some(600_000));
    }

    #[test]
    fn only_a_file_on_sysfs_is_trusted_to_keep_its_name() {
        // A policy's folder on disk, and one whose `scaling_cur_freq` is a file of sysfs (the
        // kernel's `uevent_seqnum`, there on every machine, with cpufreq or without).
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("scaling_cur_freq"), "1\n").unwrap();
        let linked = dir.path().join("linked");
        std::fs::create_dir(&linked).unwrap();
        let sysfs_file = linked.join("scaling_cur_freq");
        std::os::unix::fs::symlink("/sys/kernel/uevent_seqnum", sysfs_file).unwrap();
        let folder = |path: &Path| {
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            rustix::fs::open(path, flags, Mode::empty()).unwrap()
        };
        let on_disk = KeptFile::open_at(&folder(dir.path()), "scaling_cur_freq").unwrap();
        assert!(!on_disk.on_sysfs());
        assert!(on_disk.still_named());
        let on_sysfs = KeptFile::open_at(&folder(&linked), "scaling_cur_freq").unwrap();
        assert!(on_sysfs.on_sysfs(), "/sys/kernel/uevent_seqnum is on sysfs");
    }
}
