// SPDX-License-Identifier: GPL-3.0-or-later
//! Sets of CPU numbers as the kernel prints them.
//!
//! The kernel uses two spellings: range lists (`0-3,8`, from `%*pbl`, in `online`, `present`,
//! `cpu_core/cpus`, `thread_siblings_list`, energy-model `cpus`) and space-separated lists
//! (`0 1 2 3`, from `cpufreq_show_cpus()`, in `affected_cpus` and `related_cpus`). Both parse
//! into the same [`CpuSet`]; it always prints as a range list.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The largest CPU number accepted, exclusive. Linux's `NR_CPUS` tops out at 8192 on every
/// architecture; anything above is garbage, and refusing it keeps a hostile `0-4294967295`
/// from allocating gigabytes.
pub const MAX_CPUS: u32 = 8192;

/// A set of CPU numbers, kept sorted and without duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CpuSet(Vec<u32>);

/// Why a CPU list did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CpuSetError {
    #[error("{0:?} is not a CPU number")]
    NotANumber(String),
    #[error("CPU {0} is beyond the largest possible CPU number ({max})", max = MAX_CPUS - 1)]
    TooLarge(u32),
    #[error("the range {0}-{1} runs backwards")]
    Backwards(u32, u32),
}

impl CpuSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses either spelling: `0-3,8`, `0 1 2 3`, or an empty line (no CPUs).
    ///
    /// The CPUs are marked in a bitmap of [`MAX_CPUS`] bits as they are read, so a file that
    /// repeats `0-8191` a thousand times costs a kilobyte, not a list of millions.
    pub fn parse(text: &str) -> Result<Self, CpuSetError> {
        const WORD: u32 = u64::BITS;
        let mut marked = [0u64; (MAX_CPUS / WORD) as usize];
        let mut mark = |cpu: u32| marked[(cpu / WORD) as usize] |= 1 << (cpu % WORD);
        for item in text.split([',', ' ', '\n', '\t']).filter(|s| !s.is_empty()) {
            match item.split_once('-') {
                Some((first, last)) => {
                    let first = parse_cpu(first)?;
                    let last = parse_cpu(last)?;
                    if last < first {
                        return Err(CpuSetError::Backwards(first, last));
                    }
                    (first..=last).for_each(&mut mark);
                }
                None => mark(parse_cpu(item)?),
            }
        }
        let mut cpus = Vec::new();
        for (index, &word) in (0u32..).zip(marked.iter()) {
            let mut bits = word;
            while bits != 0 {
                cpus.push(index * WORD + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
        Ok(Self(cpus))
    }

    pub fn contains(&self, cpu: u32) -> bool {
        self.0.binary_search(&cpu).is_ok()
    }

    pub fn insert(&mut self, cpu: u32) {
        if let Err(at) = self.0.binary_search(&cpu) {
            self.0.insert(at, cpu);
        }
    }

    pub fn extend(&mut self, other: &CpuSet) {
        for &cpu in &other.0 {
            self.insert(cpu);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn first(&self) -> Option<u32> {
        self.0.first().copied()
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().copied()
    }

    pub fn is_subset(&self, other: &CpuSet) -> bool {
        self.0.iter().all(|&cpu| other.contains(cpu))
    }
}

fn parse_cpu(text: &str) -> Result<u32, CpuSetError> {
    // `u32::from_str` accepts a leading `+`; the kernel never prints one.
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CpuSetError::NotANumber(text.to_owned()));
    }
    match text.parse::<u32>() {
        Ok(cpu) if cpu < MAX_CPUS => Ok(cpu),
        Ok(cpu) => Err(CpuSetError::TooLarge(cpu)),
        Err(_) => Err(CpuSetError::TooLarge(u32::MAX)),
    }
}

impl std::str::FromStr for CpuSet {
    type Err = CpuSetError;
    fn from_str(text: &str) -> Result<Self, CpuSetError> {
        CpuSet::parse(text)
    }
}

impl FromIterator<u32> for CpuSet {
    fn from_iter<I: IntoIterator<Item = u32>>(iter: I) -> Self {
        let mut cpus: Vec<u32> = iter.into_iter().collect();
        cpus.sort_unstable();
        cpus.dedup();
        Self(cpus)
    }
}

/// Prints the kernel's range-list form: `0-3,8,10-11`.
impl fmt::Display for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut cpus = self.0.iter().copied().peekable();
        let mut first_item = true;
        while let Some(start) = cpus.next() {
            let mut end = start;
            while cpus.peek() == Some(&(end + 1)) {
                end += 1;
                cpus.next();
            }
            if !first_item {
                f.write_str(",")?;
            }
            first_item = false;
            if end == start {
                write!(f, "{start}")?;
            } else {
                write!(f, "{start}-{end}")?;
            }
        }
        Ok(())
    }
}

/// Serialised as an array of CPU numbers, the form the JSON contract uses.
impl Serialize for CpuSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// Read back from the same array (any order, duplicates dropped), for documents that cross
/// the bus; numbers beyond [`MAX_CPUS`] are refused as they are in the kernel's spelling.
impl<'de> Deserialize<'de> for CpuSet {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let cpus = Vec::<u32>::deserialize(deserializer)?;
        match cpus.iter().find(|&&cpu| cpu >= MAX_CPUS) {
            Some(&cpu) => Err(serde::de::Error::custom(CpuSetError::TooLarge(cpu))),
            None => Ok(cpus.into_iter().collect()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_huge_repetitive_list_costs_no_more_than_its_set() {
        let text = "0-8191,".repeat(9000);
        let cpus = CpuSet::parse(&text).unwrap();
        assert_eq!(cpus.len(), 8192);
        assert!(cpus.0.capacity() <= 2 * 8192, "{}", cpus.0.capacity());
    }

    #[test]
    fn parses_both_kernel_spellings() {
        let ranges = CpuSet::parse("0-3,8\n").unwrap();
        let spaced = CpuSet::parse("0 1 2 3 8\n").unwrap();
        assert_eq!(ranges, spaced);
        assert_eq!(ranges.to_string(), "0-3,8");
        assert_eq!(CpuSet::parse("0,8").unwrap().len(), 2);
        assert!(CpuSet::parse("\n").unwrap().is_empty());
        assert!(CpuSet::parse("").unwrap().is_empty());
    }

    #[test]
    fn rejects_garbage() {
        assert_eq!(
            CpuSet::parse("0-x"),
            Err(CpuSetError::NotANumber("x".into()))
        );
        assert_eq!(CpuSet::parse("3-1"), Err(CpuSetError::Backwards(3, 1)));
        assert_eq!(CpuSet::parse("0-8192"), Err(CpuSetError::TooLarge(8192)));
        assert!(CpuSet::parse("0-4294967295").is_err());
        assert!(CpuSet::parse("99999999999999999999").is_err());
        assert!(CpuSet::parse("+1").is_err());
        assert!(CpuSet::parse("-1").is_err());
        assert!(CpuSet::parse("1--2").is_err());
    }

    proptest! {
        /// Whatever set of CPUs, printing then parsing gives it back.
        #[test]
        fn display_round_trips(cpus in proptest::collection::btree_set(0u32..MAX_CPUS, 0..200)) {
            let set: CpuSet = cpus.iter().copied().collect();
            let parsed = CpuSet::parse(&set.to_string()).unwrap();
            prop_assert_eq!(&parsed, &set);
            prop_assert_eq!(parsed.iter().collect::<Vec<_>>(), cpus.into_iter().collect::<Vec<_>>());
        }

        /// The space-separated form of `cpufreq_show_cpus()` parses to the same set.
        #[test]
        fn space_separated_matches(cpus in proptest::collection::btree_set(0u32..MAX_CPUS, 0..100)) {
            let text = cpus.iter().map(u32::to_string).collect::<Vec<_>>().join(" ") + "\n";
            let set = CpuSet::parse(&text).unwrap();
            prop_assert_eq!(set.len(), cpus.len());
        }

        /// No input makes the parser panic; what it accepts only holds possible CPU numbers.
        #[test]
        fn never_panics(text in "\\PC{0,40}") {
            if let Ok(set) = CpuSet::parse(&text) {
                prop_assert!(set.iter().all(|cpu| cpu < MAX_CPUS));
            }
        }
    }
}
