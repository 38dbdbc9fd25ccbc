//! One encoding's tokenizer, built once on first need (or ahead of it, on a thread of its own)
//! and shared by the counter that owns it and a counting thread.

use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;

use tiktoken_rs::CoreBPE;

use crate::diagnostic::Diagnostic;
use crate::error::{ErrorKind, Result};
use crate::model::tokenizer::Encoding;

/// A tokenizer that is built when first asked for.
pub(in crate::measure::tokens) struct Engine {
    encoding: Encoding,
    bpe: OnceLock<CoreBPE>,
    /// A build started ahead of need (see [`Engine::prefetch`]).
    pending: Mutex<Option<JoinHandle<Result<CoreBPE>>>>,
}

impl Engine {
    pub(in crate::measure::tokens) fn new(encoding: Encoding) -> Engine {
        Engine { encoding, bpe: OnceLock::new(), pending: Mutex::new(None) }
    }

    /// Start building on another thread, unless built or being built.
    pub(in crate::measure::tokens) fn prefetch(&self) {
        let Ok(mut pending) = self.pending.lock() else { return };
        if pending.is_some() || self.bpe.get().is_some() {
            return;
        }
        let encoding = self.encoding;
        *pending = std::thread::Builder::new().name("tokenizer".into()).spawn(move || build(encoding)).ok();
    }

    /// Whether the tokenizer has been built and used.
    pub(in crate::measure::tokens) fn built(&self) -> bool {
        self.bpe.get().is_some()
    }

    /// The tokenizer, built now (or joined from a prefetch) if it is not yet.
    pub(in crate::measure::tokens) fn get(&self) -> Result<&CoreBPE> {
        if let Some(bpe) = self.bpe.get() {
            return Ok(bpe);
        }
        // The lock makes a second caller wait for the first build instead of building twice.
        let mut pending = self.pending.lock().map_err(|_| internal("the tokenizer build failed"))?;
        if self.bpe.get().is_none() {
            let built = match pending.take() {
                Some(handle) => handle.join().unwrap_or_else(|_| build(self.encoding))?,
                None => build(self.encoding)?,
            };
            let _ = self.bpe.set(built);
        }
        drop(pending);
        self.bpe.get().ok_or_else(|| internal("tokenizer unavailable"))
    }
}

/// Count each of `texts` (keyed by their cache keys).
pub(in crate::measure::tokens) fn count_all(bpe: &CoreBPE, texts: &[(String, &str)]) -> Vec<(String, u64)> {
    texts.iter().map(|(k, t)| (k.clone(), bpe.count_ordinary(t) as u64)).collect()
}

fn internal(message: &str) -> crate::error::Error {
    Diagnostic::error(message).into_error(ErrorKind::Internal)
}

/// Build the BPE tables from the embedded vocabulary (the expensive step: ~100 ms).
fn build(encoding: Encoding) -> Result<CoreBPE> {
    let r = match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base(),
        Encoding::P50kBase => tiktoken_rs::p50k_base(),
        Encoding::R50kBase => tiktoken_rs::r50k_base(),
    };
    r.map_err(|e| {
        Diagnostic::error(format!("cannot build the {} tokenizer: {e}", encoding.name()))
            .into_error(ErrorKind::Internal)
    })
}
