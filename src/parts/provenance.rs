//! Where, when and by which build a part record was made: a run id unique to the process,
//! the host's name and a machine id, the build (nqueen's version and the source's commit,
//! where the build knew it), and times in UTC. A disagreement between two counts of a shard
//! can so be traced to a machine and a build.
//!
//! Host names need not tell machines apart (every container on the lent GPU hosts calls
//! itself "vm"), and neither need `/etc/machine-id`, which a container image may carry to
//! every machine it runs on. The machine id is a hash of the running kernel's boot id
//! (`/proc/sys/kernel/random/boot_id`, the same for every process and container on one
//! machine, and new at each boot) with `/etc/machine-id` where each exists: two machines
//! never share it, though a machine that reboots gets a new one. Where the operator knows
//! better (containers that share a kernel, clouds whose machines come and go), the
//! environment variable [`MACHINE_VARIABLE`] names the machine instead.

use std::hash::{BuildHasher, Hasher};
use std::time::SystemTime;

use super::TooLong;
use crate::files::small_text;

/// The most of a host's name or id that is read.
const SMALL_FILE: u64 = 4096;

/// The environment variable that names the machine in part records, in place of the id
/// made from the boot id and `/etc/machine-id`.
pub const MACHINE_VARIABLE: &str = "NQUEEN_MACHINE";

/// The longest machine or host name a part record takes, in bytes (POSIX's longest host
/// name), so that a record fits the bound its readers keep (see [`super::MAX_FILE_NAME`]).
pub const MAX_MACHINE: usize = 255;

/// The source's commit as `build.rs` found it (with "-dirty" for uncommitted changes);
/// empty where the source was not a git checkout.
const COMMIT: &str = env!("NQUEEN_COMMIT");

/// What every record of one process says of its origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// Unique to the process: 32 hex digits.
    pub run: String,
    pub host: String,
    /// The machine (see the module doc): [`MACHINE_VARIABLE`]'s value, or 16 hex digits;
    /// and where it came from ("NQUEEN_MACHINE", or what the digits were made of:
    /// "boot-id+machine-id", "boot-id" or "machine-id"); none where nothing names it.
    pub machine: Option<(String, String)>,
    /// nqueen's version, then "+" and the commit where known.
    pub build: String,
}

impl Provenance {
    /// This process's.
    pub fn of_this_process() -> Provenance {
        let host = host_name();
        let read = |path: &str| small_text(path, SMALL_FILE);
        let named = std::env::var(MACHINE_VARIABLE).ok().map(|name| name.trim().to_string()).filter(|name| !name.is_empty());
        let machine = match named {
            Some(name) => Some((name, MACHINE_VARIABLE.to_string())),
            None => machine_id(read("/proc/sys/kernel/random/boot_id"), read("/etc/machine-id")),
        };
        Provenance { run: run_id(&host), host, machine, build: build() }
    }
}

impl Provenance {
    /// Why a part record could not take what it says, if it could not: a machine or host
    /// name from the environment longer than [`MAX_MACHINE`].
    pub fn fits_records(&self) -> Result<(), TooLong> {
        let named = self.machine.as_ref().filter(|(_, from)| from == MACHINE_VARIABLE).map(|(name, _)| name.len());
        if let Some(bytes) = named.filter(|&bytes| bytes > MAX_MACHINE) {
            return Err(TooLong::Machine { bytes });
        }
        match self.host.len() {
            bytes if bytes > MAX_MACHINE => Err(TooLong::Host { bytes }),
            _ => Ok(()),
        }
    }
}

/// The machine id made from the kernel's boot id and `/etc/machine-id`, where known: 16 hex
/// digits of a SHA-256 of both, and which were there.
fn machine_id(boot: Option<String>, machine: Option<String>) -> Option<(String, String)> {
    let from: Vec<&str> =
        [("boot-id", &boot), ("machine-id", &machine)].iter().filter(|(_, v)| v.is_some()).map(|(name, _)| *name).collect();
    if from.is_empty() {
        return None;
    }
    let text = format!("boot-id:{}\nmachine-id:{}\n", boot.unwrap_or_default(), machine.unwrap_or_default());
    Some((crate::files::digest::of(&text)[..16].to_string(), from.join("+")))
}

/// nqueen's version, then "+" and the source's commit where the build knew it.
pub fn build() -> String {
    let version = env!("CARGO_PKG_VERSION");
    if COMMIT.is_empty() {
        version.to_string()
    } else {
        format!("{version}+{COMMIT}")
    }
}

/// `time` as RFC 3339 in UTC, to the second: "2026-11-25T19:21:52Z".
pub fn utc(time: SystemTime) -> String {
    humantime::format_rfc3339_seconds(time).to_string()
}

/// The host's name, as the kernel has it; "unknown" where it cannot be found.
fn host_name() -> String {
    let from_kernel = small_text("/proc/sys/kernel/hostname", SMALL_FILE);
    let name = from_kernel.or_else(|| std::env::var("HOSTNAME").ok()).or_else(|| std::env::var("COMPUTERNAME").ok());
    name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).unwrap_or_else(|| "unknown".into())
}

/// 128 bits unique to this process: the OS's randomness (which seeds the standard
/// library's hash keys) mixed with the time, the process id and the host.
fn run_id(host: &str) -> String {
    let mut random = std::collections::hash_map::RandomState::new().build_hasher();
    random.write_u32(std::process::id());
    let since = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let text = format!("{}:{}:{}:{host}", random.finish(), since.as_nanos(), std::process::id());
    crate::files::digest::of(&text)[..32].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn machines_are_told_apart_by_boot_id_even_where_the_image_gives_one_machine_id() {
        let image = Some("3d1219c7c4c5404aaa1f6d2a48adfda4".to_string());
        let one = machine_id(Some("9e952f67-54cf".into()), image.clone()).unwrap();
        let two = machine_id(Some("1b0e3c21-77aa".into()), image.clone()).unwrap();
        assert_ne!(one.0, two.0);
        assert_eq!((one.0.len(), one.1.as_str()), (16, "boot-id+machine-id"));
        assert_eq!(machine_id(Some("9e952f67-54cf".into()), image.clone()), Some(one));
        assert_eq!(machine_id(None, image).map(|m| m.1), Some("machine-id".to_string()));
        assert_eq!(machine_id(None, None), None);
    }

    #[test]
    fn a_name_from_the_environment_longer_than_a_record_takes_is_refused() {
        let mut p = Provenance::of_this_process();
        p.host = "h".repeat(MAX_MACHINE);
        p.machine = Some(("m".repeat(MAX_MACHINE), MACHINE_VARIABLE.into()));
        assert_eq!(p.fits_records(), Ok(()));
        p.machine = Some(("m".repeat(MAX_MACHINE + 1), MACHINE_VARIABLE.into()));
        assert_eq!(p.fits_records(), Err(TooLong::Machine { bytes: 256 }));
        assert_eq!(p.fits_records().unwrap_err().to_string(), "NQUEEN_MACHINE is 256 bytes long, more than the 255 a part record takes");
        p.machine = None;
        p.host = "h".repeat(1000);
        assert_eq!(p.fits_records().unwrap_err().to_string(), "the host's name is 1000 bytes long, more than the 255 a part record takes");
    }

    #[test]
    fn runs_are_told_apart_and_times_are_utc() {
        let (a, b) = (Provenance::of_this_process(), Provenance::of_this_process());
        assert_ne!(a.run, b.run);
        assert_eq!((a.run.len(), &a.host, &a.build), (32, &b.host, &b.build));
        assert!(a.build.starts_with(env!("CARGO_PKG_VERSION")));
        assert_eq!(a.machine, b.machine);
        let leap_day = SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400 + 3_661);
        assert_eq!(utc(leap_day), "2000-02-29T01:01:01Z");
    }
}
