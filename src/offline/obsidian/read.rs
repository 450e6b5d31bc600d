//! Reading and parsing many notes at once, on the available cores: a build of 100,000 notes is mostly this.

use std::path::Path;

use crate::offline::obsidian::note::ReadNote;
use crate::offline::obsidian::vault::FileEntry;
use crate::offline::plugin::vault::paths::VaultFolder;

/// How many notes read and parsed may wait for their words to be numbered: bounds what a build holds beyond the
/// index itself (the whole metadata of 100,000 notes is about 700 MB, and the allocator keeps what it once held).
const READ_AHEAD: usize = 256;

/// How many notes a reading thread hands over at once.
const BATCH: usize = 32;

/// Decodes a file as Node's `readFileSync(path, "utf8")` does: invalid UTF-8 becomes U+FFFD.
pub(crate) fn text_of_bytes(bytes: Vec<u8>) -> String {
    if simdutf8::basic::from_utf8(&bytes).is_ok() {
        // SAFETY: just checked to be UTF-8.
        return unsafe { String::from_utf8_unchecked(bytes) };
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Hands memory freed after a bulk parse back to the system: the parse of a large vault leaves the allocator's
/// per-thread arenas holding many times the size of what the index keeps.
pub(crate) fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of glibc's heaps to the system; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Reads and parses notes on the available cores and hands each to `each` on this thread as it is ready (at most
/// [`READ_AHEAD`] wait); unreadable notes and notes outside the vault are skipped.
pub(super) fn read_notes(
    root: &Path,
    files: &[FileEntry],
    wanted: &[usize],
    mut each: impl FnMut(usize, ReadNote),
) {
    let folder = VaultFolder::open(root);
    let read_one = |index: usize| -> Option<(usize, ReadNote)> {
        let file = &files[index];
        if !file.inside {
            return None;
        }
        let bytes = folder.read_verified(&file.path, file.identity).ok()?;
        let text = text_of_bytes(bytes);
        Some((index, ReadNote::parse(&text, file)))
    };
    let workers = workers();
    if wanted.len() < 64 || workers == 1 {
        for (index, read) in wanted.iter().filter_map(|&index| read_one(index)) {
            each(index, read);
        }
        return;
    }
    // Notes travel in batches: one wake-up of this thread per note cost a third of a 100,000-note build in the kernel.
    // Each worker takes the next batch when done with one: fixed halves left one core idle for the last second of a
    // 100,000-note build, the half of bigger notes still parsing.
    let (sender, receiver) = std::sync::mpsc::sync_channel(READ_AHEAD / BATCH);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let (next, read_one) = (&next, &read_one);
            scope.spawn(move || {
                loop {
                    let start = next.fetch_add(BATCH, std::sync::atomic::Ordering::Relaxed);
                    let batch = &wanted[start.min(wanted.len())..(start + BATCH).min(wanted.len())];
                    if batch.is_empty() {
                        return;
                    }
                    let read: Vec<(usize, ReadNote)> =
                        batch.iter().filter_map(|&index| read_one(index)).collect();
                    if sender.send(read).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        for (index, read) in receiver.into_iter().flatten() {
            each(index, read);
        }
    });
}

/// How many threads the bulk work of a build uses.
fn workers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8)
}

/// `(0..count).map(each).collect()`, on the available cores for large counts, in order.
pub(super) fn parallel_map<T: Send>(count: usize, each: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let workers = workers();
    if count < 4096 || workers == 1 {
        return (0..count).map(each).collect();
    }
    let chunk = count.div_ceil(workers);
    let each = &each;
    std::thread::scope(|scope| {
        let parts: Vec<_> = (0..count)
            .step_by(chunk)
            .map(|start| {
                scope.spawn(move || {
                    (start..(start + chunk).min(count))
                        .map(each)
                        .collect::<Vec<T>>()
                })
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|part| part.join().expect("a parallel part panicked"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::text_of_bytes;

    #[test]
    fn bytes_decode_as_node_decodes_them() {
        assert_eq!(text_of_bytes("café 📅 ok".into()), "café 📅 ok");
        // A lone continuation byte, a truncated sequence at the end and an overlong encoding: one U+FFFD for each
        // maximal invalid part, as WHATWG's decoder (Node's) gives.
        assert_eq!(text_of_bytes(b"a\x80b".to_vec()), "a\u{FFFD}b");
        assert_eq!(text_of_bytes(b"ok \xE2\x82".to_vec()), "ok \u{FFFD}");
        assert_eq!(text_of_bytes(b"\xC0\xAFx".to_vec()), "\u{FFFD}\u{FFFD}x");
    }
}
