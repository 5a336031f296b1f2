//! Reading a scratch stream on a thread of its own, one item ahead of the
//! work on the item before: the decoding and the disk's waits of a stream
//! read in order overlap the pool's work instead of leaving its threads
//! idle between batches.

use std::sync::mpsc::{self, Receiver};
use std::thread::{self, JoinHandle};

use super::rank_stream::ScratchResult;

/// The items of an iterator made on a thread of its own, up to `ahead`
/// of them waiting besides the one being made. The thread stops after the
/// first error, which it hands on.
pub struct ReadAhead<T> {
    items: Receiver<ScratchResult<T>>,
    thread: Option<JoinHandle<()>>,
}

impl<T: Send + 'static> ReadAhead<T> {
    /// With `ahead` 0 at most two items exist at once: the thread makes
    /// the next one while the last is used, and hands it over when that
    /// one is done.
    pub fn spawn(
        items: impl Iterator<Item = ScratchResult<T>> + Send + 'static,
        ahead: usize,
    ) -> ReadAhead<T> {
        let (sender, receiver) = mpsc::sync_channel(ahead);
        let thread = thread::spawn(move || {
            for item in items {
                let failed = item.is_err();
                // The receiver is gone where the work failed elsewhere.
                if sender.send(item).is_err() || failed {
                    break;
                }
            }
        });
        ReadAhead {
            items: receiver,
            thread: Some(thread),
        }
    }
}

impl<T> Iterator for ReadAhead<T> {
    type Item = ScratchResult<T>;

    fn next(&mut self) -> Option<ScratchResult<T>> {
        let item = self.items.recv().ok();
        if item.is_none()
            && let Some(thread) = self.thread.take()
        {
            thread.join().expect("a reader does not panic");
        }
        item
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::WithPath;

    #[test]
    fn items_come_in_order_and_stop_after_an_error() {
        for ahead in [0, 1, 7] {
            let items: Vec<u32> = ReadAhead::spawn((0..1000).map(Ok), ahead)
                .map(Result::unwrap)
                .collect();
            assert_eq!(items, (0..1000).collect::<Vec<_>>());
        }

        let failing = (0..10).map(|i| match i {
            3 => Err(WithPath::new(
                "scratch/exits.3",
                std::io::Error::other("bad"),
            )),
            i => Ok(i),
        });
        let items: Vec<_> = ReadAhead::spawn(failing, 0).collect();
        assert_eq!(items.len(), 4);
        assert!(items[3].is_err());
        // Dropped before its end, the thread stops.
        let mut ahead = ReadAhead::spawn((0..).map(Ok), 2);
        assert_eq!(ahead.next().unwrap().unwrap(), 0);
        drop(ahead);
    }
}
