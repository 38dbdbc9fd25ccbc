//! Atomic file writes: write a temporary file in the target's folder, then rename it over
//! the target, so an interrupted run never leaves a half-written file.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Write `contents` to `path` atomically, creating parent folders.
pub fn write(path: &Path, contents: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create folder", dir, &e))?;
    // Temporary files are private (0600); the result should be an ordinary file: keep the
    // permissions of the file being replaced, else the usual 0666 less the umask.
    let mut builder = tempfile::Builder::new();
    builder.prefix(".promptc-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o666, |m| m.permissions().mode() & 0o7777);
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(|e| Error::io("create a temporary file in", dir, &e))?;
    tmp.write_all(contents).map_err(|e| Error::io("write", tmp.path(), &e))?;
    tmp.as_file().sync_all().map_err(|e| Error::io("flush", tmp.path(), &e))?;
    tmp.persist(path).map_err(|e| Error::io("replace", path, &e.error))?;
    Ok(())
}

#[cfg(test)]
#[path = "atomic_tests.rs"]
mod tests;
