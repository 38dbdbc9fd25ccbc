//! The compile cache on disk: what a matrix run made of each cell, kept beside the project's
//! token cache (`compile.json` in the token cache's folder) so that the next process finds it
//! too. The same rules as the token cache: it only saves time, it is read as a bounded regular
//! file inside the project and written only there, any problem is a warning, and an entry is
//! believed only with a tag made with the user's own key (which no project holds) over
//! everything in it — its cell key, the build that wrote it, the files it depends on with their
//! SHA-256, and its accounts and warnings. A committed or edited cache therefore costs a
//! recompile, never a figure.
//!
//! An entry is parsed only when a run asks for its cell and its files are as they were; its
//! accounts are stored without their shares, which are recomputed from the counts (a float read
//! back could differ from the one computed in its last bit).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::code::RuleCode;
use crate::diagnostic::{Diagnostic, Label, Position, Severity};
use crate::measure::account::{Account, Known};
use crate::measure::tokens::{CacheFile, Mac};
use crate::model::transport::Transport;

/// The version of the file format this build writes and reads.
const FORMAT: u32 = 1;

/// Largest compile cache promptc reads or writes; past it, the cache is neither (a warning).
const MAX_COMPILE_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// The file's name, in the token cache's folder.
const FILE_NAME: &str = "compile.json";

/// Whether the caches of a project whose token cache is `named` write `path`: the token
/// cache's shards beside it, or the compile cache in its folder (what `promptc watch` must not
/// take for an input).
pub fn is_cache_file(named: &Path, path: &Path) -> bool {
    crate::measure::tokens::is_shard(named, path) || (path == named.with_file_name(FILE_NAME) && path != named)
}

/// The file as written.
#[derive(Serialize, Deserialize)]
struct DiskFile {
    /// [`FORMAT`]; a file of another format is passed over.
    format: u32,
    /// The build that wrote it ([`build_id`]); entries of another build are passed over.
    build: String,
    /// Entries by cell key.
    entries: BTreeMap<String, DiskEntry>,
}

/// One cell's entry as written: its accounts and warnings are kept as raw JSON until a run
/// asks for them.
#[derive(Serialize, Deserialize)]
pub(super) struct DiskEntry {
    deps: Vec<(String, String)>,
    bytes: usize,
    known: Box<RawValue>,
    tag: String,
}

/// What a cell's entry holds, as written.
#[derive(Serialize, Deserialize)]
struct KnownRepr {
    transport: Transport,
    warnings: Vec<DiagnosticRepr>,
    accounts: Vec<Account>,
}

/// [`KnownRepr`] to write, borrowing the accounts.
#[derive(Serialize)]
struct KnownRef<'a> {
    transport: Transport,
    warnings: Vec<DiagnosticRepr>,
    accounts: &'a [Account],
}

/// A diagnostic as written (the public type has no serde form of its own: its JSON view,
/// `Diagnostic::to_json`, is for people and drops the snippet).
#[derive(Serialize, Deserialize)]
struct DiagnosticRepr {
    severity: Severity,
    code: Option<String>,
    message: String,
    label: Option<LabelRepr>,
    label_text: Option<String>,
    notes: Vec<String>,
    help: Option<String>,
}

/// A label as written.
#[derive(Serialize, Deserialize)]
struct LabelRepr {
    file: String,
    position: Option<Position>,
    source_line: Option<String>,
}

impl From<&Diagnostic> for DiagnosticRepr {
    fn from(d: &Diagnostic) -> Self {
        DiagnosticRepr {
            severity: d.severity,
            code: d.code.map(|c| c.as_str().to_string()),
            message: d.message.clone(),
            label: d.label.as_ref().map(|l| LabelRepr {
                file: l.file.clone(),
                position: l.position,
                source_line: l.source_line.clone(),
            }),
            label_text: d.label_text.clone(),
            notes: d.notes.clone(),
            help: d.help.clone(),
        }
    }
}

impl DiagnosticRepr {
    /// The diagnostic; `None` if its code is not one of this build's.
    fn into_diagnostic(self) -> Option<Diagnostic> {
        let code = match self.code {
            Some(c) => Some(RuleCode::parse(&c)?),
            None => None,
        };
        let label = self.label.map(|l| {
            let mut label = Label::file(&l.file);
            (label.position, label.source_line) = (l.position, l.source_line);
            label
        });
        let mut d = Diagnostic::error(self.message);
        (d.severity, d.code, d.label, d.label_text, d.notes, d.help) =
            (self.severity, code, label, self.label_text, self.notes, self.help);
        Some(d)
    }
}

/// Which build of promptc made an entry: its version, and the executable that runs (its path,
/// size and modification time), so a rebuilt binary of the same version — whose accounting
/// may differ — never believes what the old one wrote. `None` when the executable cannot be
/// told: then nothing is read or written.
fn build_id() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(format!(
        "{} {} {} {}.{:09}",
        env!("CARGO_PKG_VERSION"),
        exe.display(),
        meta.len(),
        modified.as_secs(),
        modified.subsec_nanos()
    ))
}

/// The compile cache's file: where it is, what it held when read, and what went wrong.
pub(super) struct Disk {
    file: CacheFile,
    build: String,
    /// What the file held for this build, by cell key (parsed on demand).
    entries: HashMap<String, DiskEntry>,
    /// Whether the cache in memory holds what the file does not (a cell compiled).
    pub(super) dirty: bool,
    /// Problems: reported, never fatal.
    pub(super) warnings: Vec<Diagnostic>,
}

/// A cache problem as a warning: the cache only saves time, so nothing fails because of it.
fn warning(path: &Path, what: &str, why: &str) -> Diagnostic {
    Diagnostic::warning(format!("compile cache `{}` {what}: {why}", path.display()))
        .with_note("the cache only saves time: cells are compiled afresh")
}

/// The MAC of an entry: over every field, length-delimited, after the cache's name.
fn mac(key: &str, build: &str, deps: &[(String, String)], bytes: usize, known: &str) -> Mac {
    let mut mac = Mac::new();
    let mut field = |b: &[u8]| {
        mac.update(&(b.len() as u64).to_le_bytes());
        mac.update(b);
    };
    field(b"promptc compile cache 1");
    field(key.as_bytes());
    field(build.as_bytes());
    field(&(deps.len() as u64).to_le_bytes());
    for (rel, sha) in deps {
        field(rel.as_bytes());
        field(sha.as_bytes());
    }
    field(&(bytes as u64).to_le_bytes());
    field(known.as_bytes());
    mac
}

impl Disk {
    /// The compile cache beside `token_cache`, read now; `None` when there can be none (the
    /// build cannot be told, or the token cache's own name is the compile cache's).
    pub(super) fn open(token_cache: &CacheFile) -> Option<Disk> {
        let path = token_cache.path.with_file_name(FILE_NAME);
        if path == token_cache.path {
            return None;
        }
        let build = build_id()?;
        let file = CacheFile { path, root: token_cache.root.clone() };
        let mut disk = Disk { file, build, entries: HashMap::new(), dirty: false, warnings: Vec::new() };
        match crate::measure::tokens::read_confined(&disk.file, MAX_COMPILE_CACHE_BYTES) {
            Ok(None) => {}
            Ok(Some(bytes)) => match serde_json::from_slice::<DiskFile>(&bytes) {
                Ok(d) if d.format == FORMAT && d.build == disk.build => disk.entries = d.entries.into_iter().collect(),
                // Another format or build: what it holds is not for this one.
                Ok(_) => {}
                Err(_) => {
                    let w = warning(&disk.file.path, "was not read", "it is not a compile cache promptc wrote");
                    disk.warnings.push(w);
                }
            },
            Err(why) => disk.warnings.push(warning(&disk.file.path, "was not read", &why)),
        }
        Some(disk)
    }

    /// The entry of `key` as read, if its tag is this user's and `fresh` holds of its
    /// dependencies.
    pub(super) fn take(&mut self, key: &str, fresh: impl Fn(&[(String, String)]) -> bool) -> Option<super::Entry> {
        let e = self.entries.get(key)?;
        if !fresh(&e.deps) {
            return None;
        }
        let raw = e.known.get();
        if !mac(key, &self.build, &e.deps, e.bytes, raw).verify(&e.tag) {
            return None;
        }
        let e = self.entries.remove(key)?;
        let repr: KnownRepr = serde_json::from_str(e.known.get()).ok()?;
        let warnings = repr.warnings.into_iter().map(DiagnosticRepr::into_diagnostic).collect::<Option<Vec<_>>>()?;
        let mut accounts = repr.accounts;
        accounts.iter_mut().for_each(Account::recompute_shares);
        let known = Known { transport: repr.transport, warnings, accounts: Arc::from(accounts) };
        Some(super::Entry { deps: e.deps, known, bytes: e.bytes })
    }

    /// Write `entries` (the cache in memory after a run) if the file lacks any of them, in key
    /// order as many as fit in [`MAX_COMPILE_CACHE_BYTES`] (the others are compiled again next
    /// time: eviction, never a refusal to save); a cache that cannot be written is a warning.
    pub(super) fn save<'a>(
        &mut self,
        entries: impl Iterator<Item = (&'a String, &'a [(String, String)], &'a Known, usize)>,
    ) {
        self.save_within(entries, MAX_COMPILE_CACHE_BYTES);
    }

    /// [`Disk::save`] within `max` bytes.
    fn save_within<'a>(
        &mut self,
        entries: impl Iterator<Item = (&'a String, &'a [(String, String)], &'a Known, usize)>,
        max: u64,
    ) {
        if !self.dirty {
            return;
        }
        let mut out = BTreeMap::new();
        // Room for the entries: the bound less the file's own fields, each entry counted as its
        // strings plus the JSON around them (escapes aside: the final check catches those).
        let mut room = max.saturating_sub(1024);
        let mut entries: Vec<_> = entries.collect();
        entries.sort_by(|a, b| a.0.cmp(b.0));
        for (key, deps, known, bytes) in entries {
            let repr = KnownRef {
                transport: known.transport,
                warnings: known.warnings.iter().map(DiagnosticRepr::from).collect(),
                accounts: &known.accounts,
            };
            let Ok(raw) = serde_json::to_string(&repr) else { continue };
            let size = key.len() + raw.len() + deps.iter().map(|(a, b)| a.len() + b.len() + 8).sum::<usize>() + 96;
            let Some(left) = room.checked_sub(size as u64) else { continue };
            room = left;
            let tag = mac(key, &self.build, deps, bytes, &raw).tag();
            let Ok(known) = RawValue::from_string(raw) else { continue };
            out.insert(key.clone(), DiskEntry { deps: deps.to_vec(), bytes, known, tag });
        }
        let file = DiskFile { format: FORMAT, build: self.build.clone(), entries: out };
        let json = match serde_json::to_vec(&file) {
            Ok(j) => j,
            Err(e) => return self.warnings.push(warning(&self.file.path, "was not saved", &e.to_string())),
        };
        if json.len() as u64 > max {
            let why = format!("it would be larger than {max} bytes");
            return self.warnings.push(warning(&self.file.path, "was not saved", &why));
        }
        match crate::measure::tokens::write_confined(&self.file, &json) {
            Ok(()) => self.dirty = false,
            Err(why) => self.warnings.push(warning(&self.file.path, "was not saved", &why)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries past the bound are left out in key order (eviction), the rest are saved and read
    /// back; nothing is refused.
    #[test]
    fn a_cache_over_its_bound_keeps_the_entries_that_fit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let tokens = CacheFile { path: root.join("tokens.json"), root };
        let known = Known { transport: Transport::Xml, warnings: Vec::new(), accounts: Arc::from(Vec::new()) };
        // Each entry about 6.3 kB of dependencies: three do not fit in 15 kB, two do.
        let deps: Vec<(String, String)> = (0..20).map(|i| (format!("file{i}").repeat(40), "0".repeat(64))).collect();
        let keys = ["c", "a", "b"].map(String::from);
        let mut disk = Disk::open(&tokens).unwrap();
        disk.dirty = true;
        disk.save_within(keys.iter().map(|k| (k, deps.as_slice(), &known, 1)), 15_000);
        assert!(disk.warnings.is_empty(), "{:?}", disk.warnings);
        assert!(std::fs::metadata(tokens.path.with_file_name(FILE_NAME)).unwrap().len() <= 15_000);
        let mut again = Disk::open(&tokens).unwrap();
        let kept: Vec<bool> = ["a", "b", "c"].iter().map(|k| again.take(k, |_| true).is_some()).collect();
        assert_eq!(kept, [true, true, false], "the first keys that fit are kept");
    }
}
