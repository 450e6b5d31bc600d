//! One lock-poisoning policy for the whole binary: a `std::sync::Mutex` whose holder panicked is taken over as it is.
//! Every value behind one here is replaced whole or changed in one step (a state, a table entry, a counter, the
//! index), so a panic cannot leave it half-written; and the bridge catches each call's panic, so refusing every later
//! call because one call panicked while holding a lock would turn one bad answer into a dead bridge.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks `mutex`, taking it over when a panicking holder poisoned it.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Read-locks `lock` under the same policy as [`lock`].
pub(crate) fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// Write-locks `lock` under the same policy as [`lock`].
pub(crate) fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}
