//! An exclusive lock on a directory (`flock(2)` on the directory itself, via
//! `std::fs::File::lock`), so no lock file appears among the files it
//! guards: `git add baselines/` never commits one. Released on drop, and by
//! the kernel when the process dies (even by SIGKILL).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Held while the lock is held.
#[derive(Debug)]
pub struct DirLock {
    file: File,
    path: PathBuf,
}

impl DirLock {
    /// Create `dir` if needed and lock it exclusively, waiting for another
    /// holder to finish.
    pub fn acquire(dir: &Path) -> io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let file = File::open(dir)?;
        file.lock()?;
        Ok(Self {
            file,
            path: dir.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ignored = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(dir.path()).unwrap();
        let other = File::open(dir.path()).unwrap();
        assert!(other.try_lock().is_err(), "held by `first`");
        drop(first);
        assert!(other.try_lock().is_ok());
    }
}
