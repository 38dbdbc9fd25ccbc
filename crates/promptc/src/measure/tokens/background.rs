//! Counting on a thread of its own while the caller goes on compiling and preparing: the
//! matrix report's pipeline. Tokenising is most of a cold report's work.
//!
//! The caller submits texts (each distinct text once, keyed as in the cache) and gets a
//! ticket; [`Background::wait`] folds counts into the counters up to a ticket, so everything
//! submitted before it can be looked up as usual. A caller that would wait counts queued
//! batches itself instead, with a tokenizer of its own: threads sharing one tokenizer contend
//! on its regex's scratch pool (see `Counter::prime_keyed`), two tokenizers do not.

use std::collections::{BTreeSet, VecDeque};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};

use super::engine::Engine;
use super::Counters;
use crate::diagnostic::Diagnostic;
use crate::error::{ErrorKind, Result};
use crate::hash::sha256_hex;
use crate::model::tokenizer::{Encoding, Tokenizer};

/// Queued text below which a waiting caller does not build a tokenizer of its own to help:
/// building one takes about as long as counting this much.
const HELP_FROM_BYTES: usize = 4 << 20;

/// Text per batch, about: small enough for a waiting caller to share a large submission with
/// the counting thread, large enough that handing batches over costs nothing measurable.
const BATCH_BYTES: usize = 256 << 10;

/// Texts to count with one encoding.
struct Batch {
    seq: u64,
    encoding: Encoding,
    engine: Arc<Engine>,
    texts: Vec<(String, String)>,
}

impl Batch {
    fn bytes(&self) -> usize {
        self.texts.iter().map(|(_, t)| t.len()).sum()
    }
}

/// A batch's counts.
struct Counted {
    seq: u64,
    encoding: Encoding,
    counts: Result<Vec<(String, u64)>>,
}

/// Batches not yet taken, shared by the counting thread and the caller.
#[derive(Default)]
struct Queue {
    state: Mutex<Pending>,
    ready: Condvar,
}

#[derive(Default)]
struct Pending {
    batches: VecDeque<Batch>,
    bytes: usize,
    /// No more batches will come: the counting thread stops once the queue is empty.
    closed: bool,
}

impl Queue {
    fn push(&self, b: Batch) -> Result<()> {
        let mut s = self.state.lock().map_err(|_| internal("the counting queue failed"))?;
        s.bytes += b.bytes();
        s.batches.push_back(b);
        self.ready.notify_one();
        Ok(())
    }

    /// The oldest batch, if at least `min_bytes` of text is queued.
    fn take(&self, min_bytes: usize) -> Option<Batch> {
        let mut s = self.state.lock().ok()?;
        if s.bytes < min_bytes {
            return None;
        }
        let b = s.batches.pop_front()?;
        s.bytes -= b.bytes();
        Some(b)
    }

    /// The counting thread's next batch: waits for one; `None` once closed and empty.
    fn next(&self) -> Option<Batch> {
        let mut s = self.state.lock().ok()?;
        loop {
            if let Some(b) = s.batches.pop_front() {
                s.bytes -= b.bytes();
                return Some(b);
            }
            if s.closed {
                return None;
            }
            s = self.ready.wait(s).ok()?;
        }
    }

    /// No more batches: the counting thread stops, dropping what is still queued (nobody
    /// waits for it any more).
    fn close(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.closed = true;
            s.batches.clear();
            s.bytes = 0;
        }
        self.ready.notify_all();
    }
}

/// Closes its queue when dropped.
struct Closing<'q>(&'q Queue);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The caller's side of a counting thread (see [`Counters::with_background`]).
pub(crate) struct Background {
    /// `None` when no thread could be started: batches are counted as they are submitted.
    queue: Option<Arc<Queue>>,
    rx: Receiver<Counted>,
    sent: u64,
    /// Every batch up to this one is counted and folded in.
    done: u64,
    /// Batches past `done` counted and folded in.
    finished: BTreeSet<u64>,
}

impl Counters {
    /// Run `f` with a counting thread beside it: texts `f` submits are counted there while `f`
    /// goes on. Whatever `f` returns, the thread has stopped when this returns.
    pub(crate) fn with_background<R>(
        &mut self,
        f: impl FnOnce(&mut Counters, &mut Background) -> Result<R>,
    ) -> Result<R> {
        let queue = Arc::new(Queue::default());
        let (done_tx, rx) = channel::<Counted>();
        std::thread::scope(|scope| {
            let theirs = Arc::clone(&queue);
            let worker = std::thread::Builder::new()
                .name("counting".into())
                .spawn_scoped(scope, move || count_queued(&theirs, &done_tx));
            // Closed however `f` ends, a panic included: the scope joins the thread, which
            // would otherwise wait for batches forever.
            let _closing = Closing(&queue);
            let queue = worker.is_ok().then(|| Arc::clone(&queue));
            let mut bg = Background { queue, rx, sent: 0, done: 0, finished: BTreeSet::new() };
            f(self, &mut bg)
        })
    }
}

/// The counting thread: count queued batches until the queue closes.
fn count_queued(queue: &Queue, done: &Sender<Counted>) {
    while let Some(b) = queue.next() {
        let counts = count_batch(&b, &b.engine);
        if done.send(Counted { seq: b.seq, encoding: b.encoding, counts }).is_err() {
            break;
        }
    }
}

/// Count a batch; a panic in the tokenizer is an error, not the end of the process.
fn count_batch(b: &Batch, engine: &Engine) -> Result<Vec<(String, u64)>> {
    let texts: Vec<(String, &str)> = b.texts.iter().map(|(k, t)| (k.clone(), t.as_str())).collect();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| engine.count_all(&texts)))
        .unwrap_or_else(|_| Err(internal("counting failed")))
}

/// Each non-empty text of `texts` with its cache key.
pub(crate) fn keyed<'t>(texts: &[&'t str]) -> Vec<(String, &'t str)> {
    texts.iter().filter(|t| !t.is_empty()).map(|t| (key_of(t), *t)).collect()
}

/// The cache key of `text`: its SHA-256, as the disk cache keys it.
pub(crate) fn key_of(text: &str) -> String {
    sha256_hex(text.as_bytes())
}

fn internal(message: &str) -> crate::error::Error {
    Diagnostic::error(message).into_error(ErrorKind::Internal)
}

impl Background {
    /// Hand `texts` to the counting thread (those `counters` does not know yet, each once).
    /// Returns the ticket to [`wait`](Background::wait) for before looking any of them up.
    pub(crate) fn submit(&mut self, counters: &mut Counters, tokenizer: &Tokenizer, texts: &[&str]) -> Result<u64> {
        self.submit_keyed(counters, tokenizer.encoding(), keyed(texts))
    }

    /// [`submit`](Background::submit) with each text's cache key already made (see [`keyed`]),
    /// so texts submitted for several encodings are hashed once.
    pub(crate) fn submit_keyed(
        &mut self,
        counters: &mut Counters,
        encoding: Encoding,
        keyed: Vec<(String, &str)>,
    ) -> Result<u64> {
        let counter = counters.counter(encoding);
        let mut todo = counter.unknown(keyed);
        todo.retain(|(k, _)| !counter.queued.contains(k));
        if todo.is_empty() {
            return Ok(self.sent);
        }
        let Some(queue) = &self.queue else {
            let counted = counter.engine.count_all(&todo)?;
            counter.store(counted);
            return Ok(self.sent);
        };
        // Batches of about BATCH_BYTES, so a caller that would wait can take some of them.
        let mut texts = Vec::new();
        let mut bytes = 0;
        let last = todo.len() - 1;
        for (i, (k, t)) in todo.into_iter().enumerate() {
            counter.queued.insert(k.clone());
            bytes += t.len();
            texts.push((k, t.to_string()));
            if bytes >= BATCH_BYTES || i == last {
                self.sent += 1;
                let engine = Arc::clone(&counter.engine);
                queue.push(Batch { seq: self.sent, encoding, engine, texts: std::mem::take(&mut texts) })?;
                bytes = 0;
            }
        }
        Ok(self.sent)
    }

    /// Fold counts that have come back into `counters`, up to `ticket`. With `block`, wait for
    /// them — counting queued batches meanwhile; without, take what is there. Returns whether
    /// everything up to `ticket` is in.
    pub(crate) fn wait(&mut self, counters: &mut Counters, ticket: u64, block: bool) -> Result<bool> {
        loop {
            loop {
                match self.rx.try_recv() {
                    Ok(c) => self.fold(counters, c)?,
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) if self.done >= ticket => break,
                    Err(TryRecvError::Disconnected) => return Err(internal("the counting thread stopped")),
                }
            }
            if self.done >= ticket {
                return Ok(true);
            }
            if !block {
                return Ok(false);
            }
            if !self.help(counters)? {
                let c = self.rx.recv().map_err(|_| internal("the counting thread stopped"))?;
                self.fold(counters, c)?;
            }
        }
    }

    /// Count one queued batch on this thread, with this thread's own tokenizer, if there is
    /// enough queued to be worth it. Returns whether it did.
    fn help(&mut self, counters: &mut Counters) -> Result<bool> {
        let Some(queue) = &self.queue else { return Ok(false) };
        let min = if counters.helping() { 0 } else { HELP_FROM_BYTES };
        let Some(b) = queue.take(min) else { return Ok(false) };
        let counts = count_batch(&b, &counters.counter(b.encoding).helper);
        self.fold(counters, Counted { seq: b.seq, encoding: b.encoding, counts })?;
        Ok(true)
    }

    /// Fold one batch's counts into `counters`.
    fn fold(&mut self, counters: &mut Counters, c: Counted) -> Result<()> {
        counters.counter(c.encoding).store(c.counts?);
        self.finished.insert(c.seq);
        while self.finished.remove(&(self.done + 1)) {
            self.done += 1;
        }
        Ok(())
    }
}
