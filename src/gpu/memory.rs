//! Device buffers from `cuMemAlloc`, freed with `cuMemFree`. cudarc's own allocations come
//! from the device's stream-ordered pool, whose first allocation in a process sets the
//! pool up, many times slower than a `cuMemAlloc`, before the first kernel of every run.
//!
//! Each buffer belongs to one stream and only that stream's work touches it, and a buffer
//! is freed only after its stream has finished; so cudarc's tracking of which stream last
//! used a buffer (events on every allocation and launch) is not needed, and
//! [`untracked`] turns it off.

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use cudarc::driver::{result, CudaContext, CudaSlice, CudaStream, DeviceRepr, DriverError, ValidAsZeroBits};

/// Turns off cudarc's event tracking on `ctx`, whose device memory is all [`Buffer`]s.
pub(super) fn untracked(ctx: &CudaContext) {
    // SAFETY: see the module's doc: no buffer is used by two streams, and none is freed
    // before its stream is done with it.
    unsafe { ctx.disable_event_tracking() }
}

/// `len` values of `T` in device memory, used by the stream that made it.
pub(super) struct Buffer<T> {
    /// Freed by `drop`, not by cudarc.
    slice: ManuallyDrop<CudaSlice<T>>,
}

impl<T: DeviceRepr> Buffer<T> {
    /// `len` zeroed values.
    pub fn zeroed(s: &Arc<CudaStream>, len: usize) -> Result<Buffer<T>, DriverError>
    where
        T: ValidAsZeroBits,
    {
        let mut buffer = Buffer::uninitialized(s, len)?;
        s.memset_zeros(&mut *buffer)?;
        Ok(buffer)
    }

    /// A copy of `host`.
    pub fn copied(s: &Arc<CudaStream>, host: &[T]) -> Result<Buffer<T>, DriverError> {
        let mut buffer = Buffer::uninitialized(s, host.len())?;
        s.memcpy_htod(host, &mut *buffer)?;
        Ok(buffer)
    }

    /// Room for `len` values, left as the device had it: both constructors above fill it.
    fn uninitialized(s: &Arc<CudaStream>, len: usize) -> Result<Buffer<T>, DriverError> {
        s.context().bind_to_thread()?;
        // cuMemAlloc refuses 0 bytes.
        let bytes = len.max(1) * std::mem::size_of::<T>();
        // SAFETY: the context is current; the pointer is freed once, in `drop`.
        let ptr = unsafe { result::malloc_sync(bytes) }?;
        // SAFETY: `ptr` holds at least `len` values of `T`, owned by this buffer alone.
        Ok(Buffer { slice: ManuallyDrop::new(unsafe { s.upgrade_device_ptr(ptr, len) }) })
    }
}

impl<T> Deref for Buffer<T> {
    type Target = CudaSlice<T>;

    fn deref(&self) -> &CudaSlice<T> {
        &self.slice
    }
}

impl<T> DerefMut for Buffer<T> {
    fn deref_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }
}

impl<T> Drop for Buffer<T> {
    /// Waits for the buffer's stream, then frees the memory. A failure here can only come
    /// from a device already in error, which the count has reported.
    fn drop(&mut self) {
        // SAFETY: the slice is not used after this.
        let slice = unsafe { ManuallyDrop::take(&mut self.slice) };
        let stream = slice.stream().clone();
        let ptr = slice.leak();
        let _ = stream.synchronize();
        // SAFETY: `ptr` came from cuMemAlloc in `uninitialized`, and its stream, the only
        // one that used it, has finished.
        let _ = unsafe { result::free_sync(ptr) };
    }
}
