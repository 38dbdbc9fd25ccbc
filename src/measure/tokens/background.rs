//! Counting on a thread of its own while the caller goes on compiling and preparing: the
//! matrix report's pipeline. Tokenising is most of a cold report's work and cannot be split
//! across threads (see `Counter::prime_keyed`), so one thread counts while the other makes the
//! next texts to count.
//!
//! The caller submits texts (each distinct text once, keyed as in the cache) and gets a
//! ticket; counts come back in submission order, and [`Background::wait`] folds them into the
//! counters up to a ticket, so everything before it can be looked up as usual.

use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::Arc;

use super::engine::{count_all, Engine};
use super::Counters;
use crate::diagnostic::Diagnostic;
use crate::error::{ErrorKind, Result};
use crate::hash::sha256_hex;
use crate::model::tokenizer::{Encoding, Tokenizer};

/// Texts to count with one encoding.
struct Batch {
    seq: u64,
    encoding: Encoding,
    engine: Arc<Engine>,
    texts: Vec<(String, String)>,
}

/// A batch's counts.
struct Counted {
    seq: u64,
    encoding: Encoding,
    counts: Result<Vec<(String, u64)>>,
}

/// The caller's side of a counting thread (see [`Counters::with_background`]).
pub(crate) struct Background {
    /// `None` when no thread could be started: batches are counted as they are submitted.
    tx: Option<Sender<Batch>>,
    rx: Receiver<Counted>,
    sent: u64,
    done: u64,
}

impl Counters {
    /// Run `f` with a counting thread beside it: texts `f` submits are counted there while `f`
    /// goes on. Whatever `f` returns, the thread has stopped when this returns.
    pub(crate) fn with_background<R>(
        &mut self,
        f: impl FnOnce(&mut Counters, &mut Background) -> Result<R>,
    ) -> Result<R> {
        let (tx, batches) = channel::<Batch>();
        let (done_tx, rx) = channel::<Counted>();
        std::thread::scope(|scope| {
            let worker = std::thread::Builder::new().name("counting".into()).spawn_scoped(scope, move || {
                for b in batches {
                    let counts = count_batch(&b);
                    if done_tx.send(Counted { seq: b.seq, encoding: b.encoding, counts }).is_err() {
                        break;
                    }
                }
            });
            let mut bg = Background { tx: worker.is_ok().then_some(tx), rx, sent: 0, done: 0 };
            let out = f(self, &mut bg);
            // Closing the channel ends the thread; the scope joins it.
            bg.tx = None;
            out
        })
    }
}

/// Count a batch; a panic in the tokenizer is an error, not the end of the process.
fn count_batch(b: &Batch) -> Result<Vec<(String, u64)>> {
    let texts: Vec<(String, &str)> = b.texts.iter().map(|(k, t)| (k.clone(), t.as_str())).collect();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| b.engine.get().map(|bpe| count_all(bpe, &texts))))
        .unwrap_or_else(|_| Err(internal("the counting thread failed")))
}

fn internal(message: &str) -> crate::error::Error {
    Diagnostic::error(message).into_error(ErrorKind::Internal)
}

impl Background {
    /// Hand `texts` to the counting thread (those `counters` does not know yet, each once).
    /// Returns the ticket to [`wait`](Background::wait) for before looking any of them up.
    pub(crate) fn submit(&mut self, counters: &mut Counters, tokenizer: &Tokenizer, texts: &[&str]) -> Result<u64> {
        let encoding = tokenizer.encoding();
        let counter = counters.counter(encoding);
        let keyed = texts.iter().filter(|t| !t.is_empty()).map(|t| (sha256_hex(t.as_bytes()), *t)).collect();
        let mut todo = counter.unknown(keyed);
        todo.retain(|(k, _)| !counter.queued.contains(k));
        if todo.is_empty() {
            return Ok(self.sent);
        }
        let Some(tx) = &self.tx else {
            let counted = count_all(counter.engine.get()?, &todo);
            counter.store(counted);
            return Ok(self.sent);
        };
        for (k, _) in &todo {
            counter.queued.insert(k.clone());
        }
        self.sent += 1;
        let texts = todo.into_iter().map(|(k, t)| (k, t.to_string())).collect();
        let batch = Batch { seq: self.sent, encoding, engine: Arc::clone(&counter.engine), texts };
        tx.send(batch).map_err(|_| internal("the counting thread stopped"))?;
        Ok(self.sent)
    }

    /// Fold counts that have come back into `counters`, up to `ticket`. With `block`, wait for
    /// them; without, take what is there. Returns whether everything up to `ticket` is in.
    pub(crate) fn wait(&mut self, counters: &mut Counters, ticket: u64, block: bool) -> Result<bool> {
        while self.done < ticket {
            let counted = if block {
                self.rx.recv().map_err(|_| internal("the counting thread stopped"))?
            } else {
                match self.rx.try_recv() {
                    Ok(c) => c,
                    Err(TryRecvError::Empty) => return Ok(false),
                    Err(TryRecvError::Disconnected) => return Err(internal("the counting thread stopped")),
                }
            };
            self.done = counted.seq;
            counters.counter(counted.encoding).store(counted.counts?);
        }
        Ok(true)
    }
}
