//! Reading a scratch stream on a thread of its own, one item ahead of the
//! work on the item before: the decoding and the disk's waits of a stream
//! read in order overlap the pool's work instead of leaving its threads
//! idle between batches. [`overlapped`] does the same on the pool, for a
//! step that reads many streams at once.

use std::sync::mpsc::{self, Receiver};
use std::thread::{self, JoinHandle};

use crate::error::WithPath;

/// An I/O failure on a scratch file, with its path.
pub type ScratchResult<T> = Result<T, WithPath<std::io::Error>>;

/// The items of an iterator made on a thread of its own, up to `ahead`
/// of them waiting besides the one being made. The thread stops after the
/// first error, which it hands on. The iterator runs inside a pool of one
/// thread of its own, so whatever parallel work it does never waits for
/// the build's pool: a thread of that pool that waits for an item (in
/// [`overlapped`]'s `produce`) may hold, lower on its stack, the pool work
/// the item would wait for in turn.
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
            let read = move || {
                for item in items {
                    let failed = item.is_err();
                    // The receiver is gone where the work failed elsewhere.
                    if sender.send(item).is_err() || failed {
                        break;
                    }
                }
            };
            own_pool().install(read)
        });
        ReadAhead {
            items: receiver,
            thread: Some(thread),
        }
    }
}

/// A pool of one thread for a reader's iterator.
fn own_pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(|_| "read-ahead".to_string())
        .build()
        .expect("a reader's thread starts")
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

/// Runs `consume` on each of `count` items in turn while `produce` makes
/// the next one on the pool: two buffers go round between them, so a step
/// that waits (on the disk, on its slowest stream) overlaps the other.
/// `consume` runs on the calling thread. `produce` may wait for a
/// [`ReadAhead`] (which never waits for the pool), but for nothing that
/// needs the pool.
pub fn overlapped<B, EP, EC>(
    count: usize,
    buffers: [B; 2],
    mut produce: impl FnMut(usize, &mut B) -> Result<(), EP> + Send,
    mut consume: impl FnMut(usize, &mut B) -> Result<(), EC>,
) -> Result<(), EC>
where
    B: Send,
    EP: Send,
    EC: From<EP>,
{
    let [mut current, mut next] = buffers;
    if count > 0 {
        produce(0, &mut current)?;
    }
    for i in 0..count {
        let mut produced = Ok(());
        let consumed = rayon::in_place_scope(|scope| {
            if i + 1 < count {
                let (produce, next, produced) = (&mut produce, &mut next, &mut produced);
                scope.spawn(move |_| *produced = produce(i + 1, next));
            }
            consume(i, &mut current)
        });
        consumed?;
        produced?;
        std::mem::swap(&mut current, &mut next);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rayon::prelude::*;

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

    #[test]
    fn readers_that_use_a_pool_finish_while_the_pool_waits_for_them() {
        // Every thread of the global pool waits for a reader whose items are
        // summed in parallel: on the global pool, they would wait for ever.
        let (finished, done) = mpsc::channel();
        thread::spawn(move || {
            rayon::scope(|scope| {
                for _ in 0..rayon::current_num_threads() {
                    scope.spawn(|_| {
                        let sums = (0..3u64).map(|i| {
                            Ok((0..10_000u64).into_par_iter().map(|x| x * i).sum::<u64>())
                        });
                        let sums: Vec<u64> =
                            ReadAhead::spawn(sums, 0).map(Result::unwrap).collect();
                        assert_eq!(sums, [0, 49_995_000, 99_990_000]);
                    });
                }
            });
            finished.send(()).unwrap();
        });
        done.recv_timeout(Duration::from_secs(60))
            .expect("the readers finish without the pool that waits for them");
    }

    #[test]
    fn overlapped_items_are_consumed_in_order_as_made_until_an_error() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        pool.install(|| {
            let mut seen = Vec::new();
            let made = overlapped(
                100,
                [0, 0],
                |i, b: &mut usize| {
                    *b = i * 7;
                    Ok::<_, String>(())
                },
                |i, b| {
                    assert_eq!(*b, i * 7, "item {i} as made");
                    seen.push(i);
                    Ok::<_, String>(())
                },
            );
            assert_eq!(made, Ok(()));
            assert_eq!(seen, (0..100).collect::<Vec<_>>());

            // A failure to make item 3 ends it after item 2; one to consume
            // item 5, at item 5.
            let mut seen = Vec::new();
            let failing = |bad: usize| {
                move |i, _: &mut u8| match i == bad {
                    true => Err(format!("made {i}")),
                    false => Ok(()),
                }
            };
            let made = overlapped(10, [0, 0], failing(3), |i, _| {
                seen.push(i);
                Ok::<_, String>(())
            });
            assert_eq!((made, seen), (Err("made 3".to_string()), vec![0, 1, 2]));
            let consumed = overlapped(10, [0, 0], failing(99), |i, _| match i {
                5 => Err(format!("consumed {i}")),
                _ => Ok(()),
            });
            assert_eq!(consumed, Err("consumed 5".to_string()));
            assert_eq!(
                overlapped(0, [0, 0], failing(0), |_, _| Ok::<_, String>(())),
                Ok(())
            );
        });
    }
}
