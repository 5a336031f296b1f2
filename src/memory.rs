//! The memory a job may use: what the machine has available, and the limit
//! of the memory cgroup the process runs in (Slurm jobs and containers set
//! one, and the kernel charges the page cache of the job's files to it too),
//! whichever is less; and the disk space free for its files. Sizes are
//! said with [`human_bytes`].

use std::io;
use std::path::{Path, PathBuf};

/// Bytes free for an unprivileged user on the file system of `path`.
pub fn free_disk(path: &Path) -> io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))?;
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `name` is a NUL-terminated path and `stat` a struct the call fills in.
    if unsafe { libc::statvfs(name.as_ptr(), &mut stat) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(stat.f_bavail as u64 * stat.f_frsize as u64)
}

/// The limit of a memory cgroup and the file that sets it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CgroupLimit {
    /// Bytes.
    pub bytes: u64,
    /// `memory.max` (cgroup v2) or `memory.limit_in_bytes` (v1).
    pub file: PathBuf,
}

/// `MemAvailable` of `/proc/meminfo`, in bytes, if the system says.
pub fn available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib: u64 = line.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib << 10)
}

/// The tightest memory limit of this process's cgroup and its ancestors,
/// if one is set.
pub fn cgroup_limit() -> Option<CgroupLimit> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    cgroup_limit_in(&cgroups, Path::new("/sys/fs/cgroup"))
}

/// What the machine lets a job use: [`available`], capped by
/// [`cgroup_limit`].
pub fn usable() -> Option<u64> {
    let limit = cgroup_limit().map(|l| l.bytes);
    match (available(), limit) {
        (Some(a), Some(l)) => Some(a.min(l)),
        (a, l) => a.or(l),
    }
}

/// [`cgroup_limit`] for the lines of `/proc/self/cgroup` given and the
/// cgroup file systems mounted under `root`: v2 (`0::PATH`, limits in
/// `root/PATH/memory.max`) or v1 (`N:...memory...:PATH`, limits in
/// `root/memory/PATH/memory.limit_in_bytes`).
pub fn cgroup_limit_in(cgroups: &str, root: &Path) -> Option<CgroupLimit> {
    let entries: Vec<(&str, &str, &str)> = cgroups
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, ':');
            Some((fields.next()?, fields.next()?, fields.next()?))
        })
        .collect();
    // v1's memory controller, else v2's unified hierarchy (on a hybrid
    // system v2 is mounted elsewhere, without the memory controller).
    let v1 = entries
        .iter()
        .find(|(_, controllers, _)| controllers.split(',').any(|c| c == "memory"))
        .map(|&(_, _, path)| (root.join("memory"), path, "memory.limit_in_bytes"));
    let v2 = || {
        let unified = root.join("cgroup.controllers").exists();
        entries
            .iter()
            .find(|&&(id, controllers, _)| unified && id == "0" && controllers.is_empty())
            .map(|&(_, _, path)| (root.to_path_buf(), path, "memory.max"))
    };
    let (mount, path, file) = v1.or_else(v2)?;
    // A limit holds for the cgroups below it: the tightest on the way up.
    let mut dir = mount.join(path.trim_start_matches('/'));
    let mut tightest: Option<CgroupLimit> = None;
    loop {
        let file = dir.join(file);
        if let Some(bytes) = read_limit(&file)
            && tightest.as_ref().is_none_or(|t| bytes < t.bytes)
        {
            tightest = Some(CgroupLimit { bytes, file });
        }
        if dir == mount || !dir.pop() {
            return tightest;
        }
    }
}

/// A limit file's bytes; `None` for no limit (`max`, or v1's huge number).
fn read_limit(file: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let bytes: u64 = text.trim().parse().ok()?;
    (bytes < 1 << 62).then_some(bytes)
}

/// `bytes` in binary units, as `--memory` takes them (`1.5 GiB`).
pub fn human_bytes(bytes: u64) -> String {
    human_bytes_to(bytes, 1)
}

/// `a` and `b` as [`human_bytes`] writes them, with up to two more
/// decimals where they differ but would read the same ("needs 1.83 TiB;
/// --disk is 1.80 TiB", not "needs 1.8 TiB; --disk is 1.8 TiB").
pub fn human_bytes_apart(a: u64, b: u64) -> [String; 2] {
    let mut decimals = 1;
    while decimals < 3 && a != b && human_bytes_to(a, decimals) == human_bytes_to(b, decimals) {
        decimals += 1;
    }
    [human_bytes_to(a, decimals), human_bytes_to(b, decimals)]
}

/// `bytes` in the largest binary unit under which it is at least 1, to
/// `decimals` places.
fn human_bytes_to(bytes: u64, decimals: usize) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} B"),
        _ => format!("{value:.decimals$} {}", UNITS[unit]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_that_differ_never_read_the_same() {
        assert_eq!(human_bytes(1 << 40), "1.0 TiB");
        let (needed, given) = (2_012_000_000_000, 1_979_120_929_996);
        assert_eq!(human_bytes(needed), human_bytes(given));
        assert_eq!(human_bytes_apart(needed, given), ["1.83 TiB", "1.80 TiB"]);
        assert_eq!(human_bytes_apart(3 << 30, 1 << 30), ["3.0 GiB", "1.0 GiB"]);
        assert_eq!(human_bytes_apart(1 << 30, 1 << 30), ["1.0 GiB", "1.0 GiB"]);
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn free_disk_reads_the_file_system_of_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        assert!(free_disk(dir.path()).unwrap() > 0);
        let missing = free_disk(&dir.path().join("missing")).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn a_v1_limit_is_the_tightest_on_the_way_up() {
        let root = tempfile::tempdir().unwrap();
        let memory = root.path().join("memory");
        write(
            &memory.join("memory.limit_in_bytes"),
            "9223372036854771712\n",
        );
        write(&memory.join("jobs/memory.limit_in_bytes"), "1073741824\n");
        write(
            &memory.join("jobs/42/memory.limit_in_bytes"),
            "9223372036854771712\n",
        );
        let cgroups = "5:cpu:/\n4:memory:/jobs/42\n0::/\n";
        let limit = cgroup_limit_in(cgroups, root.path()).unwrap();
        assert_eq!(limit.bytes, 1 << 30);
        assert_eq!(limit.file, memory.join("jobs/memory.limit_in_bytes"));
        // No limit anywhere: none.
        write(
            &memory.join("jobs/memory.limit_in_bytes"),
            "9223372036854771712\n",
        );
        assert_eq!(cgroup_limit_in(cgroups, root.path()), None);
    }

    #[test]
    fn a_v2_limit_is_read_from_memory_max() {
        let root = tempfile::tempdir().unwrap();
        write(&root.path().join("cgroup.controllers"), "cpu memory pids\n");
        write(&root.path().join("slurm/job_7/memory.max"), "314572800\n");
        write(&root.path().join("slurm/job_7/step_0/memory.max"), "max\n");
        let cgroups = "0::/slurm/job_7/step_0\n";
        let limit = cgroup_limit_in(cgroups, root.path()).unwrap();
        assert_eq!(limit.bytes, 300 << 20);
        assert_eq!(limit.file, root.path().join("slurm/job_7/memory.max"));
        // A process outside any limited cgroup, and a system without cgroups.
        assert_eq!(cgroup_limit_in("0::/\n", root.path()), None);
        assert_eq!(cgroup_limit_in("", root.path()), None);
    }
}
