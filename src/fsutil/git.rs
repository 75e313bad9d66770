//! Reading files as a git revision has them: the PR's base commit is where the
//! baseline and the rules that judge a pull request come from (DESIGN §9).
//! Bounded like [`super::read_input`]: the same size cap, UTF-8 checked.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::InputError;

/// Run `git -C cwd args…` with no stdin.
pub fn git(cwd: &Path, args: &[&str]) -> std::io::Result<Output> {
    Command::new("git")
        .arg("-C")
        .arg(cwd)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
}

/// The nearest existing ancestor of `path` (to run git in) and `path`
/// relative to it. A directory that the working tree deleted still resolves.
pub fn anchor(path: &Path) -> (PathBuf, PathBuf) {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut dir = abs.as_path();
    loop {
        if dir.is_dir() {
            let rel = abs.strip_prefix(dir).unwrap_or(Path::new("")).to_path_buf();
            return (dir.to_path_buf(), rel);
        }
        match dir.parent() {
            Some(p) => dir = p,
            None => return (PathBuf::from("."), abs.clone()),
        }
    }
}

/// How a path is shown when it was read from `rev`: `rev:path`.
pub fn shown_at(rev: &str, path: &Path) -> PathBuf {
    PathBuf::from(format!("{rev}:{}", path.display()))
}

/// The text of `path` at `rev`: `NotFound` when `rev` has no such file, `Io`
/// when git cannot run or fails, `TooLarge`/`NotUtf8` as for a file on disk.
pub fn read_text_at(rev: &str, path: &Path) -> Result<String, InputError> {
    let (cwd, rel) = anchor(path);
    let object = format!("{rev}:./{}", rel.display());
    let failed = |what: &str, out: &Output| {
        InputError::Io(std::io::Error::other(format!(
            "`git {what} {object}` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    };
    let kind = git(&cwd, &["cat-file", "-t", &object]).map_err(InputError::Io)?;
    if !kind.status.success() {
        return Err(InputError::NotFound(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("`{}` has no `{}`", rev, rel.display()),
        )));
    }
    match String::from_utf8_lossy(&kind.stdout).trim() {
        "blob" => {}
        "tree" => return Err(InputError::NotRegular { kind: "directory" }),
        _ => return Err(InputError::NotRegular { kind: "git object" }),
    }
    let size = git(&cwd, &["cat-file", "-s", &object]).map_err(InputError::Io)?;
    let limit = super::max_input_bytes();
    if let Some(size) = String::from_utf8_lossy(&size.stdout)
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|s| *s > limit)
    {
        return Err(InputError::TooLarge { size, limit });
    }
    let out = git(&cwd, &["cat-file", "blob", &object]).map_err(InputError::Io)?;
    if !out.status.success() {
        return Err(failed("cat-file blob", &out));
    }
    super::text_from_bytes(out.stdout)
}

/// The names of the entries of directory `dir` at `rev` (files and folders), sorted;
/// empty when `rev` has no such directory.
pub fn list_dir_at(rev: &str, dir: &Path) -> Result<Vec<String>, InputError> {
    let (cwd, rel) = anchor(dir);
    let object = format!("{rev}:./{}", rel.display());
    // `--full-tree`: run in a sub-directory, ls-tree would otherwise list only the entries
    // under that directory's own path inside the tree, i.e. none.
    let out = git(
        &cwd,
        &["ls-tree", "--full-tree", "--name-only", "-z", &object],
    )
    .map_err(InputError::Io)?;
    if !out.status.success() {
        return Ok(Vec::new());
    }
    let mut names: Vec<String> = out
        .stdout
        .split(|b| *b == 0)
        .filter(|n| !n.is_empty())
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect();
    names.sort();
    Ok(names)
}

/// Whether `rev` names a commit in the repository that holds `path`.
pub fn is_commit(path: &Path, rev: &str) -> std::io::Result<bool> {
    let (cwd, _) = anchor(path);
    let spec = format!("{rev}^{{commit}}");
    git(&cwd, &["rev-parse", "--verify", "--quiet", &spec]).map(|o| o.status.success())
}

/// The top directory of the work tree that holds `path`, if it is in one.
pub fn toplevel(path: &Path) -> Option<PathBuf> {
    let (cwd, _) = anchor(path);
    let out = git(&cwd, &["rev-parse", "--show-toplevel"]).ok()?;
    out.status
        .success()
        .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            let out = git(dir.path(), args).unwrap();
            assert!(out.status.success(), "{args:?}: {out:?}");
        };
        run(&["init", "-q"]);
        std::fs::create_dir_all(dir.path().join("suites/a")).unwrap();
        std::fs::write(dir.path().join("suites/a/suite.yaml"), "old\n").unwrap();
        std::fs::write(dir.path().join("top.txt"), "x").unwrap();
        run(&["add", "."]);
        run(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "one",
        ]);
        dir
    }

    #[test]
    fn reads_the_committed_text_not_the_working_tree() {
        let dir = repo();
        let file = dir.path().join("suites/a/suite.yaml");
        std::fs::write(&file, "new\n").unwrap();
        // Listed from the committed tree while the folder exists in the working tree too.
        std::fs::create_dir(dir.path().join("suites/uncommitted")).unwrap();
        assert_eq!(
            list_dir_at("HEAD", &dir.path().join("suites")).unwrap(),
            ["a"]
        );
        assert_eq!(
            list_dir_at("HEAD", &dir.path().join("suites/a")).unwrap(),
            ["suite.yaml"]
        );
        assert_eq!(read_text_at("HEAD", &file).unwrap(), "old\n");
        std::fs::remove_dir_all(dir.path().join("suites")).unwrap();
        assert_eq!(
            read_text_at("HEAD", &file).unwrap(),
            "old\n",
            "a folder the working tree deleted still reads"
        );
        assert!(matches!(
            read_text_at("HEAD", &dir.path().join("suites/b/suite.yaml")),
            Err(InputError::NotFound(_))
        ));
        assert!(matches!(
            read_text_at("HEAD", &dir.path().join("suites/a")),
            Err(InputError::NotRegular { .. })
        ));
        assert_eq!(
            list_dir_at("HEAD", &dir.path().join("suites")).unwrap(),
            ["a"]
        );
        assert!(
            list_dir_at("HEAD", &dir.path().join("nowhere"))
                .unwrap()
                .is_empty()
        );
        assert!(is_commit(dir.path(), "HEAD").unwrap());
        assert!(!is_commit(dir.path(), "4b825dc642cb6eb9a060e54bf8d69288fbee4904").unwrap());
    }
}
